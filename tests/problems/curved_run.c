/* problems.curved_*: runs on curved elements (issue 40) against exact
 * solutions, on the cpu backend.
 *
 *   freestream CFG [k=v ...]
 *     A uniform flow in a curved domain (the cfg's initial state, exact on
 *     the boundaries) stays uniform: the right-hand side is zero and ten
 *     steps keep the state, to round-off (1e-12 of the state's size).  With
 *     the exact metric terms instead of Kopriva's (dg/opdata_curved.c) the
 *     divergence of a constant flux would not vanish where Ja is not a
 *     polynomial of degree N: that residual, sum_a D_a (J dr_a/dx_d) from
 *     the discretization's exact factors, is printed beside it.
 *
 *   conservation CFG [k=v ...]
 *     Conservation on curved elements: the cfg's periodic box (2D) bent by
 *     x + a sin(2 pi x/L) sin(2 pi y/L) (a map that keeps the periodic sides,
 *     geometry order 3, every element curved), its initial state stepped 20
 *     times; sum_i w_i J_i u_i of every component (w the mass matrix's row
 *     sums, J the kernels' own, 1/cgeo) changes by round-off only (1e-13 of
 *     its size), which the divergence form with 1/J after the lift gives.
 *
 *   annulus CFG N "SIZE..." MINRATE [k=v ...]
 *     The TM mode m = 1 of the PEC annulus 1 <= r <= 2 (Maxwell, eps = mu
 *     = 1): Ez = R(r) cos(theta) cos(w t), R(r) = J1(k r) Y1(k) - Y1(k r)
 *     J1(k), k the first root of R(2) = 0, w = k, and H from dH/dt =
 *     -curl Ez (H = (-dEz/dy, dEz/dx) sin(w t) / w).  Set exactly at t = 0,
 *     run to [time] final with LSERK4, L2 error against it at every mesh
 *     size ([mesh] size); the observed rates between successive sizes
 *     must be >= MINRATE (rates are log(e1/e2)/log(h1/h2) with h the
 *     meshes' largest altitude... taken as sqrt(area / K), Gmsh's sizes
 *     being nominal).  MINRATE < 0: the rates must be below -MINRATE (the
 *     straight-sided mesh, geometry_order = 1, which loses the rate).
 *
 *   cylinder CFG N "SIZE..." MINRATE [k=v ...]
 *     The same for Maxwell in 3D, the TM_010 mode of the PEC cylinder
 *     r <= 1/2, 0 <= z <= 1 (meshes/cylinder.geo): E = (0, 0, J0(k r)
 *     cos(w t)), H = J1(k r) (y/r, -x/r, 0) sin(w t), k = j_01 / (1/2),
 *     w = k (E_z vanishes on the wall, is normal to the end caps). */
/* jn, yn: X/Open (POSIX math.h XSI) */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "dg/timestep.h"
#include "operators/physics.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_order.h"
#include "problems/driver/problem.h"
#include "problems/solver/solver.h"
#include "tests/expect.h"

typedef struct run {
  dg_problem *p;
  dg_discretization *d;
  dg_physics ph;
  dg_physics_tables *tab;
  dg_solver *s;
} run;

static dg_device *dev;

static void run_open(const char *cfg, const char **ov, int nov, run *r) {
  memset(r, 0, sizeof *r);
  MUST(dg_problem_load(cfg, ov, nov, &r->p));
  MUST(dg_discretization_create(r->p->mesh, r->p->order, r->p->precision, &r->d));
  MUST(dg_physics_from_program(r->p->program, &r->ph, &r->tab));
  dg_solver_options so = {r->p->kernels, NULL}; /* [backend] knobs as given */
  MUST(dg_solver_create(dev, r->d, &r->ph, r->p->tag_to_bc, &so, &r->s));
}

static void run_close(run *r) {
  dg_solver_destroy(&r->s);
  dg_physics_tables_destroy(&r->tab);
  dg_discretization_destroy(&r->d);
  dg_problem_destroy(&r->p);
}

static double max_abs(const double *u, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(u[i]));
  return m;
}

