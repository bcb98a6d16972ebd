#include "tuning/tuner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/hash.h"
#include "core/kernel_cache.h"
#include "core/log.h"
#include "operators/kernel_knobs.h"

#ifndef DGRUN_TUNING_DEFAULTS_DIR
#define DGRUN_TUNING_DEFAULTS_DIR "tuning/defaults"
#endif

/* ---- candidates --------------------------------------------------------- */

/* The space is a list of families, each a product of axes over the knob
 * table's keys, read through the table (dg_kernel_knob_parse: enum names,
 * true/false, integers): `a=1,2` gives knob a each value in turn, `a+b=1+0,2+1`
 * gives a and b values together, and one value fixes a knob for the family.
 * The first axis is the outermost loop, and the candidates keep the order of
 * the families and of their products (the order decides ties and the
 * shipped database was chosen over it: tuning.space_stable holds it).  A
 * candidate is the default on every knob a family does not name; a volume
 * candidate of cuda whose block would exceed 1,024 threads is left out, and
 * so is one its family's keep() refuses. */
enum { SPACE_LAYOUTS = 0, SPACE_VOLUME = 1, SPACE_FACE = 2 };
enum { CPU = 1, CUDA = 2 };

typedef struct family {
  int backends;  /* CPU | CUDA */
  int modes;     /* DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL */
  int min_np;    /* from this element size on */
  int list;      /* SPACE_* */
  const char *axes;
  int (*keep)(const dg_kernel_config *c, int Np);
} family;

/* A padded stride that equals the unpadded one is no candidate. */
static int pads(const dg_kernel_config *c, int Np) {
  return c->np_align == 1 || Np % c->np_align != 0;
}

/* The tensor-core kernel's gathers ahead, extra block, L2 prefetch and
 * early residual are searched with both fusions only. */
static int tweaks_fused(const dg_kernel_config *c, int Np) {
  (void)Np;
  return (c->fuse_surface && c->fuse_update) ||
         !(c->gather_ahead || c->mma_extra_blocks || c->l2_prefetch || c->early_residual);
}

#define TILES "mma_rows+mma_pairs=8+0,16+0,8+1"
#define TILES16 "mma_rows+mma_pairs=16+0,8+1"
#define MMA_FUSED "work_mode=mma elements_per_block=8 fuse_update=1 fuse_surface=1 "
#define MATRICES "matrices=global,constant,shared"

