#include "core/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elementwise.h"

/* One device allocation, shared by an owning array and its views. */
typedef struct storage {
  dg_device *dev;
  void *ptr;
  size_t bytes;
  int refs;
} storage;

struct dg_array {
  dg_device *dev;
  dg_dtype dtype;
  int64_t length;
  void *data;       /* element 0 of this array or view */
  size_t offset;    /* bytes from the start of the storage */
  int view;
  storage *store;
};

static dg_error check_dtype(dg_dtype dtype) {
  DG_CHECK(dtype == DG_FLOAT || dtype == DG_DOUBLE, DG_ERR_ARG,
           "dtype %d is neither DG_FLOAT nor DG_DOUBLE", (int)dtype);
  return DG_OK;
}

dg_error dg_array_create(dg_device *dev, dg_dtype dtype, int64_t n,
                         dg_array **out) {
  DG_CHECK(dev && out, DG_ERR_ARG, "dg_array_create: NULL argument");
  *out = NULL;
  DG_CALL(check_dtype(dtype));
  DG_CHECK(n >= 0 && (uint64_t)n <= SIZE_MAX / 8, DG_ERR_ARG,
           "array length %lld is out of range", (long long)n);
  dg_array *a = calloc(1, sizeof *a);
  storage *s = calloc(1, sizeof *s);
  if (!a || !s) {
    free(a);
    free(s);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory");
  }
  s->dev = dev;
  s->bytes = (size_t)n * dg_dtype_size(dtype);
  s->refs = 1;
  /* A zero-length array still gets a (small) allocation, so every array has
   * a valid device address. */
  dg_error err = dg_device_malloc(dev, s->bytes ? s->bytes : 8, &s->ptr);
  if (err != DG_OK) {
    free(a);
    free(s);
    DG_CALL(err);
  }
  a->dev = dev;
  a->dtype = dtype;
  a->length = n;
  a->data = s->ptr;
  a->store = s;
  *out = a;
  return DG_OK;
}

dg_error dg_array_view(dg_array *base, int64_t offset, int64_t n,
                       dg_array **out) {
  DG_CHECK(base && out, DG_ERR_ARG, "dg_array_view: NULL argument");
  *out = NULL;
  DG_CHECK(offset >= 0 && n >= 0 && offset <= base->length - n, DG_ERR_ARG,
           "view [%lld, %lld) lies outside the array of length %lld",
           (long long)offset, (long long)offset + (long long)n,
           (long long)base->length);
  dg_array *a = calloc(1, sizeof *a);
  DG_CHECK(a != NULL, DG_ERR_MEMORY, "out of host memory");
  size_t bytes = (size_t)offset * dg_dtype_size(base->dtype);
  *a = *base;
  a->length = n;
  a->offset = base->offset + bytes;
  a->data = dg_device_offset(base->data, bytes);
  a->view = 1;
  a->store->refs++;
  *out = a;
  return DG_OK;
}

void dg_array_destroy(dg_array **a) {
  if (!a || !*a)
    return;
  storage *s = (*a)->store;
  if (--s->refs == 0) {
    dg_device_free(s->dev, s->ptr);
    free(s);
  }
  free(*a);
  *a = NULL;
}

dg_device *dg_array_device(const dg_array *a) { return a->dev; }
dg_dtype dg_array_dtype(const dg_array *a) { return a->dtype; }
int64_t dg_array_length(const dg_array *a) { return a->length; }
size_t dg_array_bytes(const dg_array *a) {
  return (size_t)a->length * dg_dtype_size(a->dtype);
}
void *dg_array_data(const dg_array *a) { return a->data; }
int dg_array_is_view(const dg_array *a) { return a->view; }

dg_error dg_array_upload(dg_array *a, const void *host) {
  DG_CHECK(a && (host || a->length == 0), DG_ERR_ARG,
           "dg_array_upload: NULL argument");
  if (a->length > 0)
    DG_CALL(dg_device_upload(a->dev, a->data, host, dg_array_bytes(a)));
  return DG_OK;
}

dg_error dg_array_download(const dg_array *a, void *host) {
  DG_CHECK(a && (host || a->length == 0), DG_ERR_ARG,
           "dg_array_download: NULL argument");
  if (a->length > 0)
    DG_CALL(dg_device_download(a->dev, host, a->data, dg_array_bytes(a)));
  return DG_OK;
}

/* Host doubles <-> a float array through a float staging buffer: uploads
 * from `in` when it is not NULL, else downloads into `out`. */
