/* operators.flux_surface: the surface form of volume terms.
 *
 * 1. For Maxwell 3D and 2D, advection 1D/2D, acoustics and Euler 2D/3D
 *    (tests/flux/inputs), the surface form evaluated at a random unit
 *    normal and random interior state equals the normal flux written out by
 *    hand here (e.g. Euler: -(m.n, m (u.n) + p n, (E + p) u.n)).
 * 2. Every shipped numerical flux is consistent: flux(u, u) equals the
 *    surface form at u (Hesthaven & Warburton 2008, Sec. 2.2: a numerical
 *    flux must reduce to the physical flux when both traces agree).
 * 3. Pointwise terms drop out, field-free factors stay, a field factor of the
 *    derivative of a function of x goes on the interior trace, x in a
 *    derivative's argument stays (small programs).
 * 4. A surface form reads only the interior trace and has no derivatives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"
#include "tests/flux/flux_test.h"

static int failures;
static const char *dir;


static void random_normal(int dim, double *n) {
  double len = 0;
  do {
    len = 0;
    for (int i = 0; i < dim; i++) {
      n[i] = uniform(-1, 1);
      len += n[i] * n[i];
    }
  } while (len < 0.01);
  for (int i = 0; i < dim; i++)
    n[i] /= sqrt(len);
  for (int i = dim; i < 3; i++)
    n[i] = 0;
}

static dg_flux_program *load(const char *file, int dim) {
  dg_flux_program *prog = load_flux(dir, file, dim);
  if (!prog)
    failures++;
  return prog;
}

/* Compare the surface form of every field with want[offset..] (state
 * layout); tolerance: a few roundings of O(1) sums. */
static void compare(const char *label, dg_flux_program *prog, const dg_flux_point *pt,
                    const double *want) {
  for (int f = 0; f < dg_flux_field_count(prog); f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    double got[DG_FLUX_MAX_COMPONENTS];
    if (dg_flux_eval(prog, fi->surface, pt, got, DG_FLUX_MAX_COMPONENTS) != DG_OK) {
      dg_error_print(stdout);
      failures++;
      continue;
    }
    for (int c = 0; c < fi->ncomp; c++) {
      double w = want[fi->offset + c];
      if (!(fabs(got[c] - w) <= 1e-13 * fmax(1, fabs(w)))) {
        printf("FAIL %s: surface %s[%d] = %.17g, want %.17g\n", label, fi->name, c, got[c], w);
        failures++;
      }
    }
    if (dg_flux_node_has_deriv(fi->surface) ||
        dg_flux_node_reads_side(fi->surface, DG_FLUX_SIDE_NONE, NULL) ||
        dg_flux_node_reads_side(fi->surface, DG_FLUX_SIDE_EXT, NULL)) {
      printf("FAIL %s: surface of %s reads more than the interior trace\n", label, fi->name);
      failures++;
    }
  }
}

static void maxwell3d(void) {
  dg_flux_program *prog = load("maxwell3d.flux", 3);
  if (!prog)
    return;
  double eps = 2.0, mu = 3.0;
  dg_flux_set_param(prog, "eps", eps);
  dg_flux_set_param(prog, "mu", mu);
  double n[3], u[6], want[6];
  random_normal(3, n);
  for (int i = 0; i < 6; i++)
    u[i] = uniform(-1, 1);
  const double *E = u, *H = u + 3;
  /* E: n x H / eps;  H: -n x E / mu */
  want[0] = (n[1] * H[2] - n[2] * H[1]) / eps;
  want[1] = (n[2] * H[0] - n[0] * H[2]) / eps;
  want[2] = (n[0] * H[1] - n[1] * H[0]) / eps;
  want[3] = -(n[1] * E[2] - n[2] * E[1]) / mu;
  want[4] = -(n[2] * E[0] - n[0] * E[2]) / mu;
  want[5] = -(n[0] * E[1] - n[1] * E[0]) / mu;
  dg_flux_point pt = {.n = n, .u_int = u};
  compare("maxwell3d", prog, &pt, want);
  dg_flux_program_destroy(&prog);
}

static void maxwell2d(void) {
  dg_flux_program *prog = load("maxwell2d_tm.flux", 2);
  if (!prog)
    return;
  double n[3], u[3], want[3];
  random_normal(2, n);
  for (int i = 0; i < 3; i++)
    u[i] = uniform(-1, 1);
  double Hx = u[0], Hy = u[1], Ez = u[2];
  /* dH/dt = -[dy Ez, -dx Ez]  ->  -[n1 Ez, -n0 Ez];  dEz/dt = dx Hy - dy Hx -> n0 Hy - n1 Hx */
  want[0] = -n[1] * Ez;
  want[1] = n[0] * Ez;
  want[2] = n[0] * Hy - n[1] * Hx;
  dg_flux_point pt = {.n = n, .u_int = u};
  compare("maxwell2d", prog, &pt, want);
  dg_flux_program_destroy(&prog);
}