static const family families[] = {
    /* layouts: field-major unpadded, padded to 4 (32-byte rows in double);
     * element-major only in full mode (it strides the face gathers) */
    {CPU | CUDA, DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL, 0, SPACE_LAYOUTS, "np_align=1,4", pads},
    {CPU | CUDA, DG_KNOB_TUNED_FULL, 0, SPACE_LAYOUTS, "layout=element-major", NULL},
    /* cpu: elements per chunk of the OpenMP loop (0: automatic) */
    {CPU, DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL, 0, SPACE_VOLUME, "cpu_chunk=0,4,16,64,256",
     NULL},
    {CPU, DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL, 0, SPACE_FACE, "face_threads=256", NULL},
    /* full mode: gemm, whole warps of elements for its products (lane =
     * element) */
    {CUDA, DG_KNOB_TUNED_FULL, 0, SPACE_VOLUME,
     "fuse_surface=1,0 fuse_update=1,0 elements_per_block=1,2,4,8,16,32 " MATRICES
     " work_mode=gemm", NULL},
    /* mma: whole tiles of 8 elements, global matrices (its fragment table),
     * 8- and 16-row tiles and pairs of sources on 16 rows against 8-row
     * operator tiles */
    {CUDA, DG_KNOB_TUNED_FULL, 0, SPACE_VOLUME,
     "work_mode=mma " TILES " fuse_surface=1,0 fuse_update=1,0 elements_per_block=8,16,32 "
     "gather_ahead=0,1 mma_extra_blocks=0,1 l2_prefetch=0,1 early_residual=0,1", tweaks_fused},
    /* mma in two passes (see auto mode) */
    {CUDA, DG_KNOB_TUNED_FULL, 0, SPACE_VOLUME,
     "work_mode=mma fuse_update=1 fuse_surface=1 l2_prefetch=1 volume_passes=2 " TILES16
     " elements_per_block=8,16,32 mma_extra_blocks=0,1", NULL},
    /* the node-per-thread slicings */
    {CUDA, DG_KNOB_TUNED_FULL, 0, SPACE_VOLUME,
     "fuse_surface=1,0 fuse_update=1,0 elements_per_block=1,2,4,8,16 " MATRICES
     " prefetch=0,1 work_mode+work_per_thread=parallel+1,inline+2,sequence+2,inline+4,"
     "sequence+4", NULL},
    /* the fused kernel's other unroll factors, node-major shared layout
     * and face traces gathered ahead, one at a time */
    {CUDA, DG_KNOB_TUNED_FULL, 0, SPACE_VOLUME,
     "fuse_update=1 fuse_surface=1 unroll+vector_loads+gather_ahead=1+0+0,2+0+0,8+0+0,4+1+0,"
     "4+0+1 elements_per_block=1,2,4,8,16 " MATRICES
     " work_mode+work_per_thread=parallel+1,inline+2,inline+4,sequence+2,sequence+4", NULL},
    /* auto: fused update, global matrices (column-major reads are
     * coalesced and L1-resident), 1..8 elements per block; separate
     * surface kernel with and without prefetch, or the fused surface; one
     * or 2/4 elements per thread inline; shared matrices and sequence mode
     * for the middle sizes only */
    {CUDA, DG_KNOB_TUNED_AUTO, 0, SPACE_VOLUME,
     "fuse_update=1 elements_per_block=1,2,4,8 work_mode+work_per_thread+prefetch+fuse_surface="
     "parallel+1+0+0,parallel+1+1+0,inline+2+1+0,parallel+1+0+1,inline+2+0+1,inline+4+0+1",
     NULL},
    /* 16 elements per block with the fused surface: more face fluxes per
     * block to hide their gathers (the candidates compile side by side) */
    {CUDA, DG_KNOB_TUNED_AUTO, 0, SPACE_VOLUME,
     "fuse_update=1 fuse_surface=1 elements_per_block=16 "
     "work_mode+work_per_thread=parallel+1,inline+2", NULL},
    /* the fused kernels with their face traces gathered ahead (more
     * gathers in flight where few warps share an SM) */
    {CUDA, DG_KNOB_TUNED_AUTO, 0, SPACE_VOLUME,
     "fuse_update=1 fuse_surface=1 gather_ahead=1 elements_per_block=1,2,4,8 "
     "work_mode+work_per_thread=parallel+1,inline+2,inline+4", NULL},
    {CUDA, DG_KNOB_TUNED_AUTO, 0, SPACE_VOLUME,
     "fuse_update=1 fuse_surface=1 gather_ahead=1 elements_per_block=16 "
     "work_mode+work_per_thread=parallel+1,inline+2", NULL},
    /* unroll 1, 2, 8 and the node-major shared layout (vector_loads) are
     * full-mode candidates only: each lost to the default at Euler 3D
     * N = 1, 3, 5 and Maxwell 3D N = 3 on the H100 (tuning/RESULTS.md), and
     * every candidate costs auto mode's 60 s budget a compile */
    {CUDA, DG_KNOB_TUNED_AUTO, 0, SPACE_VOLUME,
     "fuse_update=1 fuse_surface=1 matrices=shared elements_per_block=2,4 "
     "work_mode+work_per_thread=parallel+1,sequence+2", NULL},
    /* gemm is in full mode only: on the H100 it lost to the node-per-thread
     * kernels at N = 1, 3, 5 (Euler and Maxwell 3D, tuning/RESULTS.md), and
     * each candidate costs auto mode's 60 s budget a compile.  mma (tensor
     * cores; float takes the 16-row tiles and the pairs, as split TF32, and
     * refuses the 8-row ones at generation, before any compile): the fused
     * kernel with 8- and 16-row tiles and with pairs, traces gathered ahead
     * or not, from Np >= 20 on (tetrahedra N >= 3), and beside dg_surface
     * from Np >= 35 (8 rows; in float with 16).  The fused ones also ask
     * the compiler for one more resident block than the generator's
     * estimate (H100, Maxwell: won at N = 4 and 5 in double and at N = 3 in
     * float with pairs, lost at N = 3 in double: 0.271 -> 0.284 ms), and
     * prefetch their state and residual into L2 or not (won at N = 3..5,
     * lost at N = 6 and in float at N = 5), and load the residual early
     * or not (Maxwell: won at N = 3, 4 in double with 8-row tiles, lost
     * at N = 5, 6 with 16-row ones, tied in float with pairs at N = 4) */
    {CUDA, DG_KNOB_TUNED_AUTO, 20, SPACE_VOLUME,
     MMA_FUSED TILES " gather_ahead=0,1 mma_extra_blocks=0,1 l2_prefetch=0,1 early_residual=0,1",
     NULL},
    {CUDA, DG_KNOB_TUNED_AUTO, 35, SPACE_VOLUME,
     "work_mode=mma elements_per_block=8 fuse_update=1 fuse_surface=0 mma_rows=8,16", NULL},
    /* and from Np >= 35 on, half the threads with the per-node phases in two
     * passes (16-row tiles and pairs, the prefetch on): won in float at N =
     * 5..7 on the H100 (Maxwell 0.485 -> 0.460, 1.172 -> 1.065, 1.606 ->
     * 1.450 ms), lost in double everywhere */
    {CUDA, DG_KNOB_TUNED_AUTO, 35, SPACE_VOLUME,
     MMA_FUSED "l2_prefetch=1 volume_passes=2 " TILES16 " mma_extra_blocks=0,1", NULL},
    /* both modes, from Np >= 20 on: the fused tensor-core kernel on
     * Bernstein-Bezier coefficients (basis bernstein: its derivatives are
     * sparse differences, only the lifts stay tensor-core products), every
     * tile shape, traces ahead and the L2 prefetch on, with and without one
     * more block, plain, with the early residual, or with the state staged
     * (also with the update's accesses streamed: stream_update).  An affine
     * physics only: the caller drops them for the others
     * (dg_tune_space_drop_bernstein). */
    {CUDA, DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL, 20, SPACE_VOLUME,
     MMA_FUSED "gather_ahead=1 l2_prefetch=1 basis=bernstein " TILES " mma_extra_blocks=0,1 "
     "early_residual+stage_state+stream_update=0+0+0,1+0+0,0+1+0,0+1+1", NULL},
    /* and with the state staged, half the threads in two passes (16-row
     * tiles, pairs): the shared memory and registers of two blocks per
     * multiprocessor at N = 6; with and without stream_update (H100, Maxwell
     * fp64 N = 6: 0.903 -> 0.875 ms with it) and local_traces (chosen at N =
     * 7 in double, 1.439 -> 1.409 ms, tuning/RESULTS.md; it lost in one pass,
     * whose state then stays in registers across the face fluxes: N = 4
     * 0.376 -> 0.409 ms), with and without the L2 prefetch (without it,
     * with strided_k: Maxwell fp64 N = 7 1.286 -> 1.217 ms) */
    {CUDA, DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL, 20, SPACE_VOLUME,
     MMA_FUSED "basis=bernstein stage_state=1 volume_passes=2 " TILES16
     " stream_update=0,1 local_traces=0,1 l2_prefetch=0,1", NULL},
    {CUDA, DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL, 0, SPACE_FACE, "face_threads=128,256,512",
     NULL},
};
enum { NFAMILIES = sizeof families / sizeof families[0], MAX_AXES = 12, MAX_JOINT = 4,
       MAX_VALUES = 8 };

typedef struct axis {
  const dg_kernel_knob *knob[MAX_JOINT];
  int nknobs, nvalues;
  int v[MAX_VALUES][MAX_JOINT];
} axis;

/* A family's text is part of the program: a bad one is a bug, found by the
 * first space any test builds. */
static void bad_family(const char *axes, const char *what) {
  fprintf(stderr, "dgrun: internal error: tuner family \"%s\": %s\n", axes, what);
  abort();
}

/* "a+b=1+0,2+1" -> one axis; returns the text after it. */
static const char *parse_axis(const char *p, const char *axes, int mode, axis *a) {
  char word[256];
  size_t n = strcspn(p, " ");
  if (n >= sizeof word)
    bad_family(axes, "axis too long");
  memcpy(word, p, n);
  word[n] = '\0';
  char *eq = strchr(word, '=');
  if (!eq)
    bad_family(axes, "axis without '='");
  *eq = '\0';
  memset(a, 0, sizeof *a);
  for (char *k = word; k;) {
    char *plus = strchr(k, '+');
    if (plus)
      *plus = '\0';
    if (a->nknobs == MAX_JOINT || !(a->knob[a->nknobs] = dg_kernel_knob_find(k)))
      bad_family(axes, "unknown knob or too many joined");
    a->nknobs++;
    k = plus ? plus + 1 : NULL;
  }
  for (char *s = eq + 1; *s; a->nvalues++) {
    if (a->nvalues == MAX_VALUES)
      bad_family(axes, "too many values");
    for (int j = 0; j < a->nknobs; j++) {
      char val[64];
      size_t m = strcspn(s, j + 1 < a->nknobs ? "+" : ",");
      if (m == 0 || m >= sizeof val)
        bad_family(axes, "a value missing");
      memcpy(val, s, m);
      val[m] = '\0';
      if (dg_kernel_knob_parse(a->knob[j], val, &a->v[a->nvalues][j]) != DG_OK)
        bad_family(axes, "a value the knob does not take");
      /* the table says which knobs the space varies (its help and the
       * database's reader rely on it) */
      if (a->v[a->nvalues][j] != a->knob[j]->def && !(a->knob[j]->tuned & mode))
        bad_family(axes, "a knob its row does not mark as tuned in this mode");
      s += m;
      if (*s)
        s++;
    }
  }
  return p + n + (p[n] == ' ');
}

