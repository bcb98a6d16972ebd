/* operators.codegen_nvrtc_1/_2 / operators.codegen_cc: every shipped flux file,
 * for orders 1, 3, 5 and every knob combination below (matrix placement,
 * layout, padding, fused update, work per thread in parallel / sequence /
 * inline, shared prefetch, fused surface), generates CUDA source
 * that NVRTC compiles for sm_90 (no GPU needed) or C source that the cpu
 * backend compiles; the generator output is byte-identical when repeated.
 * operators.codegen_cuda (sanitizer builds) generates the CUDA source of
 * the nvrtc test without compiling it: the generator is what the
 * sanitizers instrument, NVRTC is not (it compiles in the plain build).
 * usage: test_codegen_compile nvrtc|cuda|cc file.flux... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "core/nvrtc.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "operators/physics.h"

/* The order a cuda-only variant (v >= 6, below) compiles at under NVRTC:
 * N = 5 where the variant needs the larger sizes (16-row tiles, two
 * passes, strided k-steps), N = 3 otherwise. */
static int nvrtc_order(int v) {
  switch (v) {
  case 10: case 12: case 13: case 16: case 18: case 20: case 21: case 22: case 23: case 25:
  case 27: case 28:
    return 5;
  default:
    return 3;
  }
}

/* The knobs of the tensor-core variants on staged state or Bernstein-Bezier
 * coefficients (v >= 16). */
static void staged_variant(int v, const dg_refelem *re, dg_kernel_config *c, int *is_float) {
  if (v >= 27) { /* sparse_lift (N = 5): the lift's all-zero tensor-core steps
                    left out, per row tile in its own switch case; 27 fp64
                    pairs overlaid and strided, 28 float 16-row tiles
                    (split TF32) compact */
    c->basis = c->stage_state = c->overlay_state = c->sparse_lift = 1;
    c->compact_smem = v == 28;
    c->work_mode = DG_WORK_MMA;
    c->elements_per_block = 8;
    c->matrices = DG_MATRIX_GLOBAL;
    c->fuse_surface = c->fuse_update = 1;
    *is_float = v == 28;
    c->mma_pairs = v == 27;
    c->mma_rows = v == 27 ? 8 : 16;
    c->strided_k = v == 27;
    c->volume_passes = 2;
  } else if (v == 21 || v == 22) { /* strided_k (N = 5): 21 fp64 pairs on BB coefficients, the
                    state staged in two passes; 22 nodal float 16-row tiles
                    (split TF32, rows 8 apart), its k-step loops fully
                    unrolled (mma_unroll) */
    c->basis = c->stage_state = v == 21;
    c->volume_passes = v == 21 ? 2 : 1;
    c->work_mode = DG_WORK_MMA;
    c->elements_per_block = 8;
    c->matrices = DG_MATRIX_GLOBAL;
    c->fuse_surface = 1;
    *is_float = v == 22;
    c->mma_pairs = v == 21;
    c->mma_rows = v == 21 ? 8 : 16;
    c->strided_k = 1;
    c->mma_unroll = v == 22;
  } else if (v >= 18) { /* stream_update (__ldg, __ldcs, __stcs): 18 the state
                    staged in two passes on BB coefficients, 16-row fp64
                    tiles at N = 5; 19 nodal float with the early residual
                    and traces ahead at N = 3; 20 as 18, with the face
                    traces from the staged state (local_traces); 23 as 18,
                    the tuner's register twin: the residual loaded field by
                    field (batch_residual off), one more block; 24 as 18
                    with level 1 before the face fluxes (overlay_state); 25
                    as 24 at N = 5 in blocks of whole warps, a third of the
                    per-node points (volume_warps: the tuner's warps twin,
                    the last pass partly idle); 26 as 24 with the face
                    fluxes element by element, level 1 unpadded
                    (compact_smem) */
    c->basis = v != 19;
    c->stage_state = v != 19;
    c->volume_passes = v != 19 && v != 25 ? 2 : 1;
    c->compact_smem = v == 26;
    c->volume_warps = v == 25 ? (re->Np * 8 / 96 > 1 ? re->Np * 8 / 96 : 1) : 0;
    c->work_mode = DG_WORK_MMA;
    c->elements_per_block = 8;
    c->matrices = DG_MATRIX_GLOBAL;
    c->fuse_surface = 1;
    *is_float = v == 19;
    c->mma_rows = 16;
    c->gather_ahead = c->early_residual = v == 19;
    c->l2_prefetch = 1;
    c->stream_update = 1;
    c->local_traces = v == 20;
    c->batch_residual = v != 23;
    c->mma_extra_blocks = v == 23;
    c->overlay_state = v >= 24;
  } else if (v >= 16) { /* Bernstein-Bezier coefficients (affine physics; the others
                    refuse): the fused mma kernel, 16-row fp64 tiles at N = 5
                    with the early residual, float pairs at N = 3 with the
                    state staged (stage_state) */
    c->basis = 1;
    c->work_mode = DG_WORK_MMA;
    c->elements_per_block = 8;
    c->matrices = DG_MATRIX_GLOBAL;
    c->fuse_surface = 1;
    *is_float = v == 17;
    c->mma_rows = v == 16 ? 16 : 8;
    c->mma_pairs = v == 17;
    c->gather_ahead = c->l2_prefetch = 1;
    c->early_residual = v == 16;
    c->stage_state = v == 17;
  }
}

