#include "meshes/mesh_h5_check.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Names of one kind ("tags", "regions") are unique (counts are small: a
 * pairwise test). */
static dg_error check_unique(const char *path, const char *what, char *const *names, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      DG_CHECK(strcmp(names[i], names[j]) != 0, DG_ERR_INPUT,
               "mesh file '%s': %s %d and %d are both named '%s'", path, what, j, i, names[i]);
  return DG_OK;
}

dg_error dg_mesh_h5_check_fields(const char *path, int dim, const int periodic[3],
                                 const double lo[3], const double hi[3],
                                 const dg_mesh_face_pair *pairs, int64_t npairs,
                                 char *const *names, int ntags) {
  for (int a = 0; a < 3; a++) {
    DG_CHECK(periodic[a] == 0 || (periodic[a] == 1 && a < dim), DG_ERR_INPUT,
             "mesh file '%s': periodic[%d] = %d (0 or 1 on the %d axes of a %dD mesh, else 0)",
             path, a, periodic[a], dim, dim);
    DG_CHECK(isfinite(lo[a]) && isfinite(hi[a]), DG_ERR_INPUT,
             "mesh file '%s': the domain extent on axis %d is [%g, %g] (not finite)", path, a,
             lo[a], hi[a]);
    DG_CHECK(!periodic[a] || lo[a] < hi[a], DG_ERR_INPUT,
             "mesh file '%s': axis %d is periodic over [%g, %g], an empty period", path, a,
             lo[a], hi[a]);
  }
  for (int64_t i = 0; i < npairs; i++) {
    const dg_mesh_face_pair *p = &pairs[i];
    DG_CHECK(p->k1 != p->k2 || p->f1 != p->f2, DG_ERR_INPUT,
             "mesh file '%s': face pair %" PRId64 " pairs face %d of element %" PRId64
             " with itself",
             path, i, p->f1, p->k1);
    for (int a = 0; a < 3; a++)
      DG_CHECK(isfinite(p->shift[a]) && (a < dim || p->shift[a] == 0), DG_ERR_INPUT,
               "mesh file '%s': face pair %" PRId64 " has shift[%d] = %g (finite, 0 past "
               "the %d axes)",
               path, i, a, p->shift[a], dim);
  }
  DG_CALL(check_unique(path, "tags", names, ntags));
  return DG_OK;
}

dg_error dg_mesh_h5_check_regions(const char *path, const int *region, int64_t n,
                                  const int64_t *gk, char *const *names, int nregions) {
  DG_CALL(check_unique(path, "regions", names, nregions));
  for (int64_t i = 0; i < n; i++)
    DG_CHECK(region[i] >= -1 && region[i] < nregions, DG_ERR_INPUT,
             "mesh file '%s': element %" PRId64 " has region %d (the file names %d regions: "
             "0 .. %d, or -1 for none); the file is corrupt, import the mesh again",
             path, gk ? gk[i] : i, region[i], nregions, nregions - 1);
  return DG_OK;
}

dg_error dg_mesh_h5_check_coords(const char *path, const double *X, int64_t n, int dim) {
  for (int64_t i = 0; i < n * dim; i++)
    DG_CHECK(isfinite(X[i]), DG_ERR_INPUT,
             "mesh file '%s': vertex %" PRId64 " has coordinate %d = %g (not finite)", path,
             i / dim, (int)(i % dim), X[i]);
  return DG_OK;
}
