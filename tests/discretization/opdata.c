/* dg.opdata_layout: the operator data the generated kernels read (dg/opdata.h,
 * layout in operators/codegen.h) holds the discretization's arrays at the
 * documented positions, for float and double, both field layouts and a
 * padded element stride: offsets are computed here from the documented
 * formulas, not with dg_opdata_offset; floats are the doubles rounded;
 * padding is zero; fbc is -1 exactly on connected faces and the mapped
 * condition elsewhere.  A curved (non-affine) element is refused, and so is
 * a boundary tag without a condition. */
#include "tests/mesh/mesh_test.h"

#include "dg/discretization.h"
#include "dg/opdata.h"

static double load(const dg_opdata *o, const void *buf, int64_t i) {
  return o->real_size == 4 ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}

static void check(const mesh_case *c, int N, int variant) {
  const dg_dtype prec = variant & 1 ? DG_DOUBLE : DG_FLOAT;
  const int element_major = (variant >> 1) & 1, ncomp = 3;
  char name[160];
  test_case_label(c, N, variant & 1 ? "double" : "float", name, sizeof name);
  dg_mesh *m = test_make_mesh(c, 0.1);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, N, prec, &d));
  const int dim = c->dim, Np = d->Np, NfN = d->Nfaces * d->Nfp;
  const int np_pad = element_major ? (Np + 7) / 8 * 8 : Np;
  int tag_to_bc[16];
  for (int t = 0; t < m->ntags && t < 16; t++)
    tag_to_bc[t] = 10 + t;
  dg_opdata *o = NULL;
  MUST(dg_opdata_create(d, np_pad, element_major, ncomp, tag_to_bc, &o));
  const double eps = prec == DG_FLOAT ? 6e-8 : 0.0;
  EXPECT(o->real_size == (prec == DG_FLOAT ? 4u : 8u) && o->ngeo == dim * dim + 1 &&
             o->K == d->K && o->np_pad == np_pad && o->nfnfp == NfN,
         "%s: header", name);
#define SAME(got, want) (fabs((got) - (want)) <= eps * fabs(want))
  const double *gx[3][3] = {{d->rx, d->ry, d->rz}, {d->sx, d->sy, d->sz}, {d->tx, d->ty, d->tz}};
  const double *xs[3] = {d->x, d->y, d->z};
  const double *ns[3] = {d->nx, d->ny, d->nz};
  for (int64_t k = 0; k < d->K; k++) {
    for (int i = 0; i < Np; i++) {
      int64_t n = k * Np + i;
      /* affine mesh: the per-element value equals every node's, to the
       * stored precision plus the round-off of computing the factors */
      for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++) {
          double got = load(o, o->egeo, k * o->ngeo + a * dim + b);
          EXPECT(fabs(got - gx[a][b][n]) <= (eps + 1e-11) * fabs(gx[a][b][n]) + 1e-11 / d->h[k],
                 "%s: egeo %d%d", name, a, b);
        }
      EXPECT(fabs(load(o, o->egeo, k * o->ngeo + dim * dim) - d->J[n]) <= (eps + 1e-11) * d->J[n],
             "%s: egeo J", name);
      for (int a = 0; a < dim; a++)
        EXPECT(SAME(load(o, o->vx, ((int64_t)a * d->K + k) * np_pad + i), xs[a][n]),
               "%s: vx", name);
    }
    for (int i = Np; i < np_pad; i++)
      for (int a = 0; a < dim; a++)
        EXPECT(load(o, o->vx, ((int64_t)a * d->K + k) * np_pad + i) == 0, "%s: vx padding",
               name);
    for (int j = 0; j < NfN; j++) {
      int64_t fn = k * NfN + j;
      for (int a = 0; a < dim; a++) {
        EXPECT(SAME(load(o, o->fgeo, fn * (dim + 1) + a), ns[a][fn]), "%s: fgeo n", name);
        EXPECT(SAME(load(o, o->fx, fn * dim + a), xs[a][d->vmapM[fn]]), "%s: fx", name);
      }
      EXPECT(SAME(load(o, o->fgeo, fn * (dim + 1) + dim), d->Fscale[fn]), "%s: fgeo Fscale",
             name);
      int64_t vm = d->vmapM[fn], vp = d->vmapP[fn];
      int64_t want_m = element_major ? vm / Np * ncomp * np_pad + vm % Np
                                     : vm / Np * np_pad + vm % Np;
      int64_t want_p = element_major ? vp / Np * ncomp * np_pad + vp % Np
                                     : vp / Np * np_pad + vp % Np;
      EXPECT(o->mapM[fn] == want_m && o->mapP[fn] == want_p, "%s: maps", name);
    }
    for (int f = 0; f < d->Nfaces; f++) {
      int64_t face = k * d->Nfaces + f;
      int connected = d->EToE[face] != k || d->EToF[face] != f;
      EXPECT(o->fbc[face] == (connected ? -1 : 10 + m->face_tag[face]), "%s: fbc", name);
    }
  }
#undef SAME
  dg_opdata_destroy(&o);
  EXPECT(o == NULL, "destroy clears");
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

/* Refusals: a factor varying inside an element (a curved element), and a
 * boundary tag that has no boundary condition. */
static void check_refusals(void) {
  mesh_case c = {.dim = 2, .lo = {0, 0}, .hi = {1, 1}, .n = {2, 2}};
  dg_mesh *m = test_make_mesh(&c, 0.0);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, 2, DG_DOUBLE, &d));
  int none[16];
  for (int t = 0; t < 16; t++)
    none[t] = -1;
  dg_opdata *o = NULL;
  EXPECT(dg_opdata_create(d, d->Np, 0, 1, none, &o) == DG_ERR_INPUT && o == NULL,
         "unmapped tag accepted");
  int all[16] = {0};
  d->sy[d->Np + 1] *= 1.001;
  EXPECT(dg_opdata_create(d, d->Np, 0, 1, all, &o) == DG_ERR_UNSUPPORTED && o == NULL,
         "varying factor accepted");
  dg_error_clear();
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

int main(void) {
  test_run_cases(check, 3, 2, 4);
  check_refusals();
  return expect_finish();
}