static void advection(void) {
  dg_flux_program *prog = load("advection1d.flux", 1);
  if (prog) {
    double n[3] = {rand() % 2 ? 1.0 : -1.0, 0, 0}, u = uniform(-1, 1), a = 0.7;
    dg_flux_set_param(prog, "a", a);
    double want = -a * n[0] * u;
    dg_flux_point pt = {.n = n, .u_int = &u};
    compare("advection1d", prog, &pt, &want);
    dg_flux_program_destroy(&prog);
  }
  prog = load("advection2d.flux", 2);
  if (prog) {
    double n[3], u = uniform(-1, 1);
    random_normal(2, n);
    double want = -(1.0 * n[0] + 0.5 * n[1]) * u; /* defaults ax = 1, ay = 0.5 */
    dg_flux_point pt = {.n = n, .u_int = &u};
    compare("advection2d", prog, &pt, &want);
    dg_flux_program_destroy(&prog);
  }
}

static void acoustics(void) {
  dg_flux_program *prog = load("acoustics2d.flux", 2);
  if (!prog)
    return;
  double rho0 = 1.3, K = 0.8;
  dg_flux_set_param(prog, "rho0", rho0);
  dg_flux_set_param(prog, "K", K);
  double n[3], u[3], want[3];
  random_normal(2, n);
  for (int i = 0; i < 3; i++)
    u[i] = uniform(-1, 1);
  want[0] = -K * (n[0] * u[1] + n[1] * u[2]);
  want[1] = -n[0] * u[0] / rho0;
  want[2] = -n[1] * u[0] / rho0;
  dg_flux_point pt = {.n = n, .u_int = u};
  compare("acoustics2d", prog, &pt, want);
  dg_flux_program_destroy(&prog);
}

/* A physically valid Euler state (rho > 0, p > 0) in conservative form. */
static void euler_state(int dim, double gamma, double *u) {
  double rho = uniform(0.5, 2), p = uniform(0.5, 2), v2 = 0;
  u[0] = rho;
  for (int i = 0; i < dim; i++) {
    double v = uniform(-1, 1);
    u[1 + i] = rho * v;
    v2 += v * v;
  }
  u[1 + dim] = p / (gamma - 1) + 0.5 * rho * v2;
}

static void euler(int dim) {
  dg_flux_program *prog = load(dim == 2 ? "euler2d_vortex.flux" : "euler3d_vortex.flux", dim);
  if (!prog)
    return;
  double gamma = 1.4, n[3], u[5], want[5];
  random_normal(dim, n);
  euler_state(dim, gamma, u);
  double rho = u[0], E = u[1 + dim], mm = 0, un = 0, mn = 0;
  for (int i = 0; i < dim; i++) {
    mm += u[1 + i] * u[1 + i];
    un += u[1 + i] / rho * n[i];
    mn += u[1 + i] * n[i];
  }
  double p = (gamma - 1) * (E - 0.5 * mm / rho);
  want[0] = -mn;
  for (int i = 0; i < dim; i++)
    want[1 + i] = -(u[1 + i] * un + p * n[i]);
  want[1 + dim] = -(E + p) * un;
  dg_flux_point pt = {.n = n, .u_int = u};
  compare(dim == 2 ? "euler2d" : "euler3d", prog, &pt, want);
  dg_flux_program_destroy(&prog);
}

/* flux(u, u) == surface(u) for every shipped file. */
static void consistency(const char *file, int dim, int is_euler) {
  dg_flux_program *prog = load(file, dim);
  if (!prog)
    return;
  int ns = dg_flux_state_size(prog);
  for (int trial = 0; trial < 20; trial++) {
    double n[3], x[3], u[8];
    random_normal(dim, n);
    for (int i = 0; i < 3; i++)
      x[i] = uniform(0, 1);
    if (is_euler)
      euler_state(dim, 1.4, u);
    else
      for (int i = 0; i < ns; i++)
        u[i] = uniform(-1, 1);
    dg_flux_point pt = {.x = x, .t = uniform(0, 1), .n = n, .u_int = u, .u_ext = u};
    for (int f = 0; f < dg_flux_field_count(prog); f++) {
      const dg_flux_field_info *fi = dg_flux_field(prog, f);
      double a[DG_FLUX_MAX_COMPONENTS], b[DG_FLUX_MAX_COMPONENTS];
      if (dg_flux_eval(prog, fi->flux, &pt, a, DG_FLUX_MAX_COMPONENTS) != DG_OK ||
          dg_flux_eval(prog, fi->surface, &pt, b, DG_FLUX_MAX_COMPONENTS) != DG_OK) {
        dg_error_print(stdout);
        failures++;
        continue;
      }
      for (int c = 0; c < fi->ncomp; c++)
        if (!(fabs(a[c] - b[c]) <= 1e-13 * fmax(1, fabs(b[c])))) {
          printf("FAIL %s: flux %s[%d](u, u) = %.17g but the surface form is %.17g\n", file,
                 fi->name, c, a[c], b[c]);
          failures++;
          trial = 20;
        }
    }
  }
  dg_flux_program_destroy(&prog);
}

/* Small programs: rhs -> surface form checked against a hand formula of
 * (n, u.int, x). */
