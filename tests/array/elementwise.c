/* core.elementwise_kernels: generated elementwise kernels against a double
 * precision host reference, on fresh random data, with poisoned (NaN)
 * outputs and NaN guards around views, for both dtypes and sizes from 0 to
 * past one grid-stride pass of a large GPU.  Also: argument checking at
 * call time, the generated source, and that re-creating a kernel compiles
 * nothing (the kernel cache). */
#include "array_test.h"

#include "core/elementwise.h"

static const int64_t sizes[] = {0, 1, 7, 1000, 100003, 2097155};
enum { GUARD = 11, MAXP = 6 };

/* A test case.  kinds, one letter per declared argument:
 *   o output array (poisoned), u in-out array (random), a input array,
 *   r real scalar, i int scalar.
 * dtypes (optional): per argument 'f'/'d' for fixed types, else all T.
 * ref: the value of the output at index i from the argument values v[]
 * (array elements at i, or the scalars); *scale: the sum of the absolute
 * values of its terms, for the tolerance. */
typedef struct {
  const char *name;
  const char *arguments; /* "%1$s" = the dtype name T */
  const char *operation;
  const char *kinds;
  const char *dtypes;
  double (*ref)(const double *v, int64_t i, double *scale);
} kcase;

static double ref_axpby(const double *v, int64_t i, double *scale) {
  (void)i;
  *scale = fabs(v[1] * v[2]) + fabs(v[3] * v[4]);
  return v[1] * v[2] + v[3] * v[4];
}
static double ref_axpy(const double *v, int64_t i, double *scale) {
  (void)i;
  *scale = fabs(v[1] * v[2]) + fabs(v[0]);
  return v[1] * v[2] + v[0];
}
static double ref_index(const double *v, int64_t i, double *scale) {
  *scale = fabs(v[1] * v[2]) + fabs((double)i + v[3]);
  return v[1] * v[2] + ((double)i + v[3]);
}
static double ref_math(const double *v, int64_t i, double *scale) {
  (void)i;
  double t = sqrt(fabs(v[1]));
  *scale = fabs(t * v[2]) + exp(v[1]);
  return t * v[2] - exp(v[1]);
}
static double ref_mixed(const double *v, int64_t i, double *scale) {
  (void)i;
  *scale = fabs(v[1]) + fabs(v[2]);
  return v[1] - v[2];
}

static const kcase cases[] = {
    {"axpby", "%1$s *z, %1$s a, const %1$s *x, %1$s b, const %1$s *y",
     "z[i] = a*x[i] + b*y[i]", "orara", NULL, ref_axpby},
    {"axpy_inplace", "%1$s *y, %1$s a, const %1$s *x", "y[i] = a*x[i] + y[i]",
     "ura", NULL, ref_axpy},
    /* i + shift < 2^24: exact in float too. */
    {"index_int", "%1$s *z, const %1$s *x, int k, int64_t shift",
     "z[i] = x[i]*k + (%1$s)(i + shift)", "oaii", NULL, ref_index},
    {"math", "%1$s *z, const %1$s *x, const %1$s *y",
     "const %1$s t = sqrt(fabs(x[i])); z[i] = t*y[i] - exp(x[i])", "oaa", NULL,
     ref_math},
    {"mixed", "double *z, const float *x, const double *y",
     "z[i] = x[i] - y[i]", "oaa", "dfd", ref_mixed},
};

static dg_dtype param_dtype(const kcase *c, int p, dg_dtype t) {
  if (!c->dtypes)
    return t;
  return c->dtypes[p] == 'f' ? DG_FLOAT : DG_DOUBLE;
}

/* Tolerance.  The device evaluates the expression in the output's dtype
 * from inputs exactly representable in it; each of the <= 4 operations
 * rounds with relative error <= eps/2 (IEEE 754; GPU FMA contraction only
 * removes roundings), exp is within 2 ulp (CUDA's expf/exp), so the error is
 * below 4 eps times the sum of |terms|; 8 eps leaves room without hiding a
 * wrong term, which would be off by O(scale). */
