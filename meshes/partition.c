#include "meshes/partition.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_validate.h"

#ifdef DGRUN_HAVE_METIS
#include <metis.h>
#endif

void dg_partition_destroy(dg_partition **p) {
  if (!p || !*p)
    return;
  free((*p)->part);
  free((*p)->offsets);
  free((*p)->elements);
  free((*p)->local);
  free(*p);
  *p = NULL;
}

/* A neighbour across face i of element k, or -1. */
static int64_t neighbour(const int64_t *EToE, int64_t k, int64_t i) {
  return EToE && EToE[i] >= 0 && EToE[i] != k ? EToE[i] : -1;
}

dg_error dg_partition_from_parts(int64_t K, int nparts, const int *part, int dim,
                                 const int64_t *EToE, dg_partition **out) {
  *out = NULL;
  DG_CHECK(K > 0 && nparts >= 1, DG_ERR_ARG, "partition of %" PRId64 " elements into %d parts",
           K, nparts);
  dg_partition *p = calloc(1, sizeof *p);
  DG_CHECK(p != NULL, DG_ERR_MEMORY, "partition: out of memory");
  p->nparts = nparts;
  p->K = K;
  p->part = malloc((size_t)K * sizeof *p->part);
  p->offsets = calloc((size_t)nparts + 1, sizeof *p->offsets);
  p->elements = malloc((size_t)K * sizeof *p->elements);
  p->local = malloc((size_t)K * sizeof *p->local);
  if (!p->part || !p->offsets || !p->elements || !p->local) {
    dg_partition_destroy(&p);
    DG_RAISE(DG_ERR_MEMORY, "partition of %" PRId64 " elements: out of memory", K);
  }
  for (int64_t k = 0; k < K; k++) {
    if (part[k] < 0 || part[k] >= nparts) {
      dg_partition_destroy(&p);
      DG_RAISE(DG_ERR_INPUT, "element %" PRId64 " is assigned to part %d of %d", k, part[k],
               nparts);
    }
    p->part[k] = part[k];
    p->offsets[part[k] + 1]++;
  }
  int64_t largest = 0;
  for (int r = 0; r < nparts; r++) {
    largest = p->offsets[r + 1] > largest ? p->offsets[r + 1] : largest;
    p->offsets[r + 1] += p->offsets[r];
  }
  /* Counting sort: elements of a part stay in increasing id order. */
  int64_t *fill = calloc((size_t)nparts, sizeof *fill);
  if (!fill) {
    dg_partition_destroy(&p);
    DG_RAISE(DG_ERR_MEMORY, "partition: out of memory");
  }
  for (int64_t k = 0; k < K; k++) {
    p->local[k] = fill[part[k]]++;
    p->elements[p->offsets[part[k]] + p->local[k]] = k;
  }
  free(fill);
  const int nf = dim + 1;
  int64_t cut = 0;
  for (int64_t i = 0; EToE && i < K * nf; i++) {
    int64_t n = neighbour(EToE, i / nf, i);
    cut += n >= 0 && part[n] != part[i / nf];
  }
  p->edge_cut = cut / 2;
  p->imbalance = (double)largest * nparts / (double)K;
  p->method = DG_PARTITION_AUTO;
  *out = p;
  return DG_OK;
}

/* ---- recursive coordinate bisection -------------------------------------- */

typedef struct {
  double key;
  int64_t k;
} keyed;

static int compare_keyed(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->k > b->k) - (a->k < b->k);
}

/* Cut ids[0..n) (element ids, with centroids c) into parts first ..
 * first+np-1. */
static void rcb(const double *c, int dim, keyed *ids, int64_t n, int first, int np, int *part) {
  if (np == 1) {
    for (int64_t i = 0; i < n; i++)
      part[ids[i].k] = first;
    return;
  }
  int axis = 0;
  double best = -1;
  for (int a = 0; a < dim; a++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
      lo = fmin(lo, c[ids[i].k * dim + a]);
      hi = fmax(hi, c[ids[i].k * dim + a]);
    }
    if (hi - lo > best) {
      best = hi - lo;
      axis = a;
    }
  }
  for (int64_t i = 0; i < n; i++)
    ids[i].key = c[ids[i].k * dim + axis];
  qsort(ids, (size_t)n, sizeof *ids, compare_keyed);
  int np1 = np / 2;
  int64_t n1 = (n * np1 + np / 2) / np;
  rcb(c, dim, ids, n1, first, np1, part);
  rcb(c, dim, ids + n1, n - n1, first + np1, np - np1, part);
}

