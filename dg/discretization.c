#include "dg/discretization.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/timing.h"
#include "dg/connectivity.h"
#include "dg/geometry_curved.h"
#include "dg/linalg.h"

/* Face nodes of two neighbouring faces coincide up to round-off of the node
 * coordinates; distinct nodes of one face are at least ~h/(4 N^2) apart.
 * 1e-6 h separates the two for every N the reference elements support. */
#define NODE_RTOL 1e-6

/* Unnormalised reference outward normals: face f's normal is
 * J * sum_a c[f][a] grad(r_a) (Hesthaven & Warburton 2008, Normals2D and
 * Normals3D: e.g. face r+s+t = -1 has n ~ grad r + grad s + grad t). */
static const double normal_coef1[2][3] = {{-1, 0, 0}, {1, 0, 0}};
static const double normal_coef2[3][3] = {{0, -1, 0}, {1, 1, 0}, {-1, 0, 0}};
static const double normal_coef3[4][3] = {{0, 0, -1}, {0, -1, 0}, {1, 1, 1}, {-1, 0, 0}};

const double *dg_discretization_normal_coef(int dim, int f) {
  return dim == 1 ? normal_coef1[f] : dim == 2 ? normal_coef2[f] : normal_coef3[f];
}

static double *alloc_doubles(int64_t n) { return calloc((size_t)n, sizeof(double)); }

/* x = sum_v lambda_v(r) VX[v] with barycentric lambda_0 = 1 - sum lambda_a,
 * lambda_{a+1} = (1 + r_a)/2: the affine map of Hesthaven & Warburton
 * (2008) section 6.1, as in their StartUp2D/3D. */
static void map_nodes(dg_discretization *d) {
  const dg_mesh *m = d->mesh;
  const double *rst[3] = {d->re->r, d->re->s, d->re->t};
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < d->K; k++) {
    const int64_t *v = m->EToV + k * (d->dim + 1);
    for (int i = 0; i < d->Np; i++) {
      double lam[4], sum = 0;
      for (int a = 0; a < d->dim; a++) {
        lam[a + 1] = 0.5 * (1.0 + rst[a][i]);
        sum += lam[a + 1];
      }
      lam[0] = 1.0 - sum;
      for (int c = 0; c < d->dim; c++) {
        double x = 0;
        for (int p = 0; p <= d->dim; p++)
          x += lam[p] * m->VX[v[p] * d->dim + c];
        d->X[c][k * d->Np + i] = x;
      }
    }
  }
}

/* Elements per dgemm of the geometric factors (the block decides how BLAS
 * splits the product, hence the last bits: keep it fixed), and dgemm blocks
 * per stretch: BLAS runs over a whole stretch, then the threads invert the
 * Jacobians of the stretch.  Alternating the two often lets OpenBLAS's
 * pthreads and the OpenMP threads spin against each other; a stretch keeps
 * the dx/dr work arrays at dim^2 x 16384 x Np. */
enum { GEO_BLOCK = 512, GEO_STRETCH = 32 };

