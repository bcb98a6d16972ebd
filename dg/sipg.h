/* Symmetric interior penalty (SIPG) discretization of -lap u = f on a DG
 * discretization (dg/discretization.h), straight-sided simplices, 1D-3D.
 *
 * Bilinear form (Arnold, Brezzi, Cockburn & Marini, SIAM J. Numer. Anal.
 * 39 (2002); Hesthaven & Warburton 2008, sec. 7.2), with [v] = v- n- + v+ n+
 * the jump and {w} the average across a face (on a boundary face [v] = v n,
 * {w} = w-):
 *
 *   a(u, v) = sum_K int_K grad u . grad v
 *           - sum_F int_F ({grad u} . [v] + {grad v} . [u])     F interior
 *           + sum_F int_F tau_F [u] . [v]                        or Dirichlet
 *   l(v)    = sum_K int_K f v
 *           + sum_{F Dirichlet} int_F (tau_F g v - g grad v . n)
 *           + sum_{F Neumann}   int_F g v                  (g = n . grad u)
 *
 * Penalty (Shahbazi, J. Comput. Phys. 205 (2005), with Fscale = sJ/J as the
 * face-to-volume ratio, the scaling Hesthaven & Warburton's Poisson codes
 * use):
 *   tau_F = penalty * (N+1)(N+d)/d * max over the (one or two) elements of F
 *           of max_faces Fscale,
 * penalty = 1 by default.  Larger is safe (slightly worse conditioning);
 * too small loses coercivity: on the built-in 3D box meshes the matrix
 * turns indefinite near penalty 0.5 (N = 2) to 0.6 (N = 4), so 1 has a
 * margin of about 1.6 there (tests/poisson/spd.c checks the eigenvalues
 * at 1; CG reports an indefinite matrix).
 *
 * Integrals use the reference element's quadratures (exact for degree 2N:
 * every matrix entry is exact on straight-sided elements).  Each interior
 * face is integrated once, from its canonical side (the smaller
 * row_of[k]*Nfaces+f, the same on every rank),
 * and both sides' blocks are written from that one computation, and the
 * element-diagonal blocks are filled as symmetric pairs: the assembled
 * matrix is exactly (bitwise) symmetric.  On straight-sided elements the
 * geometric factors are taken constant per element (node 0).  Curved
 * elements (d->curved[k], issue 40) and faces with a curved side use
 * dg/sipg_curved.h instead: the exact geometry map at volume and Gauss face
 * points of degree 2N + 2k (k the geometry order), per-point normals and
 * sJ, the neighbour's basis and metric at its own reference points; the
 * same face-once, symmetric-pair assembly keeps the matrix exactly
 * symmetric, and the penalty is tau_F above (Fscale's max over the nodes
 * of both elements' faces, which varies per node on curved elements).  The
 * load vector, boundary data and dg_sipg_error's L2 norm use the same
 * curved rules (boundary data at points on the curved face).  Measured on
 * the annulus (tests/poisson, poisson.curved_*): rates N + 1 and above for
 * geometry order >= N, near 2 on the straight-sided mesh.
 *
 * Distribution: the caller names the elements whose rows it wants (`owned`,
 * in row order) and the global block row of every element (`row_of`, K
 * entries): row row_of[k]*Np + i is node i of element k.  Columns are global
 * (ncols = the global count), so one rank's rows feed dg_sparse_dist_create
 * directly.  The discretization must hold the owned elements and their face
 * neighbours (e.g. that sub-mesh, meshes/submesh.h): the assembly reads the
 * neighbours' geometry; row_of may then number beyond d->K. */
#ifndef DG_DG_SIPG_H
#define DG_DG_SIPG_H

#include <stdint.h>

#include "core/error.h"
#include "core/sparse.h"
#include "dg/discretization.h"

typedef enum dg_sipg_bc { DG_SIPG_DIRICHLET = 0, DG_SIPG_NEUMANN = 1 } dg_sipg_bc;

typedef struct dg_sipg_options {
  double penalty;        /* the factor above; default 1 */
  const dg_sipg_bc *tag_kind; /* per mesh tag (NULL: every tag Dirichlet) */
} dg_sipg_options;

dg_sipg_options dg_sipg_defaults(void);

/* Point data, evaluated by the caller (dg/ knows no expression language).
 * Every callback returns DG_OK or an error that aborts the assembly. */
typedef struct dg_sipg_data {
  void *ctx;
  /* f(x) */
  dg_error (*source)(void *ctx, const double *x, double *out);
  /* Dirichlet value g(x), or Neumann flux n . grad u at x, on a face of
   * mesh tag `tag` with outward unit normal n. */
  dg_error (*boundary)(void *ctx, int tag, const double *x, const double *n, double *out);
} dg_sipg_data;

/* The penalty tau_F of face f of element k (see above). */
double dg_sipg_penalty(const dg_discretization *d, const dg_sipg_options *opt, int64_t k,
                       int f);

/* The rows of the owned elements: nowned*Np rows, nglobal*Np columns
 * (nglobal: elements of the whole mesh, row_of < nglobal), sorted columns,
 * Np x Np element blocks stored in full. */
dg_error dg_sipg_assemble(const dg_discretization *d, const dg_sipg_options *opt,
                          int64_t nowned, const int64_t *owned, const int64_t *row_of,
                          int64_t nglobal, dg_csr **out);

/* The right-hand side l(phi_i) of the owned rows into b (nowned*Np). */
dg_error dg_sipg_rhs(const dg_discretization *d, const dg_sipg_options *opt,
                     int64_t nowned, const int64_t *owned, const dg_sipg_data *data,
                     double *b);

/* Errors of u (nowned*Np nodal values of the owned elements) against
 * exact(ctx, x): *l2sq += sum_K int_K (u - exact)^2 (volume quadrature,
 * so the caller sums over ranks and takes the root), *maxerr = max over
 * the nodes of |u - exact|. */
dg_error dg_sipg_error(const dg_discretization *d, int64_t nowned, const int64_t *owned,
                       const double *u,
                       dg_error (*exact)(void *ctx, const double *x, double *out), void *ctx,
                       double *l2sq, double *maxerr);

#endif
