/* problems.shock_burgers, problems.shock_smooth, problems.shock_sod,
 * problems.shock_sod2d, problems.shock_sod3d, problems.shock_vacuum: the shock
 * capturing of issue 41
 * (artificial viscosity from the Persson-Peraire sensor, the positivity
 * limiter) against exact solutions, on two meshes each:
 *   burgers: inviscid Burgers steepening into a shock
 *     (problems/cases/burgers1d_shock), exact by characteristics;
 *   sod: Sod's shock tube (problems/cases/sod1d), the exact Riemann solution
 *     (Toro 2009, ch. 4, below; its star state is checked against Toro's
 *     table 4.2) for the density; sod2d: the same as a planar tube on
 *     triangles (problems/cases/sod2d, 10 x 1 and 20 x 1 cells, N = 2), the
 *     L1 error per unit length; sod3d: the same on tetrahedra
 *     (problems/cases/sod3d, 12 x 1 x 1 and 24 x 1 x 1 cubes of 6, the tube
 *     as thin as a cell, N = 1: N = 2 costs 4x the test time), the L1 error
 *     per unit cross-section.
 * Asserted: the L1 error decreases under refinement (ratio >= 1.5: a
 * captured shock converges at first order in L1, ratio 2 in the limit), and
 * the overshoots past the exact solution's range within two elements stay
 * below 2 % of the jump (Burgers: of u at the shock; Sod: the density's
 * jump across the tube, rho_L - rho_R; sod3d at N = 1: 5 %, below);
 * without shock capturing the Burgers overshoot is measured too and must
 * pass the bound (so that the bound means something).
 * smooth: Burgers before the shock forms, where the sensor must stay quiet;
 * vacuum: the positivity limiter alone on Toro's near-vacuum test 2 (see
 * vacuum() below).
 * usage: shock_1d burgers|smooth|sod|sod2d|sod3d|vacuum CFG [cuda] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "dg/discretization.h"
#include "dg/refelem.h"
#include "problems/driver/problem.h"
#include "tests/run_state.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- Burgers: u0 = sin(pi x) on the periodic [0, 2], t = 0.6 ------------
 * u = sin(pi xi) on the branch of the characteristic x = xi + t sin(pi xi)
 * that has not met the shock at x = 1 (the map is increasing on [0, xi*],
 * cos(pi xi*) = -1/(pi t)); u(2 - x) = -u(x). */
static double burgers_exact(double x, double t) {
  x = fmod(x, 2.0);
  if (x < 0)
    x += 2.0;
  if (x > 1.0)
    return -burgers_exact(2.0 - x, t);
  if (x == 1.0)
    return 0.0;
  double hi = M_PI * t > 1.0 ? acos(-1.0 / (M_PI * t)) / M_PI : 1.0, lo = 0.0;
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if (mid + t * sin(M_PI * mid) < x)
      lo = mid;
    else
      hi = mid;
  }
  return sin(M_PI * 0.5 * (lo + hi));
}

/* ---- Sod: the exact Riemann solution (Toro 2009, sec. 4.2-4.5) ----------- */
static const double G = 1.4, RL = 1, UL = 0, PL = 1, RR = 0.125, UR = 0, PR = 0.1, X0 = 0.5;

/* f_K(p) of Toro eq. 4.6/4.7: the velocity change across wave K */
static double fk(double p, double rk, double pk) {
  double ck = sqrt(G * pk / rk);
  if (p > pk) {
    double A = 2 / ((G + 1) * rk), B = (G - 1) / (G + 1) * pk;
    return (p - pk) * sqrt(A / (p + B));
  }
  return 2 * ck / (G - 1) * (pow(p / pk, (G - 1) / (2 * G)) - 1);
}

