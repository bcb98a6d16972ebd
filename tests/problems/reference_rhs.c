/* problems.reference_rhs: the generated DG operator (dg_surface + dg_volume,
 * run by dg_solver on the cpu backend) against a straightforward reference
 * written here by hand: dense D_r/D_s/D_t and LIFT from dg/refelem, the
 * per-node geometric factors, normals and Fscale of dg/discretization, plain
 * loops, and the physics coded in C rather than read from the flux file.
 * Nothing of operators/ (lowering, emitted expressions, layouts) is shared
 * with the reference, so a wrong index in any knob setting shows here.
 *
 * Cases: Maxwell 3D with PEC walls on a box with jiggled interior vertices,
 * Euler 2D with the Rusanov flux on a jiggled periodic rectangle, and
 * Maxwell 2D TM in a medium whose eps and mu are coefficients (random at
 * every node, so they vary inside elements and jump between them) with the
 * impedance-weighted upwind flux and PEC walls; random states (physical for
 * Euler); N = 1..4; several kernel configurations.
 * The semi-discrete operator (Hesthaven & Warburton 2008, strong form):
 *   du/dt = V(u) + LIFT * (Fscale .* (flux - surface form of V at u-)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "dg/discretization.h"
#include "meshes/builtin.h"
#include "operators/flux.h"
#include "operators/physics.h"
#include "problems/solver/solver.h"

static int failures = 0;

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* uniform in [0, 1), xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* Move every vertex off the domain boundary by up to `amount` of a cell in
 * each coordinate: elements stay straight-sided but lose the structured
 * mesh's symmetry, so the geometric factors differ from element to element. */
static void jiggle(dg_mesh *m, double amount, const double *cell) {
  for (int64_t v = 0; v < m->Nv; v++) {
    int on_boundary = 0;
    for (int d = 0; d < m->dim; d++) {
      double x = m->VX[v * m->dim + d];
      if (fabs(x - m->lo[d]) < 1e-12 || fabs(x - m->hi[d]) < 1e-12)
        on_boundary = 1;
    }
    if (on_boundary)
      continue;
    for (int d = 0; d < m->dim; d++)
      m->VX[v * m->dim + d] += amount * cell[d] * (2 * urand() - 1);
  }
}

/* u[(c*K + k)*Np + i] */
#define U(c, k, i) u[((int64_t)(c) * K + (k)) * Np + (i)]

/* Physical derivative along x_b of the nodal values g[0..Np) in element k. */
static void dphys(const dg_discretization *d, int64_t k, const double *g, int b, double *out) {
  int Np = d->Np;
  const double *Dm[3] = {d->re->Dr, d->re->Ds, d->re->Dt};
  for (int i = 0; i < Np; i++) {
    double s = 0;
    for (int a = 0; a < d->dim; a++) {
      double da = 0;
      for (int j = 0; j < Np; j++)
        da += Dm[a][i * Np + j] * g[j];
      s += d->G[a][b][k * Np + i] * da;
    }
    out[i] = s;
  }
}

/* The physics: volume term at every node of element k, and for a face node
 * the numerical flux minus the surface form, given interior and exterior
 * states and the outward normal. */
typedef struct physics_ref {
  int ncomp, ncoef;
  /* coef: the coefficients in logical order, like u (NULL without them);
   * cm, cp: a face node's interior and exterior coefficients */
  void (*volume)(const dg_discretization *d, const double *u, const double *coef, int64_t k,
                 double *vol);
  void (*face)(const double *um, const double *up, const double *cm, const double *cp,
               const double *n, double *out);
  void (*boundary)(const double *um, const double *n, double *up); /* NULL: no boundary */
} physics_ref;

/* --- Maxwell 3D, eps = mu = alpha = 1: dE/dt = curl H, dH/dt = -curl E;
 * flux E = n x avg(H) + 1/2 n x (n x [E]), flux H = -n x avg(E) + 1/2 n x (n x [H]). */
