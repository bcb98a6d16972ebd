/* The DG kernel generator: checked flux-language ASTs plus a reference
 * element and a kernel configuration in, kernel source text out (CUDA C for
 * NVRTC, or C with OpenMP-free loops for the cpu backend).  Nothing here
 * launches anything (DESIGN.md: operators/ emits source text).
 *
 * One right-hand-side evaluation of du/dt = V(u) + LIFT*Fscale*(f* - f(u-))
 * (Hesthaven & Warburton 2008, strong form) is two kernels:
 *   dg_surface  per face node: traces u- (and u+ or the boundary state),
 *               fl = Fscale * (numerical flux - surface form of V at u-)
 *   dg_volume   per volume node: pointwise flux functions g(u) of every
 *               derivative term, D_r/D_s/D_t applied with the geometric
 *               factors, the remaining pointwise terms, sources, + LIFT*fl;
 *               optionally fused with the LSERK stage update
 * and one update kernel per scheme (dg_update_lserk, dg_update_ssp), and
 * dg_initial, the initial condition at every node straight into the device
 * layout (no host evaluation: time to first step).  A physics with
 * second-order terms (ngrad > 0) has a first pass before them:
 *   dg_gradient per volume node: the LDG lifted gradients Q of its
 *               gradients g_j(u) (operators/gen_gradient.c), which the
 *               volume terms then read at nodes and the fluxes as traces.
 *
 * Device data layout (built by dg/opdata.h for the same configuration):
 *   state    q[base(k,i) + c*cstride], base/cstride from the field layout:
 *              field-major   base = k*NP_PAD + i,        cstride = K*NP_PAD
 *              element-major base = k*NC*NP_PAD + i,     cstride = NP_PAD
 *   fl       fl[(c*K + k)*NFNFP + m], m = f*NFP + j (face f, face node j)
 *   egeo     egeo[k*NGEO + g]: dr/dx, dr/dy, (dr/dz), ds/dx, ..., J (affine)
 *   fgeo     fgeo[(k*NFACES + f)*(DIM+1) + d]: n_0..n_{DIM-1}, Fscale, once per
 *            face (affine elements; dg/face_geometry.h builds it from opdata)
 *   mapM/P   int32 base(k,i) of the interior / exterior volume node
 *   fbc      int32 per face k*NFACES+f: -1 (neighbour) or boundary index
 *   fx       fx[(k*NFNFP + m)*DIM + d] face-node coordinates (if used)
 *   vx       vx[(d*K + k)*NP_PAD + i] volume-node coordinates (if used)
 *   cf       cf[(c*K + k)*NP_PAD + i] coefficient c at volume node (k, i)
 *            (physics with coefficients; owned elements, ghost slots zero)
 *   fcf      fcf[((k*NFNFP + m)*NCF + c)*2 + s] coefficient c's trace at face
 *            node m: s = 0 interior, 1 exterior (the neighbour's value, across
 *            ranks too; on a boundary face the interior value again)
 *   Qg       Qg[(c*K + k)*NP_PAD + i], c = j*DIM + d: d/dx_d of gradient j at
 *            volume node (k, i) (field-major, as the state must then be, so
 *            mapM / mapP serve its traces; ghost slots by their own exchange)
 *
 * Kernel arguments (args[i] points at the value, both backends):
 *   dg_surface (q, fl, mapM, mapP, fbc, fgeo, fx, t, K)
 *   dg_volume  (q, rhs, fl, egeo, vx, t, K, res, rk_a, rk_b, dt,
 *               q_out, mapM, mapP, fbc, fgeo, fx)   (the last six: fuse_surface)
 *   dg_update_lserk (q, res, rhs, rk_a, rk_b, dt, n):  res = a*res + dt*rhs; q += b*res
 *   dg_update_ssp   (q, q0, rhs, alpha, beta, dt, n):  q = alpha*q0 + beta*(q + dt*rhs)
 *   dg_initial      (q, vx, t, K, K_owned):  q = initial state at the volume nodes of
 *                   elements [0, K_owned) (cuda: one thread per node, K_owned*NP
 *                   threads; padding entries and ghost slots left alone)
 * with pointers to real, t/rk_a/rk_b/dt/alpha/beta real, K and n long long.
 * A physics with coefficients (ncoef > 0) appends fcf to dg_surface's
 * arguments and cf, fcf to dg_volume's (range launches offset cf like vx,
 * fcf like fx); without them the arguments and kernels are as above.  A
 * physics with second-order terms appends fcf, Qg to dg_surface's and cf,
 * fcf, Qg to dg_volume's (Qg offset like cf), and has
 *   dg_gradient (q, Qg, mapM, mapP, fbc, fgeo, fx, egeo, t, K, fcf)
 *               over elements [0, K_owned) (cuda: NP x GEPB threads a block,
 *               dg_codegen_gradient_* below).
 * A fused dg_volume (config.fuse_update) skips rhs and applies the LSERK
 * update to q and res itself..
 *
 * Curved elements (issue 40; dg_element_ops.curved, a module of its own):
 *   dg_surface_curved (q, fl, mapM, mapP, fbc, fgeo, fx, t, K, fcf, Qg, KC)
 *   dg_volume_curved  (the 20 arguments of dg_volume with cf, fcf, Qg, then KC)
 * over elements [0, KC) (the curved ones come first, dg/opdata.h), with
 * egeo = cgeo, per node (k*NGEO + g)*NP + i: Ja_ad = J dr_a/dx_d at
 * g = a*DIM + d, 1/J at g = DIM*DIM; fgeo = cfgeo, per face node (k*NFNFP + m)*
 * (DIM+1) + d: n, sJ (the volume kernel scales the lift by 1/J at its
 * node).  Divergences in conservative form (1/J) sum_a
 * D_a (sum_d Ja_ad F_d), other partials by the chain rule with Ja/J
 * (dg/opdata_curved.c says why); cuda node-per-thread work modes only,
 * nodal basis, first-order terms.  With fuse_surface (cuda) dg_volume_curved
 * computes the face fluxes of its elements itself, with the same per-node
 * normal and sJ and the same 1/J on the lift, and the solver does not launch
 * dg_surface_curved.  A mesh without curved elements never generates this
 * module: its kernels are those above. */
