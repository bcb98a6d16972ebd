#include "dg/connectivity.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance for matching periodic face centroids: far below any
 * face's size, far above the round-off of a centroid (a few ulps). */
#define CENTROID_RTOL 1e-8

typedef struct {
  int64_t v[3]; /* sorted vertex ids (unused entries -1) */
  int64_t k;
  int f;
} face_key;

static int compare_face_keys(const void *pa, const void *pb) {
  const face_key *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->v[i] != b->v[i])
      return a->v[i] < b->v[i] ? -1 : 1;
  return 0;
}

void dg_connectivity_face_centroid(const dg_mesh *m, int64_t k, int f, double c[3]) {
  int fv[DG_MESH_MAX_VERTS];
  dg_mesh_face_vertices(m->dim, f, fv);
  for (int a = 0; a < 3; a++)
    c[a] = 0;
  for (int i = 0; i < m->dim; i++) {
    int64_t v = m->EToV[k * (m->dim + 1) + fv[i]];
    for (int a = 0; a < m->dim; a++)
      c[a] += m->VX[v * m->dim + a] / m->dim;
  }
}

/* Connect (k1, f1) and (k2, f2); x on f2 = x on f1 + s. */
static void connect(int Nfaces, int64_t *EToE, int *EToF, double *shift, int64_t k1, int f1,
                    int64_t k2, int f2, const double s[3]) {
  EToE[k1 * Nfaces + f1] = k2;
  EToF[k1 * Nfaces + f1] = f2;
  EToE[k2 * Nfaces + f2] = k1;
  EToF[k2 * Nfaces + f2] = f1;
  for (int a = 0; a < 3; a++) {
    shift[(k1 * Nfaces + f1) * 3 + a] = s[a];
    shift[(k2 * Nfaces + f2) * 3 + a] = -s[a];
  }
}

/* Faces on the hi side of a periodic axis, sorted by their centroid's
 * coordinate along another axis so that a partner is found by bisection. */
typedef struct {
  double key;
  double c[3];
  double tol;
  int64_t k;
  int f;
  int used;
} side_face;

static int compare_side_faces(const void *pa, const void *pb) {
  const side_face *a = pa, *b = pb;
  return a->key < b->key ? -1 : a->key > b->key ? 1 : 0;
}

static dg_error match_periodic_axis(const dg_mesh *m, int axis, int64_t *EToE, int *EToF,
                                    double *shift) {
  const int dim = m->dim, Nfaces = dim + 1;
  const int other = (axis + 1) % dim; /* sort axis (the only one in 1D) */
  const double period = m->hi[axis] - m->lo[axis];
  int64_t nlo = 0, nhi = 0, nfree = 0;
  for (int64_t i = 0; i < m->K * Nfaces; i++)
    nfree += EToE[i] < 0;
  side_face *lo = malloc((size_t)(nfree + 1) * sizeof *lo);
  side_face *hi = malloc((size_t)(nfree + 1) * sizeof *hi);
  if (!lo || !hi) {
    free(lo);
    free(hi);
    DG_RAISE(DG_ERR_MEMORY, "periodic matching: out of memory");
  }
  for (int64_t k = 0; k < m->K; k++) {
    double tol = CENTROID_RTOL * dg_mesh_element_size(m, k);
    for (int f = 0; f < Nfaces; f++) {
      if (EToE[k * Nfaces + f] >= 0 || m->face_tag[k * Nfaces + f] >= 0)
        continue;
      side_face sf = {.tol = tol, .k = k, .f = f};
      dg_connectivity_face_centroid(m, k, f, sf.c);
      sf.key = sf.c[other];
      if (fabs(sf.c[axis] - m->lo[axis]) <= tol)
        lo[nlo++] = sf;
      else if (fabs(sf.c[axis] - m->hi[axis]) <= tol)
        hi[nhi++] = sf;
    }
  }
  qsort(hi, (size_t)nhi, sizeof *hi, compare_side_faces);
  dg_error err = DG_OK;
  for (int64_t i = 0; i < nlo && err == DG_OK; i++) {
    double want[3] = {lo[i].c[0], lo[i].c[1], lo[i].c[2]};
    want[axis] += period;
    /* First hi face with key >= want[other] - tol. */
    int64_t a = 0, b = nhi;
    while (a < b) {
      int64_t mid = a + (b - a) / 2;
      if (hi[mid].key < want[other] - lo[i].tol)
        a = mid + 1;
      else
        b = mid;
    }
    int64_t found = -1;
    for (int64_t j = a; j < nhi && hi[j].key <= want[other] + lo[i].tol; j++) {
      double d = 0;
      for (int c = 0; c < dim; c++)
        d = fmax(d, fabs(hi[j].c[c] - want[c]));
      if (!hi[j].used && d <= lo[i].tol) {
        found = j;
        break;
      }
    }
    if (found < 0) {
      err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                           "periodic axis %d: face %d of element %" PRId64
                           " (centroid %g %g %g) has no partner shifted by the period %g",
                           axis, lo[i].f, lo[i].k, lo[i].c[0], lo[i].c[1], lo[i].c[2], period);
      break;
    }
    hi[found].used = 1;
    double s[3] = {0, 0, 0};
    s[axis] = period;
    connect(Nfaces, EToE, EToF, shift, lo[i].k, lo[i].f, hi[found].k, hi[found].f, s);
  }
  free(lo);
  free(hi);
  return err;
}

