#include "dg/sipg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/sipg_curved.h"

dg_sipg_options dg_sipg_defaults(void) {
  dg_sipg_options o;
  memset(&o, 0, sizeof o);
  o.penalty = 1.0;
  return o;
}

/* Reference-element products and per-face scratch, built once per call. */
typedef struct work {
  const dg_discretization *d;
  int dim, Np, Nfp, Nf, Nfq, Ncub;
  const double *D[3];  /* Dr, Ds, Dt */
  double *CD[3];       /* Ncub x Np: gradient along r_a at the volume points */
  double *FD[3];       /* (Nf*Nfq) x Np: the same at the face points */
  dg_sipg_face F;       /* Nfq points: the traces of face_mats */
  dg_sipg_volume V;     /* Ncub points */
  double *gx;          /* dim x Ncub x Np physical gradients */
  dg_sipg_curved *cv;  /* curved elements' rules (NULL: none) */
} work;

static void work_free(work *w) {
  for (int a = 0; a < 3; a++) {
    free(w->CD[a]);
    free(w->FD[a]);
  }
  dg_sipg_face_free(&w->F);
  dg_sipg_volume_free(&w->V);
  free(w->gx);
  dg_sipg_curved_destroy(&w->cv);
}

/* C (n x Np) = A (n x Np) B (Np x Np). */
static void matmul(int n, int Np, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < Np; j++) {
      double s = 0;
      for (int m = 0; m < Np; m++)
        s += A[i * Np + m] * B[m * Np + j];
      C[i * Np + j] = s;
    }
}

static dg_error work_init(const dg_discretization *d, work *w) {
  memset(w, 0, sizeof *w);
  const dg_refelem *re = d->re;
  w->d = d;
  w->dim = d->dim;
  w->Np = d->Np;
  w->Nfp = d->Nfp;
  w->Nf = d->Nfaces;
  w->Nfq = re->Nfq;
  w->Ncub = re->Ncub;
  w->D[0] = re->Dr;
  w->D[1] = re->Ds;
  w->D[2] = re->Dt;
  size_t np = (size_t)w->Np, nfq = (size_t)w->Nfq;
  int ok = 1;
  for (int a = 0; a < w->dim; a++) {
    ok &= (w->CD[a] = malloc(sizeof(double) * (size_t)w->Ncub * np)) != NULL;
    ok &= (w->FD[a] = malloc(sizeof(double) * (size_t)w->Nf * nfq * np)) != NULL;
  }
  ok &= (w->F.Tm = malloc(sizeof(double) * nfq * np)) != NULL;
  ok &= (w->F.Gm = malloc(sizeof(double) * nfq * np)) != NULL;
  ok &= (w->F.Tp = malloc(sizeof(double) * nfq * np)) != NULL;
  ok &= (w->F.Gp = malloc(sizeof(double) * nfq * np)) != NULL;
  ok &= (w->F.wq = malloc(sizeof(double) * nfq)) != NULL;
  ok &= (w->F.x = calloc(nfq * 3, sizeof(double))) != NULL;
  ok &= (w->F.n = calloc(nfq * 3, sizeof(double))) != NULL;
  ok &= (w->V.wJ = malloc(sizeof(double) * (size_t)w->Ncub)) != NULL;
  ok &= (w->V.x = calloc((size_t)w->Ncub * 3, sizeof(double))) != NULL;
  ok &= (w->gx = malloc(sizeof(double) * 3 * (size_t)w->Ncub * np)) != NULL;
  if (!ok) {
    work_free(w);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for the SIPG work arrays (Np = %d)", w->Np);
  }
  w->F.nq = w->Nfq;
  w->V.nq = w->Ncub;
  w->V.T = re->cub_interp;
  if (d->ncurved > 0) {
    dg_error err = dg_sipg_curved_create(d, &w->cv);
    if (err != DG_OK) {
      work_free(w);
      return dg_error_push(err, __FILE__, __LINE__, __func__);
    }
  }
  for (int a = 0; a < w->dim; a++) {
    matmul(w->Ncub, w->Np, re->cub_interp, w->D[a], w->CD[a]);
    matmul(w->Nf * w->Nfq, w->Np, re->fq_interp, w->D[a], w->FD[a]);
  }
  return DG_OK;
}

/* The largest Fscale over the faces of element k. */
static double fscale_max(const dg_discretization *d, int64_t k) {
  double m = 0;
  for (int64_t i = 0; i < (int64_t)d->Nfaces * d->Nfp; i++)
    m = fmax(m, d->Fscale[k * d->Nfaces * d->Nfp + i]);
  return m;
}

