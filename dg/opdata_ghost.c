/* dg_opdata_extend: room for ghost slots after the owned elements. */
#include <stdlib.h>
#include <string.h>

#include "dg/opdata.h"

/* Grow a row-major array of K rows to K_new rows, the new rows zero. */
static dg_error grow(void **p, int64_t K, int64_t K_new, size_t row_bytes) {
  void *n = calloc((size_t)K_new, row_bytes);
  DG_CHECK(n, DG_ERR_MEMORY, "out of memory for %lld element slots", (long long)K_new);
  if (*p)
    memcpy(n, *p, (size_t)K * row_bytes);
  free(*p);
  *p = n;
  return DG_OK;
}

dg_error dg_opdata_extend(dg_opdata *od, int64_t K_new) {
  DG_CHECK(K_new >= od->K, DG_ERR_ARG, "dg_opdata_extend: %lld < %lld slots",
           (long long)K_new, (long long)od->K);
  DG_CHECK((double)od->ncomp * (double)K_new * od->np_pad < 2147483647.0, DG_ERR_UNSUPPORTED,
           "state of %lld element slots exceeds 32-bit offsets (use more ranks)",
           (long long)K_new);
  int64_t K = od->K;
  size_t rs = od->real_size;
  size_t nf = (size_t)od->nfnfp;
  DG_CALL(grow(&od->egeo, K, K_new, (size_t)od->ngeo * rs));
  DG_CALL(grow(&od->fgeo, K, K_new, nf * (size_t)(od->dim + 1) * rs));
  DG_CALL(grow(&od->fx, K, K_new, nf * (size_t)od->dim * rs));
  DG_CALL(grow((void **)&od->mapM, K, K_new, nf * sizeof(int32_t)));
  DG_CALL(grow((void **)&od->mapP, K, K_new, nf * sizeof(int32_t)));
  DG_CALL(grow((void **)&od->fbc, K, K_new, (size_t)od->Nfaces * sizeof(int32_t)));
  for (int64_t z = K * od->Nfaces; z < K_new * od->Nfaces; z++)
    od->fbc[z] = -1;
  DG_CALL(grow((void **)&od->Jk, K, K_new, sizeof(double)));
  /* vx is (d*K + k)*np_pad + i: the stride changes with K. */
  size_t row = (size_t)od->np_pad * rs;
  char *vx = calloc((size_t)od->dim * (size_t)K_new, row);
  DG_CHECK(vx, DG_ERR_MEMORY, "out of memory");
  for (int d = 0; d < od->dim; d++)
    memcpy(vx + (size_t)d * K_new * row, (char *)od->vx + (size_t)d * K * row, (size_t)K * row);
  free(od->vx);
  od->vx = vx;
  od->K = K_new;
  return DG_OK;
}