static dg_error geometric_factors(dg_discretization *d) {
  const int dim = d->dim, Np = d->Np;
  const double *Dmat[3] = {d->re->Dr, d->re->Ds, d->re->Dt};
  const int64_t span = (int64_t)GEO_BLOCK * GEO_STRETCH;
  const int64_t blk = d->K < span ? d->K : span;
  double *xr[3][3] = {{0}}; /* xr[c][b] = d x_c / d r_b, blk x Np */
  dg_error err = DG_OK;
  for (int c = 0; c < dim; c++)
    for (int b = 0; b < dim; b++) {
      xr[c][b] = alloc_doubles(blk * Np);
      DG_CHECK_GOTO(err, done, xr[c][b] != NULL, DG_ERR_MEMORY,
                    "geometric factors: out of memory");
    }
  for (int64_t k0 = 0; k0 < d->K; k0 += blk) {
    const int64_t nk = d->K - k0 < blk ? d->K - k0 : blk;
    for (int64_t j0 = 0; j0 < nk; j0 += GEO_BLOCK) {
      const int nj = (int)(nk - j0 < GEO_BLOCK ? nk - j0 : GEO_BLOCK);
      for (int c = 0; c < dim; c++)
        for (int b = 0; b < dim; b++)
          /* (nj x Np) = X (nj x Np) * D_b^T: row k holds D_b x_k. */
          DG_CALL_GOTO(err, done,
                       dg_linalg_matmul(0, 1, nj, Np, Np, d->X[c] + (k0 + j0) * Np, Dmat[b],
                                        xr[c][b] + j0 * Np));
    }
    int64_t bad = INT64_MAX; /* first node with J <= 0 */
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t k = k0; k < k0 + nk; k++)
      for (int i = 0; i < Np; i++) {
        const int64_t n = k * Np + i, l = (k - k0) * Np + i;
        double A[3][3], B[3][3];
        for (int c = 0; c < dim; c++)
          for (int b = 0; b < dim; b++)
            A[c][b] = xr[c][b][l];
        double J = dg_geometry_invert(dim, A, B);
        if (!(J > 0) && n < bad)
          bad = n;
        d->J[n] = J;
        for (int a = 0; a < dim; a++)
          for (int b = 0; b < dim; b++)
            d->G[a][b][n] = B[a][b];
      }
    if (bad != INT64_MAX) {
      err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                           "element %" PRId64 " has Jacobian %g <= 0 at node %d (%g %g %g): "
                           "the mesh is inverted or degenerate there (dg_mesh_orient)",
                           bad / Np, d->J[bad], (int)(bad % Np), d->X[0][bad],
                           dim > 1 ? d->X[1][bad] : 0.0, dim > 2 ? d->X[2][bad] : 0.0);
      goto done;
    }
  }
done:
  for (int c = 0; c < 3; c++)
    for (int b = 0; b < 3; b++)
      free(xr[c][b]);
  return err;
}

/* Normals, sJ, Fscale at face nodes; element sizes h = 1/max Fscale. */
static void face_geometry(dg_discretization *d) {
  const int dim = d->dim, Nfp = d->Nfp, Nfaces = d->Nfaces;
  const double(*coef)[3] = dim == 1 ? normal_coef1 : dim == 2 ? normal_coef2 : normal_coef3;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < d->K; k++) {
    double fmax_k = 0;
    for (int f = 0; f < Nfaces; f++)
      for (int i = 0; i < Nfp; i++) {
        int64_t vn = k * d->Np + d->re->Fmask[f * Nfp + i];
        int64_t fn = (k * Nfaces + f) * Nfp + i;
        double nv[3] = {0, 0, 0}, len = 0;
        for (int c = 0; c < dim; c++) {
          for (int a = 0; a < dim; a++)
            nv[c] += coef[f][a] * d->G[a][c][vn];
          nv[c] *= d->J[vn];
          len += nv[c] * nv[c];
        }
        len = sqrt(len);
        for (int c = 0; c < dim; c++)
          d->n[c][fn] = nv[c] / len;
        d->sJ[fn] = len;
        d->Fscale[fn] = len / d->J[vn];
        fmax_k = fmax(fmax_k, d->Fscale[fn]);
      }
    d->h[k] = 1.0 / fmax_k;
  }
  d->h_min = INFINITY;
  for (int64_t k = 0; k < d->K; k++)
    d->h_min = fmin(d->h_min, d->h[k]);
}

typedef struct {
  double p; /* projection on a generic direction */
  int i;
} projected;

static int compare_projected(const void *pa, const void *pb) {
  const projected *a = pa, *b = pb;
  return a->p < b->p ? -1 : a->p > b->p ? 1 : 0;
}

/* A direction no face of a structured mesh is orthogonal to, so that
 * distinct nodes rarely share a projection (only speed depends on it). */
static const double proj_dir[3] = {1.0, 0.6180339887498949, 0.4142135623730950};

/* vmapM, vmapP, mapP of face (k, f) (BuildMaps3D, with the periodic shift
 * of BuildPeriodicMaps): node i of the face pairs with the node of the
 * neighbour's face at x + shift, found by bisection on projections; nb is
 * Nfp entries of scratch.  Returns the first node without a partner, or -1;
 * want (its sought position) says where. */
