#include "operators/kernel_knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KNOB(field) offsetof(dg_kernel_config, field)

/* Enum value names, in the order of the enums of codegen.h. */
static const char *const matrix_names[] = {"global", "constant", "shared", NULL};
static const char *const layout_names[] = {"field-major", "element-major", NULL};
static const char *const work_names[] = {"parallel", "sequence", "inline", "gemm", "mma", NULL};
static const char *const basis_names[] = {"nodal", "bernstein", NULL};

const char *dg_matrix_place_name(dg_matrix_place p) {
  return p >= 0 && p < 3 ? matrix_names[p] : "?";
}
const char *dg_field_layout_name(dg_field_layout l) {
  return l >= 0 && l < 2 ? layout_names[l] : "?";
}
const char *dg_work_mode_name(dg_work_mode m) {
  return (int)m >= 0 && (int)m < (int)DG_WORK_MODES ? work_names[m] : "?";
}

/* ---- where knobs apply (the rows' conditions) ---------------------------- */

static int is_gemm(const dg_kernel_config *c) {
  return c->work_mode == DG_WORK_GEMM || c->work_mode == DG_WORK_MMA;
}
static int node_slicing(const dg_kernel_config *c) {
  return c->work_mode == DG_WORK_SEQUENCE || c->work_mode == DG_WORK_INLINE;
}
static int not_gemm(const dg_kernel_config *c) { return !is_gemm(c); }
static int gemm(const dg_kernel_config *c) { return is_gemm(c); }
static int mma(const dg_kernel_config *c) { return c->work_mode == DG_WORK_MMA; }
static int fused_surface(const dg_kernel_config *c) { return c->fuse_surface; }
static int rows_8(const dg_kernel_config *c) { return c->mma_rows == 8; }
static int passes_divide(const dg_kernel_config *c) {
  return is_gemm(c) && c->elements_per_block % c->volume_passes == 0;
}
static int one_pass(const dg_kernel_config *c) { return is_gemm(c) && c->volume_passes == 1; }
static int own_residual(const dg_kernel_config *c) {
  return is_gemm(c) && c->fuse_update && c->volume_passes == 1 && !c->volume_warps;
}
static int bernstein_gemm(const dg_kernel_config *c) { return c->basis && is_gemm(c); }
static int gemm_fused_update(const dg_kernel_config *c) { return is_gemm(c) && c->fuse_update; }
static int staged_fused_surface(const dg_kernel_config *c) {
  return c->stage_state && c->fuse_surface;
}
static int overlay(const dg_kernel_config *c) {
  return mma(c) && c->stage_state && c->fuse_surface && !c->local_traces;
}
static int overlaid(const dg_kernel_config *c) { return c->overlay_state; }
static int bernstein_mma(const dg_kernel_config *c) {
  return mma(c) && c->basis;
}

/* ---- the table ------------------------------------------------------------ */

/* How to add a knob: its int (or int-sized enum) member in dg_kernel_config
 * (operators/codegen.h), one row here and the emitter code that reads it.
 * The row gives the cfg key and description abbreviation, the kind (int,
 * enum with its value names, bool), the default, the legal values (a range
 * lo..hi, optionally a multiple, or a set), where it applies (a predicate
 * over the other knobs; a non-default value elsewhere is an error naming
 * `needs` and the deps' values), whether the tuner's space varies it, and
 * the help line of problem.cfg's reference.  dg_kernel_config_default,
 * dg_kernel_config_check, the [backend] schema, --help-config, the tuning
 * database's lines and dg_kernel_config_describe follow from the row; a
 * knob the tuner searches also gets its values in a family of the space
 * (tuning/tune_space.c), and a rule across knobs that is no row's condition is
 * one small function in `rules` below.  Why this array and not an X-macro
 * list: the rows are data that other modules iterate (schema, database,
 * descriptions), and designated initializers name every field where it is
 * set.  The order is the order of problem.cfg's reference, of database
 * entries and of descriptions (the tuning database and the kernel headers
 * depend on it: append, do not reorder). */
