/* Mesh identity for checkpoints (see mesh_identity.h). */
#include "problems/solver/mesh_identity.h"

#include <stdlib.h>
#include <string.h>

#include "problems/io/h5io.h"

static uint64_t fnv_i64(uint64_t h, int64_t v) {
  unsigned char le[8];
  for (int b = 0; b < 8; b++)
    le[b] = (unsigned char)((uint64_t)v >> (8 * b));
  return dg_h5io_fnv1a_more(h, le, 8);
}

/* Element k's share: its global id, vertices and face neighbours.  Not its
 * region: the shipped Gmsh meshes have top-dimension groups, so their old
 * checkpoints keep restarting, and what a region means for a run (its
 * coefficient values) is compared on restart by the checkpoint itself. */
static uint64_t element_hash(const dg_parallel *par, const dg_discretization *d,
                             const int64_t *halo_of, int64_t k) {
  const dg_mesh *m = par->mesh;
  int nf = m->dim + 1;
  uint64_t h = fnv_i64(dg_h5io_fnv1a(NULL, 0), par->gk ? par->gk[k] : k);
  for (int v = 0; v < nf; v++)
    h = dg_h5io_fnv1a_more(h, m->VX + m->EToV[k * nf + v] * m->dim,
                           (size_t)m->dim * sizeof *m->VX);
  for (int f = 0; f < nf; f++) {
    int64_t i = k * nf + f, nk = d->EToE[i];
    int64_t hf = halo_of ? halo_of[i] : -1;
    if (hf >= 0) { /* a neighbour on another rank */
      h = fnv_i64(h, par->local->halo[hf].global_k);
      h = fnv_i64(h, par->local->halo[hf].remote_f);
    } else if (nk != k || d->EToF[i] != f) {
      h = fnv_i64(h, par->gk ? par->gk[nk] : nk);
      h = fnv_i64(h, d->EToF[i]);
    } else { /* a boundary face: its tag's name */
      int t = m->face_tag[i];
      const char *name = t >= 0 && t < m->ntags ? m->tag_names[t] : "";
      h = fnv_i64(h, -1);
      h = dg_h5io_fnv1a_more(h, name, strlen(name) + 1);
    }
  }
  return h;
}

dg_error dg_mesh_identity_hash(const dg_parallel *par, const dg_discretization *d,
                               uint64_t *hash) {
  const dg_mesh *m = par->mesh;
  int nf = m->dim + 1;
  int64_t *halo_of = NULL;
  dg_error err = DG_OK;
  if (par->local && par->local->nhalo > 0) {
    halo_of = malloc((size_t)(m->K * nf) * sizeof *halo_of);
    if (!halo_of)
      err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                           "out of memory for the mesh hash");
    for (int64_t i = 0; halo_of && i < m->K * nf; i++)
      halo_of[i] = -1;
    for (int64_t j = 0; halo_of && j < par->local->nhalo; j++)
      halo_of[par->local->halo[j].k * nf + par->local->halo[j].f] = j;
  }
  uint64_t sum = 0;
  for (int64_t k = 0; err == DG_OK && k < par->K; k++)
    sum += element_hash(par, d, halo_of, k);
  free(halo_of);
  if (par->size > 1)
    err = dg_comm_agree(par->comm, err);
  if (err == DG_OK && par->size > 1)
    err = dg_comm_allreduce_sum_u64(par->comm, &sum, 1);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  *hash = fnv_i64(fnv_i64(fnv_i64(dg_h5io_fnv1a(NULL, 0), m->dim), par->K_global), (int64_t)sum);
  return DG_OK;
}
