/* Reference elements for nodal DG on simplices, see refelem.h.
 * Hesthaven & Warburton (2008): sections 3.1-3.2 (1D), 6.1-6.2 (2D),
 * 10.1 (3D); codes Vandermonde*, GradVandermonde*, Dmatrices*, Lift*. */
#include "dg/refelem.h"

#include "dg/cubature.h"
#include "dg/jacobi.h"
#include "dg/linalg.h"
#include "dg/nodes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this distance from the collapsed edge/vertex a point is treated as
 * on it (the book tests exact equality; nodes computed through the
 * equilateral element miss it by rounding).  Where the collapse is
 * singular the basis formulas are exact for any a (resp. b) in [-1, 1]
 * because the a-dependence carries a factor (1-b)^i, so snapping costs
 * O(tol) at most. */
static const double COLLAPSE_TOL = 1e-13;

/* Basis values and gradients at one point (r, s, t), all Np modes, in the
 * mode order of refelem.h.  Work arrays: P holds 6 (N+1) doubles. */
static void basis_point(int dim, int N, double r, double s, double t,
                        double *phi, double *dr, double *ds, double *dt,
                        double *P) {
  double *fa = P, *dfa = P + (N + 1), *gb = P + 2 * (N + 1),
         *dgb = P + 3 * (N + 1), *hc = P + 4 * (N + 1), *dhc = P + 5 * (N + 1);
  if (dim == 1) {
    dg_jacobi_p_all(r, 0.0, 0.0, N, fa);
    dg_jacobi_grad_p_all(r, 0.0, 0.0, N, dfa);
    for (int i = 0; i <= N; ++i) {
      phi[i] = fa[i];
      dr[i] = dfa[i];
    }
    return;
  }
  if (dim == 2) {
    /* rstoab: collapsed coordinates (H&W eq. 6.5). */
    double a = 1.0 - s > COLLAPSE_TOL ? 2.0 * (1.0 + r) / (1.0 - s) - 1.0 : -1.0;
    double b = s;
    dg_jacobi_p_all(a, 0.0, 0.0, N, fa);
    dg_jacobi_grad_p_all(a, 0.0, 0.0, N, dfa);
    int sk = 0;
    for (int i = 0; i <= N; ++i) {
      dg_jacobi_p_all(b, 2.0 * i + 1.0, 0.0, N - i, gb);
      dg_jacobi_grad_p_all(b, 2.0 * i + 1.0, 0.0, N - i, dgb);
      double hb = 0.5 * (1.0 - b);
      double pi = pow(hb, i), pim1 = i > 0 ? pow(hb, i - 1) : 0.0;
      /* Simplex2DP: sqrt(2) P_i(a) P_j^{(2i+1,0)}(b) (1-b)^i; its gradient
       * by the chain rule through (a, b) (GradSimplex2DP). */
      double norm = pow(2.0, i + 0.5);
      for (int j = 0; j <= N - i; ++j, ++sk) {
        phi[sk] = norm * fa[i] * gb[j] * pi;
        double ddr = dfa[i] * gb[j] * (i > 0 ? pim1 : 1.0);
        double dds = 0.5 * (1.0 + a) * ddr;
        double tmp = dgb[j] * pi;
        if (i > 0)
          tmp -= 0.5 * i * gb[j] * pim1;
        dds += fa[i] * tmp;
        dr[sk] = norm * ddr;
        ds[sk] = norm * dds;
      }
    }
    return;
  }
  /* rsttoabc (H&W eq. 10.3). */
  double a = -s - t > COLLAPSE_TOL ? 2.0 * (1.0 + r) / (-s - t) - 1.0 : -1.0;
  double b = 1.0 - t > COLLAPSE_TOL ? 2.0 * (1.0 + s) / (1.0 - t) - 1.0 : -1.0;
  double c = t;
  dg_jacobi_p_all(a, 0.0, 0.0, N, fa);
  dg_jacobi_grad_p_all(a, 0.0, 0.0, N, dfa);
  double hb = 0.5 * (1.0 - b), hcc = 0.5 * (1.0 - c);
  int sk = 0;
  for (int i = 0; i <= N; ++i) {
    dg_jacobi_p_all(b, 2.0 * i + 1.0, 0.0, N - i, gb);
    dg_jacobi_grad_p_all(b, 2.0 * i + 1.0, 0.0, N - i, dgb);
    double bi = pow(hb, i), bim1 = i > 0 ? pow(hb, i - 1) : 1.0;
    for (int j = 0; j <= N - i; ++j) {
      double *gbj = &gb[j], *dgbj = &dgb[j];
      /* hc/dhc are reused per (i, j): P_k^{(2(i+j)+2,0)}(c), k <= N-i-j. */
      dg_jacobi_p_all(c, 2.0 * (i + j) + 2.0, 0.0, N - i - j, hc);
      dg_jacobi_grad_p_all(c, 2.0 * (i + j) + 2.0, 0.0, N - i - j, dhc);
      int ij = i + j;
      double cij = pow(hcc, ij), cijm1 = ij > 0 ? pow(hcc, ij - 1) : 1.0;
      /* Simplex3DP: 2 sqrt(2) P_i(a) P_j^{(2i+1,0)}(b) (1-b)^i
       * P_k^{(2i+2j+2,0)}(c) (1-c)^{i+j}; gradient as GradSimplex3DP. */
      double norm = pow(2.0, 2 * i + j + 1.5);
      for (int k = 0; k <= N - i - j; ++k, ++sk) {
        phi[sk] = norm * fa[i] * *gbj * bi * hc[k] * cij;
        double vr = dfa[i] * (*gbj * hc[k]) * bim1 * cijm1;
        double vs = 0.5 * (1.0 + a) * vr;
        double tmp = *dgbj * bi;
        if (i > 0)
          tmp += -0.5 * i * (*gbj * bim1);
        tmp *= cijm1;
        tmp = fa[i] * (tmp * hc[k]);
        vs += tmp;
        double vt = 0.5 * (1.0 + a) * vr + 0.5 * (1.0 + b) * tmp;
        double tmp2 = dhc[k] * cij;
        if (ij > 0)
          tmp2 -= 0.5 * ij * (hc[k] * cijm1);
        tmp2 = fa[i] * (*gbj * tmp2) * bi;
        vt += tmp2;
        dr[sk] = norm * vr;
        ds[sk] = norm * vs;
        dt[sk] = norm * vt;
      }
    }
  }
}

