/* Writes the crafted HDF5 mesh cases of the bad-input catalogue
 * (mesh_h5_field_*.h5): valid, sealed files (the seal is computed over
 * what is written, so the reader's field checks are reached) whose fields
 * are out of range.  usage: make_bad_h5 DIR (run by hand; the files are
 * committed with their .expect). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshes/builtin.h"
#include "meshes/mesh_h5.h"
#include "meshes/mesh_validate.h"

static void fail(void) {
  dg_error_print(stderr);
  exit(1);
}

static dg_mesh *square(void) {
  dg_mesh *m;
  if (dg_builtin_rectangle(0, 1, 0, 1, 2, 2, NULL, &m) != DG_OK)
    fail();
  return m;
}

static void put(const char *dir, const char *name, dg_mesh *m, const dg_partition *p,
                const int64_t *EToE, const int *EToF) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (dg_mesh_h5_write(path, m, p, EToE, EToF) != DG_OK)
    fail();
  dg_mesh_destroy(&m);
}

static void rename_tag(dg_mesh *m, int i, const char *name) {
  free(m->tag_names[i]);
  m->tag_names[i] = strdup(name);
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  const char *dir = argv[1];
  dg_mesh *m = square();
  /* (dg_mesh_face_pair_add refuses it: set by hand) */
  m->face_pairs = calloc(1, sizeof *m->face_pairs);
  if (!m->face_pairs)
    return 1;
  m->face_pairs[0] = (dg_mesh_face_pair){0, 0, 1, 1, {0, 0, 0}};
  m->nface_pairs = 1;
  put(dir, "mesh_h5_field_pair_self.h5", m, NULL, NULL, NULL);
  m = square();
  m->periodic[0] = 7;
  put(dir, "mesh_h5_field_periodic_7.h5", m, NULL, NULL, NULL);
  m = square();
  m->periodic[2] = 1; /* an axis a 2D mesh does not have */
  put(dir, "mesh_h5_field_periodic_z.h5", m, NULL, NULL, NULL);
  m = square();
  m->lo[1] = NAN;
  put(dir, "mesh_h5_field_nan_bounds.h5", m, NULL, NULL, NULL);
  m = square();
  m->VX[5] = NAN;
  put(dir, "mesh_h5_field_nan_coords.h5", m, NULL, NULL, NULL);
  m = square();
  m->VX[2] = INFINITY;
  put(dir, "mesh_h5_field_inf_coords.h5", m, NULL, NULL, NULL);
  m = square();
  rename_tag(m, 0, "\x1b[2J\x1b[Hwall");
  put(dir, "mesh_h5_field_tag_escape.h5", m, NULL, NULL, NULL);
  m = square();
  if (m->ntags < 2)
    return 1;
  rename_tag(m, 1, m->tag_names[0]);
  put(dir, "mesh_h5_field_tag_twice.h5", m, NULL, NULL, NULL);
  /* a partition whose connectivity pairs a face with itself */
  m = square();
  dg_partition *p = NULL;
  int nf = m->dim + 1;
  int64_t *EToE = malloc(sizeof *EToE * (size_t)(m->K * nf));
  int *EToF = malloc(sizeof *EToF * (size_t)(m->K * nf));
  if (!EToE || !EToF || dg_partition_create(m, NULL, NULL, 2, NULL, &p) != DG_OK ||
      dg_mesh_validate_neighbors(m, 1, EToE, EToF) != DG_OK)
    fail();
  for (int f = 0; f < nf; f++)
    if (EToE[f] < 0) { /* a boundary face of element 0 */
      EToE[f] = 0;
      EToF[f] = f;
      break;
    }
  put(dir, "mesh_h5_field_neighbour_self.h5", m, p, EToE, EToF);
  dg_partition_destroy(&p);
  free(EToE);
  free(EToF);
  return 0;
}
