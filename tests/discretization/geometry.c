/* dg.discretization_geometry: on every mesh case (1D/2D/3D, every periodic
 * combination, straight and randomly distorted) and N = 1..5, the geometry
 * agrees with quantities computed here from the vertices alone:
 *  - J > 0 at every node; J * (reference volume) = element volume;
 *    sum_k sum_i J w_i (w = mass-matrix row sums) = the box volume = d->volume;
 *  - |n| = 1, n normal to the face and pointing away from the opposite vertex;
 *  - sum_i wf_i sJ = face measure (wf = face weights of the surface mass
 *    matrix M*LIFT: checks sJ against LIFT's face measure);
 *  - sum_f sum_i wf_i n sJ = 0 per component (closed surface);
 *  - Fscale = sJ / J; h[k] = half the smallest altitude. */
#include "tests/discretization/disc_test.h"

static const double ref_volume[4] = {0, 2.0, 2.0, 4.0 / 3.0};

static void check(const mesh_case *c, int N, int variant) {
  char name[160];
  dg_mesh *m;
  dg_discretization *d;
  test_open_case(c, N, variant, name, sizeof name, &m, &d);
  const int dim = c->dim, Np = d->Np, Nfp = d->Nfp, Nf = d->Nfaces;
  const dg_refelem *re = d->re;
  EXPECT(d->K == m->K && d->dim == dim && d->N == N, "%s: sizes", name);

  /* Node weights and face weights from the reference matrices. */
  double *w = calloc((size_t)Np, sizeof *w), *wf = calloc((size_t)(Nf * Nfp), sizeof *wf);
  for (int i = 0; i < Np; i++)
    for (int j = 0; j < Np; j++)
      w[i] += re->M[i * Np + j];
  for (int i = 0; i < Np; i++) /* column sums of E = M LIFT */
    for (int l = 0; l < Np; l++)
      for (int j = 0; j < Nf * Nfp; j++)
        wf[j] += re->M[i * Np + l] * re->LIFT[l * Nf * Nfp + j];

  const double box = test_box_volume(c), tol = 1e-11;
  double vol = 0, hmin = INFINITY;
  for (int64_t k = 0; k < m->K; k++) {
    double ev = test_element_volume(m, k);
    for (int i = 0; i < Np; i++) {
      double J = d->J[k * Np + i];
      EXPECT(J > 0, "%s: J = %g at element %" PRId64, name, J, k);
      EXPECT(fabs(J * ref_volume[dim] - ev) < tol * ev, "%s: J %g vs volume %g", name, J, ev);
      vol += J * w[i];
    }
    double hk = INFINITY;
    for (int f = 0; f < Nf; f++) {
      double fm = test_face_measure(m, k, f), sum_sJ = 0;
      hk = fmin(hk, (dim == 1 ? ev : dim * ev / fm) / 2.0);
      const double *opp = test_vertex(m, k, test_opposite_vertex(dim, f));
      const double *p0 = test_vertex(m, k, test_face_verts[dim][f][0]);
      for (int i = 0; i < Nfp; i++) {
        int64_t fn = (k * Nf + f) * Nfp + i, vn = k * Np + re->Fmask[f * Nfp + i];
        double len = 0, away = 0;
        for (int a = 0; a < dim; a++) {
          len += d->n[a][fn] * d->n[a][fn];
          away += d->n[a][fn] * (p0[a] - opp[a]);
        }
        EXPECT(fabs(len - 1) < 1e-13, "%s: |n|^2 = %.17g", name, len);
        EXPECT(away > 0, "%s: normal of element %" PRId64 " face %d points inward", name, k, f);
        for (int e = 1; e < dim; e++) { /* orthogonal to the face's edges */
          const double *pe = test_vertex(m, k, test_face_verts[dim][f][e]);
          double dot = 0, elen = 0;
          for (int a = 0; a < dim; a++) {
            dot += d->n[a][fn] * (pe[a] - p0[a]);
            elen += (pe[a] - p0[a]) * (pe[a] - p0[a]);
          }
          EXPECT(fabs(dot) < 1e-12 * sqrt(elen), "%s: n . edge = %g", name, dot);
        }
        EXPECT(fabs(d->Fscale[fn] - d->sJ[fn] / d->J[vn]) < 1e-13 * d->Fscale[fn],
               "%s: Fscale", name);
        sum_sJ += wf[f * Nfp + i] * d->sJ[fn];
      }
      EXPECT(fabs(sum_sJ - fm) < tol * fm, "%s: element %" PRId64 " face %d: int sJ = %.15g, "
             "measure %.15g", name, k, f, sum_sJ, fm);
    }
    /* Closed surface: sum over all faces of int n sJ, per component. */
    for (int a = 0; a < dim; a++) {
      double s = 0, scale = 0;
      for (int f = 0; f < Nf; f++)
        for (int i = 0; i < Nfp; i++) {
          int64_t fn = (k * Nf + f) * Nfp + i;
          s += wf[f * Nfp + i] * d->n[a][fn] * d->sJ[fn];
          scale += wf[f * Nfp + i] * d->sJ[fn];
        }
      EXPECT(fabs(s) < 1e-12 * scale, "%s: element %" PRId64 " sum n_%d sJ = %g", name, k, a, s);
    }
    EXPECT(fabs(d->h[k] - hk) < 1e-12 * hk, "%s: h[%" PRId64 "] = %g, want %g", name, k,
           d->h[k], hk);
    hmin = fmin(hmin, hk);
  }
  EXPECT(fabs(vol - box) < tol * box, "%s: sum J w = %.15g, box %.15g", name, vol, box);
  EXPECT(fabs(d->volume - box) < tol * box, "%s: d->volume = %.15g, box %.15g", name,
         d->volume, box);
  EXPECT(fabs(d->h_min - hmin) < 1e-12 * hmin, "%s: h_min %g, want %g", name, d->h_min, hmin);
  free(w);
  free(wf);
  dg_discretization_destroy(&d);
  EXPECT(d == NULL, "destroy clears");
  dg_mesh_destroy(&m);
}

int main(void) {
  test_run_cases(check, 5, 1, 2);
  return expect_finish();
}