static dg_elementwise *create_case(dg_device *dev, const kcase *c, dg_dtype t) {
  char name[64], arguments[256], operation[256];
  const char *tn = dg_dtype_name(t);
  snprintf(name, sizeof name, "test_%s_%s", c->name, tn);
  snprintf(arguments, sizeof arguments, c->arguments, tn);
  snprintf(operation, sizeof operation, c->operation, tn);
  dg_elementwise *k = NULL;
  MUST(dg_elementwise_create(dev, name, arguments, operation, &k));
  return k;
}

static void run_case(dg_device *dev, dg_elementwise *k, const kcase *c,
                     dg_dtype t, int64_t n, int use_views) {
  const char *tn = dg_dtype_name(t);

  int np = (int)strlen(c->kinds), out = -1;
  dg_array *base[MAXP] = {0}, *arr[MAXP] = {0};
  double *host[MAXP] = {0}, scalar[MAXP] = {0};
  dg_arg args[MAXP];
  for (int p = 0; p < np; p++) {
    char kind = c->kinds[p];
    dg_dtype pt = param_dtype(c, p, t);
    if (kind == 'r') {
      scalar[p] = rng_value(pt) * 3.0;
      args[p] = DG_ARG_REAL(scalar[p]);
    } else if (kind == 'i') {
      scalar[p] = (double)(int)(rng_next() % 11) - 5.0;
      args[p] = DG_ARG_INT((int64_t)scalar[p]);
    } else {
      int64_t off = use_views ? GUARD : 0;
      MUST(dg_array_create(dev, pt, n + 2 * off, &base[p]));
      poison(base[p]);
      if (use_views)
        MUST(dg_array_view(base[p], off, n, &arr[p]));
      else
        arr[p] = base[p];
      if (kind != 'o') {
        host[p] = random_values(n, pt);
        MUST(dg_array_upload_double(arr[p], host[p]));
      }
      if (kind == 'o' || kind == 'u')
        out = p;
      args[p] = DG_ARG_ARRAY(arr[p]);
    }
  }
  MUST(dg_elementwise_call(k, n, args));
  MUST(dg_device_synchronize(dev));

  dg_dtype ot = param_dtype(c, out, t);
  double eps = dg_dtype_epsilon(ot);
  double *got = download(arr[out]);
  int64_t bad = 0, first_bad = -1;
  double v[MAXP];
  for (int64_t i = 0; i < n; i++) {
    for (int p = 0; p < np; p++)
      v[p] = host[p] ? host[p][i] : scalar[p];
    double scale;
    double want = c->ref(v, i, &scale);
    if (!(fabs(got[i] - want) <= 8 * eps * scale + 1e-300)) {
      if (bad++ == 0)
        first_bad = i;
    }
  }
  EXPECT(bad == 0, "%s %s n=%lld%s: %lld wrong, first at i=%lld (got %.17g)",
         c->name, tn, (long long)n, use_views ? " (views)" : "", (long long)bad,
         (long long)first_bad, first_bad >= 0 ? got[first_bad] : 0.0);
  if (use_views)
    expect_guards(base[out], GUARD, GUARD + n, c->name);
  free(got);
  for (int p = 0; p < np; p++) {
    if (arr[p] != base[p])
      dg_array_destroy(&arr[p]);
    dg_array_destroy(&base[p]);
    free(host[p]);
  }
}

static void source_and_cache(dg_device *dev) {
  const char *args = "double *z, double a, const double *x";
  const char *op = "z[i] = a * x[i]";
  dg_elementwise *k = NULL, *again = NULL;
  MUST(dg_elementwise_create(dev, "scale_source", args, op, &k));
  const char *src = dg_elementwise_source(k);
  EXPECT(strstr(src, op) && strstr(src, args) && strstr(src, "for every i"),
         "the generated source states what it computes:\n%s", src);
  if (dg_device_get_info(dev)->backend == DG_BACKEND_CUDA)
    EXPECT(strstr(src, "const double *__restrict__ x") &&
               strstr(src, "long long n") && strstr(src, "gridDim.x"),
           "cuda source: restrict const pointer, 64-bit n, grid stride:\n%s", src);
  else
    EXPECT(strstr(src, "void scale_source(void **dg_args, int64_t dg_first, "
                       "int64_t dg_count)") && strstr(src, "#pragma omp simd"),
           "cpu source: chunk entry and simd loop:\n%s", src);
  int64_t before = dg_device_get_stats(dev).compilations;
  MUST(dg_elementwise_create(dev, "scale_source", args, op, &again));
  EXPECT(dg_device_get_stats(dev).compilations == before,
         "re-creating a kernel compiled it again");
  dg_elementwise_destroy(&k);
  dg_elementwise_destroy(&again);
}

