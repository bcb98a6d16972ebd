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

/* The order is the order of problem.cfg's reference and of database entries. */
const dg_kernel_knob dg_kernel_knobs[] = {
    {"elements_per_block", "epb", DG_KNOB_INT, NULL, KNOB(elements_per_block),
     "cuda volume kernel: elements per thread block", 0},
    {"face_threads", "ft", DG_KNOB_INT, NULL, KNOB(face_threads),
     "cuda surface kernel: threads per block", 1},
    {"matrices", "mat", DG_KNOB_ENUM, matrix_names, KNOB(matrices),
     "where the operator matrices live on the GPU", 0},
    {"np_align", "align", DG_KNOB_INT, NULL, KNOB(np_align),
     "pad the element stride to a multiple", 0},
    {"layout", "layout", DG_KNOB_ENUM, layout_names, KNOB(layout),
     "state field interleaving", 0},
    {"fuse_update", "fuse", DG_KNOB_BOOL, NULL, KNOB(fuse_update),
     "volume kernel applies the Runge-Kutta update (saves a pass)", 0},
    {"work_mode", "work", DG_KNOB_ENUM, work_names, KNOB(work_mode),
     "cuda volume kernel: how a thread covers work_per_thread elements (gemm: the block's "
     "derivative and lifting products as one small matrix product; mma: the same on the "
     "tensor cores, fp64 steps in double, split TF32 in float, elements_per_block a multiple "
     "of 8)", 0},
    {"work_per_thread", "wpt", DG_KNOB_INT, NULL, KNOB(work_per_thread),
     "cuda volume kernel: elements per thread (1 with work_mode = parallel, gemm or mma)", 0},
    {"prefetch", "pf", DG_KNOB_BOOL, NULL, KNOB(prefetch),
     "cuda volume kernel: stage state and face fluxes in shared memory first", 0},
    {"fuse_surface", "fsurf", DG_KNOB_BOOL, NULL, KNOB(fuse_surface),
     "cuda volume kernel computes the face fluxes itself (no surface kernel)", 0},
    {"unroll", "unroll", DG_KNOB_INT, NULL, KNOB(unroll),
     "cuda volume kernel (parallel, inline, sequence): unroll factor (1, 2, 4 or 8) of the "
     "derivative and lifting loops", 0},
    {"vector_loads", "vec", DG_KNOB_BOOL, NULL, KNOB(vector_loads),
     "cuda volume kernel (parallel, inline, sequence): flux quantities node-major in shared "
     "memory, read two at a time", 0},
    {"gather_ahead", "ga", DG_KNOB_BOOL, NULL, KNOB(gather_ahead),
     "cuda volume kernel with fuse_surface: load the traces of all the thread's face nodes "
     "before computing any face flux", 0},
    {"mma_rows", "mrows", DG_KNOB_INT, NULL, KNOB(mma_rows),
     "cuda volume kernel (work_mode mma): rows of the tensor-core tile, 8 (m8n8k4) or "
     "16 (m16n8k4; in float split-TF32 m16n8k8: 16, or 8 with mma_pairs)", 0},
    {"mma_pairs", "mpair", DG_KNOB_BOOL, NULL, KNOB(mma_pairs),
     "cuda volume kernel (work_mode mma, mma_rows 8): two sources of 8 elements on the 16 "
     "rows of the tensor tile, the operator on its other side in tiles of 8 rows (the 16-row "
     "steps' rate, 8-row padding; in float the split-TF32 m16n8k8)", 0},
    {"volume_passes", "vpass", DG_KNOB_INT, NULL, KNOB(volume_passes),
     "cuda volume kernel (work_mode gemm or mma): the block has NP x elements_per_block / "
     "volume_passes threads, its per-node phases that many passes (1, 2 or 4: fewer "
     "threads, more registers each, more blocks per SM)", 0},
    {"volume_warps", "vwarps", DG_KNOB_INT, NULL, KNOB(volume_warps),
     "cuda volume kernel (work_mode gemm or mma, volume_passes 1): 0, or a block of this "
     "many warps whatever NP x elements_per_block is, its per-node phases as many passes "
     "as that takes, the last partly idle (a block size of which the register file may "
     "hold one more)", 0},
    {"l2_prefetch", "l2pf", DG_KNOB_BOOL, NULL, KNOB(l2_prefetch),
     "cuda volume kernel (work_mode gemm or mma): at its start, prefetch into L2 the state "
     "(and with fuse_update the residual) its nodes read after the face fluxes and the "
     "products", 0},
    {"mma_extra_blocks", "mxb", DG_KNOB_INT, NULL, KNOB(mma_extra_blocks),
     "cuda volume kernel (work_mode mma): resident blocks per multiprocessor asked of the "
     "compiler beyond the generator's estimate (0..4; more blocks overlap more of the "
     "phases, with fewer registers a thread)", 0},
    {"early_residual", "eres", DG_KNOB_BOOL, NULL, KNOB(early_residual),
     "cuda volume kernel (work_mode gemm or mma, fuse_update, volume_passes 1): load each "
     "node's residual before the barrier ahead of the update, so its latency overlaps the "
     "wait for the block's slower warps", 0},
    {"basis", "basis", DG_KNOB_ENUM, basis_names, KNOB(basis),
     "what the state holds per element: nodal values, or Bernstein-Bezier coefficients "
     "(affine physics only; the same solution, with sparse derivatives in work_mode gemm "
     "and mma)", 0},
    {"stage_state", "sst", DG_KNOB_BOOL, NULL, KNOB(stage_state),
     "cuda volume kernel (basis bernstein, work_mode gemm or mma): shared memory holds the "
     "state instead of the flux quantities, and the derivatives' first level evaluates the "
     "flux functions on the state's differences (less shared memory, more arithmetic)", 0},
    {"stream_update", "stup", DG_KNOB_BOOL, NULL, KNOB(stream_update),
     "cuda volume kernel (work_mode gemm or mma, fuse_update): the residual and the new "
     "state pass L2 evict-first and the state is read through the read-only path, so L2 "
     "keeps the state for the neighbouring blocks' face gathers", 0},
    {"local_traces", "ltr", DG_KNOB_BOOL, NULL, KNOB(local_traces),
     "cuda volume kernel (stage_state, fuse_surface): the state is staged before the face "
     "fluxes, which read the element's own traces, and those of neighbours in the same "
     "block, from shared memory", 0},
    {"strided_k", "sk", DG_KNOB_BOOL, NULL, KNOB(strided_k),
     "cuda volume kernel (work_mode mma): each k-step of the tensor-core products reads "
     "source rows KW apart, not consecutive ones, so the fragment loads meet no shared-memory "
     "bank twice (more address arithmetic and registers)", 0},
    {"batch_residual", "bres", DG_KNOB_BOOL, NULL, KNOB(batch_residual),
     "volume kernel with fuse_update: load the node's whole residual before the first of "
     "its stores, so the loads are in flight together (off: each field's load waits behind "
     "the previous field's stores, with fewer registers)", 0},
    {"overlay_state", "ovs", DG_KNOB_BOOL, NULL, KNOB(overlay_state),
     "cuda volume kernel (work_mode mma, stage_state, fuse_surface, not local_traces): the "
     "derivatives' first level runs before the face fluxes, which then take the staged "
     "state's shared memory (less shared memory a block, and no first-level values held "
     "in registers across the products)", 0},
    {"compact_smem", "csm", DG_KNOB_BOOL, NULL, KNOB(compact_smem),
     "cuda volume kernel with overlay_state: the face fluxes element by element in rows "
     "of a bank-conflict-free stride, level 1's results unpadded (a smaller block, which "
     "may leave the multiprocessor more L1 cache beside the same resident blocks)", 0},
    {"sparse_lift", "spl", DG_KNOB_BOOL, NULL, KNOB(sparse_lift),
     "cuda volume kernel (work_mode mma, basis bernstein): the lift's node rows and "
     "face-flux columns reordered so that many tensor-core steps are all zero, and those "
     "steps left out (39 % of them in double at N = 7; the face fluxes and the lifted "
     "values pass through tables; it pays in double at N = 6, 7, not in float)", 0},
    {"mma_unroll", "mun", DG_KNOB_BOOL, NULL, KNOB(mma_unroll),
     "cuda volume kernel (work_mode mma): the k-step loops of the tensor-core products fully "
     "unrolled, not by 2, so later k-steps' fragment loads issue early (H100: Maxwell fp64 "
     "N = 5, 7 6 % faster, float N = 7 2-3 %; Euler fp64 N = 5 and float N = 3 5-6 % "
     "slower, so the tuner times it as a twin of its winner)", 0},
    {"cpu_chunk", "chunk", DG_KNOB_INT, NULL, KNOB(cpu_chunk),
     "cpu backend: elements per chunk (0: automatic)", 1},
};
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

void dg_kernel_knob_text(const dg_kernel_config *c, const dg_kernel_knob *k, int as_cfg,
                         char *buf, size_t n) {
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
    int w = snprintf(buf + used, n - used, "%s%s=%s", used ? " " : "", dg_kernel_knobs[i].abbrev,
                     v);
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