dg_error dg_refelem_vandermonde(int dim, int N, int n, const double *r,
                                const double *s, const double *t, double *V,
                                double *Vr, double *Vs, double *Vt) {
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_ARG,
           "Vandermonde: dimension %d is not 1, 2 or 3", dim);
  DG_CHECK(N >= 0 && N <= DG_REFELEM_MAX_ORDER, DG_ERR_ARG,
           "Vandermonde: order %d outside 0..%d", N, DG_REFELEM_MAX_ORDER);
  DG_CHECK(n >= 0 && r && (dim < 2 || s) && (dim < 3 || t), DG_ERR_ARG,
           "Vandermonde: missing coordinates for %d points in %dD", n, dim);
  DG_CHECK((dim >= 2 || !Vs) && (dim >= 3 || !Vt), DG_ERR_ARG,
           "Vandermonde: derivative beyond dimension %d requested", dim);
  int Np = dg_nodes_count(dim, N);
  double *work = malloc((size_t)(4 * Np + 6 * (N + 1)) * sizeof *work);
  DG_CHECK(work, DG_ERR_MEMORY, "Vandermonde: cannot allocate work space");
  double *phi = work, *dr = work + Np, *ds = work + 2 * Np,
         *dt = work + 3 * Np, *P = work + 4 * Np;
  for (int p = 0; p < n; ++p) {
    basis_point(dim, N, r[p], dim > 1 ? s[p] : 0.0, dim > 2 ? t[p] : 0.0, phi,
                dr, ds, dt, P);
    size_t row = (size_t)p * (size_t)Np;
    if (V)
      memcpy(V + row, phi, (size_t)Np * sizeof *V);
    if (Vr)
      memcpy(Vr + row, dr, (size_t)Np * sizeof *Vr);
    if (Vs)
      memcpy(Vs + row, ds, (size_t)Np * sizeof *Vs);
    if (Vt)
      memcpy(Vt + row, dt, (size_t)Np * sizeof *Vt);
  }
  free(work);
  return DG_OK;
}

