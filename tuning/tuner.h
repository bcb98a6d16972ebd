/* The autotuner: which kernel variants to try, which to reject before
 * timing, the search order, and the on-disk database of choices.
 *
 * The tuner does not launch anything itself (DESIGN.md: tuning/ asks
 * operators/ for the legal variants and core/ to time them): the caller
 * passes a measure callback that builds the variant, reads its attributes
 * (dg_tune_prune) and times it with device events.
 *
 * Search (the seed paper's order): 1. the data layout (np_align, field
 * interleaving) jointly for the operator set, scored by the summed time of
 * one right-hand side (surface + volume + update) under the base slicing;
 * 2. the volume kernel's slicing (elements per block, work per thread and
 * its mode, matrix placement, shared prefetch, fused update) under that
 * layout, scored by volume + update time; 3. the surface kernel's threads
 * per block, scored by its own time.  A candidate whose first timing is
 * already 2x the best of its phase is not timed further.  The three best of
 * a phase are then timed twice more, interleaved, and the least median of
 * their three timings wins (one go of a few repeats can be lucky).
 *
 * The cpu backend has one knob that matters, the elements per chunk of the
 * OpenMP loops (cpu_chunk); layout is searched as on cuda.  The loop order
 * inside an element is fixed by the generator (node loop outside, the
 * matrix row contiguous) so it is not a knob there. */
#ifndef DG_TUNING_TUNER_H
#define DG_TUNING_TUNER_H

#include <stdio.h>

#include "core/device.h"
#include "core/error.h"
#include "operators/codegen.h"

typedef enum { DG_TUNE_OFF = 0, DG_TUNE_AUTO = 1, DG_TUNE_FULL = 2 } dg_tune_mode;

/* ---- candidates --------------------------------------------------------- */

typedef struct dg_tune_space {
  dg_kernel_config *layouts; /* only np_align and layout matter */
  int nlayouts;
  dg_kernel_config *volume;  /* only the volume knobs matter */
  int nvolume;
  int *face_threads;
  int nface;
  int np; /* nodes of an element (the warps twins size blocks by it) */
  /* The shipped choices of other models of the same compute capability for
   * this operator (dg_tune_db_kin), timed whole after the combination
   * round: the staged search keeps one knob's best at a time, and a choice
   * that differs in several at once can escape it (session 22: the H100's
   * entry ran Maxwell fp64 N = 6 on the H200 in 0.591 ms, the H200's own
   * tuning chose 0.681 ms, three knobs apart).  Owned by the space. */
  dg_kernel_config *kin;
  int nkin;
} dg_tune_space;

/* The candidates for a backend (cuda: 1, cpu: 0) and an element size.
 * DG_TUNE_AUTO: a reduced set (a tuning run within a minute); FULL: all. */
dg_error dg_tune_space_create(int cuda, dg_tune_mode mode, int Np, int nfnfp,
                              dg_tune_space *out);
/* Drop the candidates on Bernstein-Bezier coefficients (basis bernstein):
 * for a physics that is not affine (operators/flux_affine.h). */
void dg_tune_space_drop_bernstein(dg_tune_space *s);
/* Drop the tensor-core candidates on nodal values where those on
 * Bernstein-Bezier coefficients stand in for them (an affine physics, auto
 * mode): none of them has won there (tuning/tuner.c says where). */
void dg_tune_space_drop_nodal_mma(dg_tune_space *s);
void dg_tune_space_free(dg_tune_space *s);

/* Apply the knobs of one phase's candidate to a configuration. */
void dg_tune_apply_layout(dg_kernel_config *c, const dg_kernel_config *layout);
void dg_tune_apply_volume(dg_kernel_config *c, const dg_kernel_config *volume);

/* ---- pruning ------------------------------------------------------------ */

/* Local memory a variant may use and still be timed.  Why not 0: the
 * tensor-core kernel at Euler 3D N = 5 (448-thread blocks, two per SM, so
 * 72 registers) keeps 40 bytes of its face-flux phase in local memory and
 * is the fastest variant there by far (2.12 ms against 2.98 ms for the best
 * one that does not spill, tuning/RESULTS.md); a few spilled words stay in
 * L1.  Heavier spills (the 128-152 bytes of its gather-ahead forms) go. */
#define DG_TUNE_MAX_LOCAL_BYTES 64

/* Whether a compiled variant may be timed: at most DG_TUNE_MAX_LOCAL_BYTES
 * of register spills (local memory), registers x threads within the SM's
 * file, threads within the kernel's limit, shared memory within the opt-in
 * limit.  why gets the reason when rejected (>= 96 chars). */
int dg_tune_prune(const dg_kernel_attributes *a, unsigned threads_per_block,
                  unsigned dynamic_shared, const dg_device_info *info, char *why,
                  size_t why_size);

