/* tuning.auto_default: backend.tuning = auto is the default (the schema
 * row, a problem without the key), knobs set by hand without the key mean
 * off; on the cpu backend, auto with an empty database runs the base
 * knobs with one notice line and stores nothing; asked for by name
 * (SEARCH_MISSING) it announces the tuning once, searches and stores an
 * entry, which the next default run uses silently; a corrupt entry is a
 * warning and the base knobs; off prints nothing. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/autotune.h"
#include "tests/expect.h"

static char capture_path[4096];
static int saved_fd = -1;

/* stderr into a file until captured() */
static void capture(void) {
  fflush(stderr);
  saved_fd = dup(2);
  int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
}

static char *captured(void) {
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  void *data = NULL;
  size_t n = 0;
  MUST(dg_fsutil_read_file(capture_path, &data, &n));
  fputs(data, stderr); /* the test's log shows it */
  return data;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
    n++;
  return n;
}

static int entries(const char *dir) {
  char **names = NULL;
  int n = 0;
  MUST(dg_fsutil_list(dir, ".tune", &names, &n));
  dg_fsutil_free_names(names, n);
  return n;
}

int main(int argc, char **argv) {
  CHECK(argc >= 2, "usage: test advection2d.cfg");
  dg_log_set_level(DG_LOG_INFO);
  size_t ns = 0;
  const dg_config_key *schema = dg_problem_schema(&ns);
  int seen = 0;
  for (size_t i = 0; i < ns; i++)
    if (schema[i].key && !strcmp(schema[i].section, "backend") && !strcmp(schema[i].key, "tuning")) {
      seen = 1;
      EXPECT(!strcmp(schema[i].def, "auto"), "default '%s'", schema[i].def);
    }
  EXPECT(seen);
  /* the default, knobs by hand, both */
  const char *ov[5] = {"backend.device=cpu", "mesh.cells=2 2", "discretization.order=1", NULL,
                      NULL};
  dg_problem *p = NULL;
  MUST(dg_problem_load(argv[1], ov, 3, &p));
  EXPECT(p->tuning == DG_TUNE_AUTO && !p->tuning_given);
  dg_problem_destroy(&p);
  ov[3] = "backend.cpu_chunk=8";
  MUST(dg_problem_load(argv[1], ov, 4, &p));
  EXPECT(p->tuning == DG_TUNE_OFF && p->kernels.cpu_chunk == 8);
  dg_problem_destroy(&p);
  ov[4] = "backend.tuning=auto";
  MUST(dg_problem_load(argv[1], ov, 5, &p));
  EXPECT(p->tuning == DG_TUNE_AUTO && p->tuning_given);
  dg_problem_destroy(&p);

  char *dir = NULL;
  MUST(dg_fsutil_make_temp_dir("dgtuneauto", &dir));
  snprintf(capture_path, sizeof capture_path, "%s/stderr.txt", dir);
  char *db = dg_fsutil_join(dir, "tuning");
  dg_device *dev = NULL;
  dg_discretization *disc = NULL;
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_problem_load(argv[1], ov, 3, &p));
  MUST(dg_device_create("cpu", 0, &dev));
  MUST(dg_discretization_create(p->mesh, p->order, p->precision, &disc));
  MUST(dg_physics_from_program(p->program, &ph, &tab));
  dg_kernel_config base = p->kernels;
  base.cpu_chunk = 3; /* tells the base knobs from a search's choice */
  dg_autotune_request q = {dev, disc, &ph, p->tag_to_bc, NULL, DG_TUNE_AUTO, base, NULL, db, 2,
                           DG_AUTOTUNE_BY_BACKEND, NULL};
  dg_autotune_outcome o;
  /* the default on cpu, nothing stored: the base knobs and one notice */
  capture();
  MUST(dg_autotune(&q, &o));
  char *log = captured();
  EXPECT(!o.tuned && memcmp(&o.cfg, &base, sizeof base) == 0);
  EXPECT(count(log, "dgrun: ") == 1 && count(log, "no tuning entry") == 1 &&
         count(log, "on the cpu backend: running the default knobs") == 1);
  EXPECT(entries(db) == 0);
  free(log);
  /* asked for by name: announced once, searched, stored */
  q.search = DG_AUTOTUNE_SEARCH_MISSING;
  capture();
  MUST(dg_autotune(&q, &o));
  log = captured();
  dg_kernel_config tuned = o.cfg;
  EXPECT(o.tuned && entries(db) == 1);
  EXPECT(count(log, "tuning it once now") == 1 && count(log, "--tune=off skips this") == 1);
  EXPECT(count(log, "stored") == 2); /* the announcement and the result */
  free(log);
  /* the next default run: the entry, silently, nothing compiled */
  q.search = DG_AUTOTUNE_BY_BACKEND;
  dg_device_stats s1 = dg_device_get_stats(dev);
  capture();
  MUST(dg_autotune(&q, &o));
  log = captured();
  dg_device_stats s2 = dg_device_get_stats(dev);
  EXPECT(!o.tuned && memcmp(&o.cfg, &tuned, sizeof tuned) == 0);
  EXPECT(log[0] == '\0', "not silent: %s", log);
  EXPECT(memcmp(&s1, &s2, sizeof s1) == 0);
  free(log);
  /* a corrupt entry: a warning naming it, then the base knobs */
  char **names = NULL;
  int n = 0;
  MUST(dg_fsutil_list(db, ".tune", &names, &n));
  CHECK(n == 1);
  char *entry = dg_fsutil_join(db, names[0]);
  dg_fsutil_free_names(names, n);
  MUST(dg_fsutil_write_file(entry, "dgrun-tuning 1\ngarbage\n", 23, 0644));
  capture();
  MUST(dg_autotune(&q, &o));
  log = captured();
  EXPECT(!o.tuned && memcmp(&o.cfg, &base, sizeof base) == 0);
  EXPECT(count(log, "warning: tuning database entry") == 1 && count(log, "is corrupt") == 1 &&
         strstr(log, entry) != NULL);
  EXPECT(count(log, "on the cpu backend: running the default knobs") == 1);
  free(log);
  free(entry);
  /* off: the base knobs, silently */
  q.mode = DG_TUNE_OFF;
  capture();
  MUST(dg_autotune(&q, &o));
  log = captured();
  EXPECT(!o.tuned && memcmp(&o.cfg, &base, sizeof base) == 0 && log[0] == '\0');
  free(log);
  dg_physics_tables_destroy(&tab);
  dg_discretization_destroy(&disc);
  dg_device_destroy(&dev);
  dg_problem_destroy(&p);
  dg_fsutil_remove_tree(dir);
  free(dir);
  free(db);
  return expect_finish();
}