/* The knobs of the other cuda-only variants (6 <= v < 16): loop slicing and
 * shared prefetch, work_mode gemm, work_mode mma. */
static void fused_variant(int v, dg_kernel_config *c, int *is_float) {
  if (v >= 12) { /* work_mode mma, NVRTC's ptxas checks the inline assembly:
                    12 fp64 steps beside dg_surface (N = 5); 13 float,
                    split-TF32 m16n8k8, fused, traces ahead, two passes (N = 5);
                    14, 15 pairs with one more resident block and the L2
                    prefetch and the early residual, fused, double and float
                    (N = 3: in 2D the fp64 step needs its 64 registers) */
    c->work_mode = DG_WORK_MMA;
    c->elements_per_block = 8;
    c->matrices = DG_MATRIX_GLOBAL;
    c->fuse_surface = v >= 13;
    *is_float = v == 13 || v == 15;
    c->mma_rows = v == 13 ? 16 : 8;
    c->gather_ahead = *is_float;
    c->volume_passes = v == 13 ? 2 : 1;
    c->mma_pairs = c->mma_extra_blocks = c->l2_prefetch = v >= 14;
    c->early_residual = v >= 14; /* both fused, one pass */
  } else if (v >= 10) { /* work_mode gemm: fused double at N = 5, float at N = 3 */
    c->work_mode = DG_WORK_GEMM;
    c->elements_per_block = v == 10 ? 4 : 8;
    c->fuse_surface = v == 10;
    c->matrices = v == 10 ? DG_MATRIX_GLOBAL : DG_MATRIX_SHARED;
    *is_float = v == 11;
  } else if (v >= 6) {
    c->work_mode = v == 7 ? DG_WORK_SEQUENCE : v == 9 ? DG_WORK_PARALLEL : DG_WORK_INLINE;
    c->work_per_thread = v == 9 ? 1 : v == 8 ? 4 : 2;
    c->prefetch = v != 7;
    c->elements_per_block = v == 8 ? 1 : 2;
    c->fuse_surface = v == 6 || v == 8;
  }
}

/* Variant v's knobs; *is_float its precision.  0..5 vary the placement,
 * layout, padding and fused update on every target; 6 and up are the
 * cuda-only knobs (the C target ignores them). */
static dg_kernel_config variant(int v, const dg_refelem *re, int *is_float) {
  dg_kernel_config c = dg_kernel_config_default();
  c.elements_per_block = v % 3 == 0 ? 1 : v % 3 == 1 ? 2 : 4;
  c.matrices = (dg_matrix_place)(v % 3);
  c.layout = (dg_field_layout)(v % 2);
  c.fuse_update = v >= 3;
  c.np_align = v == 4 ? 8 : 1;
  *is_float = v == 5 || v == 8;
  if (v >= 16)
    staged_variant(v, re, &c, is_float);
  else if (v >= 6)
    fused_variant(v, &c, is_float);
  if ((long)c.elements_per_block * re->Np > 1024)
    c.elements_per_block = 1;
  return c;
}

