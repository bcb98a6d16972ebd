#include "dg/sipg_curved.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/cubature.h"
#include "dg/geometry_curved.h"
#include "dg/linalg.h"
#include "meshes/mesh_curved.h"

/* Values and reference gradients of the order-N basis and of the order-k
 * geometry basis at n points. */
typedef struct tables {
  int n;
  double *phi;     /* n x Np */
  double *dphi[3]; /* n x Np, d phi / d r_a */
  double *L, *dL;  /* n x nho, n x nho x dim */
} tables;

struct dg_sipg_curved {
  const dg_discretization *d;
  int dim, Np, nho, kg;
  int vnode[4];       /* volume node of each reference vertex */
  int Nc, Nq;         /* volume and face points */
  double *cw, *fw;    /* their weights */
  double *frst;       /* Nfaces x Nq x 3: face points in volume coordinates */
  tables vol, face[4], nb; /* volume, each face, the neighbour's points */
  double *V, *Vd[3];  /* Nq x Np scratch for the neighbour's Vandermonde */
  double *gx;         /* dim x Nc x Np physical gradients */
  double *nbr;        /* Nq x 3: the neighbour's reference points */
  dg_sipg_face F;
  dg_sipg_volume vq;
};

/* The rules' degree (see the header). */
static int rule_degree(int N, int kg) { return 2 * N + 2 * kg; }

void dg_sipg_face_free(dg_sipg_face *F) {
  free(F->wq);
  free(F->Tm);
  free(F->Gm);
  free(F->Tp);
  free(F->Gp);
  free(F->x);
  free(F->n);
}

void dg_sipg_volume_free(dg_sipg_volume *V) {
  free(V->wJ);
  free(V->x);
}

static void tables_free(tables *t) {
  free(t->phi);
  for (int a = 0; a < 3; a++)
    free(t->dphi[a]);
  free(t->L);
  free(t->dL);
}

static int tables_alloc(tables *t, int n, int Np, int nho, int dim) {
  memset(t, 0, sizeof *t);
  t->n = n;
  int ok = (t->phi = malloc(sizeof(double) * (size_t)n * Np)) != NULL;
  for (int a = 0; a < dim; a++)
    ok &= (t->dphi[a] = malloc(sizeof(double) * (size_t)n * Np)) != NULL;
  ok &= (t->L = malloc(sizeof(double) * (size_t)n * nho)) != NULL;
  ok &= (t->dL = malloc(sizeof(double) * (size_t)n * nho * dim)) != NULL;
  return ok;
}

/* Fill t at the points rst (n x 3); V, Vd: n x Np scratch. */
static dg_error tables_fill(const dg_sipg_curved *c, tables *t, const double *rst, double *V,
                            double *Vd[3]) {
  const dg_refelem *re = c->d->re;
  int n = t->n, dim = c->dim, Np = c->Np;
  double *pr[3] = {NULL, NULL, NULL};
  for (int a = 0; a < dim; a++) {
    pr[a] = malloc(sizeof(double) * (size_t)n);
    DG_CHECK(pr[a] != NULL, DG_ERR_MEMORY, "curved SIPG: out of memory");
  }
  for (int p = 0; p < n; p++)
    for (int a = 0; a < dim; a++)
      pr[a][p] = rst[p * 3 + a];
  dg_error err = dg_refelem_vandermonde(dim, c->d->N, n, pr[0], pr[1], pr[2], V, Vd[0],
                                        dim > 1 ? Vd[1] : NULL, dim > 2 ? Vd[2] : NULL);
  for (int a = 0; a < dim; a++)
    free(pr[a]);
  DG_CALL(err);
  /* Nodal from modal: phi = V(points) V^{-1}, likewise the gradients. */
  DG_CALL(dg_linalg_matmul(0, 0, n, Np, Np, V, re->invV, t->phi));
  for (int a = 0; a < dim; a++)
    DG_CALL(dg_linalg_matmul(0, 0, n, Np, Np, Vd[a], re->invV, t->dphi[a]));
  for (int p = 0; p < n; p++)
    dg_mesh_ho_basis(dim, c->kg, rst + p * 3, t->L + (size_t)p * c->nho,
                     t->dL + (size_t)p * c->nho * dim);
  return DG_OK;
}

