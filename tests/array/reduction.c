/* core.reduction_kernels: the ready-made reductions (sum, dot, norm2,
 * max_abs) and custom ones (a weighted sum, a max with -inf as neutral)
 * against a long double host reference on fresh random data, both dtypes,
 * sizes 0 .. 2^21+3, plain arrays and views with NaN guards (a read outside
 * the range turns the result into NaN).  Also: n = 0 gives the neutral
 * element, NaN propagates through max, repeated calls agree bitwise. */
#include "array_test.h"

#include "core/reduction.h"

static const int64_t sizes[] = {0, 1, 7, 1000, 100003, 2097155};
enum { GUARD = 9 };

typedef struct {
  const char *name;
  int narrays;
  dg_reduce_op op;
  int sqrt_result;
  double neutral;
  /* the term t_i from the array values at i */
  long double (*term)(const double *v, int64_t i);
  dg_error (*create)(dg_device *, dg_dtype, dg_reduction **);
} rcase;

static long double t_sum(const double *v, int64_t i) { (void)i; return v[0]; }
static long double t_dot(const double *v, int64_t i) {
  (void)i;
  return (long double)v[0] * v[1];
}
static long double t_sq(const double *v, int64_t i) {
  (void)i;
  return (long double)v[0] * v[0];
}
static long double t_abs(const double *v, int64_t i) { (void)i; return fabs(v[0]); }
static long double t_weighted(const double *v, int64_t i) {
  return (long double)v[0] * (double)(i % 7);
}
static long double t_diff(const double *v, int64_t i) {
  (void)i;
  return (long double)v[0] - v[1];
}

static dg_error create_weighted(dg_device *dev, dg_dtype t, dg_reduction **out) {
  char args[64];
  snprintf(args, sizeof args, "const %s *x", dg_dtype_name(t));
  return dg_reduction_create(dev, t == DG_FLOAT ? "weighted_float" : "weighted_double",
                             args, "x[i] * (double)(i % 7)", DG_REDUCE_SUM, 0.0,
                             out);
}
static dg_error create_diffmax(dg_device *dev, dg_dtype t, dg_reduction **out) {
  char args[64];
  snprintf(args, sizeof args, "const %s *x, const %s *y", dg_dtype_name(t),
           dg_dtype_name(t));
  return dg_reduction_create(dev, t == DG_FLOAT ? "diffmax_float" : "diffmax_double",
                             args, "x[i] - y[i]", DG_REDUCE_MAX, -INFINITY, out);
}

static const rcase cases[] = {
    {"sum", 1, DG_REDUCE_SUM, 0, 0.0, t_sum, dg_reduction_create_sum},
    {"dot", 2, DG_REDUCE_SUM, 0, 0.0, t_dot, dg_reduction_create_dot},
    {"norm2", 1, DG_REDUCE_SUM, 1, 0.0, t_sq, dg_reduction_create_norm2},
    {"max_abs", 1, DG_REDUCE_MAX, 0, 0.0, t_abs, dg_reduction_create_max_abs},
    {"weighted", 1, DG_REDUCE_SUM, 0, 0.0, t_weighted, create_weighted},
    {"diffmax", 2, DG_REDUCE_MAX, 0, -INFINITY, t_diff, create_diffmax},
};

/* Tolerances.
 * sum: every term is exact in double (inputs are exact in the dtype; a
 * product of two floats or of a float and a small integer is exact in
 * double), and the device adds them in double in some tree order, whose
 * error is at most (n - 1) u sum|t_i| with u = 2^-53 (Higham 2002, eq. 4.4,
 * for any order).  We allow n eps sum|t_i| (eps = 2u); a missing or doubled
 * term is off by about sum|t_i| / n, far above that for n <= 2^21.
 * (Accumulating in float instead would need n eps_float, too loose to see a
 * missing term: that is why the device accumulates in double.)
 * norm2: sqrt halves the relative error of the sum and rounds once more.
 * max: the largest term exactly, except diffmax for float, whose map
 * x[i] - y[i] is evaluated in float: within eps_float of the term. */