/* clang-format off */
const dg_kernel_knob dg_kernel_knobs[] = {
    {.key = "elements_per_block", .abbrev = "epb", .kind = DG_KNOB_INT,
     .offset = KNOB(elements_per_block), .def = 4, .lo = 1, .hi = 64,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel: elements per thread block"},
    {.key = "face_threads", .abbrev = "ft", .kind = DG_KNOB_INT,
     .offset = KNOB(face_threads), .def = 256, .lo = 32, .hi = 1024, .multiple = 32,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .launch_only = 1,
     .help = "cuda surface kernel: threads per block"},
    {.key = "matrices", .abbrev = "mat", .kind = DG_KNOB_ENUM,
     .names = matrix_names, .offset = KNOB(matrices), .def = DG_MATRIX_GLOBAL,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "where the operator matrices live on the GPU"},
    {.key = "np_align", .abbrev = "align", .kind = DG_KNOB_INT,
     .offset = KNOB(np_align), .def = 1, .lo = 1, .hi = 128,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "pad the element stride to a multiple"},
    {.key = "layout", .abbrev = "layout", .kind = DG_KNOB_ENUM,
     .names = layout_names, .offset = KNOB(layout), .def = DG_LAYOUT_FIELD_MAJOR,
     .tuned = DG_KNOB_TUNED_FULL,
     .help = "state field interleaving"},
    {.key = "fuse_update", .abbrev = "fuse", .kind = DG_KNOB_BOOL,
     .offset = KNOB(fuse_update), .def = 0,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "volume kernel applies the Runge-Kutta update (saves a pass)"},
    {.key = "work_mode", .abbrev = "work", .kind = DG_KNOB_ENUM,
     .names = work_names, .offset = KNOB(work_mode), .def = DG_WORK_PARALLEL,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel: how a thread covers work_per_thread elements (gemm: the block's"
             " derivative and lifting products as one small matrix product; mma: the same on the "
             "tensor cores, fp64 steps in double, split TF32 in float, elements_per_block a "
             "multiple of 8)"},
    {.key = "work_per_thread", .abbrev = "wpt", .kind = DG_KNOB_INT,
     .offset = KNOB(work_per_thread), .def = 1, .lo = 1, .hi = 8,
     .applies = node_slicing,
     .needs = "needs work_mode sequence or inline (parallel is one element per thread, gemm and "
              "mma stage their own shared data)",
     .deps = {"work_mode"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel: elements per thread (1 with work_mode = parallel, gemm or mma)"},
    {.key = "prefetch", .abbrev = "pf", .kind = DG_KNOB_BOOL,
     .offset = KNOB(prefetch), .def = 0,
     .applies = not_gemm,
     .needs = "is a knob of work_mode parallel, inline and sequence (gemm and mma stage their own"
              " shared data)",
     .deps = {"work_mode"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel: stage state and face fluxes in shared memory first"},
    {.key = "fuse_surface", .abbrev = "fsurf", .kind = DG_KNOB_BOOL,
     .offset = KNOB(fuse_surface), .def = 0,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel computes the face fluxes itself (no surface kernel)"},
    {.key = "unroll", .abbrev = "unroll", .kind = DG_KNOB_INT,
     .offset = KNOB(unroll), .def = 4, .set = {1, 2, 4, 8},
     .tuned = DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (parallel, inline, sequence): unroll factor (1, 2, 4 or 8) of "
             "the derivative and lifting loops"},
    {.key = "vector_loads", .abbrev = "vec", .kind = DG_KNOB_BOOL,
     .offset = KNOB(vector_loads), .def = 0,
     .applies = not_gemm,
     .needs = "is a knob of work_mode parallel, inline and sequence (gemm and mma stage their own"
              " shared data)",
     .deps = {"work_mode"},
     .tuned = DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (parallel, inline, sequence): flux quantities node-major in "
             "shared memory, read two at a time"},
    {.key = "gather_ahead", .abbrev = "ga", .kind = DG_KNOB_BOOL,
     .offset = KNOB(gather_ahead), .def = 0,
     .applies = fused_surface,
     .needs = "shapes the face-flux loop of the fused surface: it needs fuse_surface = true",
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel with fuse_surface: load the traces of all the thread's face "
             "nodes before computing any face flux"},
    {.key = "mma_rows", .abbrev = "mrows", .kind = DG_KNOB_INT,
     .offset = KNOB(mma_rows), .def = 8, .set = {8, 16},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode mma): rows of the tensor-core tile, 8 (m8n8k4) or 16 "
             "(m16n8k4; in float split-TF32 m16n8k8: 16, or 8 with mma_pairs)"},
    {.key = "mma_pairs", .abbrev = "mpair", .kind = DG_KNOB_BOOL,
     .offset = KNOB(mma_pairs), .def = 0,
     .applies = rows_8,
     .needs = "puts two sources on the 16 rows of the tensor tile and the operator in tiles of 8 "
              "rows: it takes mma_rows = 8",
     .deps = {"mma_rows"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode mma, mma_rows 8): two sources of 8 elements on the 16"
             " rows of the tensor tile, the operator on its other side in tiles of 8 rows (the "
             "16-row steps' rate, 8-row padding; in float the split-TF32 m16n8k8)"},
    {.key = "volume_passes", .abbrev = "vpass", .kind = DG_KNOB_INT,
     .offset = KNOB(volume_passes), .def = 1, .set = {1, 2, 4},
     .applies = passes_divide,
     .needs = "is a knob of work_mode gemm and mma with elements_per_block a multiple of it (the "
              "block is NP x EPB / volume_passes threads)",
     .deps = {"work_mode", "elements_per_block"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode gemm or mma): the block has NP x elements_per_block /"
             " volume_passes threads, its per-node phases that many passes (1, 2 or 4: fewer "
             "threads, more registers each, more blocks per SM)"},
    {.key = "volume_warps", .abbrev = "vwarps", .kind = DG_KNOB_INT,
     .offset = KNOB(volume_warps), .def = 0, .lo = 0, .hi = 32,
     .applies = one_pass,
     .needs = "is a knob of work_mode gemm and mma with volume_passes 1 (it sets the passes "
              "itself)",
     .deps = {"work_mode", "volume_passes"},
     .help = "cuda volume kernel (work_mode gemm or mma, volume_passes 1): 0, or a block of this "
             "many warps whatever NP x elements_per_block is, its per-node phases as many passes "
             "as that takes, the last partly idle (a block size of which the register file may "
             "hold one more)"},
    {.key = "l2_prefetch", .abbrev = "l2pf", .kind = DG_KNOB_BOOL,
     .offset = KNOB(l2_prefetch), .def = 0,
     .applies = gemm,
     .needs = "is a knob of work_mode gemm and mma (one node a thread)",
     .deps = {"work_mode"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode gemm or mma): at its start, prefetch into L2 the "
             "state (and with fuse_update the residual) its nodes read after the face fluxes and "
             "the products"},
    {.key = "mma_extra_blocks", .abbrev = "mxb", .kind = DG_KNOB_INT,
     .offset = KNOB(mma_extra_blocks), .def = 0, .lo = 0, .hi = 4,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode mma): resident blocks per multiprocessor asked of the"
             " compiler beyond the generator's estimate (0..4; more blocks overlap more of the "
             "phases, with fewer registers a thread)"},
    {.key = "early_residual", .abbrev = "eres", .kind = DG_KNOB_BOOL,
     .offset = KNOB(early_residual), .def = 0,
     .applies = own_residual,
     .needs = "is a knob of work_mode gemm and mma with fuse_update and volume_passes 1, no "
              "volume_warps (the residual of the thread's one node)",
     .deps = {"work_mode", "fuse_update", "volume_passes", "volume_warps"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode gemm or mma, fuse_update, volume_passes 1): load each"
             " node's residual before the barrier ahead of the update, so its latency overlaps "
             "the wait for the block's slower warps"},
    {.key = "basis", .abbrev = "basis", .kind = DG_KNOB_ENUM,
     .names = basis_names, .offset = KNOB(basis), .def = 0,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "what the state holds per element: nodal values, or Bernstein-Bezier coefficients "
             "(affine physics only; the same solution, with sparse derivatives in work_mode gemm "
             "and mma)"},
    {.key = "stage_state", .abbrev = "sst", .kind = DG_KNOB_BOOL,
     .offset = KNOB(stage_state), .def = 0,
     .applies = bernstein_gemm,
     .needs = "is a knob of basis bernstein with work_mode gemm or mma (their level-1 "
              "differences)",
     .deps = {"basis", "work_mode"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (basis bernstein, work_mode gemm or mma): shared memory holds "
             "the state instead of the flux quantities, and the derivatives' first level "
             "evaluates the flux functions on the state's differences (less shared memory, more "
             "arithmetic)"},
    {.key = "stream_update", .abbrev = "stup", .kind = DG_KNOB_BOOL,
     .offset = KNOB(stream_update), .def = 0,
     .applies = gemm_fused_update,
     .needs = "is a knob of work_mode gemm and mma with fuse_update (the update's stores)",
     .deps = {"work_mode", "fuse_update"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (work_mode gemm or mma, fuse_update): the residual and the new "
             "state pass L2 evict-first and the state is read through the read-only path, so L2 "
             "keeps the state for the neighbouring blocks' face gathers"},
    {.key = "local_traces", .abbrev = "ltr", .kind = DG_KNOB_BOOL,
     .offset = KNOB(local_traces), .def = 0,
     .applies = staged_fused_surface,
     .needs = "is a knob of stage_state with fuse_surface (the face fluxes read the staged state)",
     .deps = {"stage_state", "fuse_surface"},
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .help = "cuda volume kernel (stage_state, fuse_surface): the state is staged before the face"
             " fluxes, which read the element's own traces, and those of neighbours in the same "
             "block, from shared memory"},
    {.key = "strided_k", .abbrev = "sk", .kind = DG_KNOB_BOOL,
     .offset = KNOB(strided_k), .def = 0,
     .applies = mma,
     .needs = "is a knob of work_mode mma (the order of the tensor-core k-steps)",
     .deps = {"work_mode"},
     .help = "cuda volume kernel (work_mode mma): each k-step of the tensor-core products reads "
             "source rows KW apart, not consecutive ones, so the fragment loads meet no "
             "shared-memory bank twice (more address arithmetic and registers)"},
    {.key = "batch_residual", .abbrev = "bres", .kind = DG_KNOB_BOOL,
     .offset = KNOB(batch_residual), .def = 1,
     .help = "volume kernel with fuse_update: load the node's whole residual before the first of "
             "its stores, so the loads are in flight together (off: each field's load waits "
             "behind the previous field's stores, with fewer registers)"},
    {.key = "overlay_state", .abbrev = "ovs", .kind = DG_KNOB_BOOL,
     .offset = KNOB(overlay_state), .def = 0,
     .applies = overlay,
     .needs = "is a knob of work_mode mma with stage_state and fuse_surface, without local_traces"
              " (the face fluxes overwrite the staged state, so they read every trace from global"
              " memory)",
     .deps = {"work_mode", "stage_state", "fuse_surface", "local_traces"},
     .help = "cuda volume kernel (work_mode mma, stage_state, fuse_surface, not local_traces): "
             "the derivatives' first level runs before the face fluxes, which then take the "
             "staged state's shared memory (less shared memory a block, and no first-level values"
             " held in registers across the products)"},
    {.key = "compact_smem", .abbrev = "csm", .kind = DG_KNOB_BOOL,
     .offset = KNOB(compact_smem), .def = 0,
     .applies = overlaid,
     .needs = "is a knob of overlay_state (the face fluxes and level 1's results of the "
              "Bernstein-Bezier tensor-core kernel), not without it",
     .help = "cuda volume kernel with overlay_state: the face fluxes element by element in rows "
             "of a bank-conflict-free stride, level 1's results unpadded (a smaller block, which "
             "may leave the multiprocessor more L1 cache beside the same resident blocks)"},
    {.key = "sparse_lift", .abbrev = "spl", .kind = DG_KNOB_BOOL,
     .offset = KNOB(sparse_lift), .def = 0,
     .applies = bernstein_mma,
     .needs = "is a knob of work_mode mma with basis bernstein (the zero tensor-core steps of the"
              " Bernstein-Bezier lift)",
     .deps = {"work_mode", "basis"},
     .help = "cuda volume kernel (work_mode mma, basis bernstein): the lift's node rows and "
             "face-flux columns reordered so that many tensor-core steps are all zero, and those "
             "steps left out (39 % of them in double at N = 7; the face fluxes and the lifted "
             "values pass through tables; it pays in double at N = 6, 7, not in float)"},
    {.key = "mma_unroll", .abbrev = "mun", .kind = DG_KNOB_BOOL,
     .offset = KNOB(mma_unroll), .def = 0,
     .applies = mma,
     .needs = "is a knob of work_mode mma (the tensor-core k-step loops)",
     .deps = {"work_mode"},
     .help = "cuda volume kernel (work_mode mma): the k-step loops of the tensor-core products "
             "fully unrolled, not by 2, so later k-steps' fragment loads issue early (H100: "
             "Maxwell fp64 N = 5, 7 6 % faster, float N = 7 2-3 %; Euler fp64 N = 5 and float N ="
             " 3 5-6 % slower, so the tuner times it as a twin of its winner)"},
    {.key = "cpu_chunk", .abbrev = "chunk", .kind = DG_KNOB_INT,
     .offset = KNOB(cpu_chunk), .def = 0, .lo = -(1 << 30), .hi = 1 << 30,
     .tuned = DG_KNOB_TUNED_AUTO | DG_KNOB_TUNED_FULL,
     .launch_only = 1,
     .help = "cpu backend: elements per chunk (0: automatic)"},
};
/* clang-format on */
const int dg_kernel_nknobs = (int)(sizeof dg_kernel_knobs / sizeof dg_kernel_knobs[0]);

const dg_kernel_knob *dg_kernel_knob_find(const char *key) {
  for (int i = 0; i < dg_kernel_nknobs; i++)
    if (strcmp(dg_kernel_knobs[i].key, key) == 0)
      return &dg_kernel_knobs[i];
  return NULL;
}

/* Every knob field is an int or an enum stored as one (codegen.h). */
int dg_kernel_knob_get(const dg_kernel_config *c, const dg_kernel_knob *k) {
  int v;
  memcpy(&v, (const char *)c + k->offset, sizeof v);
  return v;
}

void dg_kernel_knob_put(dg_kernel_config *c, const dg_kernel_knob *k, int v) {
  memcpy((char *)c + k->offset, &v, sizeof v);
}

const char *dg_kernel_knob_choice(const dg_kernel_knob *k, int v) {
  for (int i = 0; k->names && k->names[i]; i++)
    if (i == v)
      return k->names[i];
  return "?";
}

void dg_kernel_knob_choices(const dg_kernel_knob *k, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; k->names && k->names[i] && used < n; i++) {
    int w = snprintf(buf + used, n - used, "%s%s", i ? "|" : "", k->names[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

dg_error dg_kernel_knob_parse(const dg_kernel_knob *k, const char *text, int *v) {
  if (k->kind == DG_KNOB_ENUM) {
    for (int i = 0; k->names[i]; i++)
      if (strcmp(k->names[i], text) == 0) {
        *v = i;
        return DG_OK;
      }
    char all[256];
    dg_kernel_knob_choices(k, all, sizeof all);
    DG_RAISE(DG_ERR_INPUT, "%s = %s: not one of %s", k->key, text, all);
  }
  if (k->kind == DG_KNOB_BOOL) {
    int t = strcmp(text, "true") == 0 || strcmp(text, "1") == 0;
    int f = strcmp(text, "false") == 0 || strcmp(text, "0") == 0;
    DG_CHECK(t || f, DG_ERR_INPUT, "%s = %s: not true or false", k->key, text);
    *v = t;
    return DG_OK;
  }
  char *end = NULL;
  long x = strtol(text, &end, 10);
  DG_CHECK(end != text && *end == '\0' && x >= -(1L << 30) && x <= (1L << 30), DG_ERR_INPUT,
           "%s = %s: not an integer", k->key, text);
  *v = (int)x;
  return DG_OK;
}

void dg_kernel_knob_text(const dg_kernel_config *c, const dg_kernel_knob *k, int as_cfg, char *buf,
                         size_t n) {
  int v = dg_kernel_knob_get(c, k);
  if (k->kind == DG_KNOB_ENUM)
    snprintf(buf, n, "%s", dg_kernel_knob_choice(k, v));
  else if (k->kind == DG_KNOB_BOOL && as_cfg)
    snprintf(buf, n, "%s", v ? "true" : "false");
  else
    snprintf(buf, n, "%d", v);
}

static void describe(const dg_kernel_config *c, int code_only, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < dg_kernel_nknobs && used < n; i++) {
    if (code_only && dg_kernel_knobs[i].launch_only)
      continue;
    char v[64];
    dg_kernel_knob_text(c, &dg_kernel_knobs[i], 0, v, sizeof v);
    int w =
        snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", dg_kernel_knobs[i].abbrev, v);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

void dg_kernel_config_describe(const dg_kernel_config *c, char *buf, size_t n) {
  describe(c, 0, buf, n);
}

void dg_kernel_config_describe_code(const dg_kernel_config *c, char *buf, size_t n) {
  describe(c, 1, buf, n);
}

/* ---- the default and the check, from the rows ----------------------------- */

dg_kernel_config dg_kernel_config_default(void) {
  dg_kernel_config c;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < dg_kernel_nknobs; i++)
    dg_kernel_knob_put(&c, &dg_kernel_knobs[i], dg_kernel_knobs[i].def);
  return c;
}

/* "1, 2, 4 or 8" */
static void set_text(const int *set, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < DG_KNOB_MAX_SET && set[i] && used < n; i++) {
    int last = i + 1 == DG_KNOB_MAX_SET || !set[i + 1];
    int w = snprintf(buf + used, n - used, "%s%d", i == 0 ? "" : last ? " or " : ", ", set[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

static int nnames(const dg_kernel_knob *k) {
  int n = 0;
  while (k->names[n])
    n++;
  return n;
}

/* Bools are 0 or 1 and enums index their names, without a range in the row. */
static int legal(const dg_kernel_knob *k, int v) {
  if (k->kind == DG_KNOB_BOOL)
    return v == 0 || v == 1;
  if (k->kind == DG_KNOB_ENUM)
    return v >= 0 && v < nnames(k);
  if (k->set[0]) {
    for (int i = 0; i < DG_KNOB_MAX_SET && k->set[i]; i++)
      if (k->set[i] == v)
        return 1;
    return 0;
  }
  return v >= k->lo && v <= k->hi && (k->multiple <= 0 || v % k->multiple == 0);
}

static dg_error check_legal(const dg_kernel_knob *k, int v) {
  if (legal(k, v))
    return DG_OK;
  char all[256];
  if (k->set[0]) {
    set_text(k->set, all, sizeof all);
    DG_RAISE(DG_ERR_INPUT, "%s %d must be %s", k->key, v, all);
  }
  if (k->kind == DG_KNOB_ENUM) {
    dg_kernel_knob_choices(k, all, sizeof all);
    DG_RAISE(DG_ERR_INPUT, "%s %d is not one of %s (0..%d)", k->key, v, all,
             nnames(k) - 1);
  }
  if (k->kind == DG_KNOB_BOOL)
    DG_RAISE(DG_ERR_INPUT, "%s %d must be 0 or 1", k->key, v);
  if (k->multiple > 0)
    DG_RAISE(DG_ERR_INPUT, "%s %d must be a multiple of %d in %d..%d", k->key, v, k->multiple,
             k->lo, k->hi);
  DG_RAISE(DG_ERR_INPUT, "%s %d must be in %d..%d", k->key, v, k->lo, k->hi);
}

/* A value other than the default where the row's condition does not hold:
 * "<key> [<value>] <needs>, not <dep> <value>, ..." */
static dg_error check_applies(const dg_kernel_config *c, const dg_kernel_knob *k) {
  int v = dg_kernel_knob_get(c, k);
  if (!k->applies || v == k->def || k->applies(c))
    return DG_OK;
  char value[64] = "", deps[256] = "";
  if (k->kind != DG_KNOB_BOOL)
    dg_kernel_knob_text(c, k, 1, value, sizeof value);
  size_t used = 0;
  for (int i = 0; i < DG_KNOB_MAX_DEPS && k->deps[i] && used < sizeof deps; i++) {
    const dg_kernel_knob *d = dg_kernel_knob_find(k->deps[i]);
    char dv[64] = "?";
    if (d)
      dg_kernel_knob_text(c, d, 1, dv, sizeof dv);
    int w =
        snprintf(deps + used, sizeof deps - used, "%s%s %s", i ? ", " : ", not ", k->deps[i], dv);
    if (w < 0)
      break;
    used += (size_t)w;
  }
  DG_RAISE(DG_ERR_INPUT, "%s%s%s %s%s", k->key, value[0] ? " " : "", value, k->needs, deps);
}

void dg_kernel_config_drop_inapplicable(dg_kernel_config *c) {
  /* a knob dropped can take another's condition with it (gather_ahead
   * needs the fused surface, staged_surface the fused surface too): repeat
   * until nothing changes; each pass only lowers knobs to their defaults,
   * so it ends within nknobs passes */
  for (int changed = 1, pass = 0; changed && pass <= dg_kernel_nknobs; pass++) {
    changed = 0;
    for (int i = 0; i < dg_kernel_nknobs; i++) {
      const dg_kernel_knob *k = &dg_kernel_knobs[i];
      if (k->applies && dg_kernel_knob_get(c, k) != k->def && !k->applies(c)) {
        dg_kernel_knob_put(c, k, k->def);
        changed = 1;
      }
    }
  }
}

/* ---- rules across knobs that are no row's condition ----------------------- */

static dg_error rule_block_threads(const dg_kernel_config *c, int Np) {
  DG_CHECK((long)c->elements_per_block * Np <= 1024, DG_ERR_INPUT,
           "elements_per_block %d x Np %d exceeds 1024 threads per block", c->elements_per_block,
           Np);
  return DG_OK;
}

static dg_error rule_mma_tile(const dg_kernel_config *c, int Np) {
  (void)Np;
  DG_CHECK(c->work_mode != DG_WORK_MMA ||
               (c->elements_per_block % 8 == 0 && c->matrices == DG_MATRIX_GLOBAL),
           DG_ERR_INPUT,
           "work_mode mma takes elements_per_block a multiple of 8 (the tensor-core tile "
           "is 8 elements wide) and matrices = global, not %d and %s",
           c->elements_per_block, dg_matrix_place_name(c->matrices));
  return DG_OK;
}

static dg_error (*const rules[])(const dg_kernel_config *c, int Np) = {rule_block_threads,
                                                                       rule_mma_tile};

dg_error dg_kernel_config_check(const dg_kernel_config *c, int Np) {
  for (int i = 0; i < dg_kernel_nknobs; i++)
    DG_CALL(check_legal(&dg_kernel_knobs[i], dg_kernel_knob_get(c, &dg_kernel_knobs[i])));
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    DG_CALL(rules[i](c, Np));
  for (int i = 0; i < dg_kernel_nknobs; i++)
    DG_CALL(check_applies(c, &dg_kernel_knobs[i]));
  return DG_OK;
}

/* ---- the volume block a configuration launches ---------------------------- */

void dg_kernel_config_volume_block(const dg_kernel_config *c, int Np, unsigned block[2]) {
  block[0] = c->volume_warps ? 32u * (unsigned)c->volume_warps : (unsigned)Np;
  block[1] = c->volume_warps ? 1u : (unsigned)(c->elements_per_block / c->volume_passes);
}

int dg_kernel_config_volume_threads(const dg_kernel_config *c, int Np) {
  unsigned block[2];
  dg_kernel_config_volume_block(c, Np, block);
  return (int)(block[0] * block[1]);
}

int dg_kernel_config_volume_npass(const dg_kernel_config *c, int Np) {
  int threads = dg_kernel_config_volume_threads(c, Np);
  return (Np * c->elements_per_block + threads - 1) / threads;
}