static void transform(int dim, const char *fields, const char *rhs, double (*want)(const double *n, const double *u, const double *x)) {
  char text[1024];
  snprintf(text, sizeof text, "fields %s\nrhs u = %s\nflux u = 0\ninitial u = 0\n", fields, rhs);
  /* the other fields (if any) get trivial equations */
  if (strstr(fields, "w[3]"))
    strcat(text, "rhs w = [0, 0, 0]\nflux w = [0, 0, 0]\ninitial w = [0, 0, 0]\n");
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, "transform.flux", dim, &prog) != DG_OK) {
    dg_error_print(stdout);
    failures++;
    return;
  }
  double n[3], u[4], x[3];
  random_normal(dim, n);
  for (int i = 0; i < 4; i++)
    u[i] = uniform(-1, 1);
  for (int i = 0; i < 3; i++)
    x[i] = uniform(-1, 1);
  dg_flux_point pt = {.x = x, .t = 0.5, .n = n, .u_int = u};
  double got, w = want(n, u, x);
  if (dg_flux_eval(prog, dg_flux_field(prog, 0)->surface, &pt, &got, 1) != DG_OK ||
      !(fabs(got - w) <= 1e-14 * fmax(1, fabs(w)))) {
    char buf[512];
    dg_flux_print(prog, dg_flux_field(prog, 0)->surface, buf, sizeof buf);
    printf("FAIL surface of 'rhs u = %s' is %s = %.17g, want %.17g\n", rhs, buf, got, w);
    failures++;
  }
  dg_flux_program_destroy(&prog);
}

/* u is u[0]; w (when declared) is u[1..3]. */
static double t_pointwise(const double *n, const double *u, const double *x) {
  (void)x;
  return -n[0] * u[0]; /* -dx(u) + 3*u + sin(x[0]): only -dx(u) has a surface term */
}
static double t_coef_x(const double *n, const double *u, const double *x) {
  return -x[0] * n[0] * u[0] / 2; /* -x[0]*dx(u)/2 */
}
static double t_grad(const double *n, const double *u, const double *x) {
  (void)x;
  return 2 * n[1] * u[0] * u[0] - 0; /* dot([0, 2], grad(u^2)) */
}
static double t_curl_index(const double *n, const double *u, const double *x) {
  (void)x;
  const double *w = u + 1; /* curl(w)[2] -> (n x w)[2] */
  return n[0] * w[1] - n[1] * w[0] - (n[2] * w[0] - n[0] * w[2]);
}
static double t_vec(const double *n, const double *u, const double *x) {
  (void)x;
  return n[1] * u[0] * 3 - n[0] * u[0]; /* [dx(u), 3*dy(u)][1] - dx(u) */
}
static double t_curl2d(const double *n, const double *u, const double *x) {
  (void)x;
  return -(n[1] * u[0]); /* -curl(u)[0] in 2D: curl(u) = [dy u, -dx u] */
}
static double t_nonconservative(const double *n, const double *u, const double *x) {
  /* -u*dx(x0^2 + 3 x1)  ->  -u.int * n[0] * (x0^2 + 3 x1): a field factor of
   * the derivative of a function of x, on the interior trace */
  return -u[0] * n[0] * (x[0] * x[0] + 3 * x[1]);
}
static double t_position_arg(const double *n, const double *u, const double *x) {
  return -(n[0] * -x[1] + n[1] * x[0]) * u[0]; /* -div([-x1, x0]*u) */
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: %s INPUT_DIR\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  unsigned seed = (unsigned)time(NULL);
  printf("seed %u\n", seed);
  srand(seed);
  for (int rep = 0; rep < 10; rep++) {
    maxwell3d();
    maxwell2d();
    advection();
    acoustics();
    euler(2);
    euler(3);
    transform(1, "u", "-dx(u) + 3*u + sin(x[0])", t_pointwise);
    transform(2, "u", "-x[0]*dx(u)/2", t_coef_x);
    transform(2, "u", "dot([0, 2], grad(u^2)) + u", t_grad);
    transform(3, "u w[3]", "curl(w)[2] - curl(w)[1] + norm(w)", t_curl_index);
    transform(2, "u", "[dx(u), 3*dy(u)][1] - dx(u) - u^3", t_vec);
    transform(2, "u", "-curl(u)[0]", t_curl2d);
    transform(2, "u", "-u*dx(x[0]^2 + 3*x[1])", t_nonconservative);
    transform(2, "u", "-div([-x[1], x[0]]*u)", t_position_arg);
  }
  const struct { const char *file; int dim, euler; } files[] = {
      {"maxwell3d.flux", 3, 0},    {"maxwell2d_tm.flux", 2, 0}, {"advection1d.flux", 1, 0},
      {"advection2d.flux", 2, 0},  {"advection3d.flux", 3, 0},  {"acoustics2d.flux", 2, 0},
      {"euler2d_vortex.flux", 2, 1}, {"euler3d_vortex.flux", 3, 1}};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    consistency(files[i].file, files[i].dim, files[i].euler);
  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