static void call_errors(dg_device *dev) {
  dg_elementwise *k = NULL;
  dg_array *d = NULL, *f = NULL, *shorter = NULL;
  MUST(dg_elementwise_create(dev, "call_errors",
                             "double *z, const double *x, int k", "z[i] = k*x[i]",
                             &k));
  MUST(dg_array_create(dev, DG_DOUBLE, 10, &d));
  MUST(dg_array_create(dev, DG_FLOAT, 10, &f));
  MUST(dg_array_create(dev, DG_DOUBLE, 9, &shorter));
  EXPECT(dg_elementwise_call(k, 10, (dg_arg[]){DG_ARG_ARRAY(d), DG_ARG_ARRAY(f),
                                               DG_ARG_INT(2)}) == DG_ERR_ARG &&
             strstr(dg_error_message(), "'x' is declared double but the array "
                                        "holds float"),
         "dtype mismatch: %s", dg_error_message());
  EXPECT(dg_elementwise_call(k, 10, (dg_arg[]){DG_ARG_ARRAY(d),
                                               DG_ARG_ARRAY(shorter),
                                               DG_ARG_INT(2)}) == DG_ERR_ARG &&
             strstr(dg_error_message(), "has 9 elements"),
         "short array: %s", dg_error_message());
  EXPECT(dg_elementwise_call(k, 10, (dg_arg[]){DG_ARG_ARRAY(d), DG_ARG_ARRAY(d),
                                               DG_ARG_REAL(2.0)}) == DG_ERR_ARG,
         "a real passed for an int accepted");
  EXPECT(dg_elementwise_call(k, 10, (dg_arg[]){DG_ARG_ARRAY(d), DG_ARG_ARRAY(d),
                                               DG_ARG_INT(1ll << 40)}) ==
             DG_ERR_ARG,
         "an int64 value out of int range accepted");
  EXPECT(dg_elementwise_call(k, -1, (dg_arg[]){DG_ARG_ARRAY(d), DG_ARG_ARRAY(d),
                                               DG_ARG_INT(2)}) == DG_ERR_ARG,
         "negative n accepted");
  dg_elementwise *bad = NULL;
  EXPECT(dg_elementwise_create(dev, "bad name", "double *z", "z[i] = 0", &bad) ==
                 DG_ERR_ARG &&
             bad == NULL,
         "a kernel name with a space accepted");
  dg_error_clear();
  dg_elementwise_destroy(&k);
  dg_array_destroy(&d);
  dg_array_destroy(&f);
  dg_array_destroy(&shorter);
}

int main(int argc, char **argv) {
  dg_device *dev = test_open(argc, argv);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int t = 0; t < 2; t++) {
      if (cases[c].dtypes && t == 0)
        continue; /* fixed types: once */
      dg_elementwise *k = create_case(dev, &cases[c], (dg_dtype)t);
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int views = 0; views < 2; views++)
          run_case(dev, k, &cases[c], (dg_dtype)t, sizes[s], views);
      dg_elementwise_destroy(&k);
    }
  /* On a GPU, 2^26 + 12345 items span several passes of the grid-stride
   * loop (a pass covers 32 waves of blocks, 35M items on an H100). */
  if (dg_device_get_info(dev)->backend == DG_BACKEND_CUDA)
    for (int t = 0; t < 2; t++) {
      dg_elementwise *k = create_case(dev, &cases[0], (dg_dtype)t);
      run_case(dev, k, &cases[0], (dg_dtype)t, ((int64_t)1 << 26) + 12345, 1);
      dg_elementwise_destroy(&k);
    }
  source_and_cache(dev);
  call_errors(dev);
  return test_finish(&dev);
}
