/* Collapsed-coordinate Gauss-Jacobi cubature, see cubature.h. */
#include "dg/cubature.h"

#include "dg/jacobi.h"

#include <stdlib.h>

int dg_cubature_count(int dim, int degree) {
  if (dim < 0 || dim > 3 || degree < 0)
    return 0;
  int q = degree / 2 + 1, n = 1;
  for (int d = 0; d < dim; ++d)
    n *= q;
  return n;
}

dg_error dg_cubature_simplex(int dim, int degree, double *r, double *s,
                             double *t, double *w) {
  DG_CHECK(dim >= 0 && dim <= 3, DG_ERR_ARG,
           "cubature: dimension %d is not 0..3", dim);
  DG_CHECK(degree >= 0, DG_ERR_ARG, "cubature: negative degree %d", degree);
  DG_CHECK(w && (dim < 1 || r) && (dim < 2 || s) && (dim < 3 || t),
           DG_ERR_ARG, "cubature: missing output array for dim %d", dim);
  if (dim == 0) {
    w[0] = 1.0;
    return DG_OK;
  }
  int q = degree / 2 + 1;
  /* Gauss-Jacobi rules in the collapsed coordinates a, b, c: weight 1,
   * (1-b) and (1-c)^2 absorb the Jacobian of the collapse
   *   dr ds dt = ((1-b)/2) ((1-c)/2)^2 da db dc
   * so that each one-directional rule sees a polynomial of degree <= the
   * total degree and q points suffice. */
  double *x = malloc(6 * (size_t)q * sizeof *x);
  DG_CHECK(x, DG_ERR_MEMORY, "cubature: cannot allocate %d points", q);
  double *xa = x, *wa = x + q, *xb = x + 2 * q, *wb = x + 3 * q,
         *xc = x + 4 * q, *wc = x + 5 * q;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_jacobi_gq(0.0, 0.0, q, xa, wa));
  DG_CALL_GOTO(err, done, dg_jacobi_gq(1.0, 0.0, q, xb, wb));
  DG_CALL_GOTO(err, done, dg_jacobi_gq(2.0, 0.0, q, xc, wc));
  int n = 0;
  if (dim == 1) {
    for (int i = 0; i < q; ++i, ++n) {
      r[n] = xa[i];
      w[n] = wa[i];
    }
  } else if (dim == 2) {
    for (int j = 0; j < q; ++j)
      for (int i = 0; i < q; ++i, ++n) {
        r[n] = 0.5 * (1.0 + xa[i]) * (1.0 - xb[j]) - 1.0;
        s[n] = xb[j];
        w[n] = 0.5 * wa[i] * wb[j];
      }
  } else {
    for (int k = 0; k < q; ++k)
      for (int j = 0; j < q; ++j)
        for (int i = 0; i < q; ++i, ++n) {
          r[n] = 0.25 * (1.0 + xa[i]) * (1.0 - xb[j]) * (1.0 - xc[k]) - 1.0;
          s[n] = 0.5 * (1.0 + xb[j]) * (1.0 - xc[k]) - 1.0;
          t[n] = xc[k];
          w[n] = 0.125 * wa[i] * wb[j] * wc[k];
        }
  }
done:
  free(x);
  return err;
}
