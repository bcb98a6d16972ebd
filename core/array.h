/* dg_array: a float or double vector in device memory.
 *
 * An array either owns its allocation or is a view (offset, length) into
 * another array; views share the allocation through a reference count, so
 * the order in which an array and its views are destroyed does not matter.
 * Host buffers passed to upload/download hold elements of the array's dtype
 * (the _double variants convert from/to host doubles, the house type for
 * host-side numbers).
 *
 * This API is for framework code: the numerical kernels over arrays are the
 * generated ones of core/elementwise.h and core/reduction.h. */
#ifndef DG_CORE_ARRAY_H
#define DG_CORE_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"

typedef struct dg_array dg_array;

/* A new owning array of length n >= 0 (contents undefined). */
dg_error dg_array_create(dg_device *dev, dg_dtype dtype, int64_t n,
                         dg_array **out);
/* A view of elements [offset, offset + n) of base (itself maybe a view). */
dg_error dg_array_view(dg_array *base, int64_t offset, int64_t n,
                       dg_array **out);
/* Frees the allocation once the last array or view on it is gone. */
void dg_array_destroy(dg_array **a);

dg_device *dg_array_device(const dg_array *a);
dg_dtype dg_array_dtype(const dg_array *a);
int64_t dg_array_length(const dg_array *a);
size_t dg_array_bytes(const dg_array *a);
/* Device address of element 0 (valid for dg_device_* calls and kernels). */
void *dg_array_data(const dg_array *a);
int dg_array_is_view(const dg_array *a);

/* Whole-array transfers; host holds length elements of the array's dtype. */
dg_error dg_array_upload(dg_array *a, const void *host);
dg_error dg_array_download(const dg_array *a, void *host);
/* The same from/to host doubles (float arrays round to nearest). */
dg_error dg_array_upload_double(dg_array *a, const double *host);
dg_error dg_array_download_double(const dg_array *a, double *host);

/* a[i] = value for all i (a generated kernel; looked up in the kernel cache
 * on every call, so hot loops should keep their own dg_elementwise). */
dg_error dg_array_fill(dg_array *a, double value);
/* dst = src.  Equal lengths; equal dtypes copy bytes, different dtypes
 * convert with a generated kernel.  Overlapping distinct ranges are an
 * error. */
dg_error dg_array_copy(dg_array *dst, const dg_array *src);

#endif