dg_error dg_refelem_interp(const dg_refelem *re, int n, const double *r,
                           const double *s, const double *t, double *I) {
  DG_CHECK(re && I && n > 0, DG_ERR_ARG, "interp: bad arguments (n = %d)", n);
  double *Vp = malloc((size_t)n * (size_t)re->Np * sizeof *Vp);
  DG_CHECK(Vp, DG_ERR_MEMORY, "interp: cannot allocate %d x %d", n, re->Np);
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_refelem_vandermonde(re->dim, re->N, n, r, s, t,
                                                 Vp, NULL, NULL, NULL));
  DG_CALL_GOTO(err, done, dg_linalg_matmul(0, 0, n, re->Np, re->Np, Vp,
                                           re->invV, I));
done:
  free(Vp);
  return err;
}

/* Signed distance-like residual of the equation of face f (zero on it). */
static double face_residual(int dim, int f, double r, double s, double t) {
  if (dim == 1)
    return f == 0 ? 1.0 + r : 1.0 - r;
  if (dim == 2) {
    switch (f) {
    case 0: return 1.0 + s;
    case 1: return r + s;
    default: return 1.0 + r;
    }
  }
  switch (f) {
  case 0: return 1.0 + t;
  case 1: return 1.0 + s;
  case 2: return 1.0 + r + s + t;
  default: return 1.0 + r;
  }
}

/* Face-local coordinates (fa, fb) of a volume point on face f, and the
 * inverse map (refelem.h; the book's Lift2D/Lift3D choice). */
static void face_local(int dim, int f, double r, double s, double t,
                       double *fa, double *fb) {
  if (dim == 2) {
    *fa = f == 2 ? s : r;
    *fb = 0.0;
    return;
  }
  switch (f) {
  case 0: *fa = r; *fb = s; break;
  case 1: *fa = r; *fb = t; break;
  default: *fa = s; *fb = t; break;
  }
}

void dg_refelem_face_point(int dim, int f, double fa, double fb, double *r,
                           double *s, double *t) {
  *s = *t = 0.0;
  if (dim == 1) {
    *r = f == 0 ? -1.0 : 1.0;
  } else if (dim == 2) {
    switch (f) {
    case 0: *r = fa; *s = -1.0; break;
    case 1: *r = fa; *s = -fa; break;
    default: *r = -1.0; *s = fa; break;
    }
  } else {
    switch (f) {
    case 0: *r = fa; *s = fb; *t = -1.0; break;
    case 1: *r = fa; *s = -1.0; *t = fb; break;
    case 2: *r = -1.0 - fa - fb; *s = fa; *t = fb; break;
    default: *r = -1.0; *s = fa; *t = fb; break;
    }
  }
}

static double *alloc_doubles(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

#define ALLOC(err, ptr, n)                                                    \
  do {                                                                        \
    (ptr) = alloc_doubles((size_t)(n));                                       \
    DG_CHECK_GOTO(err, fail, (ptr), DG_ERR_MEMORY,                            \
                  "reference element: cannot allocate %zu doubles",           \
                  (size_t)(n));                                               \
  } while (0)

/* Face mass matrices and face-node local coordinates: for face f,
 * Mf = (Vf Vf^T)^{-1} with Vf the (dim-1)-dimensional Vandermonde at the
 * face nodes in face-local coordinates (H&W Lift2D/Lift3D).  Also returns
 * (when finv is not NULL) Vf^{-1} for the face interpolation. */
static dg_error face_matrices(const dg_refelem *re, int f, double *Mf,
                              double *finv) {
  int Nfp = re->Nfp, fd = re->dim - 1;
  if (fd == 0) {
    Mf[0] = 1.0;
    if (finv)
      finv[0] = 1.0;
    return DG_OK;
  }
  double *fr = malloc(2 * (size_t)Nfp * sizeof *fr);
  double *Vf = malloc((size_t)Nfp * (size_t)Nfp * sizeof *Vf);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, fr && Vf, DG_ERR_MEMORY,
                "reference element: cannot allocate face matrices");
  for (int i = 0; i < Nfp; ++i) {
    int v = re->Fmask[f * Nfp + i];
    face_local(re->dim, f, re->r[v], re->s[v], re->dim > 2 ? re->t[v] : 0.0,
               &fr[i], &fr[Nfp + i]);
  }
  DG_CALL_GOTO(err, done, dg_refelem_vandermonde(fd, re->N, Nfp, fr, fr + Nfp,
                                                 NULL, Vf, NULL, NULL, NULL));
  DG_CALL_GOTO(err, done, dg_linalg_inverse(Nfp, Vf));
  /* (Vf Vf^T)^{-1} = Vf^{-T} Vf^{-1}. */
  DG_CALL_GOTO(err, done, dg_linalg_matmul(1, 0, Nfp, Nfp, Nfp, Vf, Vf, Mf));
  if (finv)
    memcpy(finv, Vf, (size_t)Nfp * (size_t)Nfp * sizeof *finv);
done:
  free(fr);
  free(Vf);
  return err;
}

