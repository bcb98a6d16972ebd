/* dg.sipg_spd_curved: the assembled SIPG matrix on curved elements (issue
 * 40: meshes/annulus.geo at geometry order k, whose boundary triangles
 * follow the circles; dg/sipg_curved.h's per-node metric terms) is
 * symmetric to round-off and positive definite: its eigenvalues
 * (LAPACKE_dsyev, an independent dense solver) are positive, with Dirichlet
 * data on both circles, and with the inner circle Neumann.  (The patch test
 * of dg.sipg_spd does not carry over: a linear function of x is not in the
 * mapped polynomial space of a curved element.)
 * usage: spd_curved annulus.geo */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dg/sipg.h"
#include "meshes/gmsh_reader.h"
#include "tests/poisson/poisson_test.h"
/* after dgrun headers: lapacke.h pulls in complex.h, which defines I */
#include <lapacke.h>

/* The physical tag of the inner circle (meshes/annulus.geo's names) or -1. */
static int inner_tag(const dg_mesh *m) {
  for (int t = 0; t < m->ntags; t++)
    if (m->tag_names && m->tag_names[t] && strcmp(m->tag_names[t], "inner") == 0)
      return t;
  return -1;
}

static void run(const char *geo, int N, int k, int neumann) {
  dg_mesh *mesh;
  MUST(dg_mesh_read_gmsh_order(geo, 0.5, k, &mesh));
  dg_discretization *d;
  MUST(dg_discretization_create(mesh, N, DG_DOUBLE, &d));
  CHECK(d->ncurved > 0, "N=%d k=%d: the annulus has no curved elements", N, k);
  dg_sipg_bc kinds[64] = {DG_SIPG_DIRICHLET};
  dg_sipg_options opt = dg_sipg_defaults();
  if (neumann) {
    int t = inner_tag(mesh);
    CHECK(t >= 0 && t < 64, "no tag 'inner' in %s", geo);
    kinds[t] = DG_SIPG_NEUMANN;
    opt.tag_kind = kinds;
  }
  int64_t K = d->K, Np = d->Np, M = K * Np;
  int64_t *own = malloc(sizeof(int64_t) * K);
  for (int64_t e = 0; e < K; e++)
    own[e] = e;
  dg_csr *A;
  MUST(dg_sipg_assemble(d, &opt, K, own, own, K, &A));
  MUST(dg_sparse_csr_check(A));
  double *Ad = calloc((size_t)(M * M), sizeof(double)), *w = malloc(sizeof(double) * M);
  CHECK(Ad && w, "out of memory");
  double amax = 0, asym = 0;
  for (int64_t r = 0; r < M; r++)
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++) {
      Ad[r * M + A->colind[p]] = A->values[p];
      amax = fmax(amax, fabs(A->values[p]));
    }
  for (int64_t r = 0; r < M; r++)
    for (int64_t c = 0; c < r; c++)
      asym = fmax(asym, fabs(Ad[r * M + c] - Ad[c * M + r]));
  CHECK(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)M, Ad, (lapack_int)M, w) == 0,
        "dsyev failed");
  double lmin = w[0], lmax = w[M - 1];
  printf("annulus N=%d k=%d %s: K=%lld (%lld curved), max |A - A^T| / max |A| = %.2e, "
         "eigenvalues in [%.3e, %.3e]\n",
         N, k, neumann ? "Neumann inner" : "Dirichlet", (long long)K, (long long)d->ncurved,
         asym / amax, lmin, lmax);
  CHECK(asym <= 1e-13 * amax, "N=%d k=%d: not symmetric (%.3e of %.3e)", N, k, asym, amax);
  CHECK(lmin > 1e-10 * lmax, "N=%d k=%d: smallest eigenvalue %.3e (largest %.3e)", N, k, lmin,
        lmax);
  free(Ad);
  free(w);
  free(own);
  dg_sparse_csr_destroy(&A);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&mesh);
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: spd_curved annulus.geo");
  run(argv[1], 2, 2, 0);
  run(argv[1], 3, 3, 0);
  run(argv[1], 3, 3, 1);
  return 0;
}