/* max over curved nodes of |sum_a D_a (J G[a][d])| with the exact factors */
static double exact_metric_residual(const dg_discretization *d) {
  const double *D[3] = {d->re->Dr, d->re->Ds, d->re->Dt};
  double worst = 0;
  for (int64_t k = 0; k < d->K; k++) {
    if (!d->curved[k])
      continue;
    for (int c = 0; c < d->dim; c++)
      for (int i = 0; i < d->Np; i++) {
        double s = 0;
        for (int a = 0; a < d->dim; a++)
          for (int j = 0; j < d->Np; j++)
            s += D[a][i * d->Np + j] * d->J[k * d->Np + j] * d->G[a][c][k * d->Np + j];
        worst = fmax(worst, fabs(s));
      }
  }
  return worst;
}

static void freestream(const char *cfg, const char **ov, int nov) {
  run r;
  run_open(cfg, ov, nov, &r);
  CHECK(r.d->ncurved > 0, "%s: no curved elements", cfg);
  size_t n = (size_t)r.ph.ncomp * r.d->K * r.d->Np;
  double *u0 = malloc(n * sizeof *u0), *u = malloc(n * sizeof *u), *f = malloc(n * sizeof *f);
  CHECK(u0 && u && f);
  MUST(dg_solver_set_initial(r.s, 0.0));
  MUST(dg_solver_get_state(r.s, u0));
  MUST(dg_solver_rhs(r.s, 0.0, f));
  const double scale = max_abs(u0, n);
  dg_rk_scheme rk;
  MUST(dg_rk_scheme_get("lserk4", &rk));
  double dt = 0.1 * r.d->h_min / ((r.d->N + 1.0) * (r.d->N + 1.0));
  MUST(dg_solver_set_state(r.s, u0));
  for (int st = 0; st < 10; st++)
    MUST(dg_solver_step(r.s, &rk, st * dt, dt));
  MUST(dg_solver_get_state(r.s, u));
  double drift = 0;
  for (size_t i = 0; i < n; i++)
    drift = fmax(drift, fabs(u[i] - u0[i]));
  const double rhs = max_abs(f, n), resid = exact_metric_residual(r.d);
  printf("%dD N %d: %lld of %lld elements curved; max |rhs| %.3e, 10-step drift %.3e "
         "(state %.3g); exact-metric identity residual %.3e\n",
         r.d->dim, r.d->N, (long long)r.d->ncurved, (long long)r.d->K, rhs, drift, scale,
         resid);
  /* round-off: the metric identity holds to ~1e-15 per product, summed over
   * Np terms of O(1) entries and scaled by 1/J (J ~ h^dim) */
  EXPECT(rhs <= 1e-11 * scale / r.d->h_min && drift <= 1e-12 * scale,
         "%dD N %d: a uniform flow is not preserved (rhs %.3e, drift %.3e)", r.d->dim, r.d->N,
         rhs, drift);
  free(u0);
  free(u);
  free(f);
  run_close(&r);
}

/* ---- conservation --------------------------------------------------------- */

typedef struct {
  double lo[2], L[2], a;
} bend_ctx;

static void bend(void *vc, const double *x, double *y) {
  const bend_ctx *c = vc;
  const double PI = 3.14159265358979323846;
  double sx = sin(2 * PI * (x[0] - c->lo[0]) / c->L[0]), sy = sin(2 * PI * (x[1] - c->lo[1]) / c->L[1]);
  y[0] = x[0] + c->a * c->L[0] * sx * sy;
  y[1] = x[1] + c->a * c->L[1] * sx * sy;
}

/* sum_k sum_i w_i J_i u_ci per component c, with the kernels' J */
static void totals(const run *r, const double *u, double *tot) {
  const dg_discretization *d = r->d;
  const dg_opdata *od = dg_solver_opdata(r->s);
  for (int c = 0; c < r->ph.ncomp; c++) {
    double s = 0;
    for (int64_t k = 0; k < d->K; k++)
      for (int i = 0; i < d->Np; i++) {
        double w = 0;
        for (int j = 0; j < d->Np; j++)
          w += d->re->M[i * d->Np + j];
        const int g = od->dim * od->dim; /* 1/J's row (dg/opdata.h) */
        double J = k < od->Kc ? 1.0 / ((const double *)od->cgeo)[(k * od->ngeo + g) * d->Np + i]
                              : od->Jk[k];
        s += w * J * u[((int64_t)c * d->K + k) * d->Np + i];
      }
    tot[c] = s;
  }
}