#ifndef DG_OPERATORS_CODEGEN_H
#define DG_OPERATORS_CODEGEN_H

#include <stdint.h>

#include "core/error.h"
#include "operators/flux_ast.h"

typedef enum { DG_CODEGEN_CUDA = 0, DG_CODEGEN_C = 1 } dg_codegen_target;
typedef enum { DG_MATRIX_GLOBAL = 0, DG_MATRIX_CONSTANT = 1, DG_MATRIX_SHARED = 2 } dg_matrix_place;
typedef enum { DG_LAYOUT_FIELD_MAJOR = 0, DG_LAYOUT_ELEMENT_MAJOR = 1 } dg_field_layout;
/* How a cuda dg_volume thread covers work_per_thread elements (the seed
 * paper's loop slicing): parallel = one element per thread (W = 1);
 * sequence = W passes over EPB elements each, one after the other (block
 * set-up and shared matrices amortised); inline = W elements at once, each
 * matrix entry loaded once and applied to W register sets; gemm = one
 * element per thread for the pointwise work, the derivative and lifting
 * products of the block done as a small matrix product (several rows of one
 * output column per thread). */
typedef enum {
  DG_WORK_PARALLEL = 0,
  DG_WORK_SEQUENCE = 1,
  DG_WORK_INLINE = 2,
  DG_WORK_GEMM = 3, /* the block's products as one matrix product, rows per thread
                       (operators/gen_volume_gemm.c); work_per_thread 1, no prefetch */
  DG_WORK_MMA = 4   /* gemm with the products on the fp64 tensor cores (DMMA
                       m8n8k4): double, elements_per_block a multiple of 8,
                       global matrices */
} dg_work_mode;
enum { DG_WORK_MODES = 5 };

