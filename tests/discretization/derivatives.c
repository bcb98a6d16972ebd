/* dg.discretization_derivatives: the geometric factors turn reference
 * derivatives into physical ones: du/dx_c = sum_a (dr_a/dx_c) D_a u is exact
 * for random linear polynomials (N >= 1) and random quadratics (N >= 2) on
 * randomly distorted meshes of every case, N = 1..5.  The exact derivative
 * is evaluated here from the polynomial's coefficients. */
#include "tests/mesh/mesh_test.h"

#include "dg/discretization.h"

static void check(const mesh_case *c, int N, int variant) {
  (void)variant;
  char name[160];
  test_case_label(c, N, "", name, sizeof name);
  dg_mesh *m = test_make_mesh(c, 0.15);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, N, DG_DOUBLE, &d));
  const int dim = c->dim, Np = d->Np;
  const double *D[3] = {d->re->Dr, d->re->Ds, d->re->Dt};
  for (int degree = 1; degree <= (N >= 2 ? 2 : 1); degree++) {
    /* u = b0 + sum_a b_a x_a + sum_{a<=b} q_ab x_a x_b (q = 0 if linear) */
    double b0 = rng_uniform(), b[3], q[3][3] = {{0}};
    for (int a = 0; a < dim; a++) {
      b[a] = rng_uniform();
      for (int e = a; e < dim && degree == 2; e++)
        q[a][e] = rng_uniform();
    }
    double *u = malloc((size_t)Np * sizeof *u);
    double maxerr = 0;
    for (int64_t k = 0; k < d->K; k++) {
      for (int i = 0; i < Np; i++) {
        const int64_t n = k * Np + i;
        double v = b0;
        for (int a = 0; a < dim; a++) {
          v += b[a] * d->X[a][n];
          for (int e = a; e < dim; e++)
            v += q[a][e] * d->X[a][n] * d->X[e][n];
        }
        u[i] = v;
      }
      for (int i = 0; i < Np; i++) {
        const int64_t n = k * Np + i;
        for (int cc = 0; cc < dim; cc++) {
          double exact = b[cc];
          for (int a = 0; a < dim; a++)
            exact += (a == cc ? 2 * q[cc][cc] : q[a < cc ? a : cc][a < cc ? cc : a]) *
                     d->X[a][n];
          double got = 0;
          for (int a = 0; a < dim; a++) {
            double Dau = 0;
            for (int j = 0; j < Np; j++)
              Dau += D[a][i * Np + j] * u[j];
            got += d->G[a][cc][n] * Dau;
          }
          maxerr = fmax(maxerr, fabs(got - exact));
        }
      }
    }
    /* Coefficients are O(1), coordinates O(3), elements O(0.1): D amplifies
     * round-off by ~N^2/h; 1e-9 leaves a wide margin above that and far
     * below any real error (O(1) when a factor is wrong). */
    EXPECT(maxerr < 1e-9, "%s: degree %d: max derivative error %g", name, degree, maxerr);
    free(u);
  }
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

int main(void) {
  test_run_cases(check, 5, 1, 1);
  /* A finer distorted box. */
  mesh_case fine = {.dim = 3, .lo = {0, 0, 0}, .hi = {1, 1, 1}, .n = {4, 4, 4}};
  check(&fine, 3, 0);
  return expect_finish();
}
