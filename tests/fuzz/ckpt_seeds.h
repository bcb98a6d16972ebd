/* The checkpoints of the checkpoint fuzzer's seed corpus (corpus_ckpt/,
 * written by make_ckpt_seeds) and the identities fuzz_checkpoint reads them
 * with: a 2D double state of one field, a 3D float state of three. */
#ifndef DG_TESTS_FUZZ_CKPT_SEEDS_H
#define DG_TESTS_FUZZ_CKPT_SEEDS_H

#include <stdint.h>

#include "problems/io/checkpoint.h"

enum { DG_CKPT_SEED_MAX_FIELDS = 3, DG_CKPT_SEED_COUNT = 2 };

typedef struct dg_ckpt_seed {
  const char *file;
  int dim, N, Np;
  int64_t K;
  int real_size, nfields;
  const char *names[DG_CKPT_SEED_MAX_FIELDS];
  const char *order;
  uint64_t mesh_hash;
} dg_ckpt_seed;

static const dg_ckpt_seed dg_ckpt_seeds[DG_CKPT_SEED_COUNT] = {
    {"tri_double.h5", 2, 1, 3, 18, 8, 1, {"u", NULL, NULL}, "hilbert", 0x1234},
    {"tet_float.h5", 3, 2, 10, 6, 4, 3, {"Ex", "Ey", "Ez"}, "input", 0xabcd},
};

static inline dg_checkpoint_info dg_ckpt_seed_info(const dg_ckpt_seed *s) {
  dg_checkpoint_info in = {s->dim, s->N, s->Np, s->K, s->real_size, s->nfields,
                           s->names, "lserk4", "fuzz", s->order, 0.25, 0.01, 25,
                           s->mesh_hash, "fuzz mesh", NULL, NULL, 0, NULL, NULL, 0 /* dt_max */,
                           0, 1, 0 /* rk_dt_next, rk_err_prev, rk_rejected */};
  return in;
}

#endif