static int face_node_maps(dg_discretization *d, int64_t k, int f, projected *nb,
                          double want[3]) {
  const int dim = d->dim, Nfp = d->Nfp, Nfaces = d->Nfaces, Np = d->Np;
  const int *Fmask = d->re->Fmask;
  int64_t face = k * Nfaces + f, k2 = d->EToE[face];
  int f2 = d->EToF[face];
  for (int i = 0; i < Nfp; i++) {
    d->vmapM[face * Nfp + i] = k * Np + Fmask[f * Nfp + i];
    d->vmapP[face * Nfp + i] = d->vmapM[face * Nfp + i];
    d->mapP[face * Nfp + i] = face * Nfp + i;
  }
  if (k2 == k && f2 == f)
    return -1; /* boundary face */
  const double *s = d->face_shift + face * 3;
  double tol = NODE_RTOL * fmin(d->h[k], d->h[k2]), ptol = 0;
  for (int c = 0; c < dim; c++)
    ptol += tol * proj_dir[c];
  for (int j = 0; j < Nfp; j++) {
    int64_t vn = k2 * Np + Fmask[f2 * Nfp + j];
    nb[j].p = 0;
    nb[j].i = j;
    for (int c = 0; c < dim; c++)
      nb[j].p += proj_dir[c] * d->X[c][vn];
  }
  qsort(nb, (size_t)Nfp, sizeof *nb, compare_projected);
  for (int i = 0; i < Nfp; i++) {
    int64_t vm = d->vmapM[face * Nfp + i];
    double p = 0;
    want[0] = want[1] = want[2] = 0;
    for (int c = 0; c < dim; c++) {
      want[c] = d->X[c][vm] + s[c];
      p += proj_dir[c] * want[c];
    }
    int lo = 0, hi = Nfp;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (nb[mid].p < p - ptol)
        lo = mid + 1;
      else
        hi = mid;
    }
    int found = -1;
    for (int j = lo; j < Nfp && nb[j].p <= p + ptol && found < 0; j++) {
      int64_t vn = k2 * Np + Fmask[f2 * Nfp + nb[j].i];
      double dist = 0;
      for (int c = 0; c < dim; c++)
        dist = fmax(dist, fabs(d->X[c][vn] - want[c]));
      if (dist <= tol)
        found = nb[j].i;
    }
    if (found < 0)
      return i;
    d->vmapP[face * Nfp + i] = k2 * Np + Fmask[f2 * Nfp + found];
    d->mapP[face * Nfp + i] = (k2 * Nfaces + f2) * Nfp + found;
  }
  return -1;
}

/* Every face on its own (it writes only its own entries), in parallel. */
static dg_error node_maps(dg_discretization *d) {
  const int64_t nfaces = d->K * d->Nfaces;
  int64_t bad = INT64_MAX; /* first face with an unmatched node */
  int nomem = 0;
#pragma omp parallel reduction(min : bad) reduction(| : nomem)
  {
    projected *nb = malloc((size_t)d->Nfp * sizeof *nb);
    nomem = nb == NULL;
    if (nb) {
      double want[3];
#pragma omp for schedule(static)
      for (int64_t face = 0; face < nfaces; face++)
        if (face_node_maps(d, face / d->Nfaces, (int)(face % d->Nfaces), nb, want) >= 0 &&
            face < bad)
          bad = face;
    }
    free(nb);
  }
  DG_CHECK(!nomem, DG_ERR_MEMORY, "node maps: out of memory");
  if (bad == INT64_MAX)
    return DG_OK;
  projected *nb = malloc((size_t)d->Nfp * sizeof *nb);
  DG_CHECK(nb != NULL, DG_ERR_MEMORY, "node maps: out of memory");
  int64_t k = bad / d->Nfaces, k2 = d->EToE[bad];
  int f = (int)(bad % d->Nfaces), f2 = d->EToF[bad];
  double want[3];
  face_node_maps(d, k, f, nb, want);
  free(nb);
  DG_RAISE(DG_ERR_INPUT,
           "face %d of element %" PRId64 ": no node of the neighbour's face %d of "
           "element %" PRId64 " lies at (%g %g %g) (faces do not coincide)",
           f, k, f2, k2, want[0], want[1], want[2]);
}

