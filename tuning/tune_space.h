/* The tuner's candidates: a list of families, each a product of axes over
 * the knob table (operators/kernel_knobs.h), per backend and mode; see
 * tuning/tuner.h for the search they feed. */
#ifndef DG_TUNING_TUNE_SPACE_H
#define DG_TUNING_TUNE_SPACE_H

#include "core/error.h"
#include "operators/codegen.h"

typedef enum { DG_TUNE_OFF = 0, DG_TUNE_AUTO = 1, DG_TUNE_FULL = 2 } dg_tune_mode;

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
 * mode): none of them has won there (tuning/tune_space.c says where). */
void dg_tune_space_drop_nodal_mma(dg_tune_space *s);
/* Drop the candidates second-order terms cannot take (a physics with
 * ngrad > 0): the lifted gradients share the state's trace offsets, so the
 * field-major layout only, and no trace forms that bypass them
 * (gather_ahead, local_traces; operators/codegen.c checks the same). */
void dg_tune_space_drop_viscous(dg_tune_space *s);
/* Drop the candidates the affine kernels of a mesh with curved elements
 * cannot take (issue 40): a fused surface (it runs over every element at
 * once, the curved ones are another module's) and Bernstein-Bezier
 * coefficients (one basis for the whole state; the curved kernels are
 * nodal).  The curved kernels' own candidates: problems/solver/autotune_curved.c. */
void dg_tune_space_drop_curved(dg_tune_space *s);
void dg_tune_space_free(dg_tune_space *s);

/* Apply the knobs of one phase's candidate to a configuration. */
void dg_tune_apply_layout(dg_kernel_config *c, const dg_kernel_config *layout);
void dg_tune_apply_volume(dg_kernel_config *c, const dg_kernel_config *volume);

#endif