static dg_error partition_rcb(const dg_mesh *m, int nparts, int *part) {
  const int nv = m->dim + 1;
  double *c = malloc((size_t)(m->K * m->dim) * sizeof *c);
  keyed *ids = malloc((size_t)m->K * sizeof *ids);
  if (!c || !ids) {
    free(c);
    free(ids);
    DG_RAISE(DG_ERR_MEMORY, "coordinate bisection: out of memory");
  }
  for (int64_t k = 0; k < m->K; k++) {
    for (int a = 0; a < m->dim; a++) {
      double s = 0;
      for (int i = 0; i < nv; i++)
        s += m->VX[m->EToV[k * nv + i] * m->dim + a];
      c[k * m->dim + a] = s / nv;
    }
    ids[k].k = k;
  }
  rcb(c, m->dim, ids, m->K, 0, nparts, part);
  free(c);
  free(ids);
  return DG_OK;
}

/* ---- METIS ---------------------------------------------------------------- */

#ifdef DGRUN_HAVE_METIS
/* Dual graph in CSR form (xadj, adjncy, edge weight = shared faces), METIS
 * k-way. */
static dg_error partition_metis(const dg_mesh *m, const int64_t *EToE, int nparts, int seed,
                                int *part) {
  const int nf = m->dim + 1;
  DG_CHECK(m->K * nf < INT32_MAX, DG_ERR_UNSUPPORTED,
           "mesh of %" PRId64 " elements is too large for this METIS build (32-bit indices)",
           m->K);
  idx_t n = (idx_t)m->K, ncon = 1, np = nparts, cut = 0;
  idx_t *xadj = malloc((size_t)(n + 1) * sizeof *xadj);
  idx_t *adj = malloc((size_t)(m->K * nf) * sizeof *adj);
  idx_t *wgt = malloc((size_t)(m->K * nf) * sizeof *wgt);
  idx_t *where = malloc((size_t)n * sizeof *where);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, xadj && adj && wgt && where, DG_ERR_MEMORY,
                "METIS graph: out of memory");
  xadj[0] = 0;
  for (int64_t k = 0; k < m->K; k++) {
    idx_t at = xadj[k];
    for (int f = 0; f < nf; f++) {
      int64_t e = neighbour(EToE, k, k * nf + f);
      if (e < 0)
        continue;
      idx_t j = xadj[k];
      while (j < at && adj[j] != (idx_t)e)
        j++;
      if (j < at) {
        wgt[j]++; /* two faces shared with one element (periodic) */
      } else {
        adj[at] = (idx_t)e;
        wgt[at++] = 1;
      }
    }
    xadj[k + 1] = at;
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = seed;
  int rc = METIS_PartGraphKway(&n, &ncon, xadj, adj, NULL, NULL, wgt, &np, NULL, NULL, options,
                               &cut, where);
  DG_CHECK_GOTO(err, done, rc == METIS_OK, DG_ERR_INTERNAL,
                "METIS_PartGraphKway failed (code %d) on %" PRId64 " elements, %d parts", rc,
                m->K, nparts);
  for (int64_t k = 0; k < m->K; k++)
    part[k] = (int)where[k];
done:
  free(xadj);
  free(adj);
  free(wgt);
  free(where);
  return err;
}
#endif