void dg_sipg_curved_destroy(dg_sipg_curved **cp) {
  if (!cp || !*cp)
    return;
  dg_sipg_curved *c = *cp;
  free(c->cw);
  free(c->fw);
  free(c->frst);
  tables_free(&c->vol);
  for (int f = 0; f < 4; f++)
    tables_free(&c->face[f]);
  tables_free(&c->nb);
  free(c->V);
  for (int a = 0; a < 3; a++)
    free(c->Vd[a]);
  free(c->gx);
  free(c->nbr);
  dg_sipg_face_free(&c->F);
  dg_sipg_volume_free(&c->vq);
  free(c);
  *cp = NULL;
}

/* The reference vertices' volume nodes (the lattice corners). */
static dg_error vertex_nodes(dg_sipg_curved *c) {
  const dg_refelem *re = c->d->re;
  const double *rst[3] = {re->r, re->s, re->t};
  for (int v = 0; v <= c->dim; v++) {
    c->vnode[v] = -1;
    for (int i = 0; i < c->Np && c->vnode[v] < 0; i++) {
      int at = 1;
      for (int a = 0; a < c->dim; a++)
        at &= fabs(rst[a][i] - (v == a + 1 ? 1.0 : -1.0)) < 1e-12;
      if (at)
        c->vnode[v] = i;
    }
    DG_CHECK(c->vnode[v] >= 0, DG_ERR_INTERNAL, "reference vertex %d is not a node", v);
  }
  return DG_OK;
}

/* Volume and face rules, their tables and the scratch. */
static dg_error rules(dg_sipg_curved *c) {
  int dim = c->dim, Np = c->Np, nho = c->nho, Nf = dim + 1;
  int deg = rule_degree(c->d->N, c->kg);
  c->Nc = dg_cubature_count(dim, deg);
  c->Nq = dg_cubature_count(dim - 1, deg);
  int Nc = c->Nc, Nq = c->Nq, nmax = Nc > Nq ? Nc : Nq;
  double *q = calloc((size_t)nmax * 3, sizeof(double));
  int ok = q && (c->cw = malloc(sizeof(double) * (size_t)Nc)) &&
           (c->fw = malloc(sizeof(double) * (size_t)Nq)) &&
           (c->frst = calloc((size_t)Nf * Nq * 3, sizeof(double))) &&
           (c->V = malloc(sizeof(double) * (size_t)nmax * Np)) &&
           (c->gx = malloc(sizeof(double) * (size_t)dim * Nc * Np)) &&
           (c->nbr = calloc((size_t)Nq * 3, sizeof(double))) &&
           tables_alloc(&c->vol, Nc, Np, nho, dim) && tables_alloc(&c->nb, Nq, Np, nho, dim);
  for (int a = 0; a < dim; a++)
    ok = ok && (c->Vd[a] = malloc(sizeof(double) * (size_t)nmax * Np));
  for (int f = 0; f < Nf; f++)
    ok = ok && tables_alloc(&c->face[f], Nq, Np, nho, dim);
  size_t fq = (size_t)Nq * Np;
  ok = ok && (c->F.wq = malloc(sizeof(double) * Nq)) && (c->F.Tm = malloc(sizeof(double) * fq)) &&
       (c->F.Gm = malloc(sizeof(double) * fq)) && (c->F.Tp = malloc(sizeof(double) * fq)) &&
       (c->F.Gp = malloc(sizeof(double) * fq)) &&
       (c->F.x = calloc((size_t)Nq * 3, sizeof(double))) &&
       (c->F.n = calloc((size_t)Nq * 3, sizeof(double))) &&
       (c->vq.wJ = malloc(sizeof(double) * Nc)) &&
       (c->vq.x = calloc((size_t)Nc * 3, sizeof(double)));
  dg_error err = ok ? DG_OK
                    : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                     "curved SIPG: out of memory (%d volume, %d face points)",
                                     Nc, Nq);
  /* Volume points, collapsed into q as (r, s, t) triples. */
  if (err == DG_OK) {
    double *pr = c->V, *ps = c->V + Nc, *pt = c->V + 2 * Nc; /* (V is free until used) */
    err = dg_cubature_simplex(dim, deg, pr, dim > 1 ? ps : NULL, dim > 2 ? pt : NULL, c->cw);
    for (int p = 0; p < Nc && err == DG_OK; p++) {
      q[p * 3] = pr[p];
      q[p * 3 + 1] = dim > 1 ? ps[p] : 0;
      q[p * 3 + 2] = dim > 2 ? pt[p] : 0;
    }
  }
  if (err == DG_OK)
    err = tables_fill(c, &c->vol, q, c->V, c->Vd);
  if (err == DG_OK) {
    double *fa = c->V, *fb = c->V + Nq;
    memset(fb, 0, sizeof(double) * (size_t)Nq);
    err = dg_cubature_simplex(dim - 1, deg, fa, dim > 2 ? fb : NULL, NULL, c->fw);
    for (int f = 0; f < Nf && err == DG_OK; f++) {
      double *fr = c->frst + (size_t)f * Nq * 3;
      for (int p = 0; p < Nq; p++)
        dg_refelem_face_point(dim, f, fa[p], fb[p], &fr[p * 3], &fr[p * 3 + 1], &fr[p * 3 + 2]);
    }
    for (int f = 0; f < Nf && err == DG_OK; f++)
      err = tables_fill(c, &c->face[f], c->frst + (size_t)f * Nq * 3, c->V, c->Vd);
  }
  free(q);
  DG_CALL(err);
  c->F.nq = Nq;
  c->vq.nq = Nc;
  c->vq.T = c->vol.phi;
  return DG_OK;
}

