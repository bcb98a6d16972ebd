/* core.array_basic: upload/download round trips, fill, copy (same dtype and
 * converting), views (guards around them stay untouched), views outliving
 * their base, and the argument errors. */
#include "array_test.h"

#include "core/elementwise.h"

static const int64_t sizes[] = {0, 1, 7, 1000, 100003};
enum { GUARD = 13 };

static void round_trip(dg_device *dev, dg_dtype t, int64_t n) {
  dg_array *a = NULL;
  MUST(dg_array_create(dev, t, n, &a));
  EXPECT(dg_array_length(a) == n && dg_array_dtype(a) == t && !dg_array_is_view(a),
         "properties of a new array");
  EXPECT(dg_array_bytes(a) == (size_t)n * dg_dtype_size(t), "bytes");
  /* Through host doubles (inputs already rounded to t: exact). */
  double *in = random_values(n, t);
  MUST(dg_array_upload_double(a, in));
  double *out = download(a);
  int64_t bad = 0;
  for (int64_t k = 0; k < n; k++)
    bad += out[k] != in[k];
  EXPECT(bad == 0, "%s n=%lld: %lld elements differ after upload/download",
         dg_dtype_name(t), (long long)n, (long long)bad);
  /* Raw bytes of the dtype: bitwise identical. */
  size_t bytes = (size_t)n * dg_dtype_size(t);
  unsigned char *raw = malloc(bytes + 1), *back = malloc(bytes + 1);
  for (size_t k = 0; k < bytes; k++)
    raw[k] = (unsigned char)(rng_next() & 0x3f); /* no NaN/Inf patterns */
  MUST(dg_array_upload(a, raw));
  MUST(dg_array_download(a, back));
  EXPECT(bytes == 0 || memcmp(raw, back, bytes) == 0,
         "%s n=%lld: raw bytes differ", dg_dtype_name(t), (long long)n);
  free(raw);
  free(back);
  free(in);
  free(out);
  dg_array_destroy(&a);
  EXPECT(a == NULL, "destroy sets the pointer to NULL");
}

static void fill_and_copy(dg_device *dev, dg_dtype t, int64_t n) {
  dg_dtype other = t == DG_FLOAT ? DG_DOUBLE : DG_FLOAT;
  dg_array *a = NULL, *b = NULL, *c = NULL;
  MUST(dg_array_create(dev, t, n, &a));
  MUST(dg_array_create(dev, t, n, &b));
  MUST(dg_array_create(dev, other, n, &c));
  /* fill: every element equals the value rounded to t. */
  double value = rng_value(DG_DOUBLE) * 1e3;
  double want = t == DG_FLOAT ? (double)(float)value : value;
  poison(a);
  MUST(dg_array_fill(a, value));
  double *v = download(a);
  int64_t bad = 0;
  for (int64_t k = 0; k < n; k++)
    bad += v[k] != want;
  EXPECT(bad == 0, "fill %s n=%lld: %lld wrong", dg_dtype_name(t), (long long)n,
         (long long)bad);
  free(v);
  /* copy with the same dtype: bitwise. */
  double *in = random_values(n, t);
  MUST(dg_array_upload_double(a, in));
  poison(b);
  MUST(dg_array_copy(b, a));
  v = download(b);
  bad = 0;
  for (int64_t k = 0; k < n; k++)
    bad += v[k] != in[k];
  EXPECT(bad == 0, "copy %s n=%lld: %lld wrong", dg_dtype_name(t), (long long)n,
         (long long)bad);
  free(v);
  /* converting copy: float -> double exact, double -> float rounds to
   * nearest (the C conversion, same as the host's). */
  poison(c);
  MUST(dg_array_copy(c, a));
  v = download(c);
  bad = 0;
  for (int64_t k = 0; k < n; k++)
    bad += v[k] != (other == DG_FLOAT ? (double)(float)in[k] : in[k]);
  EXPECT(bad == 0, "copy %s -> %s n=%lld: %lld wrong", dg_dtype_name(t),
         dg_dtype_name(other), (long long)n, (long long)bad);
  free(v);
  free(in);
  dg_array_destroy(&a);
  dg_array_destroy(&b);
  dg_array_destroy(&c);
}

