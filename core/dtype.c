#include "core/dtype.h"

#include <float.h>

size_t dg_dtype_size(dg_dtype dtype) { return dtype == DG_FLOAT ? 4 : 8; }

const char *dg_dtype_name(dg_dtype dtype) {
  return dtype == DG_FLOAT ? "float" : "double";
}

double dg_dtype_epsilon(dg_dtype dtype) {
  return dtype == DG_FLOAT ? FLT_EPSILON : DBL_EPSILON;
}
