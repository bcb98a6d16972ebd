/* The element type of device data: float or double.  One enum for the
 * whole project: device arrays (core/array.h), the precision of a
 * discretization and of the generated kernels (dg/discretization.h). */
#ifndef DG_CORE_DTYPE_H
#define DG_CORE_DTYPE_H

#include <stddef.h>

typedef enum dg_dtype { DG_FLOAT = 0, DG_DOUBLE = 1 } dg_dtype;

/* Bytes per element (4, 8) and the C type name ("float", "double"). */
size_t dg_dtype_size(dg_dtype dtype);
const char *dg_dtype_name(dg_dtype dtype);
/* Machine epsilon of the dtype (2^-23, 2^-52), for tolerances. */
double dg_dtype_epsilon(dg_dtype dtype);

#endif