/* Fmask by the face equations with tolerance 1e-10 (H&W uses NODETOL =
 * 1e-10 the same way), ascending volume index. */
static dg_error build_fmask(dg_refelem *re) {
  const double tol = 1e-10;
  for (int f = 0; f < re->Nfaces; ++f) {
    int cnt = 0;
    for (int v = 0; v < re->Np; ++v) {
      double res = face_residual(re->dim, f, re->r[v],
                                 re->dim > 1 ? re->s[v] : 0.0,
                                 re->dim > 2 ? re->t[v] : 0.0);
      if (fabs(res) < tol) {
        DG_CHECK(cnt < re->Nfp, DG_ERR_INTERNAL,
                 "face %d of the %dD N=%d element has more than Nfp = %d "
                 "nodes", f, re->dim, re->N, re->Nfp);
        re->Fmask[f * re->Nfp + cnt++] = v;
      }
    }
    DG_CHECK(cnt == re->Nfp, DG_ERR_INTERNAL,
             "face %d of the %dD N=%d element has %d nodes, expected %d", f,
             re->dim, re->N, cnt, re->Nfp);
  }
  return DG_OK;
}

/* LIFT = V V^T E, E (Np x Nfaces*Nfp) the surface mass matrix with the face
 * mass matrices placed at the face nodes (H&W eq. 6.22, Lift1D/2D/3D). */
static dg_error build_lift(dg_refelem *re) {
  int Np = re->Np, Nfp = re->Nfp, ncol = re->Nfaces * Nfp;
  double *E = calloc((size_t)Np * (size_t)ncol, sizeof *E);
  double *Mf = malloc((size_t)Nfp * (size_t)Nfp * sizeof *Mf);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, E && Mf, DG_ERR_MEMORY,
                "reference element: cannot allocate the surface mass matrix");
  for (int f = 0; f < re->Nfaces; ++f) {
    DG_CALL_GOTO(err, done, face_matrices(re, f, Mf, NULL));
    for (int i = 0; i < Nfp; ++i)
      for (int j = 0; j < Nfp; ++j)
        E[(size_t)re->Fmask[f * Nfp + i] * ncol + f * Nfp + j] = Mf[i * Nfp + j];
  }
  DG_CALL_GOTO(err, done, dg_linalg_matmul(0, 0, Np, ncol, Np, re->invM, E,
                                           re->LIFT));
done:
  free(E);
  free(Mf);
  return err;
}

/* Face quadrature: the (dim-1)-simplex rule of degree 2N mapped to every
 * face; volume and face-node interpolation to its points. */
