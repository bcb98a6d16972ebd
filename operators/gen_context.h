/* The shared emit context of the kernel generator: what every kernel family
 * (gen_surface.c, gen_volume_node.c, gen_volume_gemm.c with its planner,
 * gen_update.c, gen_initial.c) may use, and the only thing they share: the
 * derivative table, the expression context and its leaves, global loads,
 * the cuda dg_volume signature, the flux quantities g(u), the rhs store
 * (gen_context.c) and the face fluxes of one face node or of a block's
 * elements (gen_face_flux.c).  No family file includes another family's
 * header; codegen.c dispatches to them.  Not a public API. */
#ifndef DG_OPERATORS_GEN_CONTEXT_H
#define DG_OPERATORS_GEN_CONTEXT_H

#include <stddef.h>

#include "core/strbuf.h"
#include "operators/codegen.h"
#include "operators/emit_expr.h"

enum { MAX_DERIVS = 256 };

/* One distinct derivative term D(g) of the volume terms. */
typedef struct {
  const dg_flux_node *node;
  int gbase; /* first differentiated scalar of g */
  int div;   /* a divergence (vector of DIM, or matrix with DIM columns) */
  int curl;  /* a 3D curl of a 3-vector taken as the divergences of its 3 rows
                (curl g)_a = div(F_a), F_a[b] = eps_abc g_c (div set, rows 3;
                cuda gemm / mma only, see deriv_table.curl_as_div) */
  int rows;  /* divergence: rows of g (1 for a vector; 3 for a curl) */
  int dbase; /* divergence: first accumulator DV[] */
} deriv_entry;

typedef struct {
  deriv_entry d[MAX_DERIVS];
  int n;
  int ng; /* differentiated scalars in all */
  int nd; /* divergence accumulators in all */
  int dim;
  /* Why: a curl taken as 9 partial derivatives needs 9 accumulators per
   * 3-vector, a curl as 3 divergence rows needs 3 (the same products, on 3x
   * the sources).  The matrix-product kernels keep every accumulator of a
   * block in shared memory, so for them (Maxwell: 18 partials against 6
   * rows) the rows let the results overlay the sources: 170 -> 109 KiB at
   * N = 5 and a fit at N = 6, 7.  The node-per-thread kernels would load 3x
   * the sources per product instead, so they keep the partials. */
  int curl_as_div;
  /* A derivative's argument reads the position x (-div(a(x) u)): the
   * emitters that evaluate the flux quantities g per node load it there. */
  int uses_x;
} deriv_table;

/* The emit context's user data for volume terms. */
typedef struct {
  const deriv_table *derivs;
  int dim;
  int contravariant; /* cuda: divergences come from DV[] (see emit_volume_cuda) */
} gen_state;

/* The state's CSTRIDE(K) / BASE(k, i) macros of the modules beside
 * dg_operators (quantities, filter): node i of element k, component c at
 * BASE(k, i) + c * CSTRIDE(K) (NP_PAD and NC defined before). */
void dg_gen_emit_state_layout(dg_strbuf *b, dg_field_layout layout);
/* A rows x cols operator matrix (row-major a) as a table named name: cuda
 * column-major (thread i reads row i: coalesced) in place's memory, C
 * row-major static. */
void dg_gen_emit_matrix(dg_strbuf *b, dg_codegen_target tg, dg_matrix_place place, int is_float,
                        const char *name, const double *a, int rows, int cols);
/* An int table "static const int name[n] = {...};" (cuda: __device__ const). */
void dg_gen_emit_int_table(dg_strbuf *b, dg_codegen_target tg, const char *name, const int *a,
                           int n);
/* Every distinct derivative term D(g) of a tree, appended to t. */
dg_error dg_gen_collect_derivs(const dg_flux_node *n, deriv_table *t);
/* Whether a tree (through lets) contains an op. */
int dg_gen_uses_op(const dg_flux_node *n, dg_flux_op op, const dg_physics *ph, int depth);

void dg_gen_init_ctx(dg_emit_ctx *c, const dg_physics *ph, int dim, int is_float);
/* Volume leaves: u[c] (a node's own state) and a derivative term, from
 * the gen_state in c->user. */
