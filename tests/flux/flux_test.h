/* Helpers shared by the flux tests (header-only: each test is one program). */
#ifndef DG_TESTS_FLUX_TEST_H
#define DG_TESTS_FLUX_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "operators/flux.h"

/* Uniform random number in [a, b] (tests seed rand() and print the seed). */
static inline double uniform(double a, double b) {
  return a + (b - a) * rand() / (double)RAND_MAX;
}

/* Parse dir/file for dim; on failure print the errors and return NULL. */
static inline dg_flux_program *load_flux(const char *dir, const char *file, int dim) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_file(path, dim, &prog) != DG_OK) {
    dg_error_print(stdout);
    dg_error_clear();
  }
  return prog;
}

#endif
