/* problems.shock_shu_osher: Shu & Osher's (1989) Mach 3 shock running into
 * an entropy wave (problems/cases/sod1d/shu_osher.cfg) at t = 1.8 against an
 * independent reference: a second-order finite-volume solver written here
 * (MUSCL reconstruction of the primitive variables with the monotonised
 * central limiter, van Leer 1977; the HLLC flux, Toro 2009 sec. 10.4;
 * Heun's SSP-RK2, Shu & Osher 1988) on 10^4 cells, whose density (cell
 * averages, linear between the centres) the DG density is compared with at
 * the DG nodes.  The problem has no exact solution; a fine-grid solution
 * is the literature's usual stand-in.
 * Asserted: the L1 error of the density decreases under refinement
 * (ratio >= 1.5 from K to 2K: the shock converges at first order, the
 * compressed entropy wave behind it, under-resolved at these sizes, faster),
 * and the run stays finite; the reference's own change from NREF/2 cells
 * below a fifth of the finer DG error (so that it can judge it).
 * argv: CFG K1 K2 [N [NREF [cuda]]] (N = 3, NREF = 10^4 by default): CTest
 * runs 40 and 80 cells at N = 2 against 2,000 cells on the cpu (3.5 s of
 * one core), and 100 and 200 at N = 3 against 10^4 on the GPU (label gpu);
 * PROBLEM_CFG.md's figures are those runs and 400 cells (there the
 * reference's own error, ~0.02, is a quarter of the DG error). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "dg/discretization.h"
#include "dg/refelem.h"
#include "problems/driver/problem.h"
#include "tests/run_state.h"

static const double G = 1.4, XL = -5, XR = 5, X0 = -4, T_END = 1.8;
static const double RHO_L = 3.857143, U_L = 2.629369, P_L = 10.33333;

/* ---- the finite-volume reference (primitive w = rho, u, p) --------------- */

static void to_cons(const double w[3], double q[3]) {
  q[0] = w[0];
  q[1] = w[0] * w[1];
  q[2] = w[2] / (G - 1) + 0.5 * w[0] * w[1] * w[1];
}

static void to_prim(const double q[3], double w[3]) {
  w[0] = q[0];
  w[1] = q[1] / q[0];
  w[2] = (G - 1) * (q[2] - 0.5 * q[1] * w[1]);
}

static double mc_slope(double a, double b) { /* monotonised central */
  if (a * b <= 0)
    return 0;
  double s = a > 0 ? 1 : -1;
  return s * fmin(fmin(2 * fabs(a), 2 * fabs(b)), 0.5 * fabs(a + b));
}

/* HLLC (Toro 2009 sec. 10.4.1, wave speeds by Davis' estimate, eq. 10.48) */
static void hllc(const double wl[3], const double wr[3], double f[3]) {
  double ql[3], qr[3];
  to_cons(wl, ql);
  to_cons(wr, qr);
  double cl = sqrt(G * wl[2] / wl[0]), cr = sqrt(G * wr[2] / wr[0]);
  double sl = fmin(wl[1] - cl, wr[1] - cr), sr = fmax(wl[1] + cl, wr[1] + cr);
  double fl[3] = {ql[1], ql[1] * wl[1] + wl[2], (ql[2] + wl[2]) * wl[1]};
  double fr[3] = {qr[1], qr[1] * wr[1] + wr[2], (qr[2] + wr[2]) * wr[1]};
  if (sl >= 0) {
    memcpy(f, fl, sizeof fl);
    return;
  }
  if (sr <= 0) {
    memcpy(f, fr, sizeof fr);
    return;
  }
  double ss = (wr[2] - wl[2] + wl[0] * wl[1] * (sl - wl[1]) - wr[0] * wr[1] * (sr - wr[1])) /
              (wl[0] * (sl - wl[1]) - wr[0] * (sr - wr[1]));
  const double *w = ss >= 0 ? wl : wr, *q = ss >= 0 ? ql : qr, *fk = ss >= 0 ? fl : fr;
  double s = ss >= 0 ? sl : sr;
  double fac = w[0] * (s - w[1]) / (s - ss);
  double qs[3] = {fac, fac * ss,
                  fac * (q[2] / w[0] + (ss - w[1]) * (ss + w[2] / (w[0] * (s - w[1]))))};
  for (int c = 0; c < 3; c++)
    f[c] = fk[c] + s * (qs[c] - q[c]);
}