static double pstar(void) {
  double lo = 1e-12, hi = 10 * fmax(PL, PR); /* f_L + f_R + du increases in p */
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if (fk(mid, RL, PL) + fk(mid, RR, PR) + UR - UL < 0)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* the density at x, t (Toro sec. 4.5, sampling the wave pattern) */
static double sod_exact(double x, double t) {
  static double ps = -1;
  if (ps < 0)
    ps = pstar();
  double us = 0.5 * (UL + UR) + 0.5 * (fk(ps, RR, PR) - fk(ps, RL, PL));
  double S = (x - X0) / t, g1 = (G - 1) / (2 * G), g6 = (G - 1) / (G + 1);
  if (S <= us) {
    double cl = sqrt(G * PL / RL);
    if (ps > PL) {
      double sl = UL - cl * sqrt((G + 1) / (2 * G) * ps / PL + g1);
      return S <= sl ? RL : RL * (ps / PL + g6) / (g6 * ps / PL + 1);
    }
    if (S <= UL - cl)
      return RL;
    double csl = cl * pow(ps / PL, g1);
    if (S > us - csl)
      return RL * pow(ps / PL, 1 / G);
    double c = 2 / (G + 1) * (cl + (G - 1) / 2 * (UL - S));
    return RL * pow(c / cl, 2 / (G - 1));
  }
  double cr = sqrt(G * PR / RR);
  if (ps > PR) {
    double sr = UR + cr * sqrt((G + 1) / (2 * G) * ps / PR + g1);
    return S >= sr ? RR : RR * (ps / PR + g6) / (g6 * ps / PR + 1);
  }
  if (S >= UR + cr)
    return RR;
  double csr = cr * pow(ps / PR, g1);
  if (S <= us + csr)
    return RR * pow(ps / PR, 1 / G);
  double c = 2 / (G + 1) * (cr - (G - 1) / 2 * (UR - S));
  return RR * pow(c / cr, 2 / (G - 1));
}

typedef struct {
  const char *name;
  double (*exact)(double x, double t);
  double lower, length, t_end, scale; /* scale: the viscosity's speed, eps0 = scale h / N */
  int ncomp;                          /* state components; component 0 is checked */
  int dim;                            /* 2, 3: the planar tube, cells x 1 (x 1) */
  double jump, over_bound, ratio_bound;
} problem;

typedef struct {
  double l1, over; /* L1 error; largest excursion past the exact range nearby */
} result;

static int run(const problem *pb, const char *cfg, int cells, int N, int shock, int cuda,
               result *out) {
  char dir[256], c1[64], c2[64], c3[80], c4[64], c5[96];
  snprintf(dir, sizeof dir, "shock_%s_out_%d_%d", pb->name, cells, shock);
  snprintf(c1, sizeof c1,
           pb->dim == 3 ? "mesh.cells=%d 1 1" : pb->dim == 2 ? "mesh.cells=%d 1" : "mesh.cells=%d",
           cells);
  /* 3D: the tube one cube across (its tetrahedra as shaped at every size) */
  double hc = pb->length / cells;
  snprintf(c5, sizeof c5, "mesh.upper=%.17g %.17g %.17g", pb->lower + pb->length, hc, hc);
  snprintf(c2, sizeof c2, "discretization.order=%d", N);
  /* the viscosity's scale h/N is the mesh's: the time step's bound with it */
  snprintf(c3, sizeof c3, "shock.max_viscosity=%.17g", pb->scale * pb->length / cells / N);
  snprintf(c4, sizeof c4, "time.final=%.17g", pb->t_end);
  char *ov[10] = {c1, c2, c3, c4, "output.enabled=false"};
  int n = 5;
  if (pb->dim == 3)
    ov[n++] = c5;
  if (!shock)
    ov[n++] = "shock.sensor=", ov[n++] = "shock.positivity=";
  if (cuda)
    ov[n++] = "backend.device=cuda";
  dg_run_result res;
  if (run_state(cfg, dir, NULL, NULL, n, ov, &res) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  /* the nodes and their weights from the run's own mesh and element (the
   * state is in the mesh's element order: [mesh] order = input) */
  dg_problem *prob = NULL;
  dg_discretization *disc = NULL;
  const char *pov[8] = {c1, c2, "backend.device=cpu", c5};
  if (dg_problem_load(cfg, pov, pb->dim == 3 ? 4 : 3, &prob) != DG_OK ||
      dg_discretization_create(prob->mesh, N, DG_DOUBLE, &disc) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  const dg_refelem *re = disc->re;
  int np = re->Np;
  double h = pb->length / cells, l1 = 0, area = 0, over = 0;
  if (res.state_length != (int64_t)disc->K * np * pb->ncomp) {
    fprintf(stderr, "state length %lld\n", (long long)res.state_length);
    return 1;
  }
  for (int64_t k = 0; k < disc->K; k++)
    for (int i = 0; i < np; i++) {
      double x = disc->x[k * np + i], w = 0;
      for (int j = 0; j < np; j++) /* the nodes' weights, M 1 (Gauss-Lobatto in 1D) */
        w += re->M[i * np + j];
      w *= disc->J[k * np + i];
      double u = res.state[k * np + i];
      l1 += w * fabs(u - pb->exact(x, pb->t_end));
      area += w;
      /* the exact range within two cells: a new extremum beyond it is an
       * oscillation (the shock itself lies inside the range) */
      double lo = INFINITY, hi = -INFINITY;
      for (int s = -200; s <= 200; s++) {
        double v = pb->exact(x + s * 0.01 * h, pb->t_end);
        lo = fmin(lo, v), hi = fmax(hi, v);
      }
      over = fmax(over, fmax(u - hi, lo - u));
    }
  l1 *= pb->length / area; /* per unit length of the tube (2D, 3D: its section divided out) */
  dg_discretization_destroy(&disc);
  dg_problem_destroy(&prob);
  free(res.state);
  out->l1 = l1;
  out->over = over;
  return 0;
}

/* Toro's test 2 (the "123" problem: two rarefactions leaving a near-vacuum,
 * rho_L = rho_R = 1, u = -+2, p = 0.4) on 64 cells, N = 3, with the
 * positivity limiter alone (no viscosity): the run stays finite with rho
 * and p positive at every node, and without the limiter it is not finite
 * within the first steps. */
static int vacuum(const char *cfg, int cuda) {
  char *ov[16] = {"params.uL=-2", "params.uR=2", "params.rhoR=1", "params.pL=0.4",
                  "params.pR=0.4", "time.final=0.15", "time.wave_speed=3", "shock.sensor=",
                  "output.enabled=false", "mesh.cells=64"};
  int n = 10;
  if (cuda)
    ov[n++] = "backend.device=cuda";
  dg_run_result res;
  if (run_state(cfg, "shock_vacuum_out", NULL, NULL, n, ov, &res) != DG_OK) {
    dg_error_print(stderr);
    printf("FAIL: the 123 problem with the positivity limiter did not run\n");
    return 1;
  }
  int64_t nn = res.state_length / 3;
  double rmin = INFINITY, pmin = INFINITY;
  for (int64_t i = 0; i < nn; i++) {
    double r = res.state[i], m = res.state[nn + i], E = res.state[2 * nn + i];
    rmin = fmin(rmin, r);
    pmin = fmin(pmin, (G - 1) * (E - 0.5 * m * m / r));
  }
  free(res.state);
  printf("123 problem, limiter: min rho %.3e, min p %.3e at the nodes\n", rmin, pmin);
  int fail = 0;
  if (!(rmin > 0 && pmin > 0))
    printf("FAIL: not positive\n"), fail = 1;
  ov[n++] = "shock.positivity=";
  dg_error err = run_state(cfg, "shock_vacuum_out", NULL, NULL, n, ov, &res);
  dg_error_clear();
  printf("123 problem, no limiter: %s\n", err == DG_OK ? "ran" : "stopped (not finite)");
  if (err == DG_OK) {
    free(res.state);
    printf("FAIL: without the limiter the run should fail\n"), fail = 1;
  }
  return fail;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: shock_1d burgers|smooth|sod|sod2d|sod3d|vacuum CFG [cuda]\n");
    return 2;
  }
  int cuda = argc > 3 && strcmp(argv[3], "cuda") == 0;
  if (cuda && !dg_device_cuda_available()) {
    printf("no usable GPU: skipped\n");
    return 77;
  }
  if (strcmp(argv[1], "vacuum") == 0)
    return vacuum(argv[2], cuda);
  problem pb;
  int cells[2];
  int fail = 0;
  if (strcmp(argv[1], "burgers") == 0) {
    /* the jump at x = 1: from u(1-) to -u(1-) */
    pb = (problem){"burgers", burgers_exact, 0, 2, 0.6, 1, 1, 1,
                   2 * burgers_exact(1 - 1e-12, 0.6), 0.02, 1.5};
    cells[0] = 20, cells[1] = 40;
  } else if (strcmp(argv[1], "smooth") == 0) {
    /* before the shock forms (t = 0.2 < 1/pi): the sensor must stay quiet
     * on the resolved solution (the error within 5 % of the run without
     * shock capturing, below) and the scheme keep its smooth rate (N + 1 = 4
     * asymptotically; 3.55 at these sizes; asserted: ratio >= 8) */
    pb = (problem){"smooth", burgers_exact, 0, 2, 0.2, 1, 1, 1, 1.0, 1.0, 8};
    cells[0] = 10, cells[1] = 20;
  } else {
    double ps = pstar(), us = 0.5 * (UL + UR) + 0.5 * (fk(ps, RR, PR) - fk(ps, RL, PL));
    /* Toro (2009) table 4.2, test 1: p* = 0.30313, u* = 0.92745 */
    printf("exact Riemann solver: p* = %.5f, u* = %.5f\n", ps, us);
    if (fabs(ps - 0.30313) > 1e-5 || fabs(us - 0.92745) > 1e-5)
      printf("FAIL: the exact solver's star state is not Toro's\n"), fail = 1;
    pb = (problem){"sod", sod_exact, 0, 1, 0.2, 2, 3, 1, RL - RR, 0.02, 1.5};
    cells[0] = 32, cells[1] = 64;
    if (strcmp(argv[1], "sod2d") == 0) /* 2 triangles a cell, N = 2 (below) */
      pb.name = "sod2d", pb.ncomp = 4, pb.dim = 2, cells[0] = 10, cells[1] = 20;
    /* 6 tetrahedra a cube, N = 1 (below); the stated overshoot bound is 5 %
     * there (measured 3.3 % and 4.3 % of the jump: linear elements carry
     * the ramp of the viscosity over a whole element, and the sensor's
     * modal decay has only one degree to read) */
    if (strcmp(argv[1], "sod3d") == 0)
      pb.name = "sod3d", pb.ncomp = 5, pb.dim = 3, cells[0] = 12, cells[1] = 24,
      pb.over_bound = 0.05;
  }
  const int N = pb.dim == 3 ? 1 : pb.dim == 2 ? 2 : 3;
  result r[2], bare;
  for (int m = 0; m < 2; m++)
    if (run(&pb, argv[2], cells[m], N, 1, cuda, &r[m]))
      return 1;
  printf("%s, jump %.4f\n", pb.name, pb.jump);
  for (int m = 0; m < 2; m++)
    printf("AV   K = %d N = %d: L1 error %.4e, overshoot %.4f (%.2f %% of the jump)\n", cells[m],
           N, r[m].l1, r[m].over, 100 * r[m].over / pb.jump);
  double ratio = r[0].l1 / r[1].l1;
  printf("L1 ratio %.3f (rate %.2f)\n", ratio, log2(ratio));
  if (!(ratio >= pb.ratio_bound))
    printf("FAIL: the L1 error does not decrease enough under refinement\n"), fail = 1;
  for (int m = 0; m < 2; m++)
    if (!(r[m].over <= pb.over_bound * pb.jump))
      printf("FAIL: overshoot above %.0f %% of the jump at K = %d\n", 100 * pb.over_bound,
             cells[m]), fail = 1;
  if (strcmp(pb.name, "smooth") == 0) {
    /* the same without shock capturing: the sensor's cost in accuracy */
    result b2[2];
    for (int m = 0; m < 2; m++)
      if (run(&pb, argv[2], cells[m], N, 0, cuda, &b2[m]))
        return 1;
    for (int m = 0; m < 2; m++)
      printf("none K = %d N = %d: L1 error %.4e (with AV %.3f x)\n", cells[m], N, b2[m].l1,
             r[m].l1 / b2[m].l1);
    if (!(r[1].l1 <= 1.05 * b2[1].l1))
      printf("FAIL: the sensor adds viscosity to the resolved smooth solution\n"), fail = 1;
  }
  if (strcmp(pb.name, "burgers") == 0) {
    if (run(&pb, argv[2], cells[0], N, 0, cuda, &bare))
      return 1;
    printf("none K = %d N = %d: L1 error %.4e, overshoot %.4f (%.2f %% of the jump)\n",
           cells[0], N, bare.l1, bare.over, 100 * bare.over / pb.jump);
    if (!(bare.over > pb.over_bound * pb.jump))
      printf("FAIL: without shock capturing the overshoot should pass the bound\n"), fail = 1;
  }
  return fail;
}