static void conservation(const char *cfg, const char **ov, int nov) {
  run r;
  memset(&r, 0, sizeof r);
  MUST(dg_problem_load(cfg, ov, nov, &r.p));
  dg_mesh *m = r.p->mesh;
  CHECK(m->dim == 2, "conservation: a 2D box");
  bend_ctx bc = {{INFINITY, INFINITY}, {0, 0}, 0.03};
  double hi[2] = {-INFINITY, -INFINITY};
  for (int64_t v = 0; v < m->Nv; v++)
    for (int a = 0; a < 2; a++) {
      bc.lo[a] = fmin(bc.lo[a], m->VX[v * 2 + a]);
      hi[a] = fmax(hi[a], m->VX[v * 2 + a]);
    }
  bc.L[0] = hi[0] - bc.lo[0];
  bc.L[1] = hi[1] - bc.lo[1];
  MUST(dg_mesh_curve(m, 3, bend, &bc));
  MUST(dg_mesh_order_curved_first(m, NULL));
  MUST(dg_discretization_create(m, r.p->order, r.p->precision, &r.d));
  MUST(dg_physics_from_program(r.p->program, &r.ph, &r.tab));
  dg_solver_options so = {dg_kernel_config_default(), NULL};
  MUST(dg_solver_create(dev, r.d, &r.ph, r.p->tag_to_bc, &so, &r.s));
  CHECK(r.d->ncurved > r.d->K / 2, "conservation: %lld of %lld curved", (long long)r.d->ncurved,
        (long long)r.d->K);
  size_t n = (size_t)r.ph.ncomp * r.d->K * r.d->Np;
  double *u = malloc(n * sizeof *u), t0[8], t1[8];
  CHECK(u && r.ph.ncomp <= 8);
  MUST(dg_solver_set_initial(r.s, 0.0));
  MUST(dg_solver_get_state(r.s, u));
  totals(&r, u, t0);
  dg_rk_scheme rk;
  MUST(dg_rk_scheme_get("lserk4", &rk));
  double dt = 0;
  MUST(dg_rk_cfl_dt(1.0, r.d->h_min, r.p->wave_speed > 0 ? r.p->wave_speed : 2.5, r.d->N, &dt));
  for (int st = 0; st < 20; st++)
    MUST(dg_solver_step(r.s, &rk, st * dt, dt));
  MUST(dg_solver_get_state(r.s, u));
  totals(&r, u, t1);
  double change = 0, drift = 0, size = 0;
  for (size_t z = 0; z < n; z++)
    size = fmax(size, fabs(u[z]));
  for (int c = 0; c < r.ph.ncomp; c++) {
    change = fmax(change, fabs(t1[c] - t0[c]) / fmax(fabs(t0[c]), r.d->volume * size));
    printf("component %d: total %.15e -> %.15e\n", c, t0[c], t1[c]);
  }
  /* the state moved: the test is not of a steady state */
  MUST(dg_solver_set_initial(r.s, 0.0));
  double *u0 = malloc(n * sizeof *u0);
  CHECK(u0);
  MUST(dg_solver_get_state(r.s, u0));
  for (size_t z = 0; z < n; z++)
    drift = fmax(drift, fabs(u[z] - u0[z]));
  printf("%lld of %lld elements curved, N %d, 20 steps: largest relative change of a total "
         "%.3e, of the state %.3e\n",
         (long long)r.d->ncurved, (long long)r.d->K, r.d->N, change, drift / size);
  /* round-off: 20 steps x 5 stages of sums over ~1e4 nodes */
  EXPECT(change < 1e-13 && drift > 1e-6, "not conservative: %.3e (state change %.3e)", change,
         drift / size);
  free(u);
  free(u0);
  run_close(&r);
}