/* dq/dt of the cell averages q (n cells, two ghost cells each side: the
 * post-shock state on the left, zero gradient on the right) */
static void fv_rhs(int n, double dx, const double *q, double *w, double *dq) {
  double *W = w + 6; /* W[3*i], i = -2 .. n+1 */
  for (int i = 0; i < n; i++)
    to_prim(q + 3 * i, W + 3 * i);
  for (int g = 1; g <= 2; g++) {
    double wl[3] = {RHO_L, U_L, P_L};
    memcpy(W - 3 * g, wl, sizeof wl);
    memcpy(W + 3 * (n - 1 + g), W + 3 * (n - 1), 3 * sizeof(double));
  }
  memset(dq, 0, (size_t)3 * n * sizeof *dq);
  for (int i = -1; i < n; i++) { /* the face between cells i and i + 1 */
    double wl[3], wr[3];
    for (int c = 0; c < 3; c++) {
      const double *a = W + 3 * i + c;
      wl[c] = a[0] + 0.5 * mc_slope(a[0] - a[-3], a[3] - a[0]);
      wr[c] = a[3] - 0.5 * mc_slope(a[3] - a[0], a[6] - a[3]);
    }
    double f[3];
    hllc(wl, wr, f);
    for (int c = 0; c < 3; c++) {
      if (i >= 0)
        dq[3 * i + c] -= f[c] / dx;
      if (i + 1 < n)
        dq[3 * (i + 1) + c] += f[c] / dx;
    }
  }
}

/* The reference density's cell averages on n cells at T_END. */
static double *fv_reference(int n) {
  double dx = (XR - XL) / n;
  double *q = malloc(sizeof(double) * 3 * n), *q1 = malloc(sizeof(double) * 3 * n);
  double *dq = malloc(sizeof(double) * 3 * n), *w = malloc(sizeof(double) * 3 * (n + 4));
  double *rho = malloc(sizeof(double) * n);
  if (!q || !q1 || !dq || !w || !rho)
    return NULL;
  for (int i = 0; i < n; i++) { /* the initial averages by 4-point Gauss (the wave) */
    double xc = XL + (i + 0.5) * dx, avg[3] = {0, 0, 0};
    static const double gp[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                 0.8611363115940526},
                        gw[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                 0.3478548451374538};
    for (int g = 0; g < 4; g++) {
      double x = xc + 0.5 * dx * gp[g], wv[3], qv[3];
      if (x < X0)
        wv[0] = RHO_L, wv[1] = U_L, wv[2] = P_L;
      else
        wv[0] = 1 + 0.2 * sin(5 * x), wv[1] = 0, wv[2] = 1;
      to_cons(wv, qv);
      for (int c = 0; c < 3; c++)
        avg[c] += 0.5 * gw[g] * qv[c];
    }
    memcpy(q + 3 * i, avg, sizeof avg);
  }
  double t = 0;
  while (t < T_END) {
    double smax = 0;
    for (int i = 0; i < n; i++) {
      double wv[3];
      to_prim(q + 3 * i, wv);
      smax = fmax(smax, fabs(wv[1]) + sqrt(G * wv[2] / wv[0]));
    }
    double dt = fmin(0.8 * dx / smax, T_END - t); /* CFL 0.8 (RK2-MUSCL: <= 1) */
    fv_rhs(n, dx, q, w, dq);
    for (int z = 0; z < 3 * n; z++)
      q1[z] = q[z] + dt * dq[z];
    fv_rhs(n, dx, q1, w, dq);
    for (int z = 0; z < 3 * n; z++)
      q[z] = 0.5 * (q[z] + q1[z] + dt * dq[z]);
    t += dt;
  }
  for (int i = 0; i < n; i++)
    rho[i] = q[3 * i];
  free(q);
  free(q1);
  free(dq);
  free(w);
  return rho;
}

/* the reference at x: linear between the cell centres */
static double ref_at(const double *rho, int n, double x) {
  double s = (x - XL) / ((XR - XL) / n) - 0.5;
  int i = (int)floor(s);
  if (i < 0)
    return rho[0];
  if (i >= n - 1)
    return rho[n - 1];
  return rho[i] + (s - i) * (rho[i + 1] - rho[i]);
}