static dg_error transfer_float(const dg_array *a, const double *in,
                               double *out) {
  if (a->length == 0)
    return DG_OK;
  float *tmp = malloc((size_t)a->length * sizeof *tmp);
  DG_CHECK(tmp != NULL, DG_ERR_MEMORY,
           "out of host memory staging %lld floats", (long long)a->length);
  dg_error err;
  if (in) {
    for (int64_t k = 0; k < a->length; k++)
      tmp[k] = (float)in[k];
    err = dg_device_upload(a->dev, a->data, tmp, dg_array_bytes(a));
  } else {
    err = dg_device_download(a->dev, tmp, a->data, dg_array_bytes(a));
    for (int64_t k = 0; err == DG_OK && k < a->length; k++)
      out[k] = tmp[k];
  }
  free(tmp);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_array_upload_double(dg_array *a, const double *host) {
  DG_CHECK(a && (host || a->length == 0), DG_ERR_ARG,
           "dg_array_upload_double: NULL argument");
  if (a->dtype == DG_DOUBLE)
    DG_CALL(dg_array_upload(a, host));
  else
    DG_CALL(transfer_float(a, host, NULL));
  return DG_OK;
}

dg_error dg_array_download_double(const dg_array *a, double *host) {
  DG_CHECK(a && (host || a->length == 0), DG_ERR_ARG,
           "dg_array_download_double: NULL argument");
  if (a->dtype == DG_DOUBLE)
    DG_CALL(dg_array_download(a, host));
  else
    DG_CALL(transfer_float(a, NULL, host));
  return DG_OK;
}

/* Build a one-off elementwise kernel, run it once, and drop it.  The module
 * comes from the kernel cache after the first use; the device is
 * synchronised before the module is unloaded. */
static dg_error run_once(dg_device *dev, const char *name,
                         const char *arguments, const char *operation,
                         int64_t n, const dg_arg *args) {
  dg_elementwise *k = NULL;
  DG_CALL(dg_elementwise_create(dev, name, arguments, operation, &k));
  dg_error err = dg_elementwise_call(k, n, args);
  if (err == DG_OK)
    err = dg_device_synchronize(dev);
  dg_elementwise_destroy(&k);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_array_fill(dg_array *a, double value) {
  DG_CHECK(a != NULL, DG_ERR_ARG, "dg_array_fill: array is NULL");
  if (a->length == 0)
    return DG_OK;
  const char *t = dg_dtype_name(a->dtype);
  char name[32], arguments[64];
  snprintf(name, sizeof name, "fill_%s", t);
  snprintf(arguments, sizeof arguments, "%s *a, %s value", t, t);
  DG_CALL(run_once(a->dev, name, arguments, "a[i] = value", a->length,
                   (dg_arg[]){DG_ARG_ARRAY(a), DG_ARG_REAL(value)}));
  return DG_OK;
}

dg_error dg_array_copy(dg_array *dst, const dg_array *src) {
  DG_CHECK(dst && src, DG_ERR_ARG, "dg_array_copy: NULL argument");
  DG_CHECK(dst->dev == src->dev, DG_ERR_ARG,
           "dg_array_copy: the arrays live on different devices");
  DG_CHECK(dst->length == src->length, DG_ERR_ARG,
           "dg_array_copy: destination has %lld elements, source %lld",
           (long long)dst->length, (long long)src->length);
  if (dst->length == 0)
    return DG_OK;
  if (dst->store == src->store) {
    size_t d0 = dst->offset, d1 = d0 + dg_array_bytes(dst);
    size_t s0 = src->offset, s1 = s0 + dg_array_bytes(src);
    if (d0 == s0 && dst->dtype == src->dtype)
      return DG_OK;
    DG_CHECK(d1 <= s0 || s1 <= d0, DG_ERR_ARG,
             "dg_array_copy: source bytes [%zu, %zu) and destination bytes "
             "[%zu, %zu) of one allocation overlap",
             s0, s1, d0, d1);
  }
  if (dst->dtype == src->dtype) {
    DG_CALL(dg_device_copy(dst->dev, dst->data, src->data, dg_array_bytes(dst)));
    return DG_OK;
  }
  const char *td = dg_dtype_name(dst->dtype), *ts = dg_dtype_name(src->dtype);
  char name[48], arguments[64];
  snprintf(name, sizeof name, "convert_%s_to_%s", ts, td);
  snprintf(arguments, sizeof arguments, "%s *dst, const %s *src", td, ts);
  DG_CALL(run_once(dst->dev, name, arguments, "dst[i] = src[i]", dst->length,
                   (dg_arg[]){DG_ARG_ARRAY(dst), DG_ARG_ARRAY(src)}));
  return DG_OK;
}
