#include "meshes/mesh_order.h"
#include "meshes/mesh_curved.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t dg_hilbert_index(int dim, int bits, const uint32_t *x) {
  uint32_t X[DG_MESH_MAX_DIM] = {0};
  for (int i = 0; i < dim; i++)
    X[i] = x[i];
  /* Skilling's AxestoTranspose: undo the excess work of the curve's
   * rotations and reflections, then Gray-encode */
  uint32_t M = 1u << (bits - 1);
  for (uint32_t Q = M; Q > 1; Q >>= 1) {
    uint32_t P = Q - 1;
    for (int i = 0; i < dim; i++)
      if (X[i] & Q) {
        X[0] ^= P;
      } else {
        uint32_t t = (X[0] ^ X[i]) & P;
        X[0] ^= t;
        X[i] ^= t;
      }
  }
  for (int i = 1; i < dim; i++)
    X[i] ^= X[i - 1];
  uint32_t t = 0;
  for (uint32_t Q = M; Q > 1; Q >>= 1)
    if (X[dim - 1] & Q)
      t ^= Q - 1;
  for (int i = 0; i < dim; i++)
    X[i] ^= t;
  /* the transposed index, bit b of every axis in turn from the top */
  uint64_t h = 0;
  for (int b = bits - 1; b >= 0; b--)
    for (int i = 0; i < dim; i++)
      h = h << 1 | (X[i] >> b & 1u);
  return h;
}

typedef struct {
  uint64_t key;
  int64_t k;
} keyed_element;

static int compare_keyed_element(const void *pa, const void *pb) {
  const keyed_element *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->k > b->k) - (a->k < b->k);
}

/* Renumber m's elements (element k becomes rank[k]), copy rank to
 * new_of_old if given, free rank. */
static dg_error permute_by_rank(dg_mesh *m, int64_t *rank, int64_t *new_of_old) {
  dg_error err = dg_mesh_permute(m, rank);
  if (err == DG_OK && new_of_old)
    memcpy(new_of_old, rank, (size_t)m->K * sizeof *rank);
  free(rank);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_mesh_order_hilbert(dg_mesh *m, int64_t *new_of_old) {
  DG_CHECK(m, DG_ERR_ARG, "dg_mesh_order_hilbert: NULL mesh");
  const int dim = m->dim, nv = dim + 1, bits = dim == 3 ? 21 : 31;
  const int64_t K = m->K;
  const size_t n = K > 0 ? (size_t)K : 1; /* malloc(0) may return NULL */
  keyed_element *order = malloc(n * sizeof *order);
  int64_t *rank = malloc(n * sizeof *rank);
  double *c = malloc(n * dim * sizeof *c);
  if (!order || !rank || !c) {
    free(order);
    free(rank);
    free(c);
    DG_RAISE(DG_ERR_MEMORY, "element order: out of memory for %lld elements", (long long)K);
  }
  double lo[DG_MESH_MAX_DIM], hi[DG_MESH_MAX_DIM];
  for (int a = 0; a < dim; a++)
    lo[a] = INFINITY, hi[a] = -INFINITY;
  for (int64_t k = 0; k < K; k++)
    for (int a = 0; a < dim; a++) {
      double s = 0;
      for (int i = 0; i < nv; i++)
        s += m->VX[m->EToV[k * nv + i] * dim + a];
      c[k * dim + a] = s / nv;
      lo[a] = fmin(lo[a], s / nv);
      hi[a] = fmax(hi[a], s / nv);
    }
  double extent = 0;
  for (int a = 0; a < dim; a++)
    extent = fmax(extent, hi[a] - lo[a]);
  /* cells of the curve's grid per unit length; the top cell holds the max */
  double cells = (double)((1u << (bits - 1)) - 1) * 2.0 + 1.0;
  double scale = extent > 0 ? cells / extent : 0;
  for (int64_t k = 0; k < K; k++) {
    uint32_t x[DG_MESH_MAX_DIM] = {0};
    for (int a = 0; a < dim; a++) {
      double g = floor((c[k * dim + a] - lo[a]) * scale);
      x[a] = g <= 0 ? 0 : g >= cells ? (uint32_t)cells : (uint32_t)g;
    }
    order[k] = (keyed_element){dg_hilbert_index(dim, bits, x), k};
  }
  free(c);
  qsort(order, (size_t)K, sizeof *order, compare_keyed_element);
  for (int64_t j = 0; j < K; j++)
    rank[order[j].k] = j;
  free(order);
  DG_CALL(permute_by_rank(m, rank, new_of_old));
  return DG_OK;
}

dg_error dg_mesh_order_curved_first(dg_mesh *m, int64_t *new_of_old) {
  DG_CHECK(m, DG_ERR_ARG, "dg_mesh_order_curved_first: NULL mesh");
  const int64_t K = m->K;
  int64_t *rank = malloc((size_t)(K > 0 ? K : 1) * sizeof *rank);
  DG_CHECK(rank, DG_ERR_MEMORY, "element order: out of memory for %lld elements", (long long)K);
  int64_t nc = 0;
  for (int64_t k = 0; k < K; k++)
    nc += m->geom_order > 1 && !dg_mesh_element_affine(m, k);
  if (nc == 0) { /* nothing to move: the mesh stays as it is */
    for (int64_t k = 0; k < K && new_of_old; k++)
      new_of_old[k] = k;
    free(rank);
    return DG_OK;
  }
  int64_t ic = 0, ia = nc;
  for (int64_t k = 0; k < K; k++)
    rank[k] = m->geom_order > 1 && !dg_mesh_element_affine(m, k) ? ic++ : ia++;
  DG_CALL(permute_by_rank(m, rank, new_of_old));
  return DG_OK;
}