dg_error dg_partition_create(const dg_mesh *m, const int64_t *EToE, const int *EToF,
                             int nparts, const dg_partition_options *opt, dg_partition **out) {
  (void)EToF;
  DG_CHECK(m && out, DG_ERR_ARG, "dg_partition_create: NULL argument");
  *out = NULL;
  DG_CHECK(nparts >= 1 && nparts <= m->K, DG_ERR_INPUT,
           "cannot cut a mesh of %" PRId64 " elements into %d parts (need 1 <= parts <= "
           "elements)",
           m->K, nparts);
  const int nf = m->dim + 1;
  dg_error err = DG_OK;
  int64_t *own = NULL;
  int *ownf = NULL, *part = calloc((size_t)m->K, sizeof *part);
  DG_CHECK_GOTO(err, done, part != NULL, DG_ERR_MEMORY, "partition: out of memory");
  if (!EToE) {
    own = malloc((size_t)(m->K * nf) * sizeof *own);
    ownf = malloc((size_t)(m->K * nf) * sizeof *ownf);
    DG_CHECK_GOTO(err, done, own && ownf, DG_ERR_MEMORY, "partition: out of memory");
    DG_CALL_GOTO(err, done, dg_mesh_validate_neighbors(m, 1, own, ownf));
    EToE = own;
  }
  dg_partition_method method = opt ? opt->method : DG_PARTITION_AUTO;
#ifdef DGRUN_HAVE_METIS
  if (method == DG_PARTITION_AUTO)
    method = DG_PARTITION_METIS;
#else
  DG_CHECK_GOTO(err, done, method != DG_PARTITION_METIS, DG_ERR_UNSUPPORTED,
                "dgrun was built without METIS (libmetis-dev); use coordinate bisection");
  method = DG_PARTITION_RCB;
#endif
  if (nparts == 1) {
    /* every element on rank 0 */
  } else if (method == DG_PARTITION_RCB) {
    DG_CALL_GOTO(err, done, partition_rcb(m, nparts, part));
  } else {
#ifdef DGRUN_HAVE_METIS
    DG_CALL_GOTO(err, done, partition_metis(m, EToE, nparts, opt ? opt->seed : 0, part));
#endif
  }
  /* METIS may leave a part empty on tiny or oddly shaped graphs; coordinate
   * bisection never does (nparts <= K). */
  int64_t *size = calloc((size_t)nparts, sizeof *size);
  DG_CHECK_GOTO(err, done, size != NULL, DG_ERR_MEMORY, "partition: out of memory");
  for (int64_t k = 0; k < m->K; k++)
    size[part[k]]++;
  int empty = -1;
  for (int r = 0; r < nparts; r++)
    empty = size[r] == 0 ? r : empty;
  free(size);
  if (empty >= 0) {
    dg_warn("partition: METIS left part %d of %d empty (%" PRId64 " elements); using "
            "coordinate bisection",
            empty, nparts, m->K);
    method = DG_PARTITION_RCB;
    DG_CALL_GOTO(err, done, partition_rcb(m, nparts, part));
  }
  dg_partition *p;
  DG_CALL_GOTO(err, done, dg_partition_from_parts(m->K, nparts, part, m->dim, EToE, &p));
  p->method = method;
  dg_info("partition: %d parts by %s, edge cut %" PRId64 " faces, imbalance %.3f", nparts,
          method == DG_PARTITION_RCB ? "coordinate bisection" : "METIS", p->edge_cut,
          p->imbalance);
  *out = p;
done:
  free(part);
  free(own);
  free(ownf);
  return err;
}

/* ---- local meshes ---------------------------------------------------------- */

void dg_partition_local_destroy(dg_partition_local **local) {
  if (!local || !*local)
    return;
  dg_mesh_destroy(&(*local)->mesh);
  free((*local)->global_element);
  free((*local)->global_vertex);
  free((*local)->halo);
  free(*local);
  *local = NULL;
}

dg_error dg_partition_local_copy(const dg_partition_local *local, dg_partition_local **out) {
  *out = NULL;
  dg_partition_local *L = calloc(1, sizeof *L);
  DG_CHECK(L != NULL, DG_ERR_MEMORY, "local mesh: out of memory");
  dg_error err = DG_OK;
  *L = *local;
  L->mesh = NULL;
  L->global_element = malloc((size_t)(local->mesh->K + 1) * sizeof *L->global_element);
  L->global_vertex = malloc((size_t)(local->mesh->Nv + 1) * sizeof *L->global_vertex);
  L->halo = malloc((size_t)(local->nhalo + 1) * sizeof *L->halo);
  DG_CHECK_GOTO(err, fail, L->global_element && L->global_vertex && L->halo, DG_ERR_MEMORY,
                "local mesh: out of memory");
  DG_CALL_GOTO(err, fail, dg_mesh_copy(local->mesh, &L->mesh));
  memcpy(L->global_element, local->global_element,
         (size_t)local->mesh->K * sizeof *L->global_element);
  memcpy(L->global_vertex, local->global_vertex, (size_t)local->mesh->Nv * sizeof *L->global_vertex);
  memcpy(L->halo, local->halo, (size_t)local->nhalo * sizeof *L->halo);
  *out = L;
  return DG_OK;
fail:
  dg_partition_local_destroy(&L);
  return err;
}

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t find_i64(const int64_t *sorted, int64_t n, int64_t x) {
  const int64_t *p = bsearch(&x, sorted, (size_t)n, sizeof x, compare_i64);
  return p ? p - sorted : -1;
}

