/* tuning.second_run_tunes_nothing: on the cpu backend, a first
 * `tuning = auto` run (asked for by name, so it searches there) searches and
 * records; a second finds the record and searches nothing (no candidate
 * compiled: the device's compile counters do not move). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "operators/physics.h"
#include "problems/solver/autotune.h"
#include "problems/driver/problem.h"

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  dg_log_set_level(DG_LOG_WARN);
  char *dir = NULL;
  if (dg_fsutil_make_temp_dir("dgtune2", &dir) != DG_OK)
    return 1;
  const char *ov[] = {"backend.device=cpu", "mesh.cells=4 4"};
  dg_problem *p = NULL;
  dg_device *dev = NULL;
  dg_discretization *disc = NULL;
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  if (dg_problem_load(argv[1], ov, 2, &p) != DG_OK || dg_device_create("cpu", 0, &dev) != DG_OK ||
      dg_discretization_create(p->mesh, p->order, p->precision, &disc) != DG_OK ||
      dg_physics_from_program(p->program, &ph, &tab) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  int failures = 0;
  dg_autotune_request q = {dev, disc, &ph, p->tag_to_bc, NULL, DG_TUNE_AUTO, p->kernels,
                           NULL, dir, 2, DG_AUTOTUNE_SEARCH_MISSING, NULL};
  dg_autotune_outcome o1, o2;
  if (dg_autotune(&q, &o1) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  dg_device_stats s1 = dg_device_get_stats(dev);
  if (dg_autotune(&q, &o2) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  dg_device_stats s2 = dg_device_get_stats(dev);
  if (!o1.tuned || o2.tuned || memcmp(&o1.cfg, &o2.cfg, sizeof o1.cfg) != 0) {
    printf("first run tuned %d, second tuned %d (expected 1, 0, same choice)\n", o1.tuned,
           o2.tuned);
    failures++;
  }
  if (memcmp(&s1, &s2, sizeof s1) != 0) {
    printf("the second run compiled or loaded modules\n");
    failures++;
  }
  /* full always searches again */
  q.mode = DG_TUNE_FULL;
  if (dg_autotune(&q, &o2) != DG_OK || !o2.tuned) {
    printf("tuning = full did not search\n");
    failures++;
  }
  dg_physics_tables_destroy(&tab);
  dg_discretization_destroy(&disc);
  dg_device_destroy(&dev);
  dg_problem_destroy(&p);
  dg_fsutil_remove_tree(dir);
  free(dir);
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
