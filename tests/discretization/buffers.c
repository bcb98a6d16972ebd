/* dg.discretization_buffers: the packed device buffers hold the host arrays
 * at the documented positions, in float or double (per node, and per element
 * with the affine flag set exactly when factors are constant): every entry is written
 * (buffers are compared element by element, with indices computed here from
 * the layout in dg/discretization.h), floats are the doubles rounded, int32
 * maps equal the int64 ones, ftag is -1 exactly on connected faces. */
#include "tests/mesh/mesh_test.h"

#include "dg/discretization.h"

static double load(const dg_discretization_buffers *b, const void *buf, int64_t i) {
  return b->precision == DG_PRECISION_FLOAT ? (double)((const float *)buf)[i]
                                            : ((const double *)buf)[i];
}

static void check(const mesh_case *c, int N, int variant) {
  const dg_precision prec = variant ? DG_PRECISION_DOUBLE : DG_PRECISION_FLOAT;
  char name[160];
  test_case_label(c, N, variant ? "double" : "float", name, sizeof name);
  dg_mesh *m = test_make_mesh(c, 0.1);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, N, prec, &d));
  EXPECT(d->precision == prec, "%s: precision not recorded", name);
  dg_discretization_buffers *b = NULL;
  MUST(dg_discretization_buffers_create(d, &b));
  const int dim = c->dim, Np = d->Np, NfN = d->Nfaces * d->Nfp;
  /* Relative rounding of the stored type. */
  const double eps = prec == DG_PRECISION_FLOAT ? 6e-8 : 0.0;
  EXPECT(b->real_size == (prec == DG_PRECISION_FLOAT ? 4u : 8u) && b->Nvgeo == dim * dim + 1 &&
             b->Nsgeo == dim + 1 && b->K == d->K && b->Np == Np,
         "%s: header", name);
  EXPECT(b->affine == 1, "%s: straight-sided mesh not flagged affine", name);
#define SAME(got, want) (fabs((got) - (want)) <= eps * fabs(want))
  const double *gx[3][3] = {{d->rx, d->ry, d->rz}, {d->sx, d->sy, d->sz}, {d->tx, d->ty, d->tz}};
  for (int64_t k = 0; k < d->K; k++) {
    for (int i = 0; i < Np; i++) {
      int64_t n = k * Np + i, base = k * (dim * dim + 1) * Np;
      for (int a = 0; a < dim; a++)
        for (int cc = 0; cc < dim; cc++)
          EXPECT(SAME(load(b, b->vgeo, base + (a * dim + cc) * Np + i), gx[a][cc][n]),
                 "%s: vgeo %d%d", name, a, cc);
      EXPECT(SAME(load(b, b->vgeo, base + dim * dim * Np + i), d->J[n]), "%s: vgeo J", name);
      /* per element: the mesh is affine, so every node's value, to the
       * stored precision (plus the 1e-12 of "constant") */
      for (int a = 0; a < dim; a++)
        for (int cc = 0; cc < dim; cc++) {
          double got = load(b, b->egeo, k * (dim * dim + 1) + a * dim + cc);
          EXPECT(fabs(got - gx[a][cc][n]) <= (eps + 1e-11) * fabs(gx[a][cc][n]) + 1e-11 / d->h[k],
                 "%s: egeo %d%d: %.17g vs %.17g", name, a, cc, got, gx[a][cc][n]);
        }
      EXPECT(fabs(load(b, b->egeo, k * (dim * dim + 1) + dim * dim) - d->J[n]) <=
                 (eps + 1e-11) * d->J[n],
             "%s: egeo J", name);
      const double *xs[3] = {d->x, d->y, d->z};
      for (int a = 0; a < dim; a++)
        EXPECT(SAME(load(b, b->xyz, (k * dim + a) * Np + i), xs[a][n]), "%s: xyz", name);
    }
    for (int j = 0; j < NfN; j++) {
      int64_t fn = k * NfN + j, base = k * (dim + 1) * NfN;
      const double *ns[3] = {d->nx, d->ny, d->nz};
      for (int a = 0; a < dim; a++)
        EXPECT(SAME(load(b, b->sgeo, base + a * NfN + j), ns[a][fn]), "%s: sgeo n", name);
      EXPECT(SAME(load(b, b->sgeo, base + dim * NfN + j), d->Fscale[fn]), "%s: sgeo Fscale",
             name);
      EXPECT(b->vmapM[fn] == d->vmapM[fn] && b->vmapP[fn] == d->vmapP[fn], "%s: maps", name);
    }
    for (int f = 0; f < d->Nfaces; f++) {
      int64_t face = k * d->Nfaces + f;
      int connected = d->EToE[face] != k || d->EToF[face] != f;
      EXPECT(b->ftag[face] == (connected ? -1 : m->face_tag[face]) &&
                 (connected || b->ftag[face] >= 0),
             "%s: ftag", name);
    }
  }
#undef SAME
  dg_discretization_buffers_destroy(&b);
  EXPECT(b == NULL, "destroy clears");
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

/* A factor that varies within an element (as on a curved element) clears
 * the affine flag. */
static void check_not_affine(void) {
  mesh_case c = {.dim = 2, .lo = {0, 0}, .hi = {1, 1}, .n = {2, 2}};
  dg_mesh *m = test_make_mesh(&c, 0.0);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, 2, DG_PRECISION_DOUBLE, &d));
  d->sy[d->Np + 1] *= 1.001;
  dg_discretization_buffers *b = NULL;
  MUST(dg_discretization_buffers_create(d, &b));
  EXPECT(b->affine == 0, "varying factor flagged affine");
  dg_discretization_buffers_destroy(&b);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

int main(void) {
  test_run_cases(check, 3, 2, 2);
  check_not_affine();
  return test_finish();
}