/* The tuning knobs (DESIGN.md: loop slicing and memory layout). */
typedef struct dg_kernel_config {
  int elements_per_block;   /* cuda dg_volume: elements per thread block (>= 1) */
  int face_threads;         /* cuda dg_surface / update: threads per block (32..1024) */
  dg_matrix_place matrices; /* where D and LIFT live on the GPU */
  int np_align;             /* element stride NP_PAD = Np rounded up to a multiple */
  dg_field_layout layout;   /* state field interleaving */
  int fuse_update;          /* dg_volume applies the LSERK update itself */
  int cpu_chunk;            /* cpu backend: elements per chunk (<= 0: automatic) */
  dg_work_mode work_mode;   /* cuda dg_volume loop slicing, see dg_work_mode */
  int work_per_thread;      /* elements per thread W (1 for parallel, 1..8) */
  int prefetch;             /* cuda dg_volume: stage the block's state and face fluxes
                               in shared memory with coalesced loads first */
  int fuse_surface;         /* cuda: dg_volume computes its elements' face fluxes into
                               shared memory itself (no dg_surface, no fl round trip);
                               with fuse_update it reads q and writes q_out */
  int unroll;               /* cuda dg_volume (node-per-thread modes): unroll factor of
                               the derivative and lifting loops over j (1, 2, 4, 8); more
                               loads in flight against more registers per thread */
  int vector_loads;         /* cuda dg_volume (node-per-thread modes): flux quantities in
                               shared memory node-major, [slot][node][g] padded, read as
                               pairs: half the shared-load instructions of the products */
  int gather_ahead;         /* cuda dg_volume with fuse_surface: a thread loads the traces
                               of all its face nodes before computing any face flux */
  int mma_rows;             /* cuda dg_volume, work_mode mma: rows of a tensor-core tile,
                               8 (m8n8k4) or 16 (m16n8k4: each source fragment serves 16
                               rows, against more padding when Np is not a multiple) */
  int mma_pairs;            /* cuda dg_volume, work_mode mma: the sources on the A side
                               of the 16-row tensor tile, two of one matrix side by side
                               (8 elements each), the operator on the B side in 8-row
                               tiles: the 16-row steps' rate with 8-row padding (needs
                               mma_rows 8) */
  int volume_passes;        /* cuda dg_volume, work_mode gemm or mma: the block has
                               NP x EPB / volume_passes threads and its per-node phases
                               take that many passes (1, 2 or 4; EPB a multiple): fewer
                               threads, more registers each, more blocks per SM */
  int volume_warps;         /* cuda dg_volume, work_mode gemm or mma, volume_passes 1: 0,
                               or the block is this many warps whatever NP x EPB is, its
                               per-node phases ceil(NP x EPB / threads) passes, the last
                               partly idle (a block size the register file holds one
                               more of: fp64 N = 6 has 336 threads a pass pair) */
  int l2_prefetch;          /* cuda dg_volume, work_mode gemm or mma: at its start every
                               thread asks L2 for the lines of its node's state (and with
                               fuse_update its residual), which phases C and E read after
                               the face fluxes and the products */
  int early_residual;       /* cuda dg_volume, work_mode gemm or mma with fuse_update, one
                               pass: each thread loads its node's residual before the
                               barrier ahead of phase E (after the products' results are
                               stored), so the load's latency overlaps the wait */
  int basis;               /* what the state holds per element: 0 nodal values, 1
                               Bernstein-Bezier coefficients (dg/bernstein.h; affine
                               physics only, operators/flux_affine.h): the same solution,
                               with sparse derivatives that work_mode gemm and mma apply as
                               degree-(N-1) differences and one degree elevation */
  int stage_state;          /* cuda dg_volume, basis bernstein, work_mode gemm or mma: shared
                               memory holds the block's state instead of its flux
                               quantities, and level 1 evaluates the (affine) flux functions
                               on the state's differences (Maxwell: 6 arrays instead of 18) */
  int stream_update;        /* cuda dg_volume, work_mode gemm or mma with fuse_update: the
                               residual and the new state loaded and stored evict-first,
                               and with fuse_surface the state read through the read-only
                               path, so L2 keeps the state for the neighbours' gathers */
  int local_traces;         /* cuda dg_volume with stage_state and fuse_surface: the state
                               is staged before the face fluxes, which read the element's
                               traces, and those of neighbours in the block, from shared
                               memory */
  int strided_k;            /* cuda dg_volume, work_mode mma: the k-steps of each whole
                               block of 4 KW source rows take rows KW apart (bank-conflict
                               free fragment loads, operators/gen_gemm_plan.c) */
  int overlay_state;        /* cuda dg_volume, work_mode mma with stage_state and
                               fuse_surface, not local_traces: level 1 runs before the face
                               fluxes, which then overlay the staged state in shared
                               memory (less shared memory a block, and no level-1 values
                               held in registers across the products) */
  int compact_smem;         /* cuda dg_volume with overlay_state: the face fluxes as
                               [component][element][face node] rows of a bank-conflict-free
                               stride and level 1's results as [element][derivative][point],
                               unpadded (a smaller block: one that fits beside more L1) */
  int sparse_lift;          /* cuda dg_volume, work_mode mma with basis bernstein: the lift's
                               node rows and face-flux columns reordered so that many
                               tensor-core steps are all zero, and those steps left out
                               (operators/tile_order.c) */
  int mma_unroll;           /* cuda dg_volume, work_mode mma: the k-step loops of the
                               tensor-core products fully unrolled (0: unrolled by 2), so
                               the fragment loads of later k-steps issue early (more code,
                               and registers: it spills some fp64 kernels) */
  int batch_residual;       /* dg_volume with fuse_update: the node's whole residual is
                               loaded before the first of its stores (a store to res may
                               alias a later field's load, so otherwise each load waits
                               behind the previous field's stores: one memory round trip
                               a field); off keeps the loads interleaved, fewer registers */
  int mma_extra_blocks;     /* cuda dg_volume, work_mode mma: resident blocks per
                               multiprocessor asked of the compiler beyond the generator's
                               estimate (the __launch_bounds__ minimum, 0..4): more blocks
                               to overlap the phases, fewer registers a thread */
} dg_kernel_config;