static int parse_family(const family *f, int mode, axis *ax) {
  int n = 0;
  for (const char *p = f->axes; *p; n++) {
    if (n == MAX_AXES)
      bad_family(f->axes, "too many axes");
    p = parse_axis(p, f->axes, mode, &ax[n]);
  }
  return n;
}

/* Every candidate of the family in order, appended to list (room for the
 * whole product). */
static void enumerate(const family *f, const axis *ax, int nax, int cuda, int Np,
                      dg_kernel_config *list, int *count) {
  int at[MAX_AXES] = {0};
  for (;;) {
    dg_kernel_config c = dg_kernel_config_default();
    for (int i = 0; i < nax; i++)
      for (int j = 0; j < ax[i].nknobs; j++)
        dg_kernel_knob_put(&c, ax[i].knob[j], ax[i].v[at[i]][j]);
    int fits = !(cuda && f->list == SPACE_VOLUME && (long)c.elements_per_block * Np > 1024);
    if (fits && (!f->keep || f->keep(&c, Np)))
      list[(*count)++] = c;
    int i = nax - 1;
    while (i >= 0 && ++at[i] == ax[i].nvalues)
      at[i--] = 0;
    if (i < 0)
      return;
  }
}

static int product(const axis *ax, int nax) {
  int n = 1;
  for (int i = 0; i < nax; i++)
    n *= ax[i].nvalues;
  return n;
}

dg_error dg_tune_space_create(int cuda, dg_tune_mode mode, int Np, int nfnfp,
                              dg_tune_space *out) {
  memset(out, 0, sizeof *out);
  (void)nfnfp;
  out->np = Np;
  int mflag = mode == DG_TUNE_FULL ? DG_KNOB_TUNED_FULL : DG_KNOB_TUNED_AUTO;
  axis(*ax)[MAX_AXES] = calloc(NFAMILIES, sizeof *ax);
  DG_CHECK(ax != NULL, DG_ERR_MEMORY, "out of memory");
  int nax[NFAMILIES] = {0}, cap[3] = {0};
  int use[NFAMILIES] = {0};
  for (int f = 0; f < NFAMILIES; f++) {
    const family *fa = &families[f];
    use[f] = (fa->backends & (cuda ? CUDA : CPU)) && (fa->modes & mflag) && Np >= fa->min_np;
    if (!use[f])
      continue;
    nax[f] = parse_family(fa, mflag, ax[f]);
    cap[fa->list] += product(ax[f], nax[f]);
  }
  dg_kernel_config *lists[3];
  int counts[3] = {0};
  for (int l = 0; l < 3; l++)
    lists[l] = calloc((size_t)(cap[l] ? cap[l] : 1), sizeof *lists[l]);
  out->face_threads = calloc((size_t)(cap[SPACE_FACE] ? cap[SPACE_FACE] : 1), sizeof(int));
  if (!lists[0] || !lists[1] || !lists[2] || !out->face_threads) {
    for (int l = 0; l < 3; l++)
      free(lists[l]);
    free(ax);
    dg_tune_space_free(out);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int f = 0; f < NFAMILIES; f++)
    if (use[f])
      enumerate(&families[f], ax[f], nax[f], cuda, Np, lists[families[f].list],
                &counts[families[f].list]);
  out->layouts = lists[SPACE_LAYOUTS];
  out->nlayouts = counts[SPACE_LAYOUTS];
  out->volume = lists[SPACE_VOLUME];
  out->nvolume = counts[SPACE_VOLUME];
  for (int i = 0; i < counts[SPACE_FACE]; i++)
    out->face_threads[out->nface++] = lists[SPACE_FACE][i].face_threads;
  free(lists[SPACE_FACE]);
  free(ax);
  return DG_OK;
}

void dg_tune_space_drop_bernstein(dg_tune_space *s) {
  int n = 0;
  for (int i = 0; i < s->nvolume; i++)
    if (!s->volume[i].basis)
      s->volume[n++] = s->volume[i];
  s->nvolume = n;
}

/* Why: on the H100 every Maxwell 3D entry from N = 3 to 7, double and
 * float, has been a Bernstein-Bezier variant since session 11 (sessions 11
 * to 13's fresh-cache sweeps, tuning/RESULTS.md), while the nodal
 * tensor-core candidates were 54 of auto mode's 134 at N = 7, whose
 * compiles and timings put the tuning run past its 60 s (61-67 s, session
 * 13).  Kept where no coefficient candidate exists (Np < 20). */
void dg_tune_space_drop_nodal_mma(dg_tune_space *s) {
  int n = 0, any_bb = 0;
  for (int i = 0; i < s->nvolume; i++)
    any_bb |= s->volume[i].basis && s->volume[i].work_mode == DG_WORK_MMA;
  for (int i = 0; i < s->nvolume; i++)
    if (!any_bb || s->volume[i].basis || s->volume[i].work_mode != DG_WORK_MMA)
      s->volume[n++] = s->volume[i];
  s->nvolume = n;
}

void dg_tune_space_free(dg_tune_space *s) {
  free(s->layouts);
  free(s->volume);
  free(s->face_threads);
  free(s->kin);
  memset(s, 0, sizeof *s);
}

void dg_tune_apply_layout(dg_kernel_config *c, const dg_kernel_config *l) {
  c->np_align = l->np_align;
  c->layout = l->layout;
}

void dg_tune_apply_volume(dg_kernel_config *c, const dg_kernel_config *v) {
  /* everything but the layout (chosen before) and the surface slicing (after) */
  dg_kernel_config keep = *c;
  *c = *v;
  c->np_align = keep.np_align;
  c->layout = keep.layout;
  c->face_threads = keep.face_threads;
}

/* ---- pruning ------------------------------------------------------------ */