/* mapB/vmapB and the per-tag lists (CSR by tag id). */
static dg_error boundary_lists(dg_discretization *d) {
  const dg_mesh *m = d->mesh;
  const int Nfp = d->Nfp, Nfaces = d->Nfaces;
  d->ntags = m->ntags;
  d->tag_offset = calloc((size_t)m->ntags + 1, sizeof *d->tag_offset);
  DG_CHECK(d->tag_offset != NULL, DG_ERR_MEMORY, "boundary lists: out of memory");
  int64_t nb = 0;
  for (int64_t face = 0; face < d->K * Nfaces; face++) {
    int64_t k = face / Nfaces;
    int f = (int)(face % Nfaces), t = m->face_tag[face];
    if (d->EToE[face] != k || d->EToF[face] != f)
      continue;
    DG_CHECK(t >= 0 && t < m->ntags, DG_ERR_INTERNAL,
             "boundary face %d of element %" PRId64 " has tag %d (mesh has %d)", f, k, t,
             m->ntags);
    d->tag_offset[t + 1] += Nfp;
    nb += Nfp;
  }
  for (int t = 0; t < m->ntags; t++)
    d->tag_offset[t + 1] += d->tag_offset[t];
  d->nmapB = nb;
  d->mapB = malloc((size_t)(nb + 1) * sizeof *d->mapB);
  d->vmapB = malloc((size_t)(nb + 1) * sizeof *d->vmapB);
  d->tag_map = malloc((size_t)(nb + 1) * sizeof *d->tag_map);
  int64_t *fill = calloc((size_t)m->ntags + 1, sizeof *fill);
  if (!d->mapB || !d->vmapB || !d->tag_map || !fill) {
    free(fill);
    DG_RAISE(DG_ERR_MEMORY, "boundary lists: out of memory");
  }
  int64_t nm = 0;
  for (int64_t face = 0; face < d->K * Nfaces; face++) {
    int64_t k = face / Nfaces;
    int f = (int)(face % Nfaces), t = m->face_tag[face];
    if (d->EToE[face] != k || d->EToF[face] != f)
      continue;
    for (int i = 0; i < Nfp; i++) {
      d->mapB[nm] = face * Nfp + i;
      d->vmapB[nm++] = d->vmapM[face * Nfp + i];
      d->tag_map[d->tag_offset[t] + fill[t]++] = face * Nfp + i;
    }
  }
  free(fill);
  return DG_OK;
}

