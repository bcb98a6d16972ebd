/* Hyperslab unions for collective writes (see h5part.h). */
#include "problems/io/h5part.h"

#include <stdlib.h>
#include <string.h>

#include "problems/io/h5io.h"

void dg_h5part_destroy(dg_h5part **pp) {
  if (!pp || !*pp)
    return;
  dg_h5part *p = *pp;
  free(p->order);
  free(p->gid);
  free(p->run_first);
  free(p->run_count);
  free(p);
  *pp = NULL;
}

/* Sort key of one element: its global id, then its local index. */
typedef struct gid_local {
  int64_t g, k;
} gid_local;

static int by_gid(const void *a, const void *b) {
  const gid_local *x = a, *y = b;
  return x->g < y->g ? -1 : x->g > y->g;
}

dg_error dg_h5part_create(const int64_t *gk, int64_t K, int64_t K_global, dg_h5part **out) {
  *out = NULL;
  DG_CHECK(K >= 0 && K <= K_global && (gk || K == 0), DG_ERR_ARG,
           "h5part: %lld of %lld elements", (long long)K, (long long)K_global);
  dg_h5part *p = calloc(1, sizeof *p);
  DG_CHECK(p, DG_ERR_MEMORY, "out of memory");
  p->K = K;
  p->K_global = K_global;
  /* A sort of this rank's K ids, not a table over all K_global elements:
   * the part (and a restart that reads through it) stays O(K) in memory. */
  gid_local *s = malloc(sizeof(gid_local) * (size_t)(K + 1));
  p->order = malloc(sizeof(int64_t) * (size_t)(K + 1));
  p->gid = malloc(sizeof(int64_t) * (size_t)(K + 1));
  p->run_first = malloc(sizeof(int64_t) * (size_t)(K + 1));
  p->run_count = malloc(sizeof(int64_t) * (size_t)(K + 1));
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, fail, s && p->order && p->gid && p->run_first && p->run_count,
                DG_ERR_MEMORY, "out of memory for the output part of %lld elements",
                (long long)K);
  for (int64_t k = 0; k < K; k++) {
    DG_CHECK_GOTO(err, fail, gk[k] >= 0 && gk[k] < K_global, DG_ERR_ARG,
                  "h5part: element %lld has global id %lld (out of range)", (long long)k,
                  (long long)gk[k]);
    s[k].g = gk[k];
    s[k].k = k;
  }
  qsort(s, (size_t)K, sizeof *s, by_gid);
  for (int64_t j = 0; j < K; j++) {
    int64_t g = s[j].g;
    DG_CHECK_GOTO(err, fail, j == 0 || s[j - 1].g != g, DG_ERR_ARG,
                  "h5part: elements %lld and %lld have the same global id %lld",
                  (long long)s[j - 1].k, (long long)s[j].k, (long long)g);
    p->order[j] = s[j].k;
    p->gid[j] = g;
    if (j > 0 && p->gid[j - 1] == g - 1) {
      p->run_count[p->nruns - 1]++;
    } else {
      p->run_first[p->nruns] = g;
      p->run_count[p->nruns] = 1;
      p->nruns++;
    }
  }
  free(s);
  *out = p;
  return DG_OK;
fail:
  free(s);
  dg_h5part_destroy(&p);
  return err;
}

void dg_h5part_pack(const dg_h5part *p, size_t bytes, const void *in, void *out) {
  const unsigned char *src = in;
  unsigned char *dst = out;
  for (int64_t j = 0; j < p->K; j++)
    memcpy(dst + (size_t)j * bytes, src + (size_t)p->order[j] * bytes, bytes);
}

void dg_h5part_unpack(const dg_h5part *p, size_t bytes, const void *in, void *out) {
  const unsigned char *src = in;
  unsigned char *dst = out;
  for (int64_t j = 0; j < p->K; j++)
    memcpy(dst + (size_t)p->order[j] * bytes, src + (size_t)j * bytes, bytes);
}

#if defined(DGRUN_HAVE_HDF5)

/* Select this rank's rows in fspace (K_global*rows rows) and size mspace
 * for them; runs in increasing order: HDF5 appends each block to the union,
 * so the packed buffer is walked in increasing global id. */
static herr_t select_part(const dg_h5part *p, int rows, hid_t fspace, hid_t mspace) {
  hsize_t ncol = 1;
  if (H5Sget_simple_extent_ndims(fspace) == 2) {
    hsize_t d[2];
    H5Sget_simple_extent_dims(fspace, d, NULL);
    ncol = d[1];
  }
  herr_t rc = H5Sselect_none(fspace);
  for (int64_t r = 0; r < p->nruns && rc >= 0; r++) {
    hsize_t start[2] = {(hsize_t)p->run_first[r] * (hsize_t)rows, 0};
    hsize_t count[2] = {(hsize_t)p->run_count[r] * (hsize_t)rows, ncol};
    rc = H5Sselect_hyperslab(fspace, H5S_SELECT_OR, start, NULL, count, NULL);
  }
  if (rc >= 0 && p->K == 0)
    rc = H5Sselect_none(mspace);
  return rc;
}

dg_error dg_h5part_write(const dg_h5part *p, hid_t loc, const char *name, hid_t mtype,
                         int rows, int ncols, const void *data, hid_t dxpl, const char *path) {
  int rank = ncols > 0 ? 2 : 1;
  hsize_t fdims[2] = {(hsize_t)p->K_global * (hsize_t)rows, (hsize_t)(ncols > 0 ? ncols : 1)};
  hsize_t mdims[2] = {(hsize_t)p->K * (hsize_t)rows, fdims[1]};
  hid_t fspace = H5Screate_simple(rank, fdims, NULL);
  hid_t mspace = H5Screate_simple(rank, mdims, NULL);
  /* Every value is written, so no fill values first (parallel HDF5
   * allocates the whole dataset when it is created). */
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  herr_t rc = fspace >= 0 && mspace >= 0 && dcpl >= 0 ? 0 : -1;
  if (rc >= 0)
    rc = H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  if (rc >= 0)
    rc = select_part(p, rows, fspace, mspace);
  hid_t set = rc >= 0 ? H5Dcreate2(loc, name, mtype, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT)
                      : H5I_INVALID_HID;
  if (set < 0)
    rc = -1;
  if (rc >= 0)
    rc = H5Dwrite(set, mtype, mspace, fspace, dxpl, data);
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot write dataset '%s' to '%s'", name, path) : DG_OK;
  if (set >= 0)
    H5Dclose(set);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (mspace >= 0)
    H5Sclose(mspace);
  if (fspace >= 0)
    H5Sclose(fspace);
  return err;
}

dg_error dg_h5part_read(const dg_h5part *p, hid_t set, hid_t mtype, int rows, void *data,
                        hid_t dxpl, const char *name, const char *path) {
  hsize_t mdims[1] = {(hsize_t)p->K * (hsize_t)rows};
  hid_t fspace = H5Dget_space(set);
  hid_t mspace = H5Screate_simple(1, mdims, NULL);
  herr_t rc = fspace >= 0 && mspace >= 0 ? select_part(p, rows, fspace, mspace) : -1;
  if (rc >= 0)
    rc = H5Dread(set, mtype, mspace, fspace, dxpl, data);
  dg_error err = rc < 0 ? DG_H5_RAISE(DG_ERR_INPUT, "cannot read dataset '%s' from '%s' (truncated?)",
                                      name, path)
                        : DG_OK;
  if (mspace >= 0)
    H5Sclose(mspace);
  if (fspace >= 0)
    H5Sclose(fspace);
  return err;
}

#endif