static void views(dg_device *dev, dg_dtype t, int64_t n) {
  dg_array *base = NULL, *view = NULL, *inner = NULL;
  MUST(dg_array_create(dev, t, n + 2 * GUARD, &base));
  poison(base);
  MUST(dg_array_view(base, GUARD, n, &view));
  EXPECT(dg_array_is_view(view) && dg_array_length(view) == n, "view properties");
  double *in = random_values(n, t);
  MUST(dg_array_upload_double(view, in));
  expect_guards(base, GUARD, GUARD + n, "upload into a view");
  double *whole = download(base);
  int64_t bad = 0;
  for (int64_t k = 0; k < n; k++)
    bad += whole[GUARD + k] != in[k];
  EXPECT(bad == 0, "view %s n=%lld: %lld elements at the wrong place",
         dg_dtype_name(t), (long long)n, (long long)bad);
  free(whole);
  /* A view of a view addresses base elements GUARD + off + k. */
  if (n >= 3) {
    int64_t off = n / 3, len = n - n / 3 - 1;
    MUST(dg_array_view(view, off, len, &inner));
    MUST(dg_array_fill(inner, 2.5));
    whole = download(base);
    bad = 0;
    for (int64_t k = 0; k < n; k++) {
      int in_inner = k >= off && k < off + len;
      bad += whole[GUARD + k] != (in_inner ? 2.5 : in[k]);
    }
    EXPECT(bad == 0, "fill of a view of a view %s n=%lld: %lld wrong",
           dg_dtype_name(t), (long long)n, (long long)bad);
    free(whole);
    expect_guards(base, GUARD, GUARD + n, "fill of a view of a view");
  }
  /* The base goes first; the views keep the allocation alive. */
  dg_array_destroy(&base);
  poison(view);
  MUST(dg_array_fill(view, -1.0));
  double *v = download(view);
  bad = 0;
  for (int64_t k = 0; k < n; k++)
    bad += v[k] != -1.0;
  EXPECT(bad == 0, "view used after its base was destroyed: %lld wrong",
         (long long)bad);
  free(v);
  free(in);
  dg_array_destroy(&inner);
  dg_array_destroy(&view);
}

static void errors(dg_device *dev) {
  dg_array *a = NULL, *b = NULL, *v = NULL, *w = NULL;
  MUST(dg_array_create(dev, DG_DOUBLE, 10, &a));
  MUST(dg_array_create(dev, DG_DOUBLE, 11, &b));
  EXPECT(dg_array_create(dev, DG_DOUBLE, -1, &v) == DG_ERR_ARG,
         "negative length accepted");
  EXPECT(dg_array_create(dev, (dg_dtype)7, 3, &v) == DG_ERR_ARG,
         "bad dtype accepted");
  EXPECT(dg_array_view(a, 5, 6, &v) == DG_ERR_ARG && v == NULL,
         "view past the end accepted");
  EXPECT(strstr(dg_error_message(), "[5, 11)") != NULL,
         "message names the range: %s", dg_error_message());
  EXPECT(dg_array_view(a, -1, 2, &v) == DG_ERR_ARG, "negative offset accepted");
  EXPECT(dg_array_copy(a, b) == DG_ERR_ARG, "copy of unequal lengths accepted");
  MUST(dg_array_view(a, 0, 6, &v));
  MUST(dg_array_view(a, 3, 6, &w));
  EXPECT(dg_array_copy(v, w) == DG_ERR_ARG, "overlapping copy accepted");
  MUST(dg_array_copy(v, v)); /* the same range: nothing to do */
  dg_error_clear();
  dg_array_destroy(&w);
  dg_array_destroy(&v);
  dg_array_destroy(&a);
  dg_array_destroy(&b);
  dg_array_destroy(&a); /* destroying NULL is harmless */
}

int main(int argc, char **argv) {
  dg_device *dev = test_open(argc, argv);
  EXPECT(dg_dtype_size(DG_FLOAT) == 4 && dg_dtype_size(DG_DOUBLE) == 8, "sizes");
  EXPECT(strcmp(dg_dtype_name(DG_FLOAT), "float") == 0, "name");
  for (int t = 0; t < 2; t++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      round_trip(dev, (dg_dtype)t, sizes[s]);
      fill_and_copy(dev, (dg_dtype)t, sizes[s]);
      views(dev, (dg_dtype)t, sizes[s]);
    }
  errors(dev);
  return test_finish(&dev);
}