/* ---- the annulus mode ---------------------------------------------------- */

static double cross_product(double k) { return jn(1, k) * yn(1, 2 * k) - jn(1, 2 * k) * yn(1, k); }

/* the first root of J1(k) Y1(2k) - J1(2k) Y1(k) (near pi: a radial half wave) */
static double mode_k(void) {
  double a = 0.5, fa = cross_product(a);
  for (double b = 0.55; b < 10; b += 0.05) {
    double fb = cross_product(b);
    if ((fa < 0) != (fb < 0)) {
      for (int it = 0; it < 200; it++) {
        double m = 0.5 * (a + b), fm = cross_product(m);
        if ((fm < 0) == (fa < 0))
          a = m, fa = fm;
        else
          b = m;
      }
      return 0.5 * (a + b);
    }
    a = b, fa = fb;
  }
  return NAN;
}

/* (Hx, Hy, Ez) of the mode at (x, y, t) */
static void mode(double k, double x, double y, double t, double out[3]) {
  double r = hypot(x, y), c = x / r, s = y / r;
  double j1 = jn(1, k), y1 = yn(1, k);
  double R = jn(1, k * r) * y1 - yn(1, k * r) * j1;
  /* d/dz J1 = (J0 - J2)/2, the same for Y1 */
  double Rp = k * (0.5 * (jn(0, k * r) - jn(2, k * r)) * y1 - 0.5 * (yn(0, k * r) - yn(2, k * r)) * j1);
  /* E = R(r) cos(theta): cos(theta) = c, dE/dx = R' c^2 + R s^2 / r,
   * dE/dy = R' c s - R c s / r */
  double Ex = Rp * c * c + R * s * s / r, Ey = Rp * c * s - R * c * s / r;
  out[0] = -Ey / k * sin(k * t);
  out[1] = Ex / k * sin(k * t);
  out[2] = R * c * cos(k * t);
}

/* (E, H) of the cylinder's TM_010 mode at x, t (k = j01 / R) */
static void mode3d(double k, const double *x, double t, double out[6]) {
  double r = hypot(x[0], x[1]);
  double j1r = r > 0 ? jn(1, k * r) / r : 0.5 * k; /* J1(kr)/r -> k/2 on the axis */
  out[0] = out[1] = 0;
  out[2] = jn(0, k * r) * cos(k * t);
  out[3] = j1r * x[1] * sin(k * t);
  out[4] = -j1r * x[0] * sin(k * t);
  out[5] = 0;
}

static void mode_state(const dg_discretization *d, int nc, double k, double t, double *u) {
  for (int64_t e = 0; e < d->K; e++)
    for (int i = 0; i < d->Np; i++) {
      double v[6], x[3];
      int64_t n = e * d->Np + i;
      for (int a = 0; a < d->dim; a++)
        x[a] = d->X[a][n];
      if (nc == 6)
        mode3d(k, x, t, v);
      else
        mode(k, x[0], x[1], t, v);
      for (int c = 0; c < nc; c++)
        u[((int64_t)c * d->K + e) * d->Np + i] = v[c];
    }
}

/* L2 error over the domain: sum_k e^T M e J (J at the nodes) */
static double l2_error(const dg_discretization *d, int nc, const double *u, const double *ex) {
  double sum = 0;
  for (int c = 0; c < nc; c++)
    for (int64_t e = 0; e < d->K; e++) {
      const double *a = u + ((int64_t)c * d->K + e) * d->Np;
      const double *b = ex + ((int64_t)c * d->K + e) * d->Np;
      for (int i = 0; i < d->Np; i++) {
        double mi = 0;
        for (int j = 0; j < d->Np; j++)
          mi += d->re->M[i * d->Np + j] * (a[j] - b[j]);
        sum += (a[i] - b[i]) * mi * d->J[e * d->Np + i];
      }
    }
  return sqrt(sum);
}

