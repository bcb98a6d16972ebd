#include "tuning/tune_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/kernel_knobs.h"

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

void dg_tune_space_drop_viscous(dg_tune_space *s) {
  int n = 0;
  for (int i = 0; i < s->nlayouts; i++)
    if (s->layouts[i].layout == DG_LAYOUT_FIELD_MAJOR)
      s->layouts[n++] = s->layouts[i];
  s->nlayouts = n;
  n = 0;
  for (int i = 0; i < s->nvolume; i++)
    if (!s->volume[i].gather_ahead && !s->volume[i].local_traces)
      s->volume[n++] = s->volume[i];
  s->nvolume = n;
  n = 0;
  for (int i = 0; i < s->nkin; i++)
    if (s->kin[i].layout == DG_LAYOUT_FIELD_MAJOR && !s->kin[i].gather_ahead &&
        !s->kin[i].local_traces)
      s->kin[n++] = s->kin[i];
  s->nkin = n;
}

void dg_tune_space_drop_curved(dg_tune_space *s) {
  dg_tune_space_drop_bernstein(s);
  int n = 0;
  for (int i = 0; i < s->nvolume; i++)
    if (!s->volume[i].fuse_surface)
      s->volume[n++] = s->volume[i];
  s->nvolume = n;
  n = 0;
  for (int i = 0; i < s->nkin; i++)
    if (!s->kin[i].fuse_surface)
      s->kin[n++] = s->kin[i];
  s->nkin = n;
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
