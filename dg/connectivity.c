#include "dg/connectivity.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance for matching periodic face centroids: far below any
 * face's size, far above the round-off of a centroid (a few ulps). */
#define CENTROID_RTOL 1e-8

/* Elements around each vertex, CSR: the elements holding vertex v are
 * elems[offset[v] .. offset[v+1]), in increasing order. */
typedef struct {
  int64_t *offset, *elems;
} vertex_elements;

static dg_error vertex_elements_build(const dg_mesh *m, vertex_elements *ve) {
  const int nv = m->dim + 1;
  ve->offset = calloc((size_t)m->Nv + 2, sizeof *ve->offset);
  ve->elems = malloc((size_t)(m->K * nv + 1) * sizeof *ve->elems);
  DG_CHECK(ve->offset && ve->elems, DG_ERR_MEMORY,
           "connectivity of %" PRId64 " elements: out of memory", m->K);
  for (int64_t i = 0; i < m->K * nv; i++) {
    int64_t v = m->EToV[i];
    DG_CHECK(v >= 0 && v < m->Nv, DG_ERR_INPUT,
             "element %" PRId64 " refers to vertex %" PRId64 " (mesh has %" PRId64 " vertices)",
             i / nv, v, m->Nv);
    ve->offset[v + 2]++;
  }
  for (int64_t v = 0; v < m->Nv; v++)
    ve->offset[v + 2] += ve->offset[v + 1];
  /* offset[v + 1] is the fill position of v; it ends at offset[v + 2]'s start */
  for (int64_t i = 0; i < m->K * nv; i++)
    ve->elems[ve->offset[m->EToV[i] + 1]++] = i / nv;
  return DG_OK;
}

static void vertex_elements_free(vertex_elements *ve) {
  free(ve->offset);
  free(ve->elems);
}

/* The neighbours of face (k, f) that share all its vertices: found among the
 * elements around its lowest vertex (a few dozen), so that matching every
 * face is O(K) and each face is matched on its own (in parallel), where
 * tiConnect sorts all faces.  Returns how many there are (a conforming mesh
 * has at most one); the first is (*k2, *f2). */
static int face_neighbours(const dg_mesh *m, const vertex_elements *ve, int64_t k, int f,
                           int64_t *k2, int *f2) {
  const int dim = m->dim, nv = dim + 1;
  int fv[DG_MESH_MAX_VERTS];
  dg_mesh_face_vertices(dim, f, fv);
  int64_t fvert[3] = {0, 0, 0}, low;
  for (int i = 0; i < dim; i++)
    fvert[i] = m->EToV[k * nv + fv[i]];
  low = fvert[0];
  for (int i = 1; i < dim; i++)
    if (fvert[i] < low)
      low = fvert[i];
  int found = 0;
  for (int64_t j = ve->offset[low]; j < ve->offset[low + 1]; j++) {
    int64_t e = ve->elems[j];
    if (e == k)
      continue;
    unsigned set = 0; /* positions in e of the face's vertices */
    int hits = 0;
    for (int i = 0; i < dim; i++)
      for (int p = 0; p < nv; p++)
        if (m->EToV[e * nv + p] == fvert[i]) {
          set |= 1u << p;
          hits++;
          break;
        }
    if (hits < dim)
      continue;
    for (int g = 0; g < nv; g++) {
      int gv[DG_MESH_MAX_VERTS];
      unsigned gset = 0;
      dg_mesh_face_vertices(dim, g, gv);
      for (int i = 0; i < dim; i++)
        gset |= 1u << gv[i];
      if (gset == set) {
        if (found++ == 0) {
          *k2 = e;
          *f2 = g;
        }
        break;
      }
    }
  }
  return found;
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
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nf; i++) {
    EToE[i] = -1;
    EToF[i] = -1;
    for (int a = 0; a < 3; a++)
      shift[i * 3 + a] = 0;
  }

  /* Interior faces: faces with the same vertices are neighbours (tiConnect).
   * Each face writes only its own entry: the result does not depend on the
   * number of threads. */
  vertex_elements ve = {NULL, NULL};
  dg_error err = vertex_elements_build(m, &ve);
  if (err != DG_OK) {
    vertex_elements_free(&ve);
    return err;
  }
  int64_t bad = nf; /* first face with more than one neighbour */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t i = 0; i < nf; i++) {
    int64_t k2 = -1;
    int f2 = -1;
    int n = face_neighbours(m, &ve, i / Nfaces, (int)(i % Nfaces), &k2, &f2);
    if (n == 1) {
      EToE[i] = k2;
      EToF[i] = f2;
    } else if (n > 1 && i < bad) {
      bad = i;
    }
  }
  if (bad < nf) {
    int64_t k = bad / Nfaces, k2 = -1;
    int f = (int)(bad % Nfaces), f2 = -1;
    int n = face_neighbours(m, &ve, k, f, &k2, &f2);
    double c[3];
    dg_connectivity_face_centroid(m, k, f, c);
    vertex_elements_free(&ve);
    DG_RAISE(DG_ERR_INPUT,
             "mesh is not conforming: face %d of element %" PRId64 " (centroid %g %g %g) is "
             "shared by %d elements (%" PRId64 ", %" PRId64 ", ...)",
             f, k, c[0], c[1], c[2], n + 1, k, k2);
  }
  vertex_elements_free(&ve);

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
