#include "dg/face_geometry.h"

#include <stdlib.h>
#include <string.h>

dg_error dg_face_geometry_per_face(const dg_opdata *od, void **out, size_t *bytes) {
  size_t row = (size_t)(od->dim + 1) * od->real_size;
  size_t nf = (size_t)od->K * od->Nfaces;
  *bytes = nf * row;
  *out = malloc(*bytes ? *bytes : 1);
  DG_CHECK(*out, DG_ERR_MEMORY, "out of host memory (%zu bytes)", *bytes);
#pragma omp parallel for schedule(static)
  for (size_t kf = 0; kf < nf; kf++) {
    size_t k = kf / (size_t)od->Nfaces, f = kf % (size_t)od->Nfaces;
    size_t node = k * (size_t)od->nfnfp + f * (size_t)od->Nfp; /* first node of the face */
    memcpy((char *)*out + kf * row, (const char *)od->fgeo + node * row, row);
  }
  return DG_OK;
}