/* ---- the DG runs --------------------------------------------------------- */

static int dg_l1(const char *cfg, int cells, int N, int cuda, const double *ref, int nref,
                 double *l1) {
  char dir[64], c1[64], c2[64], c3[80];
  snprintf(dir, sizeof dir, "shock_shu_osher_out_%d", cells);
  snprintf(c1, sizeof c1, "mesh.cells=%d", cells);
  snprintf(c2, sizeof c2, "discretization.order=%d", N);
  /* the viscosity's bound scale h / N on this mesh (as shu_osher.cfg's) */
  snprintf(c3, sizeof c3, "shock.max_viscosity=%.17g", 4.7 * (XR - XL) / cells / N);
  char *ov[5] = {c1, c2, c3, "output.enabled=false", "backend.device=cuda"};
  dg_run_result res;
  if (run_state(cfg, dir, NULL, NULL, cuda ? 5 : 4, ov, &res) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  dg_problem *prob = NULL;
  dg_discretization *disc = NULL;
  const char *pov[3] = {c1, c2, "backend.device=cpu"};
  if (dg_problem_load(cfg, pov, 3, &prob) != DG_OK ||
      dg_discretization_create(prob->mesh, N, DG_DOUBLE, &disc) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  const dg_refelem *re = disc->re;
  int np = re->Np, fail = res.state_length != (int64_t)disc->K * np * 3;
  double sum = 0;
  for (int64_t k = 0; k < disc->K && !fail; k++)
    for (int i = 0; i < np; i++) {
      double w = 0, u = res.state[k * np + i];
      for (int j = 0; j < np; j++) /* the nodes' weights, M 1 (Gauss-Lobatto) */
        w += re->M[i * np + j];
      if (!isfinite(u))
        fail = 1;
      sum += w * disc->J[k * np + i] * fabs(u - ref_at(ref, nref, disc->x[k * np + i]));
    }
  dg_discretization_destroy(&disc);
  dg_problem_destroy(&prob);
  free(res.state);
  *l1 = sum;
  if (fail)
    printf("FAIL: K = %d: the state is not finite or has the wrong length\n", cells);
  return fail;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: shock_shu_osher CFG K1 K2 [N [NREF [cuda]]]\n");
    return 2;
  }
  int cuda = argc > 6 && strcmp(argv[6], "cuda") == 0;
  if (cuda && !dg_device_cuda_available()) {
    printf("no usable GPU: skipped\n");
    return 77;
  }
  int k1 = atoi(argv[2]), k2 = atoi(argv[3]), N = argc > 4 ? atoi(argv[4]) : 3;
  const int NREF = argc > 5 ? 2 * (atoi(argv[5]) / 2) : 10000;
  if (NREF < 100)
    return 2;
  double *ref = fv_reference(NREF), *half = fv_reference(NREF / 2);
  if (!ref || !half)
    return 1;
  double rerr = 0; /* the reference's own change from 5,000 cells (L1) */
  for (int i = 0; i < NREF / 2; i++)
    rerr += fabs(half[i] - 0.5 * (ref[2 * i] + ref[2 * i + 1])) * (XR - XL) / (NREF / 2);
  printf("FV reference (MUSCL-MC, HLLC, RK2): %d cells; L1 change from %d cells %.3e\n", NREF,
         NREF / 2, rerr);
  double e1, e2;
  if (dg_l1(argv[1], k1, N, cuda, ref, NREF, &e1) || dg_l1(argv[1], k2, N, cuda, ref, NREF, &e2))
    return 1;
  printf("DG N = %d, K = %d: L1 error of rho %.4e\n", N, k1, e1);
  printf("DG N = %d, K = %d: L1 error of rho %.4e\n", N, k2, e2);
  printf("L1 ratio %.3f (rate %.2f)\n", e1 / e2, log2(e1 / e2));
  int fail = 0;
  if (!(e1 / e2 >= 1.5))
    printf("FAIL: the L1 error does not decrease enough under refinement\n"), fail = 1;
  if (!(rerr < 0.2 * e2))
    printf("FAIL: the reference is not converged far enough to judge the DG error\n"), fail = 1;
  free(ref);
  free(half);
  return fail;
}
