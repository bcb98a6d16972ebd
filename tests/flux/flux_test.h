/* Helpers shared by the flux tests (header-only: each test is one program). */
#ifndef DG_TESTS_FLUX_TEST_H
#define DG_TESTS_FLUX_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux.h"

/* CHECK(cond, fmt, ...): print the failure and count it in the test's own
 * `static int failures`. */
#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                          \
      printf(__VA_ARGS__);                                                                 \
      printf("\n");                                                                        \
      failures++;                                                                          \
    }                                                                                      \
  } while (0)

/* Uniform random number in [a, b] (tests seed rand() and print the seed). */
/* Text of `base` (NULL-ended lines) with line `line` replaced by `repl`
 * (line 0: base as is), one line each, into buf. */
static inline void ft_build_text(const char *const *base, int line, const char *repl, char *buf,
                                 size_t size) {
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; base[i]; i++)
    at += (size_t)snprintf(buf + at, size - at, "%s\n", i + 1 == line ? repl : base[i]);
}

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

/* text (for dimension dim) has exactly one mistake: one error at (wl, wc)
 * with this message; else print what came, labelled, and return 0. */
static inline int expect_one_error(const char *label, const char *text, int dim, int wl, int wc,
                                   const char *message) {
  dg_flux_diags diags;
  dg_flux_program *prog = NULL;
  dg_error err = dg_flux_parse_buffer(text, strlen(text), "t.flux", dim, &prog, &diags);
  dg_error_clear();
  int ok = err == DG_ERR_INPUT && !prog && diags.count == 1 && diags.items[0].loc.line == wl &&
           diags.items[0].loc.col == wc && strcmp(diags.items[0].message, message) == 0;
  if (!ok) {
    printf("FAIL [%s]\n  want %d:%d: %s\n  got (%d errors):\n", label, wl, wc, message,
           diags.count);
    for (int i = 0; i < diags.count; i++)
      printf("    %d:%d: %s\n", diags.items[i].loc.line, diags.items[i].loc.col,
             diags.items[i].message);
  }
  dg_flux_program_destroy(&prog);
  return ok;
}

/* The isentropic vortex of Shu (1998), written independently of the flux
 * files: the conservative state (rho, m, E; m[2] = 0 in 3D) at offset
 * (xr, yr) from its centre, gamma = 1.4, beta = 5, background (1, 0). */
static inline void shu_vortex_state(double xr, double yr, int dim, double *u) {
  const double g = 1.4, beta = 5, pi = 3.14159265358979323846, r2 = xr * xr + yr * yr;
  double T = 1 - (g - 1) * beta * beta / (8 * g * pi * pi) * exp(1 - r2);
  double rho = pow(T, 1 / (g - 1)), p = pow(rho, g);
  double f = beta / (2 * pi) * exp((1 - r2) / 2);
  double vx = 1 - f * yr, vy = f * xr;
  u[0] = rho;
  u[1] = rho * vx;
  u[2] = rho * vy;
  if (dim == 3)
    u[3] = 0;
  u[1 + dim] = p / (g - 1) + 0.5 * rho * (vx * vx + vy * vy);
}

#endif
