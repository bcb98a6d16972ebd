/* Shared by the generator tests that take flux files on the command line
 * (header-only: each test is one program). */
#ifndef DG_TESTS_CODEGEN_PHYSICS_FILE_H
#define DG_TESTS_CODEGEN_PHYSICS_FILE_H

#include "operators/flux.h"
#include "operators/physics.h"
#include "tests/expect.h"

/* A flux file's program and the generator's view of it. */
typedef struct physics_file {
  dg_flux_program *prog;
  dg_physics ph;
  dg_physics_tables *tab;
  int dim;
} physics_file;

static inline physics_file physics_file_load(const char *path) {
  physics_file f;
  MUST(dg_flux_parse_file(path, 0, &f.prog));
  MUST(dg_physics_from_program(f.prog, &f.ph, &f.tab));
  f.dim = dg_flux_program_dim(f.prog);
  return f;
}

static inline void physics_file_free(physics_file *f) {
  dg_physics_tables_destroy(&f->tab);
  dg_flux_program_destroy(&f->prog);
}

#endif