/* nc = 3: the annulus (2D TM), 6: the cylinder (3D) */
static void cavity(int nc, const char *cfg, int N, const char *sizes, double minrate,
                   const char **extra, int nextra) {
  const double k = nc == 6 ? 2.404825557695773 / 0.5 : mode_k(); /* j_01 / R */
  CHECK(isfinite(k) && (nc == 6 || fabs(cross_product(k)) < 1e-12), "no mode root");
  double err[8], hs[8];
  int nsz = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", sizes);
  for (char *tok = strtok(buf, " "); tok && nsz < 8; tok = strtok(NULL, " "), nsz++) {
    char osize[64], oorder[64];
    snprintf(osize, sizeof osize, "mesh.size=%s", tok);
    snprintf(oorder, sizeof oorder, "discretization.order=%d", N);
    const char *ov[16] = {osize, oorder};
    int nov = 2;
    for (int i = 0; i < nextra && nov < 16; i++)
      ov[nov++] = extra[i];
    run r;
    run_open(cfg, ov, nov, &r);
    const dg_discretization *d = r.d;
    CHECK(r.ph.ncomp == nc, "%s: %d components, not %d", cfg, r.ph.ncomp, nc);
    size_t n = (size_t)nc * d->K * d->Np;
    double *u = malloc(n * sizeof *u), *ex = malloc(n * sizeof *ex);
    CHECK(u && ex);
    mode_state(d, nc, k, 0.0, u);
    MUST(dg_solver_set_state(r.s, u));
    dg_rk_scheme rk;
    MUST(dg_rk_scheme_get("lserk4", &rk));
    double T = r.p->t_final, dt = 0;
    MUST(dg_rk_cfl_dt(1.0, d->h_min, 1.0, d->N, &dt));
    int steps = (int)ceil(T / dt);
    dt = T / steps;
    for (int st = 0; st < steps; st++)
      MUST(dg_solver_step(r.s, &rk, st * dt, dt));
    MUST(dg_solver_get_state(r.s, u));
    mode_state(d, nc, k, T, ex);
    err[nsz] = l2_error(d, nc, u, ex);
    hs[nsz] = pow(d->volume / (double)d->K, 1.0 / d->dim);
    printf("N %d size %s: K %lld (%lld curved), %d steps, L2 error %.4e\n", N, tok,
           (long long)d->K, (long long)d->ncurved, steps, err[nsz]);
    free(u);
    free(ex);
    run_close(&r);
  }
  for (int i = 1; i < nsz; i++) {
    double rate = log(err[i - 1] / err[i]) / log(hs[i - 1] / hs[i]);
    printf("N %d rate %.2f (wanted %s %.2f)\n", N, rate, minrate >= 0 ? ">=" : "<",
           fabs(minrate));
    if (minrate >= 0)
      EXPECT(rate >= minrate, "N %d: rate %.2f < %.2f", N, rate, minrate);
    else
      EXPECT(rate < -minrate, "N %d: rate %.2f >= %.2f on the straight-sided mesh", N, rate,
             -minrate);
  }
}

int main(int argc, char **argv) {
  dg_log_set_level(DG_LOG_WARN);
  if (argc < 3) {
    fprintf(stderr, "usage: %s freestream CFG [k=v ...] | annulus|cylinder CFG N \"SIZES\" "
                    "MINRATE [k=v ...]\n", argv[0]);
    return 2;
  }
  if (dg_device_create("cpu", -1, &dev) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  if (strcmp(argv[1], "freestream") == 0) {
    freestream(argv[2], (const char **)argv + 3, argc - 3);
  } else if (strcmp(argv[1], "conservation") == 0) {
    conservation(argv[2], (const char **)argv + 3, argc - 3);
  } else if ((strcmp(argv[1], "annulus") == 0 || strcmp(argv[1], "cylinder") == 0) &&
             argc >= 6) {
    cavity(strcmp(argv[1], "cylinder") == 0 ? 6 : 3, argv[2], atoi(argv[3]), argv[4],
           atof(argv[5]), (const char **)argv + 6, argc - 6);
  } else {
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  }
  dg_device_destroy(&dev);
  return expect_finish();
}