double dg_sipg_penalty(const dg_discretization *d, const dg_sipg_options *opt, int64_t k,
                       int f) {
  int64_t k2 = d->EToE[k * d->Nfaces + f];
  double N = d->N, dim = d->dim;
  double fs = fmax(fscale_max(d, k), fscale_max(d, k2));
  return opt->penalty * (N + 1) * (N + dim) / dim * fs;
}

/* n . grad along the reference axes: c[a] = sum_b n_b dr_a/dx_b of
 * element k (constant on straight-sided elements). */
static void normal_coef(const dg_discretization *d, int64_t k, const double *n, double c[3]) {
  for (int a = 0; a < d->dim; a++) {
    c[a] = 0;
    for (int b = 0; b < d->dim; b++)
      c[a] += n[b] * d->G[a][b][k * d->Np];
  }
}

/* Traces on face f of element k at the face quadrature points, with the
 * normal n of (k, f):  Tm = phi_j of k, Gm = n . grad phi_j of k, and for
 * the neighbour k2 across the face (an interior face) Tp = phi_j of k2,
 * Gp = n . grad phi_j of k2.  The neighbour's polynomials are evaluated from
 * their values at its face nodes (vmapP) through this face's trace
 * interpolation: the trace of a degree-N polynomial, and of its degree N-1
 * gradient, is fixed by the face nodes (dg_refelem fq_face_interp).
 * wq gets the quadrature weights times sJ. */
static void face_mats(work *w, int64_t k, int f, int neighbour) {
  dg_sipg_face *F = &w->F;
  const dg_discretization *d = w->d;
  const dg_refelem *re = d->re;
  int Np = w->Np, Nfq = w->Nfq, Nfp = w->Nfp;
  int64_t fn = (k * w->Nf + f) * Nfp;
  double n[3] = {0, 0, 0}, c[3] = {0, 0, 0};
  for (int b = 0; b < d->dim; b++)
    n[b] = d->n[b][fn];
  normal_coef(d, k, n, c);
  for (int q = 0; q < Nfq; q++) {
    F->wq[q] = re->fq_w[q] * d->sJ[fn];
    const double *row = re->fq_interp + (size_t)(f * Nfq + q) * Np;
    for (int j = 0; j < Np; j++) {
      F->Tm[q * Np + j] = row[j];
      double g = 0;
      for (int a = 0; a < d->dim; a++)
        g += c[a] * w->FD[a][(size_t)(f * Nfq + q) * Np + j];
      F->Gm[q * Np + j] = g;
    }
  }
  if (!neighbour)
    return;
  int64_t k2 = d->EToE[k * w->Nf + f];
  double c2[3] = {0, 0, 0};
  normal_coef(d, k2, n, c2);
  memset(F->Tp, 0, sizeof(double) * (size_t)Nfq * Np);
  memset(F->Gp, 0, sizeof(double) * (size_t)Nfq * Np);
  const double *FI = re->fq_face_interp + (size_t)f * Nfq * Nfp;
  for (int i = 0; i < Nfp; i++) {
    int m = (int)(d->vmapP[fn + i] - k2 * Np);
    for (int q = 0; q < Nfq; q++) {
      double fi = FI[q * Nfp + i];
      F->Tp[q * Np + m] += fi;
      for (int j = 0; j < Np; j++) {
        double g = 0;
        for (int a = 0; a < d->dim; a++)
          g += c2[a] * w->D[a][m * Np + j];
        F->Gp[q * Np + j] += fi * g;
      }
    }
  }
}

/* B += sum_q wq (s * (G_j T_i + G_i T_j) + tau T_i T_j), filled as
 * symmetric pairs so that B stays exactly symmetric. */
static void add_sym(const dg_sipg_face *F, int Np, const double *T, const double *G, double s,
                    double tau, double *B) {
  for (int i = 0; i < Np; i++)
    for (int j = i; j < Np; j++) {
      double v = 0;
      for (int q = 0; q < F->nq; q++) {
        double ti = T[q * Np + i], tj = T[q * Np + j];
        v += F->wq[q] * (s * (G[q * Np + j] * ti + G[q * Np + i] * tj) + tau * ti * tj);
      }
      B[i * Np + j] += v;
      if (j != i)
        B[j * Np + i] += v;
    }
}