static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void maxwell_volume(const dg_discretization *d, const double *u, const double *coef,
                           int64_t k, double *vol) {
  (void)coef;
  int Np = d->Np;
  int64_t K = d->K;
  double *g = malloc(sizeof(double) * (size_t)Np);
  double *dd = malloc(sizeof(double) * (size_t)Np * 18); /* d(comp c)/dx_b */
  for (int c = 0; c < 6; c++) {
    for (int i = 0; i < Np; i++)
      g[i] = U(c, k, i);
    for (int b = 0; b < 3; b++)
      dphys(d, k, g, b, dd + ((size_t)c * 3 + (size_t)b) * (size_t)Np);
  }
#define DD(c, b, i) dd[((size_t)(c) * 3 + (size_t)(b)) * (size_t)Np + (size_t)(i)]
  for (int i = 0; i < Np; i++) {
    /* curl F = (dy Fz - dz Fy, dz Fx - dx Fz, dx Fy - dy Fx) */
    for (int w = 0; w < 2; w++) {
      int src = w == 0 ? 3 : 0; /* E gets curl H, H gets -curl E */
      double sg = w == 0 ? 1 : -1;
      double cx = DD(src + 2, 1, i) - DD(src + 1, 2, i);
      double cy = DD(src + 0, 2, i) - DD(src + 2, 0, i);
      double cz = DD(src + 1, 0, i) - DD(src + 0, 1, i);
      int dst = w == 0 ? 0 : 3;
      vol[(dst + 0) * Np + i] = sg * cx;
      vol[(dst + 1) * Np + i] = sg * cy;
      vol[(dst + 2) * Np + i] = sg * cz;
    }
  }
#undef DD
  free(g);
  free(dd);
}

static void maxwell_face(const double *um, const double *up, const double *cm, const double *cp,
                         const double *n, double *out) {
  (void)cm;
  (void)cp;
  double avgE[3], avgH[3], jE[3], jH[3], t[3], t2[3], c[3];
  for (int a = 0; a < 3; a++) {
    avgE[a] = 0.5 * (um[a] + up[a]);
    avgH[a] = 0.5 * (um[3 + a] + up[3 + a]);
    jE[a] = um[a] - up[a];
    jH[a] = um[3 + a] - up[3 + a];
  }
  /* E: n x avg(H) + 1/2 n x (n x [E]) - n x H- */
  cross3(n, avgH, c);
  cross3(n, jE, t);
  cross3(n, t, t2);
  double sH[3];
  cross3(n, um + 3, sH);
  for (int a = 0; a < 3; a++)
    out[a] = c[a] + 0.5 * t2[a] - sH[a];
  /* H: -n x avg(E) + 1/2 n x (n x [H]) + n x E- */
  cross3(n, avgE, c);
  cross3(n, jH, t);
  cross3(n, t, t2);
  double sE[3];
  cross3(n, um, sE);
  for (int a = 0; a < 3; a++)
    out[3 + a] = -c[a] + 0.5 * t2[a] + sE[a];
}

static void maxwell_pec(const double *um, const double *n, double *up) {
  (void)n;
  for (int a = 0; a < 3; a++) {
    up[a] = -um[a];
    up[3 + a] = um[3 + a];
  }
}

/* --- Euler 2D, gamma = 1.4: du/dt = -div F(u), Rusanov flux
 * -(avg(F.n) + lam/2 [u]), lam = max(|u.n| + c) over both sides;
 * surface form -F(u-).n. */
static const double gam = 1.4;

static void euler_flux(const double *q, double F[4][2]) {
  double rho = q[0], mx = q[1], my = q[2], E = q[3];
  double ux = mx / rho, uy = my / rho;
  double p = (gam - 1) * (E - 0.5 * (mx * mx + my * my) / rho);
  F[0][0] = mx, F[0][1] = my;
  F[1][0] = mx * ux + p, F[1][1] = mx * uy;
  F[2][0] = my * ux, F[2][1] = my * uy + p;
  F[3][0] = (E + p) * ux, F[3][1] = (E + p) * uy;
}

static void euler_volume(const dg_discretization *d, const double *u, const double *coef,
                         int64_t k, double *vol) {
  (void)coef;
  int Np = d->Np;
  int64_t K = d->K;
  double *g = malloc(sizeof(double) * (size_t)Np * 9);
  double *dg_ = g + 8 * Np; /* scratch derivative */
  for (int i = 0; i < Np; i++) {
    double q[4] = {U(0, k, i), U(1, k, i), U(2, k, i), U(3, k, i)}, F[4][2];
    euler_flux(q, F);
    for (int c = 0; c < 4; c++)
      for (int b = 0; b < 2; b++)
        g[(c * 2 + b) * Np + i] = F[c][b];
  }
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < Np; i++)
      vol[c * Np + i] = 0;
    for (int b = 0; b < 2; b++) {
      dphys(d, k, g + (c * 2 + b) * Np, b, dg_);
      for (int i = 0; i < Np; i++)
        vol[c * Np + i] -= dg_[i];
    }
  }
  free(g);
}