/* Sort key of a halo face: (rank, canonical id), see partition.h. */
typedef struct {
  int rank;
  int64_t id;
  int64_t i;
} halo_key;

static int compare_halo(const void *pa, const void *pb) {
  const halo_key *a = pa, *b = pb;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

dg_error dg_partition_build_local(const dg_partition_rows *R, dg_partition_local **out) {
  *out = NULL;
  const int dim = R->dim, nv = dim + 1, nf = dim + 1;
  dg_error err = DG_OK;
  halo_key *hk = NULL;
  dg_partition_halo_face *tmp = NULL;
  dg_partition_local *L = calloc(1, sizeof *L);
  DG_CHECK(L != NULL, DG_ERR_MEMORY, "local mesh: out of memory");
  L->rank = R->rank;
  L->nparts = R->nparts;
  L->global_element = malloc((size_t)R->K * sizeof *L->global_element);
  L->global_vertex = malloc((size_t)(R->K * nv) * sizeof *L->global_vertex);
  DG_CHECK_GOTO(err, fail, L->global_element && L->global_vertex, DG_ERR_MEMORY,
                "local mesh: out of memory");
  memcpy(L->global_element, R->gk, (size_t)R->K * sizeof *R->gk);
  memcpy(L->global_vertex, R->EToV, (size_t)(R->K * nv) * sizeof *R->EToV);
  qsort(L->global_vertex, (size_t)(R->K * nv), sizeof *L->global_vertex, compare_i64);
  int64_t Nv = 0;
  for (int64_t i = 0; i < R->K * nv; i++)
    if (i == 0 || L->global_vertex[i] != L->global_vertex[Nv - 1])
      L->global_vertex[Nv++] = L->global_vertex[i];

  dg_mesh *m;
  DG_CALL_GOTO(err, fail, dg_mesh_create(dim, Nv, R->K, &m));
  L->mesh = m;
  DG_CALL_GOTO(err, fail, R->coords(R->ctx, Nv, L->global_vertex, m->VX));
  for (int64_t i = 0; i < R->K * nv; i++)
    m->EToV[i] = find_i64(L->global_vertex, Nv, R->EToV[i]);
  memcpy(m->face_tag, R->face_tag, (size_t)(R->K * nf) * sizeof *m->face_tag);
  for (int t = 0; t < R->ntags; t++)
    DG_CALL_GOTO(err, fail, dg_mesh_tag_add(m, R->tag_names[t], NULL));
  for (int r = 0; r < R->nregions; r++)
    DG_CALL_GOTO(err, fail, dg_mesh_region_add(m, R->region_names[r], NULL));
  if (R->nregions > 0)
    memcpy(m->region, R->region, (size_t)R->K * sizeof *m->region);
  if (R->geom_order > 1) {
    DG_CALL_GOTO(err, fail, dg_mesh_ho_set_order(m, R->geom_order));
    memcpy(m->XH, R->XH,
           (size_t)(R->K * dg_mesh_ho_count(dim, R->geom_order) * dim) * sizeof *m->XH);
  }
  for (int a = 0; a < DG_MESH_MAX_DIM; a++) {
    m->periodic[a] = R->periodic ? R->periodic[a] : 0;
    m->lo[a] = R->lo ? R->lo[a] : 0;
    m->hi[a] = R->hi ? R->hi[a] : 0;
  }
  for (int pass = 0; pass < 2; pass++) { /* count, then fill the local pairs */
    int64_t n = 0;
    for (int64_t p = 0; p < R->nface_pairs; p++) {
      int64_t k1 = find_i64(R->gk, R->K, R->face_pairs[p].k1);
      int64_t k2 = find_i64(R->gk, R->K, R->face_pairs[p].k2);
      if (k1 < 0 || k2 < 0)
        continue;
      if (pass) {
        m->face_pairs[n] = R->face_pairs[p];
        m->face_pairs[n].k1 = k1;
        m->face_pairs[n].k2 = k2;
      }
      n++;
    }
    if (!pass && n) {
      m->face_pairs = malloc((size_t)n * sizeof *m->face_pairs);
      DG_CHECK_GOTO(err, fail, m->face_pairs != NULL, DG_ERR_MEMORY, "local mesh: out of memory");
    }
    m->nface_pairs = n;
  }

  /* Halo faces, in canonical order. */
  int64_t nh = 0;
  for (int64_t i = 0; i < R->K * nf; i++)
    nh += R->nbr_k[i] >= 0 && R->nbr_rank[i] != R->rank;
  L->halo = malloc((size_t)(nh ? nh : 1) * sizeof *L->halo);
  tmp = malloc((size_t)(nh ? nh : 1) * sizeof *tmp);
  hk = malloc((size_t)(nh ? nh : 1) * sizeof *hk);
  DG_CHECK_GOTO(err, fail, L->halo && tmp && hk, DG_ERR_MEMORY, "halo: out of memory");
  int64_t h = 0;
  for (int64_t i = 0; i < R->K * nf; i++) {
    if (R->nbr_k[i] < 0 || R->nbr_rank[i] == R->rank)
      continue;
    dg_partition_halo_face *x = &tmp[h];
    x->k = i / nf;
    x->f = (int)(i % nf);
    x->rank = R->nbr_rank[i];
    x->remote_k = R->nbr_local[i];
    x->remote_f = R->nbr_f[i];
    x->global_k = R->nbr_k[i];
    for (int a = 0; a < DG_MESH_MAX_DIM; a++)
      x->shift[a] = R->shift[i * 3 + a];
    int64_t here = R->gk[x->k] * nf + x->f, there = x->global_k * nf + x->remote_f;
    hk[h].rank = x->rank;
    hk[h].id = here < there ? here : there;
    hk[h].i = h;
    h++;
  }
  qsort(hk, (size_t)nh, sizeof *hk, compare_halo);
  for (int64_t i = 0; i < nh; i++) {
    L->halo[i] = tmp[hk[i].i];
    if (i == 0 || hk[i].rank != hk[i - 1].rank)
      L->nneighbors++;
  }
  L->nhalo = nh;
  free(tmp);
  free(hk);
  *out = L;
  return DG_OK;
fail:
  free(tmp);
  free(hk);
  dg_partition_local_destroy(&L);
  return err;
}

static dg_error mesh_coords(void *ctx, int64_t n, const int64_t *gids, double *out) {
  const dg_mesh *m = ctx;
  for (int64_t i = 0; i < n; i++)
    memcpy(out + i * m->dim, m->VX + gids[i] * m->dim, (size_t)m->dim * sizeof *out);
  return DG_OK;
}

dg_error dg_partition_rows_alloc(dg_partition_rows *R, int dim, int64_t K) {
  memset(R, 0, sizeof *R);
  size_t n = (size_t)(K * (dim + 1));
  R->dim = dim;
  R->K = K;
  R->geom_order = 1;
  R->gk = malloc((size_t)K * sizeof *R->gk);
  R->EToV = malloc(n * sizeof *R->EToV);
  R->face_tag = malloc(n * sizeof *R->face_tag);
  R->nbr_k = malloc(n * sizeof *R->nbr_k);
  R->nbr_f = malloc(n * sizeof *R->nbr_f);
  R->nbr_rank = malloc(n * sizeof *R->nbr_rank);
  R->nbr_local = malloc(n * sizeof *R->nbr_local);
  R->shift = calloc(n * 3, sizeof *R->shift);
  R->region = malloc((size_t)(K > 0 ? K : 1) * sizeof *R->region);
  for (int64_t k = 0; R->region && k < K; k++)
    R->region[k] = -1;
  if (R->gk && R->EToV && R->face_tag && R->nbr_k && R->nbr_f && R->nbr_rank && R->nbr_local &&
      R->shift && R->region)
    return DG_OK;
  dg_partition_rows_free(R);
  DG_RAISE(DG_ERR_MEMORY, "local mesh of %" PRId64 " elements: out of memory", K);
}

void dg_partition_rows_free(dg_partition_rows *R) {
  free(R->gk);
  free(R->EToV);
  free(R->face_tag);
  free(R->nbr_k);
  free(R->nbr_f);
  free(R->nbr_rank);
  free(R->nbr_local);
  free(R->shift);
  free(R->region);
  free(R->XH);
  R->XH = NULL;
  R->gk = R->EToV = R->nbr_k = R->nbr_local = NULL;
  R->face_tag = R->nbr_f = R->nbr_rank = R->region = NULL;
  R->shift = NULL;
}

dg_error dg_partition_extract(const dg_mesh *m, const int64_t *EToE, const int *EToF,
                              const dg_partition *P, int rank, dg_partition_local **out) {
  DG_CHECK(m && P && out && !EToE == !EToF, DG_ERR_ARG,
           "dg_partition_extract: NULL argument (EToE and EToF go together)");
  *out = NULL;
  DG_CHECK(P->K == m->K, DG_ERR_ARG, "partition of %" PRId64 " elements for a mesh of %" PRId64,
           P->K, m->K);
  DG_CHECK(rank >= 0 && rank < P->nparts, DG_ERR_ARG, "rank %d of %d parts", rank, P->nparts);
  const int nf = m->dim + 1;
  const int64_t Kl = P->offsets[rank + 1] - P->offsets[rank];
  dg_error err = DG_OK;
  int64_t *own = NULL;
  int *ownf = NULL;
  dg_partition_rows R;
  DG_CALL(dg_partition_rows_alloc(&R, m->dim, Kl));
  if (!EToE) {
    own = malloc((size_t)(m->K * nf) * sizeof *own);
    ownf = malloc((size_t)(m->K * nf) * sizeof *ownf);
    DG_CHECK_GOTO(err, done, own && ownf, DG_ERR_MEMORY, "local mesh: out of memory");
    DG_CALL_GOTO(err, done, dg_mesh_validate_neighbors(m, 1, own, ownf));
    EToE = own;
    EToF = ownf;
  }
  memcpy(R.gk, P->elements + P->offsets[rank], (size_t)Kl * sizeof *R.gk);
  for (int64_t i = 0; i < Kl && m->region; i++)
    R.region[i] = m->region[R.gk[i]];
  if (m->geom_order > 1) {
    const size_t nh = (size_t)dg_mesh_ho_count(m->dim, m->geom_order) * m->dim;
    R.geom_order = m->geom_order;
    R.XH = malloc((size_t)(Kl > 0 ? Kl : 1) * nh * sizeof *R.XH);
    DG_CHECK_GOTO(err, done, R.XH != NULL, DG_ERR_MEMORY, "local mesh: out of memory");
    for (int64_t i = 0; i < Kl; i++)
      memcpy(R.XH + i * nh, m->XH + R.gk[i] * nh, nh * sizeof *R.XH);
  }
  for (int64_t i = 0; i < Kl; i++)
    for (int f = 0; f < nf; f++) {
      int64_t g = R.gk[i] * nf + f, l = i * nf + f, e = neighbour(EToE, R.gk[i], g);
      R.EToV[l] = m->EToV[g];
      R.face_tag[l] = m->face_tag[g];
      R.nbr_k[l] = e;
      R.nbr_f[l] = e >= 0 ? EToF[g] : -1;
      R.nbr_rank[l] = e >= 0 ? P->part[e] : -1;
      R.nbr_local[l] = e >= 0 ? P->local[e] : -1;
      if (e >= 0 && R.nbr_rank[l] != rank) {
        double a[3], b[3];
        dg_mesh_validate_face_centroid(m->dim, m->EToV + R.gk[i] * nf, f, m->VX, NULL, 0, a);
        dg_mesh_validate_face_centroid(m->dim, m->EToV + e * nf, R.nbr_f[l], m->VX, NULL, 0, b);
        for (int c = 0; c < 3; c++)
          R.shift[l * 3 + c] = b[c] - a[c];
      }
    }
  R.rank = rank;
  R.nparts = P->nparts;
  R.ntags = m->ntags;
  R.tag_names = m->tag_names;
  R.periodic = m->periodic;
  R.lo = m->lo;
  R.hi = m->hi;
  R.nface_pairs = m->nface_pairs;
  R.face_pairs = m->face_pairs;
  R.nregions = m->nregions;
  R.region_names = m->region_names;
  R.coords = mesh_coords;
  R.ctx = (void *)m;
  DG_CALL_GOTO(err, done, dg_partition_build_local(&R, out));
done:
  free(own);
  free(ownf);
  dg_partition_rows_free(&R);
  return err;
}