/* Volume stiffness of element k: sum_q w_q J grad phi_i . grad phi_j. */
static void add_stiffness(work *w, int64_t k, double *B) {
  const dg_discretization *d = w->d;
  if (d->curved[k]) {
    dg_sipg_curved_stiffness(w->cv, k, B);
    return;
  }
  int Np = w->Np, Nc = w->Ncub;
  double J = d->J[k * Np];
  for (int b = 0; b < d->dim; b++)
    for (int q = 0; q < Nc; q++)
      for (int j = 0; j < Np; j++) {
        double g = 0;
        for (int a = 0; a < d->dim; a++)
          g += d->G[a][b][k * Np] * w->CD[a][q * Np + j];
        w->gx[((size_t)b * Nc + q) * Np + j] = g;
      }
  for (int i = 0; i < Np; i++)
    for (int j = i; j < Np; j++) {
      double v = 0;
      for (int q = 0; q < Nc; q++) {
        double s = 0;
        for (int b = 0; b < d->dim; b++)
          s += w->gx[((size_t)b * Nc + q) * Np + i] * w->gx[((size_t)b * Nc + q) * Np + j];
        v += d->re->cub_w[q] * J * s;
      }
      B[i * Np + j] += v;
      if (j != i)
        B[j * Np + i] += v;
    }
}

static int is_boundary(const dg_discretization *d, int64_t k, int f) {
  return d->EToE[k * d->Nfaces + f] == k && d->EToF[k * d->Nfaces + f] == f;
}

/* The traces of face f of element k (and of its neighbour): the curved
 * rules when either side is curved, else face_mats. */
static dg_error face_eval(work *w, int64_t k, int f, int neighbour, const dg_sipg_face **F) {
  const dg_discretization *d = w->d;
  if (d->curved[k] || (neighbour && d->curved[d->EToE[k * w->Nf + f]]))
    return dg_sipg_curved_face(w->cv, k, f, neighbour, F);
  face_mats(w, k, f, neighbour);
  *F = &w->F;
  return DG_OK;
}

static dg_sipg_bc face_kind(const dg_discretization *d, const dg_sipg_options *opt, int64_t k,
                            int f) {
  int tag = d->mesh->face_tag[k * d->Nfaces + f];
  return opt->tag_kind && tag >= 0 ? opt->tag_kind[tag] : DG_SIPG_DIRICHLET;
}

/* One element's block row: diagonal block first, then one block per
 * distinct neighbour. */
typedef struct brow {
  int n;
  int64_t col[8];
  double *B[8];
} brow;

static double *block_of(brow *r, int64_t col, int Np) {
  for (int i = 0; i < r->n; i++)
    if (r->col[i] == col)
      return r->B[i];
  memset(r->B[r->n], 0, sizeof(double) * (size_t)Np * Np);
  r->col[r->n] = col;
  return r->B[r->n++];
}

static dg_error element_row(work *w, const dg_sipg_options *opt, const int64_t *row_of,
                            int64_t k, brow *r) {
  const dg_discretization *d = w->d;
  int Np = w->Np;
  const dg_sipg_face *F;
  r->n = 0;
  double *D = block_of(r, k, Np);
  add_stiffness(w, k, D);
  for (int f = 0; f < w->Nf; f++) {
    double tau = dg_sipg_penalty(d, opt, k, f);
    if (is_boundary(d, k, f)) {
      if (face_kind(d, opt, k, f) == DG_SIPG_DIRICHLET) {
        DG_CALL(face_eval(w, k, f, 0, &F));
        add_sym(F, Np, F->Tm, F->Gm, -1.0, tau, D);
      }
      continue;
    }
    int64_t k2 = d->EToE[k * w->Nf + f];
    int f2 = d->EToF[k * w->Nf + f];
    /* Canonical by global row, so that every rank picks the same side. */
    int canonical = row_of[k] * w->Nf + f < row_of[k2] * w->Nf + f2;
    /* Integrate from the canonical side (kc, fc); O = block (row kc, col ko). */
    DG_CALL(face_eval(w, canonical ? k : k2, canonical ? f : f2, 1, &F));
    if (canonical)
      add_sym(F, Np, F->Tm, F->Gm, -0.5, tau, D);
    else
      add_sym(F, Np, F->Tp, F->Gp, 0.5, tau, D);
    double *O = block_of(r, k2, Np);
    for (int i = 0; i < Np; i++)
      for (int j = 0; j < Np; j++) {
        double v = 0;
        for (int q = 0; q < F->nq; q++)
          v += F->wq[q] * (-0.5 * F->Gp[q * Np + j] * F->Tm[q * Np + i] +
                           0.5 * F->Gm[q * Np + i] * F->Tp[q * Np + j] -
                           tau * F->Tm[q * Np + i] * F->Tp[q * Np + j]);
        if (canonical)
          O[i * Np + j] += v;
        else
          O[j * Np + i] += v;
      }
  }
  return DG_OK;
}