dg_error dg_sipg_curved_create(const dg_discretization *d, dg_sipg_curved **out) {
  *out = NULL;
  const dg_mesh *m = d->mesh;
  DG_CHECK(m->geom_order > 1 && m->XH, DG_ERR_ARG,
           "curved SIPG: the mesh has no high-order nodes (geometry order %d)", m->geom_order);
  dg_sipg_curved *c = calloc(1, sizeof *c);
  DG_CHECK(c, DG_ERR_MEMORY, "curved SIPG: out of memory");
  c->d = d;
  c->dim = d->dim;
  c->Np = d->Np;
  c->kg = m->geom_order;
  c->nho = dg_mesh_ho_count(d->dim, c->kg);
  dg_error err = vertex_nodes(c);
  if (err == DG_OK)
    err = rules(c);
  if (err != DG_OK) {
    dg_sipg_curved_destroy(&c);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = c;
  return DG_OK;
}

/* Element e's map at point p of t: x (3), G[a][b] = dr_a/dx_b; returns J. */
static double geometry(const dg_sipg_curved *c, int64_t e, const tables *t, int p, double *x,
                       double G[3][3]) {
  int dim = c->dim, nho = c->nho;
  const double *xh = c->d->mesh->XH + (size_t)e * nho * dim;
  const double *L = t->L + (size_t)p * nho, *dL = t->dL + (size_t)p * nho * dim;
  double A[3][3] = {{0}};
  for (int cc = 0; cc < dim; cc++) {
    double s = 0;
    for (int j = 0; j < nho; j++) {
      s += L[j] * xh[j * dim + cc];
      for (int b = 0; b < dim; b++)
        A[cc][b] += dL[j * dim + b] * xh[j * dim + cc];
    }
    x[cc] = s;
  }
  return dg_geometry_invert(dim, A, G);
}

/* out[j] = v . grad phi_j at point p of t (G of that point). */
static void directional(const dg_sipg_curved *c, const tables *t, int p, double G[3][3],
                        const double *v, double *out) {
  double cr[3] = {0, 0, 0};
  for (int a = 0; a < c->dim; a++)
    for (int b = 0; b < c->dim; b++)
      cr[a] += v[b] * G[a][b];
  for (int j = 0; j < c->Np; j++) {
    double g = 0;
    for (int a = 0; a < c->dim; a++)
      g += cr[a] * t->dphi[a][(size_t)p * c->Np + j];
    out[j] = g;
  }
}

void dg_sipg_curved_stiffness(dg_sipg_curved *c, int64_t k, double *B) {
  int Np = c->Np, Nc = c->Nc, dim = c->dim;
  for (int q = 0; q < Nc; q++) {
    double x[3], G[3][3];
    c->vq.wJ[q] = c->cw[q] * geometry(c, k, &c->vol, q, x, G);
    for (int b = 0; b < dim; b++) {
      double e[3] = {0, 0, 0};
      e[b] = 1;
      directional(c, &c->vol, q, G, e, c->gx + ((size_t)b * Nc + q) * Np);
    }
  }
  for (int i = 0; i < Np; i++)
    for (int j = i; j < Np; j++) {
      double v = 0;
      for (int q = 0; q < Nc; q++) {
        double s = 0;
        for (int b = 0; b < dim; b++)
          s += c->gx[((size_t)b * Nc + q) * Np + i] * c->gx[((size_t)b * Nc + q) * Np + j];
        v += c->vq.wJ[q] * s;
      }
      B[i * Np + j] += v;
      if (j != i)
        B[j * Np + i] += v;
    }
}

const dg_sipg_volume *dg_sipg_curved_volume(dg_sipg_curved *c, int64_t k) {
  for (int q = 0; q < c->Nc; q++) {
    double G[3][3];
    c->vq.wJ[q] = c->cw[q] * geometry(c, k, &c->vol, q, c->vq.x + 3 * q, G);
  }
  return &c->vq;
}

/* The face's points in the reference coordinates of the neighbour k2: the
 * barycentric coordinates of each point on face f (its vertices') applied
 * to where those vertices sit in k2 (through vmapP). */
static void neighbour_points(dg_sipg_curved *c, int64_t k, int f, int64_t k2) {
  const dg_discretization *d = c->d;
  const dg_refelem *re = d->re;
  const double *rst[3] = {re->r, re->s, re->t};
  int dim = c->dim, Nfp = d->Nfp;
  int64_t fn = (k * d->Nfaces + f) * Nfp;
  double at[4][3] = {{0}}; /* vertex v of k in k2's coordinates */
  for (int v = 0; v <= dim; v++)
    for (int i = 0; i < Nfp; i++)
      if (re->Fmask[f * Nfp + i] == c->vnode[v]) {
        int m = (int)(d->vmapP[fn + i] - k2 * c->Np);
        for (int a = 0; a < dim; a++)
          at[v][a] = rst[a][m];
      }
  const double *fr = c->frst + (size_t)f * c->Nq * 3;
  for (int q = 0; q < c->Nq; q++) {
    double lam[4], sum = 0;
    for (int a = 0; a < dim; a++)
      sum += (lam[a + 1] = 0.5 * (1.0 + fr[q * 3 + a]));
    lam[0] = 1.0 - sum; /* 0 for the vertex off the face: at[] unused there */
    for (int a = 0; a < 3; a++) {
      double s = 0;
      for (int v = 0; v <= dim && a < dim; v++)
        s += lam[v] * at[v][a];
      c->nbr[q * 3 + a] = s;
    }
  }
}

dg_error dg_sipg_curved_face(dg_sipg_curved *c, int64_t k, int f, int neighbour,
                             const dg_sipg_face **out) {
  const dg_discretization *d = c->d;
  int dim = c->dim, Np = c->Np, Nq = c->Nq;
  const double *cf = dg_discretization_normal_coef(dim, f);
  const tables *t = &c->face[f];
  dg_sipg_face *F = &c->F;
  for (int q = 0; q < Nq; q++) {
    double G[3][3], *n = F->n + 3 * q, len = 0;
    double J = geometry(c, k, t, q, F->x + 3 * q, G);
    for (int b = 0; b < dim; b++) {
      double s = 0;
      for (int a = 0; a < dim; a++)
        s += cf[a] * G[a][b];
      n[b] = J * s;
      len += n[b] * n[b];
    }
    len = sqrt(len);
    for (int b = 0; b < dim; b++)
      n[b] /= len;
    F->wq[q] = c->fw[q] * len;
    memcpy(F->Tm + (size_t)q * Np, t->phi + (size_t)q * Np, sizeof(double) * (size_t)Np);
    directional(c, t, q, G, n, F->Gm + (size_t)q * Np);
  }
  *out = F;
  if (!neighbour)
    return DG_OK;
  int64_t k2 = d->EToE[k * d->Nfaces + f];
  neighbour_points(c, k, f, k2);
  DG_CALL(tables_fill(c, &c->nb, c->nbr, c->V, c->Vd));
  for (int q = 0; q < Nq; q++) {
    double G[3][3], x[3];
    geometry(c, k2, &c->nb, q, x, G);
    memcpy(F->Tp + (size_t)q * Np, c->nb.phi + (size_t)q * Np, sizeof(double) * (size_t)Np);
    directional(c, &c->nb, q, G, F->n + 3 * q, F->Gp + (size_t)q * Np);
  }
  return DG_OK;
}