int dg_tune_prune(const dg_kernel_attributes *a, unsigned threads, unsigned dynamic_shared,
                  const dg_device_info *info, char *why, size_t n) {
  if (a->local_bytes > DG_TUNE_MAX_LOCAL_BYTES) {
    snprintf(why, n, "spills: %d bytes of local memory per thread (> %d)", a->local_bytes,
             DG_TUNE_MAX_LOCAL_BYTES);
    return 1;
  }
  if (a->max_threads_per_block > 0 && threads > (unsigned)a->max_threads_per_block) {
    snprintf(why, n, "%u threads per block > %d allowed with %d registers", threads,
             a->max_threads_per_block, a->num_regs);
    return 1;
  }
  /* 64K 32-bit registers per SM on every GPU since Kepler */
  if ((long)a->num_regs * threads > 65536) {
    snprintf(why, n, "%d registers x %u threads exceed the register file", a->num_regs,
             threads);
    return 1;
  }
  int limit = info->max_shared_per_block_optin > 0 ? info->max_shared_per_block_optin
                                                    : info->max_shared_per_block;
  if (info->backend == DG_BACKEND_CUDA && limit > 0 &&
      (long)a->shared_bytes_static + dynamic_shared > limit) {
    snprintf(why, n, "%u + %d bytes of shared memory > %d", dynamic_shared,
             a->shared_bytes_static, limit);
    return 1;
  }
  return 0;
}

/* ---- search ------------------------------------------------------------- */

/* Layout and volume slicing are scored by the whole RHS (the volume knobs
 * include fusing the surface and the update away); the surface kernel's
 * threads by its own time. */
static double phase_score(int phase, const dg_tune_timing *t) {
  if (phase == 3)
    return t->surface_ms;
  return t->surface_ms + t->volume_ms + t->update_ms;
}

static dg_error add_row(dg_tune_result *r, int phase, const dg_kernel_config *c,
                        const dg_tune_timing *t) {
  dg_tune_row *rows = realloc(r->rows, (size_t)(r->nrows + 1) * sizeof *rows);
  DG_CHECK(rows, DG_ERR_MEMORY, "out of memory");
  r->rows = rows;
  dg_tune_row *row = &rows[r->nrows++];
  row->phase = phase;
  row->cfg = *c;
  row->t = *t;
  row->score_ms = t->status == 0 ? phase_score(phase, t) : 0;
  row->retime = 0;
  return DG_OK;
}

/* The re-timing of a phase's leaders.  Why: a candidate's score is the
 * median of a few repeats in one go, and on the H100 the same variant has
 * timed 10 % apart in two goes (Maxwell fp64 N = 6: chosen at 1.515 ms, the
 * sweep's benchmark of it then 1.670 ms, where another tuning's choice ran
 * 1.530 ms; tuning/RESULTS.md, session 9).  So the DG_TUNE_LEADERS best of a phase are
 * timed DG_TUNE_RETIMES more times, interleaved (A B C A B C: a slow spell
 * of the device hits every leader alike), and the choice is the least
 * median of each leader's timings. */
#define DG_TUNE_LEADERS 3
#define DG_TUNE_RETIMES 2

typedef struct leader {
  dg_kernel_config cfg;
  dg_tune_timing t[1 + DG_TUNE_RETIMES];
  double score[1 + DG_TUNE_RETIMES];
} leader;

/* Keeps lead[] (n of them) sorted by first score, the best DG_TUNE_LEADERS. */
static void add_leader(leader *lead, int *n, const dg_kernel_config *c, const dg_tune_timing *t,
                       double score) {
  if (*n == DG_TUNE_LEADERS && score >= lead[DG_TUNE_LEADERS - 1].score[0])
    return; /* not among the leaders */
  int at = *n < DG_TUNE_LEADERS ? (*n)++ : DG_TUNE_LEADERS - 1; /* full: the last goes */
  while (at > 0 && lead[at - 1].score[0] > score) {
    lead[at] = lead[at - 1];
    at--;
  }
  lead[at].cfg = *c;
  lead[at].t[0] = *t;
  lead[at].score[0] = score;
}

/* The median of three (the first timing and the re-timings). */
_Static_assert(DG_TUNE_RETIMES == 2, "median_of takes a leader's three timings");
static int median_of(const double *v) {
  int lo = v[0] <= v[1] ? 0 : 1, hi = 1 - lo;
  if (v[2] >= v[hi])
    return hi;
  return v[2] <= v[lo] ? lo : 2;
}

/* Time every candidate of a phase, re-time its leaders, keep the best in
 * *best (the previous phase's best, in *best_t, competes as a leader). */
static dg_error run_phase(int phase, const dg_kernel_config *cands, int n,
                          dg_kernel_config *best, dg_tune_timing *best_t,
                          dg_tune_measure_fn measure, void *ctx, dg_tune_result *r) {
  leader lead[DG_TUNE_LEADERS];
  int nlead = 0;
  if (best_t->status == 0)
    add_leader(lead, &nlead, best, best_t, phase_score(phase, best_t));
  for (int i = 0; i < n; i++) {
    dg_tune_timing t;
    memset(&t, 0, sizeof t);
    double cutoff = nlead ? 2.0 * lead[0].score[0] : 0;
    DG_CALL(measure(ctx, &cands[i], phase, cutoff, &t));
    DG_CALL(add_row(r, phase, &cands[i], &t));
    if (t.status == 0)
      add_leader(lead, &nlead, &cands[i], &t, phase_score(phase, &t));
  }
  DG_CHECK(nlead > 0, DG_ERR_UNSUPPORTED, "autotuner: no variant of phase %d could be timed",
           phase);
  int choice = 0;
  if (nlead > 1) {
    for (int k = 1; k <= DG_TUNE_RETIMES; k++)
      for (int l = 0; l < nlead; l++) {
        dg_tune_timing t;
        memset(&t, 0, sizeof t);
        DG_CALL(measure(ctx, &lead[l].cfg, phase, 0, &t));
        DG_CALL(add_row(r, phase, &lead[l].cfg, &t));
        r->rows[r->nrows - 1].retime = k;
        /* a leader that cannot be timed again (it could before) keeps its
         * first timing for this round */
        lead[l].t[k] = t.status == 0 ? t : lead[l].t[0];
        lead[l].score[k] = phase_score(phase, &lead[l].t[k]);
      }
    double bs = 0;
    for (int l = 0; l < nlead; l++) {
      double m = lead[l].score[median_of(lead[l].score)];
      if (l == 0 || m < bs) {
        bs = m;
        choice = l;
      }
    }
  }
  *best = lead[choice].cfg;
  *best_t = nlead > 1 ? lead[choice].t[median_of(lead[choice].score)] : lead[choice].t[0];
  return DG_OK;
}