dg_error dg_sipg_assemble(const dg_discretization *d, const dg_sipg_options *opt,
                          int64_t nowned, const int64_t *owned, const int64_t *row_of,
                          int64_t nglobal, dg_csr **out) {
  *out = NULL;
  DG_CHECK(d && opt && (nowned == 0 || (owned && row_of)), DG_ERR_ARG,
           "dg_sipg_assemble: NULL argument");
  DG_CHECK(opt->penalty > 0, DG_ERR_ARG, "SIPG penalty factor %g must be positive",
           opt->penalty);
  DG_CHECK(d->Nfaces + 1 <= 8, DG_ERR_INTERNAL, "too many faces");
  int Np = d->Np, Nf = d->Nfaces;
  /* Count the blocks (distinct neighbours) to size the CSR. */
  int64_t nblocks = 0;
  for (int64_t e = 0; e < nowned; e++) {
    int64_t k = owned[e];
    DG_CHECK(k >= 0 && k < d->K, DG_ERR_ARG, "owned element %lld out of range",
             (long long)k);
    int64_t seen[8];
    int n = 0;
    seen[n++] = k;
    for (int f = 0; f < Nf; f++) {
      if (is_boundary(d, k, f))
        continue;
      int64_t k2 = d->EToE[k * Nf + f], dup = 0;
      for (int i = 0; i < n; i++)
        dup |= seen[i] == k2;
      if (!dup)
        seen[n++] = k2;
    }
    nblocks += n;
  }
  work w;
  DG_CALL(work_init(d, &w));
  dg_csr *A = NULL;
  double *bufs = malloc(sizeof(double) * 8 * (size_t)Np * Np);
  dg_error err = dg_sparse_csr_create(nowned * Np, nglobal * Np, nblocks * Np * Np, &A);
  if (err == DG_OK && !bufs)
    err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
  if (err != DG_OK) {
    free(bufs);
    work_free(&w);
    dg_sparse_csr_destroy(&A);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  brow r;
  for (int i = 0; i < 8; i++)
    r.B[i] = bufs + (size_t)i * Np * Np;
  int64_t pos = 0;
  A->rowptr[0] = 0;
  for (int64_t e = 0; e < nowned; e++) {
    err = element_row(&w, opt, row_of, owned[e], &r);
    if (err != DG_OK)
      break;
    /* Blocks in increasing global column order (insertion sort, <= 7). */
    int ord[8];
    for (int i = 0; i < r.n; i++) {
      int j = i;
      while (j > 0 && row_of[r.col[ord[j - 1]]] > row_of[r.col[i]]) {
        ord[j] = ord[j - 1];
        j--;
      }
      ord[j] = i;
    }
    for (int i = 0; i < Np; i++) {
      for (int b = 0; b < r.n; b++) {
        int64_t c0 = row_of[r.col[ord[b]]] * Np;
        const double *B = r.B[ord[b]];
        for (int j = 0; j < Np; j++) {
          A->colind[pos] = c0 + j;
          A->values[pos++] = B[i * Np + j];
        }
      }
      A->rowptr[e * Np + i + 1] = pos;
    }
  }
  free(bufs);
  work_free(&w);
  if (err != DG_OK) {
    dg_sparse_csr_destroy(&A);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = A;
  return DG_OK;
}

/* Physical coordinates of face point q of face f of element k. */
static void face_point(const dg_discretization *d, int64_t k, int f, int q, double *x) {
  const dg_refelem *re = d->re;
  const double *row = re->fq_interp + (size_t)(f * re->Nfq + q) * d->Np;
  for (int c = 0; c < d->dim; c++) {
    double s = 0;
    for (int m = 0; m < d->Np; m++)
      s += row[m] * d->X[c][k * d->Np + m];
    x[c] = s;
  }
}

/* Face f of element k with its points and normals (the right-hand side's
 * boundary data): the curved rules, or face_mats with the face's constant
 * normal. */
static dg_error boundary_face(work *w, int64_t k, int f, const dg_sipg_face **out) {
  const dg_discretization *d = w->d;
  DG_CALL(face_eval(w, k, f, 0, out));
  if (d->curved[k])
    return DG_OK;
  int64_t fn = (k * w->Nf + f) * w->Nfp;
  for (int q = 0; q < w->Nfq; q++) {
    face_point(d, k, f, q, w->F.x + 3 * q);
    for (int c = 0; c < d->dim; c++)
      w->F.n[3 * q + c] = d->n[c][fn];
  }
  return DG_OK;
}

/* Element k's volume points and weights times J: the curved rule, or the
 * reference cubature with the element's constant J. */
static const dg_sipg_volume *volume_eval(work *w, int64_t k) {
  const dg_discretization *d = w->d;
  if (d->curved[k])
    return dg_sipg_curved_volume(w->cv, k);
  const dg_refelem *re = d->re;
  double J = d->J[k * d->Np];
  for (int q = 0; q < re->Ncub; q++) {
    const double *row = re->cub_interp + (size_t)q * d->Np;
    for (int c = 0; c < d->dim; c++) {
      double s = 0;
      for (int m = 0; m < d->Np; m++)
        s += row[m] * d->X[c][k * d->Np + m];
      w->V.x[3 * q + c] = s;
    }
    w->V.wJ[q] = re->cub_w[q] * J;
  }
  return &w->V;
}

static dg_error rhs_element(work *w, const dg_sipg_options *opt, int64_t k,
                            const dg_sipg_data *data, double *b) {
  const dg_discretization *d = w->d;
  int Np = w->Np;
  for (int i = 0; i < Np; i++)
    b[i] = 0;
  const dg_sipg_volume *V = volume_eval(w, k);
  for (int q = 0; q < V->nq && data->source; q++) {
    double fv;
    DG_CALL(data->source(data->ctx, V->x + 3 * q, &fv));
    for (int i = 0; i < Np; i++)
      b[i] += V->wJ[q] * fv * V->T[(size_t)q * Np + i];
  }
  for (int f = 0; f < w->Nf; f++) {
    if (!is_boundary(d, k, f))
      continue;
    DG_CHECK(data->boundary, DG_ERR_ARG, "SIPG right-hand side: no boundary data callback");
    dg_sipg_bc kind = face_kind(d, opt, k, f);
    int tag = d->mesh->face_tag[k * w->Nf + f];
    double tau = dg_sipg_penalty(d, opt, k, f);
    const dg_sipg_face *F;
    DG_CALL(boundary_face(w, k, f, &F));
    for (int q = 0; q < F->nq; q++) {
      double g;
      DG_CALL(data->boundary(data->ctx, tag, F->x + 3 * q, F->n + 3 * q, &g));
      for (int i = 0; i < Np; i++) {
        double t = F->Tm[q * Np + i];
        b[i] += F->wq[q] * (kind == DG_SIPG_DIRICHLET
                                ? (tau * t - F->Gm[q * Np + i]) * g
                                : t * g);
      }
    }
  }
  return DG_OK;
}

dg_error dg_sipg_rhs(const dg_discretization *d, const dg_sipg_options *opt,
                     int64_t nowned, const int64_t *owned, const dg_sipg_data *data,
                     double *b) {
  DG_CHECK(d && opt && data && (nowned == 0 || (owned && b)), DG_ERR_ARG,
           "dg_sipg_rhs: NULL argument");
  work w;
  DG_CALL(work_init(d, &w));
  dg_error err = DG_OK;
  for (int64_t e = 0; e < nowned && err == DG_OK; e++)
    err = rhs_element(&w, opt, owned[e], data, b + e * d->Np);
  work_free(&w);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_sipg_error(const dg_discretization *d, int64_t nowned, const int64_t *owned,
                       const double *u,
                       dg_error (*exact)(void *ctx, const double *x, double *out), void *ctx,
                       double *l2sq, double *maxerr) {
  DG_CHECK(d && exact && l2sq && maxerr && (nowned == 0 || (owned && u)), DG_ERR_ARG,
           "dg_sipg_error: NULL argument");
  int Np = d->Np;
  work w;
  DG_CALL(work_init(d, &w));
  dg_error err = DG_OK;
  for (int64_t e = 0; e < nowned && err == DG_OK; e++) {
    int64_t k = owned[e];
    const double *ue = u + e * Np;
    const dg_sipg_volume *V = volume_eval(&w, k);
    for (int q = 0; q < V->nq && err == DG_OK; q++) {
      double ex, uh = 0;
      err = exact(ctx, V->x + 3 * q, &ex);
      for (int m = 0; m < Np; m++)
        uh += V->T[(size_t)q * Np + m] * ue[m];
      *l2sq += V->wJ[q] * (uh - ex) * (uh - ex);
    }
    for (int i = 0; i < Np && err == DG_OK; i++) {
      double x[3] = {0, 0, 0}, ex;
      for (int c = 0; c < d->dim; c++)
        x[c] = d->X[c][k * Np + i];
      err = exact(ctx, x, &ex);
      *maxerr = fmax(*maxerr, fabs(ue[i] - ex));
    }
  }
  work_free(&w);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