static double euler_speed(const double *q, const double *n) {
  double un = (q[1] * n[0] + q[2] * n[1]) / q[0];
  double p = (gam - 1) * (q[3] - 0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0]);
  return fabs(un) + sqrt(gam * p / q[0]);
}

static void euler_face(const double *um, const double *up, const double *cm, const double *cp,
                       const double *n, double *out) {
  (void)cm;
  (void)cp;
  double Fm[4][2], Fp[4][2];
  euler_flux(um, Fm);
  euler_flux(up, Fp);
  double lam = fmax(euler_speed(um, n), euler_speed(up, n));
  for (int c = 0; c < 4; c++) {
    double fnm = Fm[c][0] * n[0] + Fm[c][1] * n[1];
    double fnp = Fp[c][0] * n[0] + Fp[c][1] * n[1];
    double flux = -(0.5 * (fnm + fnp) + 0.5 * lam * (um[c] - up[c]));
    out[c] = flux - (-fnm);
  }
}

/* --- Maxwell 2D TM (fields Ez, H[2]) with coefficients eps, mu at the nodes:
 * eps dEz/dt = dx Hy - dy Hx, mu dH/dt = [-dy Ez, dx Ez]; the upwind flux
 * for heterogeneous media of tests/flux/inputs/maxwell2d_interface.flux,
 * with Z = sqrt(mu/eps) and q = n0 Hy - n1 Hx on each side:
 *   flux Ez = (Z- q- + Z+ q+ + Ez+ - Ez-)/((Z- + Z+) eps-)
 *   flux H  = -[n1, -n0] (Ez-/Z- + Ez+/Z+ + q+ - q-)/((1/Z- + 1/Z+) mu-)
 * surface forms q-/eps- and -[n1, -n0] Ez-/mu-; PEC walls Ez+ = -Ez-. */
#define C(c, k, i) coef[((int64_t)(c) * K + (k)) * Np + (i)]
static void tm_volume(const dg_discretization *d, const double *u, const double *coef, int64_t k,
                      double *vol) {
  int Np = d->Np;
  int64_t K = d->K;
  double *g = malloc(sizeof(double) * (size_t)Np * 7), *dd = g + Np; /* dd[(c*2 + b)*Np] */
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < Np; i++)
      g[i] = U(c, k, i);
    for (int b = 0; b < 2; b++)
      dphys(d, k, g, b, dd + (size_t)(c * 2 + b) * Np);
  }
  /* dd: dEz/dx, dEz/dy, dHx/dx, dHx/dy, dHy/dx, dHy/dy */
  for (int i = 0; i < Np; i++) {
    double eps = C(0, k, i), mu = C(1, k, i);
    vol[0 * Np + i] = (dd[4 * Np + i] - dd[3 * Np + i]) / eps;
    vol[1 * Np + i] = -dd[1 * Np + i] / mu;
    vol[2 * Np + i] = dd[0 * Np + i] / mu;
  }
  free(g);
}
#undef C

static void tm_face(const double *um, const double *up, const double *cm, const double *cp,
                    const double *n, double *out) {
  double Zm = sqrt(cm[1] / cm[0]), Zp = sqrt(cp[1] / cp[0]);
  double qm = n[0] * um[2] - n[1] * um[1], qp = n[0] * up[2] - n[1] * up[1];
  double qs = (Zm * qm + Zp * qp + up[0] - um[0]) / (Zm + Zp);
  double es = (um[0] / Zm + up[0] / Zp + qp - qm) / (1 / Zm + 1 / Zp);
  out[0] = qs / cm[0] - qm / cm[0];
  out[1] = -n[1] * es / cm[1] + n[1] * um[0] / cm[1];
  out[2] = n[0] * es / cm[1] - n[0] * um[0] / cm[1];
}

static void tm_pec(const double *um, const double *n, double *up) {
  (void)n;
  up[0] = -um[0];
  up[1] = um[1];
  up[2] = um[2];
}