typedef struct {
  int nvrtc, cuda;
  dg_device *dev; /* the cpu device (cc), NULL for cuda */
  int failures, compiled;
} tally;

/* Generate variant v of file at order N twice (the same text expected) and
 * compile it for the target: 0 to go on, else the exit code (1 an error,
 * 77 NVRTC missing: skipped). */
static int check_variant(tally *t, const char *file, int N, int v, const dg_element_ops *el,
                         const dg_physics *ph, int is_float, const dg_kernel_config *c) {
  dg_generated g1, g2;
  dg_codegen_target tg = t->cuda ? DG_CODEGEN_CUDA : DG_CODEGEN_C;
  dg_error e = dg_codegen_generate(tg, el, ph, is_float, c, &g1);
  if (e == DG_ERR_INPUT) { /* a knob illegal for this size: pruned, not a failure */
    dg_error_clear();
    return 0;
  }
  if (e != DG_OK || dg_codegen_generate(tg, el, ph, is_float, c, &g2) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  if (strcmp(g1.source, g2.source) != 0) {
    printf("%s N=%d variant %d: generator output not deterministic\n", file, N, v);
    t->failures++;
  }
  if (t->nvrtc) {
    void *cubin = NULL;
    size_t size = 0;
    e = dg_nvrtc_compile("dg_operators", g1.source, "sm_90", NULL, 0, &cubin, &size);
    if (e == DG_ERR_UNSUPPORTED) {
      printf("NVRTC not available: skipped\n");
      return 77;
    }
    free(cubin);
  } else if (!t->cuda) {
    dg_module *mod = NULL;
    e = dg_device_compile(t->dev, "dg_operators", g1.source, NULL, 0, &mod);
    dg_module_destroy(&mod);
  }
  if (e != DG_OK) {
    printf("%s N=%d variant %d: compile failed\n", file, N, v);
    dg_error_print(stdout);
    t->failures++;
  } else {
    t->compiled++;
  }
  dg_generated_free(&g1);
  dg_generated_free(&g2);
  return 0;
}

/* Every variant of one flux file at order N. */
static int check_order(tally *t, const char *file, const dg_physics *ph, int dim, int N) {
  dg_refelem *re;
  if (dg_refelem_create(dim, N, &re) != DG_OK)
    return 1;
  dg_element_ops el_nodal = dg_element_ops_of(re);
  dg_bernstein *bb = NULL;
  if (dg_bernstein_create(re, &bb) != DG_OK)
    return 1;
  dg_element_ops el_bb = dg_element_ops_of_bernstein(re, bb);
  int rc = 0;
  for (int v = 0; v < 29 && rc == 0; v++) {
    /* the cuda-only knobs: NVRTC at N = nvrtc_order(v) */
    if (v >= 6 && (!t->cuda || N != nvrtc_order(v)))
      continue;
    int is_float;
    dg_kernel_config c = variant(v, re, &is_float);
    rc = check_variant(t, file, N, v, c.basis ? &el_bb : &el_nodal, ph, is_float, &c);
  }
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  dg_log_set_level(DG_LOG_WARN);
  tally t = {0};
  t.nvrtc = strcmp(argv[1], "nvrtc") == 0;
  t.cuda = t.nvrtc || strcmp(argv[1], "cuda") == 0; /* cuda: generate only */
  if (!t.cuda && dg_device_create("cpu", 0, &t.dev) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  for (int a = 2; a < argc; a++) {
    dg_flux_program *prog;
    if (dg_flux_parse_file(argv[a], 0, &prog) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    dg_physics ph;
    dg_physics_tables *tab;
    if (dg_physics_from_program(prog, &ph, &tab) != DG_OK)
      return 1;
    const int orders[] = {1, 3, 5};
    for (int o = 0; o < 3; o++) {
      int rc = check_order(&t, argv[a], &ph, dg_flux_program_dim(prog), orders[o]);
      if (rc)
        return rc;
    }
    dg_physics_tables_destroy(&tab);
    dg_flux_program_destroy(&prog);
  }
  dg_device_destroy(&t.dev);
  printf("%d modules %s, %d failures\n", t.compiled, t.cuda && !t.nvrtc ? "generated" : "compiled",
         t.failures);
  return t.failures ? 1 : 0;
}