void dg_gen_volume_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side);
void dg_gen_volume_derivative(const dg_emit_ctx *c, dg_strbuf *b, const dg_flux_node *n,
                              int comp);
/* Face leaves: uM[c] / uP[c] and nrm[d]. */
void dg_gen_face_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side);
void dg_gen_face_normal(const dg_emit_ctx *c, dg_strbuf *b, int d);
/* Coefficient leaves (physics with ncoef > 0): CFV(c) at a volume node,
 * cM[c] / cP[c] on a face. */
void dg_gen_volume_coef(const dg_emit_ctx *c, dg_strbuf *b, int coef, dg_flux_side side);
void dg_gen_face_coef(const dg_emit_ctx *c, dg_strbuf *b, int coef, dg_flux_side side);

/* Gradient leaves (physics with ngrad > 0): QV(c) at a volume node, gM[c] /
 * gP[c] on a face (c = grad*DIM + d), and the face's LDG switch ldgb. */
void dg_gen_volume_gradq(const dg_emit_ctx *c, dg_strbuf *b, int grad, int d,
                         dg_flux_side side);
void dg_gen_face_gradq(const dg_emit_ctx *c, dg_strbuf *b, int grad, int d, dg_flux_side side);
void dg_gen_face_ldgb(const dg_emit_ctx *c, dg_strbuf *b);
/* Whether the face kernels declare the LDG switch ldgb: second-order
 * terms, or ldg() in a numerical flux. */
int dg_gen_uses_ldgb(const dg_physics *ph);
/* The LDG switch's w.n of the normal array nrm (w fixed, gen_face_flux.c):
 * beta_n = ldg_beta where it is > 0, -ldg_beta elsewhere (interior faces). */
void dg_gen_emit_ldg_w_dot(dg_strbuf *b, const dg_emit_ctx *ctx, const char *nrm);
/* The face leaves of a physics: fields, normal, coefficients, gradients and
 * the LDG switch where it has them. */
void dg_gen_face_ctx(dg_emit_ctx *c, const dg_physics *ph, int dim, int is_float);

/* The text of a global load: q[index] (or res[index]), or with stream_update
 * through the read-only path, DG_LD_NC(&q[index]), or evict-first,
 * DG_LD_CS(&res[index]) (macros of gen_volume_gemm.c; plain accesses in the test
 * emulator).  form: "" (plain), "NC" or "CS".  buf: 128 chars. */
const char *dg_gen_load(char *buf, const char *form, const char *array, const char *index);

/* The scaled face flux of face node (k, m) into dst (a format with one %d
 * for the component); expects k, m and the kernel arguments.  uses_x: 0
 * no x, 1 x in boundary conditions only (loaded on boundary faces), 2 x in
 * a numerical flux.  absolute_k:
 * k is the element's index in the whole state (the fused-surface volume
 * kernels, always launched over every element), so the interior trace is
 * read at BASE(k, c_Fmask[m]) instead of through a mapM gather; dg_surface
 * also runs on element ranges through offset pointers and keeps mapM.
 * preloaded: the caller has declared uM[NC] and uP[NC] and loaded them (uP
 * on interior faces only); only the boundary exterior states are made.
 * ldg: the state through the read-only path (DG_LD_NC); local: the
 * block's staged state in shared memory serves uM and the neighbours in
 * the block (gemm/mma with local_traces; expects k0, s and smem). */
void dg_gen_emit_surface_body(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                              int is_float, int uses_x, dg_emit_ctx *ctx, const char *dst,
                              int absolute_k, int preloaded, int ldg, int local);
/* The first half of the surface body: the traces uM, uP (the boundary
 * exterior states on boundary faces), where a flux uses it the LDG switch
 * ldgb, and with flags DG_GEN_TRACES_GRADIENTS the lifted gradients'
 * traces gM, gP (the second pass of second-order terms; on boundary faces the
 * boundaries' exterior gradients); with
 * DG_GEN_TRACES_UM_ON_BOUNDARIES uM is loaded on boundary faces only (the
 * caller has the interior values).  Same expectations as above; flags need
 * !preloaded. */