/* The generator version (part of kernel-cache and tuning-database keys). */
int dg_codegen_version(void);
/* Knob names for messages, tables and the tuning database. */
const char *dg_matrix_place_name(dg_matrix_place p);
const char *dg_work_mode_name(dg_work_mode m);
const char *dg_field_layout_name(dg_field_layout l);

/* The defaults a run uses before tuning, and their check: both derived from
 * the knob table (operators/kernel_knobs.c), as is everything below on
 * configurations. */
dg_kernel_config dg_kernel_config_default(void);
/* DG_ERR_INPUT naming the bad knob. */
dg_error dg_kernel_config_check(const dg_kernel_config *c, int Np);
/* The cuda dg_volume block: NP x elements_per_block threads (over
 * volume_passes for work_mode gemm and mma), or with volume_warps that many
 * warps in x; its threads and the passes of its per-node phases. */
void dg_kernel_config_volume_block(const dg_kernel_config *c, int Np, unsigned block[2]);
int dg_kernel_config_volume_threads(const dg_kernel_config *c, int Np);
int dg_kernel_config_volume_npass(const dg_kernel_config *c, int Np);

/* The physics, resolved from a checked flux program. */
typedef struct dg_physics {
  int nfields;
  const int *field_offset;  /* first flattened component of each field */
  const int *field_size;    /* components of each field */
  int ncomp;                /* total components */
  const dg_flux_node *const *rhs;     /* per field: volume term V */
  const dg_flux_node *const *flux;    /* per field: numerical flux */
  const dg_flux_node *const *surface; /* per field: surface form of V */
  const dg_flux_node *const *source;  /* per field, entries may be NULL; array may be NULL */
  const dg_flux_node *const *initial; /* per field initial condition (x, t, params); array
                                         may be NULL: no dg_initial kernel */
  int nboundaries;
  const dg_flux_node *const *bc_ext;  /* [b*nfields + f]: exterior state of field f */
  const unsigned char *bc_used;       /* per boundary condition: nonzero when a mesh face
                                         uses it; NULL: all.  Only the affine check reads
                                         it (an unused condition's code is never run) */
  const dg_flux_node *const *lets;
  int nlets;
  const double *params;
  int nparams;
  int ncoef;                /* coefficients (DG_FLUX_COEF refs < ncoef); 0: none, and the
                               kernels are those of a program without the statement */
  /* Second-order terms (ngrad > 0): the scalars whose gradients are lifted
   * first (dg_gradient), grad_arg[j] of side-NONE fields; bc_grad[b*ngrad + j]
   * the exterior gradient (a DIM-vector) on boundary b; ldg_beta the LDG
   * switch's magnitude.  0: none, and the kernels are those of before. */
  int ngrad;
  const dg_flux_node *const *grad_arg;
  const dg_flux_node *const *bc_grad;
  double ldg_beta;
} dg_physics;