dg_error dg_discretization_create(const dg_mesh *mesh, int N, dg_dtype precision,
                                  dg_discretization **out) {
  DG_CHECK(out != NULL && mesh != NULL, DG_ERR_ARG, "dg_discretization_create: NULL argument");
  *out = NULL;
  DG_CHECK(precision == DG_FLOAT || precision == DG_DOUBLE, DG_ERR_ARG,
           "precision %d is neither float nor double", (int)precision);
  DG_CHECK(mesh->K <= INT_MAX, DG_ERR_UNSUPPORTED,
           "mesh of %" PRId64 " elements is too large for one discretization", mesh->K);
  dg_discretization *d = calloc(1, sizeof *d);
  DG_CHECK(d != NULL, DG_ERR_MEMORY, "discretization: out of memory");
  dg_error err = DG_OK;
  d->mesh = mesh;
  d->precision = precision;
  int ph_re = dg_timing_begin("reference element");
  DG_CALL_GOTO(err, fail, dg_refelem_create(mesh->dim, N, &d->re));
  dg_timing_end(ph_re);
  d->dim = mesh->dim;
  d->N = N;
  d->Np = d->re->Np;
  d->Nfp = d->re->Nfp;
  d->Nfaces = d->re->Nfaces;
  d->K = mesh->K;
  const int64_t nvol = d->K * d->Np, nface = d->K * d->Nfaces * d->Nfp;
  int ph_alloc = dg_timing_begin("allocation");
  int ok = 1;
  for (int c = 0; c < d->dim; c++) {
    ok &= (d->X[c] = alloc_doubles(nvol)) != NULL;
    ok &= (d->n[c] = alloc_doubles(nface)) != NULL;
    for (int b = 0; b < d->dim; b++)
      ok &= (d->G[c][b] = alloc_doubles(nvol)) != NULL;
  }
  ok &= (d->J = alloc_doubles(nvol)) != NULL;
  ok &= (d->sJ = alloc_doubles(nface)) != NULL;
  ok &= (d->Fscale = alloc_doubles(nface)) != NULL;
  ok &= (d->h = alloc_doubles(d->K)) != NULL;
  ok &= (d->face_shift = alloc_doubles(d->K * d->Nfaces * 3)) != NULL;
  ok &= (d->EToE = malloc((size_t)(d->K * d->Nfaces) * sizeof *d->EToE)) != NULL;
  ok &= (d->EToF = malloc((size_t)(d->K * d->Nfaces) * sizeof *d->EToF)) != NULL;
  ok &= (d->vmapM = malloc((size_t)nface * sizeof *d->vmapM)) != NULL;
  ok &= (d->vmapP = malloc((size_t)nface * sizeof *d->vmapP)) != NULL;
  ok &= (d->mapP = malloc((size_t)nface * sizeof *d->mapP)) != NULL;
  DG_CHECK_GOTO(err, fail, ok, DG_ERR_MEMORY,
                "discretization of %" PRId64 " elements at N = %d: out of memory", d->K, N);
  dg_timing_end(ph_alloc);

  int ph = dg_timing_begin("node coordinates");
  map_nodes(d);
  dg_timing_end(ph);
  ph = dg_timing_begin("geometric factors");
  DG_CALL_GOTO(err, fail, geometric_factors(d));
  /* Curved elements: their own nodes and factors over the affine ones. */
  DG_CALL_GOTO(err, fail, dg_geometry_curved_apply(d));
  dg_timing_end(ph);
  ph = dg_timing_begin("normals, Fscale");
  face_geometry(d);
  dg_timing_end(ph);
  ph = dg_timing_begin("connectivity");
  DG_CALL_GOTO(err, fail, dg_connectivity_build(mesh, d->EToE, d->EToF, d->face_shift));
  DG_CALL_GOTO(err, fail, dg_geometry_curved_check_faces(d));
  dg_timing_end(ph);
  ph = dg_timing_begin("node maps");
  DG_CALL_GOTO(err, fail, node_maps(d));
  dg_timing_end(ph);
  ph = dg_timing_begin("boundary lists");
  DG_CALL_GOTO(err, fail, boundary_lists(d));
  dg_timing_end(ph);

  /* Volume = sum_k sum_i J_ki w_i, w_i = sum_j M_ij = integral of l_i. */
  double *w = alloc_doubles(d->Np);
  DG_CHECK_GOTO(err, fail, w != NULL, DG_ERR_MEMORY, "discretization: out of memory");
  for (int i = 0; i < d->Np; i++)
    for (int j = 0; j < d->Np; j++)
      w[i] += d->re->M[i * d->Np + j];
  d->volume = 0;
  for (int64_t k = 0; k < d->K; k++) {
    double vk = 0; /* per element first: the sum of K small terms loses less */
    for (int i = 0; i < d->Np; i++)
      vk += w[i] * d->J[k * d->Np + i];
    d->volume += vk;
  }
  free(w);
  *out = d;
  return DG_OK;
fail:
  dg_discretization_destroy(&d);
  return err;
}

void dg_discretization_destroy(dg_discretization **dp) {
  if (!dp || !*dp)
    return;
  dg_discretization *d = *dp;
  dg_refelem_destroy(&d->re);
  for (int c = 0; c < 3; c++) {
    free(d->X[c]);
    free(d->n[c]);
    for (int b = 0; b < 3; b++)
      free(d->G[c][b]);
  }
  free(d->J);
  free(d->sJ);
  free(d->Fscale);
  free(d->h);
  free(d->curved);
  free(d->face_shift);
  free(d->EToE);
  free(d->EToF);
  free(d->vmapM);
  free(d->vmapP);
  free(d->mapP);
  free(d->mapB);
  free(d->vmapB);
  free(d->tag_offset);
  free(d->tag_map);
  free(d);
  *dp = NULL;
}

dg_error dg_discretization_boundary_nodes(const dg_discretization *d, const char *tag,
                                          const int64_t **map, int64_t *count) {
  int t;
  DG_CALL(dg_mesh_tag_find(d->mesh, tag, &t));
  *map = d->tag_map + d->tag_offset[t];
  *count = d->tag_offset[t + 1] - d->tag_offset[t];
  return DG_OK;
}