/* The DG_TUNE_LEADERS best variants phase 2 timed (first timings), into
 * lead[]; only the tensor-core ones without strided_k if unstrided_mma. */
static int phase2_leaders(const dg_tune_result *r, int unstrided_mma, leader *lead) {
  int n = 0;
  for (int i = 0; i < r->nrows; i++) {
    const dg_tune_row *w = &r->rows[i];
    if (w->phase == 2 && !w->retime && w->t.status == 0 &&
        (!unstrided_mma || (w->cfg.work_mode == DG_WORK_MMA && !w->cfg.strided_k)))
      add_leader(lead, &n, &w->cfg, &w->t, w->score_ms);
  }
  return n;
}

/* The strided_k twins (operators/gen_gemm_plan.c: bank-conflict-free
 * fragment loads for more registers) of the DG_TUNE_LEADERS best tensor-core
 * variants that phase 2 timed, into twins[]; returns how many.  Why only
 * those: the knob won 8 % on the H100's best Maxwell fp64 N = 7 variant
 * and lost 5 % on Euler N = 3's (tuning/RESULTS.md), so it is worth a
 * timing on every leader, but twinning every tensor-core candidate would
 * double phase 2's compiles. */
static int strided_twins(const dg_tune_result *r, dg_kernel_config *twins) {
  leader lead[DG_TUNE_LEADERS];
  int n = phase2_leaders(r, 1, lead);
  for (int i = 0; i < n; i++) {
    twins[i] = lead[i].cfg;
    twins[i].strided_k = 1;
  }
  return n;
}

static int timed_before(const dg_tune_result *r, const dg_kernel_config *c) {
  for (int i = 0; i < r->nrows; i++)
    if (memcmp(&r->rows[i].cfg, c, sizeof *c) == 0)
      return 1;
  return 0;
}

/* Keeps twins[nt] if it is new: not timed before, not among twins[0..nt)
 * (two leaders apart only in local_traces have one overlay twin). */
static int keep_twin(const dg_tune_result *r, const dg_kernel_config *twins, int nt) {
  if (timed_before(r, &twins[nt]))
    return nt;
  for (int i = 0; i < nt; i++)
    if (memcmp(&twins[i], &twins[nt], sizeof twins[nt]) == 0)
      return nt;
  return nt + 1;
}

/* c with level 1 before the face fluxes, which take the staged state's
 * shared memory (overlay_state; they then read every trace from global
 * memory, so no local_traces). */
static dg_kernel_config overlaid(const dg_kernel_config *c) {
  dg_kernel_config o = *c;
  o.local_traces = 0;
  o.overlay_state = 1;
  return o;
}

/* The register twins of a variant, one of the DG_TUNE_LEADERS best that
 * phase 2 timed (the strided twins among them; room for 4 a leader).  Knobs
 * that trade registers for latency, whose sign
 * turns on the variant's register pressure: the residual loaded field by
 * field (batch_residual off; on: Maxwell fp64 N = 6 0.875 -> 0.833 ms, but
 * N = 7's 64-register pairs 1.217 -> 1.240), and for the two-pass
 * tensor-core kernel one more resident block (Maxwell float N = 6 0.654 ->
 * 0.600 ms, N = 7 0.782 -> 0.988; tuning/RESULTS.md, session 13); and for
 * a staged tensor-core kernel level 1 before the face fluxes, which then
 * take the state's shared memory (overlay_state: no level-1 values held
 * across the products; Maxwell fp64 N = 7 1.217 -> 1.136 ms, float N = 6
 * 0.541 -> 0.563, session 14), batched and not.  Twins
 * rather than candidates: each doubles the variants it applies to, and
 * auto mode's compiles are near its 60 s budget at N = 7.  Appends c's
 * twins to twins[nt..] and returns the new count. */
static int twins_of(const dg_kernel_config *c, const dg_tune_result *r, dg_kernel_config *twins,
                    int nt) {
  int unbatchable = c->fuse_update && c->batch_residual && !c->early_residual;
  if (unbatchable) {
    twins[nt] = *c;
    twins[nt].batch_residual = 0;
    nt = keep_twin(r, twins, nt);
  }
  if (c->work_mode == DG_WORK_MMA && c->fuse_surface && c->fuse_update &&
      c->volume_passes > 1 && c->mma_extra_blocks == 0) {
    twins[nt] = *c;
    twins[nt].mma_extra_blocks = 1;
    nt = keep_twin(r, twins, nt);
  }
  if (c->work_mode == DG_WORK_MMA && c->stage_state && c->fuse_surface && !c->overlay_state) {
    dg_kernel_config o = overlaid(c);
    twins[nt] = o;
    nt = keep_twin(r, twins, nt);
    if (unbatchable) { /* and unbatched: the registers it frees may pay for the
                        * residual's (Maxwell fp64 N = 7: 1.179 ms batched,
                        * 1.136 unbatched) */
      twins[nt] = o;
      twins[nt].batch_residual = 0;
      nt = keep_twin(r, twins, nt);
    }
  }
  return nt;
}

static int register_twins(const dg_tune_result *r, dg_kernel_config *twins) {
  leader lead[DG_TUNE_LEADERS];
  int n = phase2_leaders(r, 0, lead), nt = 0;
  for (int i = 0; i < n; i++)
    nt = twins_of(&lead[i].cfg, r, twins, nt);
  return nt;
}

/* The block twins of the DG_TUNE_LEADERS best variants after the register
 * round, into twins[]; returns how many.  Smaller blocks of the fused
 * tensor-core kernel:
 * - whole warps, about a quarter and a third of its NP x EPB per-node
 *   points (volume_warps ceil(NP x EPB / 128) and ceil(NP x EPB / 96); the
 *   last pass may be partly idle), as the leader is and, where it stages
 *   the state, with the face fluxes over it (overlay_state) and compact;
 * - an overlaid leader with compact_smem (the face fluxes element by
 *   element in rows of a bank-conflict-free stride, level 1's results
 *   unpadded), and its warps twins compact too.
 * Why: where the register file or shared memory held two of the two-pass
 * blocks, three or four of these fit, and their phases overlap (H100,
 * Maxwell fp64 N = 6: 336 threads in 2 blocks 0.819 ms, 7 warps in 3
 * blocks 0.770; float N = 6 0.543 -> 0.493 with 8 warps, N = 7 0.739 ->
 * 0.703 with 10, and 0.679 overlaid with 8 in 4 blocks; lost at N = 5
 * and in float at N = 4, 5); and a compact block leaves the multiprocessor
 * more L1 beside the same blocks where it crosses a carveout step (228 ->
 * 196 KiB of shared memory, 28 -> 60 KiB of L1; fp64 N = 6 in 3 blocks
 * 0.774 -> 0.703 ms, float N = 7 0.688 -> 0.635; never more than 2 %
 * slower; tuning/RESULTS.md, session 15).  And a leader on Bernstein
 * coefficients with the lift's all-zero tensor-core steps left out
 * (sparse_lift: fp64 N = 7 1.136 -> 1.069 ms with the shipped orders, N
 * = 6 0.701 -> 0.682, but float N = 7 0.642 -> 0.875; session 17).  Twins of the register round's
 * leaders, after it, so that they keep its choices; one round, so their
 * modules compile in one wave (at most 6 a leader). */