enum {
  DG_GEN_TRACES_GRADIENTS = 1,
  DG_GEN_TRACES_UM_ON_BOUNDARIES = 2,
  /* the curved kernels: normal and Fscale per face node, fgeo[(k*NFNFP + m)*(DIM+1) + d]
     (dg/opdata_curved.c's cfgeo) instead of once per face */
  DG_GEN_TRACES_PER_NODE_GEOMETRY = 4
};
void dg_gen_emit_face_traces(dg_strbuf *b, const dg_physics *ph, int uses_x, dg_emit_ctx *ctx,
                             int absolute_k, int preloaded, int ldg, int local, int flags);
/* The fused surface of a cuda dg_volume: the scaled face fluxes of the
 * block's elements k0 + s, s < nslots (an expression), one face node per
 * iteration of the block's nthreads threads (an expression: "NP * EPB"
 * unless the kernel has fewer), into dst (one %d: component);
 * zero_past_end: write zeros for elements past K (else leave them);
 * gather_ahead: load the thread's traces of all its face nodes first;
 * ldg: load them through the read-only path (DG_LD_NC; the kernel writes
 * no state it reads: fuse_surface's q_out); local: see
 * dg_gen_emit_surface_body.
 * Expects tid, k0, K and the kernel arguments. */
void dg_gen_emit_block_faces(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             int is_float, int uses_fx, dg_emit_ctx *ctx, const char *nslots,
                             const char *nthreads, const char *dst, int zero_past_end,
                             int gather_ahead, int ldg, int local);
/* The flux quantities g(u) of one node into dst_fmt (one %d: quantity);
 * contravariant: divergence rows (a curl's rows too, deriv_entry.curl) in
 * reference directions (needs G[]).  fold_zero (contravariant, for
 * quantities that are compile-time constants, e.g. g(0)): each G[] product
 * is guarded by its flux value's test against zero, which the compiler
 * folds, so a zero row costs nothing (G[a] * 0 is not foldable: G may be
 * infinite). */
void dg_gen_emit_gvalues(dg_strbuf *b, const deriv_table *dt, dg_emit_ctx *ctx,
                         const char *dst_fmt, int contravariant, int fold_zero);
/* Points of the order-n lattice of a dim-simplex (0 for n < 0): the nodes
 * of order n, or the degree-n Bernstein-Bezier coefficients. */
int dg_gen_lattice_count(int dim, int n);

/* r = volume terms + sources + lifted flux, then the store or the fused
 * LSERK update; expects u, k, i (and DV/P as the terms need).  residual:
 * component c's residual in the update, "res[o]" (o its offset) or a value
 * the kernel loaded ahead (the gemm/mma kernel's early_residual: "rr[c]"). */
void dg_gen_emit_rhs_store(dg_strbuf *b, const dg_physics *ph, const dg_kernel_config *cfg,
                           dg_emit_ctx *ctx, const char *lift_fmt, const char *residual);

/* The end of a side module's one kernel (dg_quantities, dg_wave_speed: an
 * element loop in C, one thread per element in cuda) and the whole text into
 * *source (malloc'd), or ctx's emit error. */
dg_error dg_gen_finish_element_kernel(dg_strbuf *b, dg_codegen_target tg, dg_emit_ctx *ctx,
                                      char **source);

/* The cuda dg_volume signature (all work modes), through the opening
 * brace; nthreads: the block's threads (an expression); min_blocks > 1
 * adds that minimum of resident blocks per multiprocessor to its
 * __launch_bounds__; ncoef > 0 appends the coefficient arrays cf, fcf;
 * ngrad > 0 appends cf, fcf and the lifted gradients Qg. */
void dg_gen_emit_volume_signature_cuda(dg_strbuf *b, const char *nthreads, int min_blocks,
                                       int ncoef, int ngrad);

/* The cuda dg_volume_curved signature (node-per-thread work modes): the
 * arguments of dg_volume with cf, fcf and Qg always, then KC, the number of
 * curved elements [0, KC) it runs over (egeo: dg/opdata_curved.c's cgeo). */
void dg_gen_emit_volume_signature_curved_cuda(dg_strbuf *b, const char *nthreads);

#endif
