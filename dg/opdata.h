/* Host-side operator data in the layout the generated DG kernels read (see
 * operators/codegen.h for the layout of every array).  Pure data
 * arrangement: the solver uploads these buffers as they are.
 *
 * Straight-sided (affine) elements have their geometric factors once per
 * element (egeo) and face (fgeo).  Curved elements (d->curved) must be the
 * first ncurved elements (dg_mesh_order_curved_first): theirs are per node
 * and face node in cgeo and cfgeo (dg/opdata_curved.c, the formulation
 * there), which the curved kernels read over elements [0, Kc). */
#ifndef DG_DG_OPDATA_H
#define DG_DG_OPDATA_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "dg/discretization.h"

typedef struct dg_opdata {
  int64_t K;        /* element slots: the kernels' K (stride of field-major state) */
  int64_t K_owned;  /* elements of the discretization (= K unless extended) */
  int dim, Np, np_pad, Nfaces, Nfp, nfnfp, ncomp, ngeo;
  int element_major;
  size_t real_size; /* 4 (float) or 8 (double), from the discretization */
  void *egeo;       /* K x ngeo */
  void *fgeo;       /* K*nfnfp x (dim+1) */
  void *fx;         /* K*nfnfp x dim */
  void *vx;         /* dim x K x np_pad (padding zero) */
  int32_t *mapM, *mapP; /* K*nfnfp state offsets base(k, i) */
  int32_t *fbc;     /* K*Nfaces: -1 or boundary-condition index */
  double *Jk;       /* K: element Jacobians (host, for norms) */
  int64_t Kc;       /* curved elements, [0, Kc) (0: an affine mesh) */
  void *cgeo;       /* Kc x ngeo x Np: Ja = J dr_a/dx_d (g = a*dim + d), 1/J (g = dim*dim) */
  void *cfgeo;      /* Kc*nfnfp x (dim+1): n, sJ per face node (1/J: after the lift) */
} dg_opdata;

/* The curved rows cgeo, cfgeo and Kc of o from d (dg/opdata_curved.c;
 * dg_opdata_create calls it): DG_ERR_ARG when the curved elements are not
 * the first ones, DG_ERR_INPUT naming a node where the Jacobian of the
 * interpolated geometry is not positive. */
dg_error dg_opdata_curved_fill(const dg_discretization *d, dg_opdata *o);

/* For what runs affine elements only (SIPG assembly): DG_ERR_UNSUPPORTED
 * naming the first curved element of d (d->curved), DG_OK for an affine
 * mesh. */
dg_error dg_opdata_check_affine(const dg_discretization *d);

/* tag_to_bc[t] is the boundary-condition index of mesh tag t (ntags
 * entries), or -1 when the tag has no boundary condition: a boundary face
 * with such a tag is DG_ERR_INPUT naming the tag. */
dg_error dg_opdata_create(const dg_discretization *d, int np_pad, int element_major,
                          int ncomp, const int *tag_to_bc, dg_opdata **out);
void dg_opdata_destroy(dg_opdata **od);

/* Give the arrays K_new >= K element slots (partitioned runs: ghost slots
 * and slack after the owned elements): per-element arrays are padded (mapM,
 * mapP 0, fbc -1, geometry 0), vx is restrided, K becomes K_new; K_owned
 * and every offset of an owned node stay the same. */
dg_error dg_opdata_extend(dg_opdata *od, int64_t K_new);

/* Coefficient tables (dg/opdata_coef.c; layouts in operators/codegen.h)
 * from values[(c*K_owned + k)*Np + i], ncf coefficients at the nodes of the
 * owned elements, in the real size of od.  cf: ncf*K*np_pad reals, the
 * ghost and padding entries left as they are.  fcf: K*nfnfp*ncf*2 reals,
 * per face node of an owned element its interior and exterior trace (on a
 * boundary face the interior again); a neighbour in a ghost slot is read
 * from ghost[c / ncomp], a raw state array (the device layout) whose
 * component c % ncomp held coefficient c on the neighbour rank and went
 * through the halo exchange; ghost may be NULL without ghost slots. */
void dg_opdata_coef_nodes(const dg_opdata *od, int ncf, const double *values, void *cf);
void dg_opdata_coef_traces(const dg_opdata *od, int ncf, const double *values,
                           const void *const *ghost, void *fcf);

/* Offset of state component c at node (k, i) in the generated layout. */
int64_t dg_opdata_offset(const dg_opdata *od, int64_t k, int i, int c);
/* Length of a state array in reals (ncomp * K * np_pad). */
int64_t dg_opdata_state_length(const dg_opdata *od);

#endif