static dg_error build_face_quadrature(dg_refelem *re) {
  int fd = re->dim - 1, Nfq = re->Nfq, Nfp = re->Nfp, nf = re->Nfaces;
  double *qa = calloc(2 * (size_t)Nfq, sizeof *qa);
  double *Vq = calloc((size_t)Nfq * (size_t)Nfp, sizeof *Vq);
  double *finv = calloc((size_t)Nfp * (size_t)Nfp, sizeof *finv);
  double *Mf = calloc((size_t)Nfp * (size_t)Nfp, sizeof *Mf);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, qa && Vq && finv && Mf, DG_ERR_MEMORY,
                "reference element: cannot allocate face quadrature");
  DG_CALL_GOTO(err, done, dg_cubature_simplex(fd, 2 * re->N, qa, qa + Nfq,
                                              NULL, re->fq_w));
  for (int f = 0; f < nf; ++f) {
    for (int q = 0; q < Nfq; ++q) {
      double r, s, t;
      dg_refelem_face_point(re->dim, f, qa[q], qa[Nfq + q], &r, &s, &t);
      re->fq_r[f * Nfq + q] = r;
      if (re->fq_s)
        re->fq_s[f * Nfq + q] = s;
      if (re->fq_t)
        re->fq_t[f * Nfq + q] = t;
    }
    /* Face-node -> face-quadrature interpolation: Vf(quad) Vf(nodes)^{-1}
     * in face-local coordinates, where traces are polynomials of degree N. */
    double *B = re->fq_face_interp + (size_t)f * Nfq * Nfp;
    DG_CALL_GOTO(err, done, face_matrices(re, f, Mf, finv));
    if (fd == 0) {
      B[0] = 1.0;
      continue;
    }
    DG_CALL_GOTO(err, done, dg_refelem_vandermonde(fd, re->N, Nfq, qa,
                                                   qa + Nfq, NULL, Vq, NULL,
                                                   NULL, NULL));
    DG_CALL_GOTO(err, done,
                 dg_linalg_matmul(0, 0, Nfq, Nfp, Nfp, Vq, finv, B));
  }
  DG_CALL_GOTO(err, done, dg_refelem_interp(re, nf * Nfq, re->fq_r, re->fq_s,
                                            re->fq_t, re->fq_interp));
done:
  free(qa);
  free(Vq);
  free(finv);
  free(Mf);
  return err;
}