static int block_twins(const dg_tune_result *r, int np, dg_kernel_config *twins) {
  leader lead[DG_TUNE_LEADERS];
  int n = phase2_leaders(r, 0, lead), nt = 0;
  for (int i = 0; i < n; i++) {
    const dg_kernel_config *c = &lead[i].cfg;
    if (c->work_mode != DG_WORK_MMA || !c->fuse_surface || !c->fuse_update ||
        c->volume_warps || c->early_residual)
      continue;
    dg_kernel_config base[2] = {*c, *c};
    int nb = 1;
    if (c->overlay_state && !c->compact_smem) {
      base[0].compact_smem = 1;
      twins[nt] = base[0];
      nt = keep_twin(r, twins, nt);
    } else if (c->stage_state && !c->overlay_state) {
      base[1] = overlaid(c);
      base[1].compact_smem = 1;
      nb = 2;
    }
    if (c->basis && !c->sparse_lift) { /* the lift's zero steps left out */
      twins[nt] = *c;
      twins[nt].sparse_lift = 1;
      nt = keep_twin(r, twins, nt);
    }
    int points = np * c->elements_per_block, threads = points / c->volume_passes;
    int w[2] = {(points + 127) / 128, (points + 95) / 96};
    for (int b = 0; b < nb; b++)
      for (int k = 0; k < 2; k++) {
        if (w[k] < 2 || 32 * w[k] >= threads || (k == 1 && w[1] == w[0]))
          continue;
        twins[nt] = base[b];
        twins[nt].volume_passes = 1;
        twins[nt].volume_warps = w[k];
        nt = keep_twin(r, twins, nt);
      }
  }
  return nt;
}

/* The least phase-2 score of configuration c (1e300 where it was never
 * timed to the end). */
static double phase2_score(const dg_tune_result *r, const dg_kernel_config *c) {
  double s = 1e300;
  for (int i = 0; i < r->nrows; i++) {
    const dg_tune_row *w = &r->rows[i];
    if (w->phase == 2 && w->t.status == 0 && w->score_ms < s &&
        memcmp(&w->cfg, c, sizeof *c) == 0)
      s = w->score_ms;
  }
  return s;
}

/* The coefficient twins (at most 3, into twins[]; returns how many) of
 * the block round's winner on Bernstein-Bezier coefficients, for the
 * combination round (combination_twins):
 * - with sparse_lift, where a leader's sparse_lift twin beat its leader and
 *   the winner has none (another block twin won): both are twins of the
 *   same leaders, so where each wins on its own the search never times them
 *   together (Maxwell fp64 N = 6: the warps and compact twin 0.701 ms, the
 *   shipped entry combining it with sparse_lift 0.678; tuning/RESULTS.md,
 *   session 17);
 * - without the L2 prefetch, where the winner is a block twin (whole warps
 *   or compact) that carries it: phase 2 chose it for the two-pass
 *   leaders, but it costs the smaller, more numerous blocks (fp64 N = 6 as
 *   shipped 0.668 ms, with the prefetch 0.743-0.753; session 19);
 * - and both. */
static int coefficient_twins(const dg_tune_result *r, const dg_kernel_config *best,
                             dg_kernel_config *twins) {
  int pays = 0;
  for (int i = 0; i < r->nrows && !pays; i++) {
    const dg_tune_row *w = &r->rows[i];
    if (w->phase != 2 || w->t.status != 0 || !w->cfg.sparse_lift)
      continue;
    dg_kernel_config leader = w->cfg;
    leader.sparse_lift = 0;
    pays = phase2_score(r, &w->cfg) < phase2_score(r, &leader);
  }
  int block = best->volume_warps || best->compact_smem, nt = 0;
  int sparse = pays && !best->sparse_lift, unfetched = block && best->l2_prefetch;
  for (int k = 1; k < 4; k++) { /* bit 0: sparse_lift, bit 1: no L2 prefetch */
    if (((k & 1) && !sparse) || ((k & 2) && !unfetched))
      continue;
    twins[nt] = *best;
    twins[nt].sparse_lift |= k & 1;
    if (k & 2)
      twins[nt].l2_prefetch = 0;
    nt = keep_twin(r, twins, nt);
  }
  return nt;
}

/* The combination round (into twins[]; returns how many, at most 7, one
 * compile wave) of the block round's tensor-core winner: its coefficient
 * twins where it is on Bernstein-Bezier coefficients, then each of those
 * and the winner itself, nodal ones too, with the k-step loops fully
 * unrolled (mma_unroll).  Why last and of the final variant: unrolling
 * trades registers for fragment loads in flight, and its sign turns on
 * the variant's register pressure (H100, session 21, the shipped knobs:
 * Maxwell fp64 N = 7 1.03 -> 0.97 ms, float N = 7 0.578 -> 0.563, but
 * Euler fp64 N = 5 1.94 -> 2.05 with 104 bytes of spills, float N = 3
 * 0.41 -> 0.43). */
static int combination_twins(const dg_tune_result *r, const dg_kernel_config *best,
                             dg_kernel_config *twins) {
  if (best->work_mode != DG_WORK_MMA)
    return 0;
  int nt = best->basis ? coefficient_twins(r, best, twins) : 0;
  if (!best->mma_unroll)
    for (int i = -1, n = nt; i < n; i++) {
      twins[nt] = i < 0 ? *best : twins[i];
      twins[nt].mma_unroll = 1;
      nt = keep_twin(r, twins, nt);
    }
  return nt;
}

/* What the strided round prepares: its twins, and the register twins the
 * next round may ask for (those of phase 2's leaders and of the strided
 * twins), so both rounds' modules compile side by side in one wave, not
 * one after the other (the twins the second round does not ask for cost a
 * thread's compile each, of 16).  Returns how many it put in twins[] (at
 * most 8 DG_TUNE_LEADERS). */
static int prepared_twins(const dg_tune_result *r, const dg_kernel_config *strided, int ns,
                          dg_kernel_config *twins) {
  int n = 0;
  for (int i = 0; i < ns; i++)
    n = twins_of(&strided[i], r, twins, n);
  return n + register_twins(r, twins + n);
}