/* The element: sizes and the operator matrices (row-major, see dg/refelem.h). */
typedef struct dg_element_ops {
  int dim, N, Np, Nfp, Nfaces;
  const double *Dr, *Ds, *Dt; /* Np x Np (NULL beyond dim) */
  const double *LIFT;         /* Np x Nfaces*Nfp */
  const int *Fmask;           /* Nfaces*Nfp: the volume node of each face node */
  int bernstein;              /* the matrices act on Bernstein-Bezier coefficients (node
                                 p's coefficient belongs to its lattice point, see
                                 dg/bernstein.h); must match dg_kernel_config.basis */
  int curved;                 /* 0: the affine module.  1: the module of the curved
                                 elements, dg_surface_curved and dg_volume_curved only,
                                 with per-node metric terms (see "Curved elements" above) */
} dg_element_ops;

/* The element operators of a reference element (pointers into re, which
 * must outlive the result). */
struct dg_refelem;
dg_element_ops dg_element_ops_of(const struct dg_refelem *re);
/* The same element's operators on Bernstein-Bezier coefficients (pointers
 * into re and bb, which must outlive the result). */
struct dg_bernstein;
dg_element_ops dg_element_ops_of_bernstein(const struct dg_refelem *re,
                                           const struct dg_bernstein *bb);

typedef struct dg_generated {
  char *source;           /* the whole module, readable */
  int np_pad;             /* element stride used */
  int ngeo;               /* egeo entries per element */
  int nderiv;             /* differentiated scalar quantities in dg_volume */
  int nproducts;          /* Np x Np matrix applications of dg_volume per element
                             (cuda: one per contravariant divergence source, DIM
                             per other differentiated scalar; c: DIM per scalar) */
  double sparse_flops;    /* cuda gemm/mma on Bernstein-Bezier coefficients: flops per
                             element of the sparse derivatives (level-1 differences and the
                             degree elevation), which replace nproducts' dense ones */
  int uses_face_x;        /* dg_surface reads fx */
  int uses_volume_x;      /* dg_volume reads vx */
  unsigned volume_shared_bytes; /* cuda: dynamic shared memory of dg_volume */
  int has_initial;        /* the module has dg_initial */
} dg_generated;

/* Generate the module.  precision_float selects float reals. */
dg_error dg_codegen_generate(dg_codegen_target target, const dg_element_ops *el,
                             const dg_physics *ph, int precision_float,
                             const dg_kernel_config *cfg, dg_generated *out);
void dg_generated_free(dg_generated *g);

/* Second-order terms: dg_gradient's cuda block is NP x this many elements
 * (GEPB), from the surface kernel's threads a block (at most 256 threads,
 * or NP: so the tuner's face_threads sizes both), with this much dynamic shared
 * memory for GEPB elements (operators/gen_gradient.c). */
int dg_codegen_gradient_elements_per_block(int Np, int face_threads);
/* 1: the staged values node-major, read two at a time (cuda, ngrad >= 2;
 * on the H200, NS 3D N = 3: 0.626 ms against 0.666 with the volume kernel's
 * layout, under every volume variant timed). */
int dg_codegen_gradient_pairs(dg_codegen_target tg, const dg_physics *ph);
unsigned dg_codegen_gradient_shared_bytes(const dg_element_ops *el, const dg_physics *ph,
                                          int is_float, int gepb, int pairs);

#endif