static void run_case(dg_device *dev, dg_reduction *r, const rcase *c,
                     dg_dtype t, int64_t n, int use_views) {
  dg_array *base[2] = {0}, *arr[2] = {0};
  double *host[2] = {0};
  dg_arg args[2];
  for (int p = 0; p < c->narrays; p++) {
    int64_t off = use_views ? GUARD : 0;
    MUST(dg_array_create(dev, t, n + 2 * off, &base[p]));
    poison(base[p]);
    if (use_views)
      MUST(dg_array_view(base[p], off, n, &arr[p]));
    else
      arr[p] = base[p];
    host[p] = random_values(n, t);
    MUST(dg_array_upload_double(arr[p], host[p]));
    args[p] = DG_ARG_ARRAY(arr[p]);
  }
  double got = NAN, again = NAN;
  MUST(dg_reduction_call(r, n, args, &got));
  MUST(dg_reduction_call(r, n, args, &again));

  long double acc = c->neutral, abs_sum = 0;
  double v[2];
  for (int64_t i = 0; i < n; i++) {
    for (int p = 0; p < c->narrays; p++)
      v[p] = host[p][i];
    long double term = c->term(v, i);
    abs_sum += fabsl(term);
    if (c->op == DG_REDUCE_SUM)
      acc += term;
    else if (term > acc)
      acc = term;
  }
  double want, tol;
  if (c->op == DG_REDUCE_SUM) {
    tol = (double)n * DBL_EPSILON * (double)abs_sum;
    want = (double)acc;
    if (c->sqrt_result) {
      want = sqrt((double)acc);
      tol = ((double)n + 2) * DBL_EPSILON * want;
    }
  } else {
    want = (double)acc;
    tol = t == DG_FLOAT && c->narrays == 2 ? FLT_EPSILON * fabs(want) : 0;
  }
  int ok = (isinf(want) && got == want) || fabs(got - want) <= tol;
  EXPECT(ok, "%s %s n=%lld%s: got %.17g, want %.17g (tolerance %.3g)", c->name,
         dg_dtype_name(t), (long long)n, use_views ? " (views)" : "", got, want,
         tol);
  EXPECT(memcmp(&got, &again, sizeof got) == 0,
         "%s %s n=%lld: two calls differ: %.17g, %.17g", c->name,
         dg_dtype_name(t), (long long)n, got, again);
  for (int p = 0; p < c->narrays; p++) {
    if (arr[p] != base[p])
      dg_array_destroy(&arr[p]);
    dg_array_destroy(&base[p]);
    free(host[p]);
  }
}

/* A NaN anywhere makes max_abs NaN (a blow-up check relies on it). */
static void nan_propagates(dg_device *dev, dg_dtype t) {
  int64_t n = 100003;
  dg_reduction *r = NULL;
  dg_array *a = NULL;
  MUST(dg_reduction_create_max_abs(dev, t, &r));
  MUST(dg_array_create(dev, t, n, &a));
  double *h = random_values(n, t);
  int64_t where[] = {0, n / 2 + (int64_t)(rng_next() % 1000), n - 1};
  for (size_t w = 0; w < sizeof where / sizeof *where; w++) {
    double keep = h[where[w]];
    h[where[w]] = NAN;
    MUST(dg_array_upload_double(a, h));
    double got = 0;
    MUST(dg_reduction_call(r, n, (dg_arg[]){DG_ARG_ARRAY(a)}, &got));
    EXPECT(isnan(got), "max_abs %s with a NaN at %lld gave %g", dg_dtype_name(t),
           (long long)where[w], got);
    h[where[w]] = keep;
  }
  free(h);
  dg_array_destroy(&a);
  dg_reduction_destroy(&r);
}

static void errors(dg_device *dev) {
  dg_reduction *r = NULL;
  dg_array *d = NULL, *f = NULL;
  MUST(dg_reduction_create_dot(dev, DG_DOUBLE, &r));
  MUST(dg_array_create(dev, DG_DOUBLE, 5, &d));
  MUST(dg_array_create(dev, DG_FLOAT, 5, &f));
  double x;
  EXPECT(dg_reduction_call(r, 5, (dg_arg[]){DG_ARG_ARRAY(d), DG_ARG_ARRAY(f)},
                           &x) == DG_ERR_ARG,
         "dot of double and float arrays accepted");
  EXPECT(dg_reduction_call(r, 6, (dg_arg[]){DG_ARG_ARRAY(d), DG_ARG_ARRAY(d)},
                           &x) == DG_ERR_ARG,
         "n larger than the arrays accepted");
  dg_reduction *bad = NULL;
  EXPECT(dg_reduction_create(dev, "nan_neutral", "const double *x", "x[i]",
                             DG_REDUCE_MAX, NAN, &bad) == DG_ERR_ARG &&
             bad == NULL,
         "NaN neutral element accepted");
  EXPECT(dg_reduction_create(dev, "bad_args", "double x[]", "x[i]",
                             DG_REDUCE_SUM, 0, &bad) == DG_ERR_ARG,
         "bad argument list accepted");
  dg_error_clear();
  dg_array_destroy(&d);
  dg_array_destroy(&f);
  dg_reduction_destroy(&r);
}

int main(int argc, char **argv) {
  dg_device *dev = test_open(argc, argv);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int t = 0; t < 2; t++) {
      dg_reduction *r = NULL;
      MUST(cases[c].create(dev, (dg_dtype)t, &r));
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int views = 0; views < 2; views++)
          run_case(dev, r, &cases[c], (dg_dtype)t, sizes[s], views);
      dg_reduction_destroy(&r);
    }
  /* On a GPU, 2^26 + 12345 items span several passes of the grid-stride
   * loop (a pass covers 8 waves of blocks, 8.6M items on an H100). */
  if (dg_device_get_info(dev)->backend == DG_BACKEND_CUDA)
    for (size_t c = 0; c < 4; c++)
      for (int t = 0; t < 2; t++) {
        dg_reduction *r = NULL;
        MUST(cases[c].create(dev, (dg_dtype)t, &r));
        run_case(dev, r, &cases[c], (dg_dtype)t, ((int64_t)1 << 26) + 12345, 1);
        dg_reduction_destroy(&r);
      }
  nan_propagates(dev, DG_FLOAT);
  nan_propagates(dev, DG_DOUBLE);
  errors(dev);
  return test_finish(&dev);
}
