/* Writes the seed corpus of fuzz_mesh_h5 (tests/fuzz/corpus_h5/): small
 * meshes of each dimension, periodic and not, with and without a stored
 * partition, with and without element regions.  usage: make_h5_seeds DIR */
#include <stdio.h>
#include <stdlib.h>

#include "meshes/builtin.h"
#include "meshes/mesh_h5.h"

static void put(const char *dir, const char *name, dg_mesh *m, int parts) {
  char path[1024];
  dg_partition *p = NULL;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if ((parts > 1 && dg_partition_create(m, NULL, NULL, parts, NULL, &p) != DG_OK) ||
      dg_mesh_h5_write(path, m, p, NULL, NULL) != DG_OK) {
    dg_error_print(stderr);
    exit(1);
  }
  dg_partition_destroy(&p);
  dg_mesh_destroy(&m);
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  dg_mesh *m;
  int per2[2] = {1, 0}, per3[3] = {0, 0, 1};
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  int64_t n[3] = {1, 1, 1};
  if (dg_builtin_interval(0, 1, 3, 0, &m) == DG_OK) put(argv[1], "interval.h5", m, 1);
  if (dg_builtin_interval(0, 1, 4, 1, &m) == DG_OK) put(argv[1], "interval_parts.h5", m, 2);
  if (dg_builtin_rectangle(0, 1, 0, 1, 2, 1, NULL, &m) == DG_OK) put(argv[1], "rect.h5", m, 1);
  if (dg_builtin_rectangle(0, 1, 0, 1, 2, 2, per2, &m) == DG_OK)
    put(argv[1], "rect_parts.h5", m, 2);
  if (dg_builtin_box(lo, hi, n, per3, &m) == DG_OK) put(argv[1], "box_parts.h5", m, 2);
  if (dg_builtin_rectangle(0, 1, 0, 1, 2, 2, NULL, &m) == DG_OK) {
    /* two regions and an element in none */
    if (dg_mesh_region_add(m, "glass", NULL) != DG_OK || dg_mesh_region_add(m, "air", NULL))
      return 1;
    for (int64_t k = 0; k + 1 < m->K; k++)
      m->region[k] = (int)(k % 2);
    put(argv[1], "rect_regions_parts.h5", m, 2);
  }
  return 0;
}