dg_error dg_tune_search(const dg_tune_space *sp, const dg_kernel_config *base,
                        dg_tune_measure_fn measure, dg_tune_prepare_fn prepare, void *ctx,
                        dg_tune_result *out) {
  memset(out, 0, sizeof *out);
  dg_error err = DG_OK;
  int nmax = sp->nlayouts > sp->nvolume ? sp->nlayouts : sp->nvolume;
  if (sp->nface > nmax)
    nmax = sp->nface;
  if (nmax < 9 * DG_TUNE_LEADERS)
    nmax = 9 * DG_TUNE_LEADERS; /* the twins: strided, register, both */
  if (nmax < sp->nkin)
    nmax = sp->nkin;
  dg_kernel_config *c = calloc((size_t)nmax + 1, sizeof *c);
  DG_CHECK(c, DG_ERR_MEMORY, "out of memory");
  dg_kernel_config best = *base;
  dg_tune_timing bt;
  memset(&bt, 0, sizeof bt);
  bt.status = 1; /* nothing timed yet */
  for (int i = 0; i < sp->nlayouts; i++) {
    c[i] = best;
    dg_tune_apply_layout(&c[i], &sp->layouts[i]);
  }
  DG_CALL_GOTO(err, fail, run_phase(1, c, sp->nlayouts, &best, &bt, measure, ctx, out));
  for (int i = 0; i < sp->nvolume; i++) {
    c[i] = best;
    dg_tune_apply_volume(&c[i], &sp->volume[i]);
  }
  DG_CALL_GOTO(err, fail, run_phase(2, c, sp->nvolume, &best, &bt, measure, ctx, out));
  int ntwin = strided_twins(out, c);
  if (ntwin) {
    if (prepare) {
      int np = prepared_twins(out, c, ntwin, c + ntwin);
      prepare(ctx, c, ntwin + np);
    }
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = register_twins(out, c);
  if (ntwin) {
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = block_twins(out, sp->np, c);
  if (ntwin) {
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = combination_twins(out, &best, c);
  if (ntwin) { /* at most 7 more compiles, in one wave */
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = 0;
  for (int i = 0; i < sp->nkin; i++) { /* other models' choices, whole */
    c[ntwin] = sp->kin[i];
    ntwin = keep_twin(out, c, ntwin);
  }
  if (ntwin) {
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  for (int i = 0; i < sp->nface; i++) {
    c[i] = best;
    c[i].face_threads = sp->face_threads[i];
  }
  DG_CALL_GOTO(err, fail, run_phase(3, c, sp->nface, &best, &bt, measure, ctx, out));
  out->best = best;
  out->rhs_ms = bt.surface_ms + bt.volume_ms + bt.update_ms;
  free(c);
  return DG_OK;
fail:
  free(c);
  dg_tune_result_free(out);
  return err;
}

void dg_tune_result_free(dg_tune_result *r) {
  free(r->rows);
  memset(r, 0, sizeof *r);
}


void dg_tune_print(FILE *f, const dg_tune_result *r) {
  static const char *phases[] = {"", "layout", "volume", "surface"};
  static const char *status[] = {"", "pruned", "stopped", "illegal"};
  fprintf(f, "%-7s %-96s %9s %9s %9s %9s\n", "phase", "variant", "surf ms", "vol ms",
          "upd ms", "score");
  for (int i = 0; i < r->nrows; i++) {
    const dg_tune_row *w = &r->rows[i];
    char cs[DG_KERNEL_CONFIG_TEXT];
    dg_kernel_config_describe(&w->cfg, cs, sizeof cs);
    const char *ph = w->retime ? "again" : phases[w->phase]; /* a leader re-timed */
    if (w->t.status == 0)
      fprintf(f, "%-7s %-96s %9.4f %9.4f %9.4f %9.4f\n", ph, cs, w->t.surface_ms,
              w->t.volume_ms, w->t.update_ms, w->score_ms);
    else
      fprintf(f, "%-7s %-96s %s: %s\n", ph, cs, status[w->t.status], w->t.why);
  }
  char cs[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&r->best, cs, sizeof cs);
  fprintf(f, "chosen: %s  (RHS %.4f ms)\n", cs, r->rhs_ms);
}

/* ---- keys and the database ---------------------------------------------- */

void dg_tune_key_make(const dg_device_info *info, const char *op_digest, int dim, int N,
                      int ncomp, int is_float, dg_tune_key *k) {
  memset(k, 0, sizeof *k);
  snprintf(k->device_model, sizeof k->device_model, "%s|cc%d%d|%s", info->name,
           info->cc_major, info->cc_minor, info->backend_name);
  snprintf(k->device, sizeof k->device, "%s|drv%d|%s", k->device_model, info->driver_version,
           info->compiler_identity);
  snprintf(k->op, sizeof k->op, "%.32s|dim%d|N%d|nc%d|%s|gen%d", op_digest, dim, N, ncomp,
           is_float ? "float" : "double", dg_codegen_version());
}

static char *entry_path(const char *dir, const dg_tune_key *k) {
  dg_hash h;
  dg_hash_init(&h);
  dg_hash_update_field(&h, k->device_model);
  dg_hash_update_field(&h, k->op);
  unsigned char d[DG_HASH_SIZE];
  dg_hash_final(&h, d);
  char name[2 * DG_HASH_SIZE + 8];
  dg_hash_hex(d, 16, name);
  strcat(name, ".tune");
  return dg_fsutil_join(dir, name);
}

static const char *MAGIC = "dgrun-tuning 1\n";

/* Copy the rest of the line at *p (after "name ") into out; advance *p past
 * the newline.  0 when the line does not start with name. */
static int take_line(const char **p, const char *name, char *out, size_t n) {
  size_t l = strlen(name);
  if (strncmp(*p, name, l) != 0 || (*p)[l] != ' ')
    return 0;
  const char *v = *p + l + 1, *e = strchr(v, '\n');
  if (!e || (size_t)(e - v) >= n)
    return 0;
  memcpy(out, v, (size_t)(e - v));
  out[e - v] = '\0';
  *p = e + 1;
  return 1;
}

/* The identity lines of an entry. */
typedef struct entry_id {
  char dev[700], model[400], op[200];
} entry_id;

/* Parse one entry's lines; 0 on success, -1 when damaged.  After device,
 * model and op, one line per knob (operators/kernel_knobs.h, in any order;
 * knobs absent keep their defaults), rhs_ms, end. */
static int parse_fields(const char *text, entry_id *id, dg_kernel_config *c, double *ms) {
  size_t ml = strlen(MAGIC);
  if (strncmp(text, MAGIC, ml) != 0)
    return -1;
  const char *p = text + ml;
  char val[64];
  if (!take_line(&p, "device", id->dev, sizeof id->dev) ||
      !take_line(&p, "model", id->model, sizeof id->model) ||
      !take_line(&p, "op", id->op, sizeof id->op))
    return -1;
  *c = dg_kernel_config_default();
  for (;;) {
    char name[64];
    size_t l = strcspn(p, " \n");
    if (l == 0 || l >= sizeof name || p[l] != ' ')
      return -1;
    memcpy(name, p, l);
    name[l] = '\0';
    if (!take_line(&p, name, val, sizeof val))
      return -1;
    if (strcmp(name, "rhs_ms") == 0) {
      char *e = NULL;
      *ms = strtod(val, &e);
      if (e == val || *e != '\0')
        return -1;
      break;
    }
    const dg_kernel_knob *kn = dg_kernel_knob_find(name);
    int v = 0;
    if (!kn || dg_kernel_knob_parse(kn, val, &v) != DG_OK) {
      dg_error_clear();
      return -1;
    }
    dg_kernel_knob_put(c, kn, v);
  }
  if (strcmp(p, "end\n") != 0)
    return -1;
  if (dg_kernel_config_check(c, 1) != DG_OK) {
    dg_error_clear();
    return -1;
  }
  return 0;
}

/* Read and parse the entry at path: 0 on success, -1 when damaged, -2 when
 * it cannot be read (a missing entry). */
static int read_entry(const char *path, entry_id *id, dg_kernel_config *c, double *ms) {
  void *data = NULL;
  size_t n = 0;
  if (dg_fsutil_read_file(path, &data, &n) != DG_OK) {
    dg_error_clear();
    return -2;
  }
  /* dg_fsutil_read_file ends the text with a '\0'; one inside is damage */
  int rc = memchr(data, '\0', n) ? -1 : parse_fields(data, id, c, ms);
  free(data);
  return rc;
}

/* The "|cc90|cuda" end of a device model (name|cc|backend). */
static const char *model_family(const char *model) {
  const char *bar = strchr(model, '|');
  return bar ? bar : model;
}

dg_error dg_tune_db_kin(const char *dir, const dg_tune_key *k, dg_tune_space *s) {
  free(s->kin);
  s->kin = NULL;
  s->nkin = 0;
  char **names = NULL;
  int n = 0;
  DG_CALL(dg_fsutil_list(dir, ".tune", &names, &n));
  /* the fastest recorded first; one slot more for the insertion */
  struct {
    dg_kernel_config cfg;
    double ms;
  } kin[DG_TUNE_KIN_MAX + 1];
  int nk = 0;
  /* the name is a hash of model and op, so every file is read: a folder of
   * a few dozen small entries */
  for (int i = 0; i < n; i++) {
    char *path = dg_fsutil_join(dir, names[i]);
    entry_id id;
    dg_kernel_config c;
    double ms = 0;
    int ok = path && read_entry(path, &id, &c, &ms) == 0 && strcmp(id.op, k->op) == 0 &&
             strcmp(id.model, k->device_model) != 0 &&
             strcmp(model_family(id.model), model_family(k->device_model)) == 0;
    free(path);
    if (!ok)
      continue;
    int at = nk;
    while (at > 0 && kin[at - 1].ms > ms)
      at--;
    if (at == DG_TUNE_KIN_MAX)
      continue;
    memmove(&kin[at + 1], &kin[at], (size_t)(nk - at) * sizeof kin[0]);
    kin[at].cfg = c;
    kin[at].ms = ms;
    if (nk < DG_TUNE_KIN_MAX)
      nk++;
  }
  dg_fsutil_free_names(names, n);
  if (nk) {
    s->kin = malloc((size_t)nk * sizeof *s->kin);
    DG_CHECK(s->kin, DG_ERR_MEMORY, "out of memory");
    for (int i = 0; i < nk; i++)
      s->kin[i] = kin[i].cfg;
    s->nkin = nk;
  }
  return DG_OK;
}

dg_error dg_tune_db_get(const char *dir, const dg_tune_key *k, int model_only,
                        dg_kernel_config *cfg, double *rhs_ms, int *found) {
  *found = 0;
  char *path = entry_path(dir, k);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  entry_id id;
  dg_kernel_config c;
  double ms = 0;
  int rc = read_entry(path, &id, &c, &ms);
  if (rc == -1)
    dg_warn("tuning database entry %s is corrupt: ignored (it is rewritten after tuning)",
            path);
  free(path);
  /* another key with the same digest prefix is not ours; a local entry of
   * another driver or compiler is tuned again */
  if (rc == 0 && strcmp(id.model, k->device_model) == 0 && strcmp(id.op, k->op) == 0 &&
      (model_only || strcmp(id.dev, k->device) == 0)) {
    *found = 1;
    *cfg = c;
    if (rhs_ms)
      *rhs_ms = ms;
  }
  return DG_OK;
}

dg_error dg_tune_db_put(const char *dir, const dg_tune_key *k, const dg_kernel_config *c,
                        double rhs_ms) {
  DG_CALL(dg_fsutil_mkdir_p(dir, 0755));
  char buf[2048];
  int n = snprintf(buf, sizeof buf, "%sdevice %s\nmodel %s\nop %s\n", MAGIC, k->device,
                   k->device_model, k->op);
  for (int i = 0; i < dg_kernel_nknobs && n > 0 && (size_t)n < sizeof buf; i++) {
    char v[64];
    dg_kernel_knob_text(c, &dg_kernel_knobs[i], 0, v, sizeof v);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "%s %s\n", dg_kernel_knobs[i].key, v);
  }
  if (n > 0 && (size_t)n < sizeof buf)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "rhs_ms %.6f\nend\n", rhs_ms);
  DG_CHECK(n > 0 && (size_t)n < sizeof buf, DG_ERR_INTERNAL, "tuning entry too long");
  char *path = entry_path(dir, k);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_write_atomic(path, buf, (size_t)n, 0644);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_tune_db_default_dir(char **dir) {
  char *cache = NULL;
  DG_CALL(dg_kernel_cache_default_dir(&cache));
  *dir = dg_fsutil_join(cache, "tuning");
  free(cache);
  DG_CHECK(*dir, DG_ERR_MEMORY, "out of memory");
  return DG_OK;
}

const char *dg_tune_defaults_dir(void) {
  const char *env = getenv("DGRUN_TUNING_DEFAULTS");
  return env && *env ? env : DGRUN_TUNING_DEFAULTS_DIR;
}