dg_error dg_refelem_create(int dim, int N, dg_refelem **out) {
  DG_CHECK(out, DG_ERR_ARG, "reference element: NULL output pointer");
  *out = NULL;
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_INPUT,
           "reference element: dimension %d is not 1, 2 or 3", dim);
  DG_CHECK(N >= 1 && N <= DG_REFELEM_MAX_ORDER, DG_ERR_INPUT,
           "reference element: order N = %d is outside 1..%d", N,
           DG_REFELEM_MAX_ORDER);
  dg_refelem *re = calloc(1, sizeof *re);
  DG_CHECK(re, DG_ERR_MEMORY, "reference element: cannot allocate");
  dg_error err = DG_OK;
  re->dim = dim;
  re->N = N;
  re->Np = dg_nodes_count(dim, N);
  re->Nfp = dg_nodes_count(dim - 1, N);
  if (dim == 1)
    re->Nfp = 1;
  re->Nfaces = dim + 1;
  int Np = re->Np;
  size_t NpNp = (size_t)Np * (size_t)Np;

  ALLOC(err, re->r, Np);
  if (dim > 1)
    ALLOC(err, re->s, Np);
  if (dim > 2)
    ALLOC(err, re->t, Np);
  if (dim == 1)
    DG_CALL_GOTO(err, fail, dg_nodes_lgl(N, re->r));
  else if (dim == 2)
    DG_CALL_GOTO(err, fail, dg_nodes_triangle(N, re->r, re->s));
  else
    DG_CALL_GOTO(err, fail, dg_nodes_tetrahedron(N, re->r, re->s, re->t));

  /* Vandermonde and gradients; D = Vr V^{-1} (H&W eq. 3.33, 6.27). */
  ALLOC(err, re->V, NpNp);
  ALLOC(err, re->invV, NpNp);
  double **Vd[3] = {&re->Vr, &re->Vs, &re->Vt};
  double **Dd[3] = {&re->Dr, &re->Ds, &re->Dt};
  for (int d = 0; d < dim; ++d) {
    ALLOC(err, *Vd[d], NpNp);
    ALLOC(err, *Dd[d], NpNp);
  }
  DG_CALL_GOTO(err, fail, dg_refelem_vandermonde(dim, N, Np, re->r, re->s,
                                                 re->t, re->V, re->Vr, re->Vs,
                                                 re->Vt));
  memcpy(re->invV, re->V, NpNp * sizeof *re->invV);
  DG_CALL_GOTO(err, fail, dg_linalg_inverse(Np, re->invV));
  for (int d = 0; d < dim; ++d)
    DG_CALL_GOTO(err, fail, dg_linalg_matmul(0, 0, Np, Np, Np, *Vd[d],
                                             re->invV, *Dd[d]));

  /* M = (V V^T)^{-1} = V^{-T} V^{-1}, M^{-1} = V V^T (H&W eq. 3.31). */
  ALLOC(err, re->M, NpNp);
  ALLOC(err, re->invM, NpNp);
  DG_CALL_GOTO(err, fail, dg_linalg_matmul(1, 0, Np, Np, Np, re->invV,
                                           re->invV, re->M));
  DG_CALL_GOTO(err, fail, dg_linalg_matmul(0, 1, Np, Np, Np, re->V, re->V,
                                           re->invM));

  re->Fmask = calloc((size_t)re->Nfaces * (size_t)re->Nfp, sizeof *re->Fmask);
  DG_CHECK_GOTO(err, fail, re->Fmask, DG_ERR_MEMORY,
                "reference element: cannot allocate Fmask");
  DG_CALL_GOTO(err, fail, build_fmask(re));
  ALLOC(err, re->LIFT, (size_t)Np * re->Nfaces * re->Nfp);
  DG_CALL_GOTO(err, fail, build_lift(re));

  /* Volume cubature exact for degree 2N (mass-type integrands). */
  re->Ncub = dg_cubature_count(dim, 2 * N);
  ALLOC(err, re->cub_r, re->Ncub);
  if (dim > 1)
    ALLOC(err, re->cub_s, re->Ncub);
  if (dim > 2)
    ALLOC(err, re->cub_t, re->Ncub);
  ALLOC(err, re->cub_w, re->Ncub);
  ALLOC(err, re->cub_interp, (size_t)re->Ncub * Np);
  DG_CALL_GOTO(err, fail, dg_cubature_simplex(dim, 2 * N, re->cub_r,
                                              re->cub_s, re->cub_t,
                                              re->cub_w));
  DG_CALL_GOTO(err, fail, dg_refelem_interp(re, re->Ncub, re->cub_r,
                                            re->cub_s, re->cub_t,
                                            re->cub_interp));

  re->Nfq = dg_cubature_count(dim - 1, 2 * N);
  size_t nfq = (size_t)re->Nfaces * re->Nfq;
  ALLOC(err, re->fq_w, re->Nfq);
  ALLOC(err, re->fq_r, nfq);
  if (dim > 1)
    ALLOC(err, re->fq_s, nfq);
  if (dim > 2)
    ALLOC(err, re->fq_t, nfq);
  ALLOC(err, re->fq_interp, nfq * Np);
  ALLOC(err, re->fq_face_interp, nfq * re->Nfp);
  DG_CALL_GOTO(err, fail, build_face_quadrature(re));

  *out = re;
  return DG_OK;
fail:
  dg_refelem_destroy(&re);
  return err;
}

void dg_refelem_destroy(dg_refelem **re) {
  if (!re || !*re)
    return;
  dg_refelem *e = *re;
  double *arrays[] = {e->r,      e->s,          e->t,       e->V,
                      e->Vr,     e->Vs,         e->Vt,      e->Dr,
                      e->Ds,     e->Dt,         e->M,       e->invM,
                      e->LIFT,   e->cub_r,      e->cub_s,   e->cub_t,
                      e->cub_w,  e->cub_interp, e->invV,    e->fq_w,
                      e->fq_r,   e->fq_s,       e->fq_t,    e->fq_interp,
                      e->fq_face_interp};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
    free(arrays[i]);
  free(e->Fmask);
  free(e);
  *re = NULL;
}

void dg_refelem_mode_degrees(int dim, int N, int *deg) {
  int m = 0;
  for (int i = 0; i <= N; i++) {
    if (dim == 1) {
      deg[m++] = i;
      continue;
    }
    for (int j = 0; j <= N - i; j++) {
      if (dim == 2) {
        deg[m++] = i + j;
        continue;
      }
      for (int k = 0; k <= N - i - j; k++)
        deg[m++] = i + j + k;
    }
  }
}