/* The reference right-hand side, logical order. */
static void reference_rhs(const dg_discretization *d, const physics_ref *ph, const double *u,
                          const double *coef, double *rhs) {
  int Np = d->Np, Nfp = d->Nfp, Nf = d->Nfaces, nc = ph->ncomp;
  int64_t K = d->K;
  double *vol = malloc(sizeof(double) * (size_t)(nc * Np));
  double *fl = malloc(sizeof(double) * (size_t)(nc * Nf * Nfp));
  for (int64_t k = 0; k < K; k++) {
    ph->volume(d, u, coef, k, vol);
    for (int f = 0; f < Nf; f++) {
      int boundary = d->EToE[k * Nf + f] == k && d->EToF[k * Nf + f] == f;
      for (int j = 0; j < Nfp; j++) {
        int64_t m = (k * Nf + f) * Nfp + j;
        int64_t vm = d->vmapM[m], vp = d->vmapP[m];
        double um[8], up[8], n[3] = {0, 0, 0}, out[8], cm[4], cp[4];
        for (int c = 0; c < nc; c++) {
          um[c] = u[c * K * Np + vm];
          up[c] = u[c * K * Np + vp];
        }
        for (int c = 0; c < ph->ncoef; c++) { /* boundary: vp = vm */
          cm[c] = coef[c * K * Np + vm];
          cp[c] = coef[c * K * Np + vp];
        }
        for (int a = 0; a < d->dim; a++)
          n[a] = d->n[a][m];
        if (boundary)
          ph->boundary(um, n, up);
        ph->face(um, up, cm, cp, n, out);
        for (int c = 0; c < nc; c++)
          fl[(c * Nf + f) * Nfp + j] = d->Fscale[m] * out[c];
      }
    }
    for (int c = 0; c < nc; c++)
      for (int i = 0; i < Np; i++) {
        double s = vol[c * Np + i];
        for (int q = 0; q < Nf * Nfp; q++)
          s += d->re->LIFT[i * Nf * Nfp + q] * fl[c * Nf * Nfp + q];
        rhs[(c * K + k) * Np + i] = s;
      }
  }
  free(vol);
  free(fl);
}

typedef struct knobs {
  const char *name;
  dg_field_layout layout;
  int np_align, cpu_chunk;
  int basis; /* dg_kernel_config.basis */
} knobs;

static const knobs variants[] = {
    {"default", DG_LAYOUT_FIELD_MAJOR, 0, 0, 0},
    {"element-major", DG_LAYOUT_ELEMENT_MAJOR, 0, 0, 0},
    {"padded np_align=8, chunk 3", DG_LAYOUT_FIELD_MAJOR, 8, 3, 0},
    {"element-major padded np_align=4, chunk 1", DG_LAYOUT_ELEMENT_MAJOR, 4, 1, 0},
    /* the state as Bernstein-Bezier coefficients (affine physics: Maxwell);
     * set_state and rhs convert from and to nodal values */
    {"basis bernstein", DG_LAYOUT_FIELD_MAJOR, 0, 2, 1},
};