dg_error dg_connectivity_build(const dg_mesh *m, int64_t *EToE, int *EToF, double *shift) {
  const int dim = m->dim, Nfaces = dim + 1;
  const int64_t nf = m->K * Nfaces;
  for (int64_t i = 0; i < nf; i++) {
    EToE[i] = -1;
    EToF[i] = -1;
  }
  memset(shift, 0, (size_t)nf * 3 * sizeof *shift);

  /* Interior faces: equal sorted vertex tuples are neighbours (tiConnect). */
  face_key *keys = malloc((size_t)nf * sizeof *keys);
  DG_CHECK(keys != NULL, DG_ERR_MEMORY, "connectivity of %" PRId64 " faces: out of memory", nf);
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < Nfaces; f++) {
      face_key *fk = &keys[k * Nfaces + f];
      int fv[DG_MESH_MAX_VERTS];
      dg_mesh_face_vertices(dim, f, fv);
      fk->v[0] = fk->v[1] = fk->v[2] = -1;
      for (int i = 0; i < dim; i++) {
        int64_t v = m->EToV[k * Nfaces + fv[i]];
        int j = i; /* insertion sort of at most 3 ids */
        while (j > 0 && fk->v[j - 1] > v) {
          fk->v[j] = fk->v[j - 1];
          j--;
        }
        fk->v[j] = v;
      }
      fk->k = k;
      fk->f = f;
    }
  qsort(keys, (size_t)nf, sizeof *keys, compare_face_keys);
  const double zero[3] = {0, 0, 0};
  for (int64_t i = 0; i < nf;) {
    int64_t j = i + 1;
    while (j < nf && compare_face_keys(&keys[i], &keys[j]) == 0)
      j++;
    if (j - i > 2) {
      dg_error e = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                                  "mesh is not conforming: face with vertices %" PRId64
                                  " %" PRId64 " %" PRId64 " is shared by %" PRId64
                                  " elements (%" PRId64 ", %" PRId64 ", %" PRId64 ", ...)",
                                  keys[i].v[0], keys[i].v[1], keys[i].v[2], j - i, keys[i].k,
                                  keys[i + 1].k, keys[i + 2].k);
      free(keys);
      return e;
    }
    if (j - i == 2)
      connect(Nfaces, EToE, EToF, shift, keys[i].k, keys[i].f, keys[i + 1].k, keys[i + 1].f,
              zero);
    i = j;
  }
  free(keys);

  /* Explicit periodic pairs (Gmsh periodic entities). */
  for (int64_t p = 0; p < m->nface_pairs; p++) {
    const dg_mesh_face_pair *fp = &m->face_pairs[p];
    DG_CHECK(fp->k1 >= 0 && fp->k1 < m->K && fp->k2 >= 0 && fp->k2 < m->K && fp->f1 >= 0 &&
                 fp->f1 < Nfaces && fp->f2 >= 0 && fp->f2 < Nfaces,
             DG_ERR_INPUT, "periodic face pair %" PRId64 " names a face that does not exist", p);
    DG_CHECK(EToE[fp->k1 * Nfaces + fp->f1] < 0 && EToE[fp->k2 * Nfaces + fp->f2] < 0,
             DG_ERR_INPUT,
             "periodic face pair %" PRId64 " (element %" PRId64 " face %d, element %" PRId64
             " face %d) joins a face that already has a neighbour",
             p, fp->k1, fp->f1, fp->k2, fp->f2);
    double s[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++)
      s[a] = fp->shift[a];
    connect(Nfaces, EToE, EToF, shift, fp->k1, fp->f1, fp->k2, fp->f2, s);
  }

  /* Periodic axes (BuildPeriodicMaps2D, by face centroids). */
  for (int a = 0; a < dim; a++)
    if (m->periodic[a])
      DG_CALL(match_periodic_axis(m, a, EToE, EToF, shift));

  /* Boundary faces connect to themselves; anything else is a hole. */
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < Nfaces; f++) {
      if (EToE[k * Nfaces + f] >= 0)
        continue;
      if (m->face_tag[k * Nfaces + f] < 0) {
        double c[3];
        dg_connectivity_face_centroid(m, k, f, c);
        DG_RAISE(DG_ERR_INPUT,
                 "face %d of element %" PRId64 " (centroid %g %g %g) has no neighbour, no "
                 "boundary tag and no periodic partner",
                 f, k, c[0], c[1], c[2]);
      }
      EToE[k * Nfaces + f] = k;
      EToF[k * Nfaces + f] = f;
    }
  return DG_OK;
}