/* ---- measuring ---------------------------------------------------------- */

typedef struct dg_tune_timing {
  double surface_ms, volume_ms, update_ms; /* medians */
  int status;     /* 0 timed, 1 pruned, 2 stopped (2x slower than the best), 3 illegal */
  char why[128];
} dg_tune_timing;

/* Build and time cfg.  cutoff_ms: stop after the first repeat when the
 * phase score already exceeds it (status 2).  Set status 1 / 3 with a reason
 * for variants that cannot be timed; return an error only for real failures. */
typedef dg_error (*dg_tune_measure_fn)(void *ctx, const dg_kernel_config *cfg, int phase,
                                       double cutoff_ms, dg_tune_timing *out);

/* One table row. */
typedef struct dg_tune_row {
  int phase; /* 1 layout, 2 volume slicing, 3 surface */
  int retime; /* 0: the candidate's first timing; k > 0: a leader's k-th re-timing */
  dg_kernel_config cfg;
  dg_tune_timing t;
  double score_ms;
} dg_tune_row;

typedef struct dg_tune_result {
  dg_kernel_config best;
  double rhs_ms; /* surface + volume + update of the best */
  dg_tune_row *rows;
  int nrows;
} dg_tune_result;

/* Make the given configurations quick to time (compile them side by side);
 * best effort, may be NULL. */
typedef void (*dg_tune_prepare_fn)(void *ctx, const dg_kernel_config *cfgs, int n);

/* Phase 1 the layouts, phase 2 the volume slicing, then the strided_k twins
 * of phase 2's best tensor-core variants, the register twins
 * (batch_residual off, one more block) of its best variants, their block
 * twins (whole warps, overlay, compact, sparse_lift) and the combination
 * twins of the winner (with sparse_lift where that won on a leader,
 * without the L2 prefetch where the winner is a block twin, both, and each
 * of those and the winner with the k-step loops fully unrolled; each
 * round timed as phase 2, prepared first), then the space's kin entries as
 * they are (phase 2), phase 3 the surface threads. */
dg_error dg_tune_search(const dg_tune_space *space, const dg_kernel_config *base,
                        dg_tune_measure_fn measure, dg_tune_prepare_fn prepare, void *ctx,
                        dg_tune_result *out);
void dg_tune_result_free(dg_tune_result *r);
/* The candidate table and the choice, human-readable. */
void dg_tune_print(FILE *f, const dg_tune_result *r);

/* ---- the database ------------------------------------------------------- */

/* A key: the device identity (name, compute capability, driver, compiler)
 * plus the operator identity (a digest of the problem's generated source
 * under the default knobs, which covers physics, dim, N, fields, precision
 * and generator version) and those fields in readable form. */
typedef struct dg_tune_key {
  char device[640];   /* "NVIDIA H100 80GB HBM3|cc90|drv12040|nvrtc 12.4 sm_90" */
  char device_model[360]; /* name + cc only: shipped defaults match on this */
  char op[128];       /* operator digest + "|dim3|N3|nc5|double|gen2" */
} dg_tune_key;

void dg_tune_key_make(const dg_device_info *info, const char *op_digest, int dim, int N,
                      int ncomp, int is_float, dg_tune_key *out);

/* Entries are files <dir>/<hex of the first 16 bytes of SHA-256 over the
 * device model and the operator>.tune (so a model's entries can be shipped
 * as they are), written atomically; the full device identity is checked
 * inside the entry unless match_model_only.  A missing
 * or unreadable/corrupt entry is "not found" (*found = 0) and will be
 * rewritten by the next put; a corrupt one is reported with dg_warn. */
dg_error dg_tune_db_get(const char *dir, const dg_tune_key *key, int match_model_only,
                        dg_kernel_config *cfg, double *rhs_ms, int *found);
dg_error dg_tune_db_put(const char *dir, const dg_tune_key *key, const dg_kernel_config *cfg,
                        double rhs_ms);
/* The entries in dir for key's operator on other device models of the same
 * compute capability and backend (another Hopper for an H200, say), at
 * most DG_TUNE_KIN_MAX, fastest recorded first, into space->kin (replacing
 * what was there).  Damaged entries are skipped, as dg_tune_db_get does. */
#define DG_TUNE_KIN_MAX 4
dg_error dg_tune_db_kin(const char *dir, const dg_tune_key *key, dg_tune_space *space);
/* The database folder next to the kernel cache (DGRUN_CACHE_DIR/tuning). */
dg_error dg_tune_db_default_dir(char **dir);
/* The shipped defaults folder of the source tree (tuning/defaults). */
const char *dg_tune_defaults_dir(void);

#endif