static int run_case(dg_device *dev, const char *flux_path, const physics_ref *ph, dg_mesh *mesh,
                    int N) {
  dg_discretization *disc = NULL;
  dg_flux_program *prog = NULL;
  dg_physics phys;
  dg_physics_tables *tables = NULL;
  if (dg_discretization_create(mesh, N, DG_DOUBLE, &disc) != DG_OK ||
      dg_flux_parse_file(flux_path, mesh->dim, &prog) != DG_OK ||
      dg_physics_from_program(prog, &phys, &tables) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  int64_t n = (int64_t)ph->ncomp * disc->K * disc->Np;
  double *u = malloc(sizeof(double) * (size_t)n);
  double *want = malloc(sizeof(double) * (size_t)n);
  double *got = malloc(sizeof(double) * (size_t)n);
  int64_t KNp = disc->K * disc->Np;
  for (int64_t i = 0; i < KNp; i++) {
    if (ph->ncomp == 4) { /* Euler: rho in [0.5, 1.5], |v| < 0.5, p in [0.5, 1.5] */
      double rho = 0.5 + urand(), vx = urand() - 0.5, vy = urand() - 0.5, p = 0.5 + urand();
      u[i] = rho;
      u[KNp + i] = rho * vx;
      u[2 * KNp + i] = rho * vy;
      u[3 * KNp + i] = p / (gam - 1) + 0.5 * rho * (vx * vx + vy * vy);
    } else {
      for (int c = 0; c < ph->ncomp; c++)
        u[c * KNp + i] = 2 * urand() - 1;
    }
  }
  double *coef = NULL; /* eps in [1, 3], mu in [0.5, 2] at every node */
  if (ph->ncoef > 0) {
    coef = malloc(sizeof(double) * (size_t)(ph->ncoef * KNp));
    for (int64_t i = 0; i < KNp; i++) {
      coef[i] = 1 + 2 * urand();
      coef[KNp + i] = 0.5 + 1.5 * urand();
    }
  }
  reference_rhs(disc, ph, u, coef, want);
  double scale = 0;
  for (int64_t i = 0; i < n; i++)
    scale = fmax(scale, fabs(want[i]));
  int bad = 0;
  /* Every boundary face is a PEC wall (bc 0) where the mesh has tags. */
  int tag_to_bc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    dg_solver_options so = {dg_kernel_config_default(), NULL};
    so.kernels.layout = variants[v].layout;
    so.kernels.np_align = variants[v].np_align > 0 ? variants[v].np_align : so.kernels.np_align;
    so.kernels.cpu_chunk = variants[v].cpu_chunk;
    so.kernels.basis = variants[v].basis;
    if (variants[v].basis && (ph->ncomp == 4 || ph->ncoef > 0))
      continue; /* Euler, coefficients: not affine, the generator refuses (operators.flux_affine) */
    dg_solver *s = NULL;
    if (dg_solver_create(dev, disc, &phys, tag_to_bc, &so, &s) != DG_OK ||
        (coef && dg_solver_set_coefficients(s, coef) != DG_OK) ||
        dg_solver_set_state(s, u) != DG_OK || dg_solver_rhs(s, 0.0, got) != DG_OK) {
      dg_error_print(stderr);
      dg_solver_destroy(&s);
      bad = 1;
      break;
    }
    dg_solver_destroy(&s);
    double maxdiff = 0;
    for (int64_t i = 0; i < n; i++)
      maxdiff = fmax(maxdiff, fabs(got[i] - want[i]));
    /* Round-off: sums of O(Np) products of O(scale) terms; in the BB basis
     * the conversions u = V c and c = invV u may amplify it by up to cond(V)
     * (measured: no larger than the nodal variants' up to N = 4; 10x slack) */
    double tol = 1e-12 * scale * (1 + disc->Np) * (variants[v].basis ? 10 : 1);
    int ok = maxdiff <= tol && isfinite(maxdiff);
    printf("%s N=%d K=%lld %-42s max |generated - reference| = %.3e (scale %.3e) %s\n",
           flux_path, N, (long long)disc->K, variants[v].name, maxdiff, scale, ok ? "ok" : "FAIL");
    if (!ok)
      bad = 1;
  }
  free(u);
  free(coef);
  free(want);
  free(got);
  dg_physics_tables_destroy(&tables);
  dg_flux_program_destroy(&prog);
  dg_discretization_destroy(&disc);
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s maxwell3d.flux euler2d.flux maxwell2d_interface.flux\n", argv[0]);
    return 2;
  }
  dg_device *dev = NULL;
  if (dg_device_create("cpu", -1, &dev) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  const physics_ref maxwell = {6, 0, maxwell_volume, maxwell_face, maxwell_pec};
  const physics_ref euler = {4, 0, euler_volume, euler_face, NULL};
  const physics_ref tm = {3, 2, tm_volume, tm_face, tm_pec};
  for (int N = 1; N <= 4; N++) {
    dg_mesh *box = NULL, *rect = NULL, *walls = NULL;
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1.5, 0.75};
    const int64_t nb[3] = {3, 2, 2};
    const double cb[3] = {1.0 / 3, 0.75, 0.375};
    const int per2[2] = {1, 1};
    const double cr[2] = {2.0 / 4, 1.0 / 3};
    if (dg_builtin_box(lo, hi, nb, NULL, &box) != DG_OK ||
        dg_builtin_rectangle(0, 2, 0, 1, 4, 3, per2, &rect) != DG_OK ||
        dg_builtin_rectangle(-1, 1, 0, 1, 4, 3, NULL, &walls) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    jiggle(box, 0.15, cb);
    jiggle(rect, 0.15, cr);
    jiggle(walls, 0.15, cr);
    failures += run_case(dev, argv[1], &maxwell, box, N);
    failures += run_case(dev, argv[2], &euler, rect, N);
    failures += run_case(dev, argv[3], &tm, walls, N);
    dg_mesh_destroy(&box);
    dg_mesh_destroy(&rect);
    dg_mesh_destroy(&walls);
  }
  dg_device_destroy(&dev);
  if (failures)
    printf("%d case(s) FAILED\n", failures);
  return failures ? 1 : 0;
}
