/* problems.backend_match: a shipped problem run on the cuda backend gives the
 * CPU backend's error norms to 1e-10 relative in double (1e-4 relative or 2e-7
 * absolute in float), for
 * several kernel configurations (the generated variants must all compute the
 * same operator).  Exit 77 (skipped) without a CUDA device.
 *
 * usage: test_backend_match problem.cfg [--mma-only] [--bernstein] [k=v ...]
 *   --mma-only: the tensor-core variants alone (high orders, where the
 *   others' limits, e.g. matrices in constant memory, refuse the size)
 *   --bernstein: also the variants on Bernstein-Bezier coefficients (an
 *   affine physics: the same solution as the cpu backend's nodal run) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "problems/driver/run.h"

static int run(const char *cfg, const char *device, const char *const *knobs, int nknobs,
               char **extra, int nextra, dg_run_result *res) {
  const char *ov[40];
  int n = 0;
  static char dev[64];
  snprintf(dev, sizeof dev, "backend.device=%s", device);
  ov[n++] = dev;
  ov[n++] = "output.enabled=false";
  ov[n++] = "backend.tuning=off"; /* the variants as given, not a tuned entry */
  for (int i = 0; i < nknobs; i++)
    ov[n++] = knobs[i];
  for (int i = 0; i < nextra && n < 40; i++)
    ov[n++] = extra[i];
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = n, .quiet = 1};
  if (dg_run(&opt, res) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  return 0;
}

/* The kernel configurations, as overrides (NULL-terminated); a variant on
 * Bernstein-Bezier coefficients starts with backend.basis=bernstein. */
static const char *const variants[][13] = {
    {"backend.elements_per_block=1", NULL},
    {"backend.elements_per_block=4", "backend.matrices=shared", NULL},
    {"backend.elements_per_block=2", "backend.matrices=constant", "backend.np_align=8", NULL},
    {"backend.layout=element-major", "backend.fuse_update=true", NULL},
    {"time.scheme=ssprk3", NULL},
    {"backend.work_mode=inline", "backend.work_per_thread=2", "backend.prefetch=true", NULL},
    {"backend.work_mode=sequence", "backend.work_per_thread=3", "backend.matrices=shared",
     NULL},
    {"backend.work_mode=inline", "backend.work_per_thread=4", "backend.fuse_update=true",
     "backend.elements_per_block=1", "backend.unroll=1", NULL},
    /* the unroll factors the tuner adds to the fused kernel */
    {"backend.work_mode=inline", "backend.work_per_thread=2", "backend.fuse_surface=true",
     "backend.fuse_update=true", "backend.unroll=2", NULL},
    {"backend.elements_per_block=2", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.unroll=8", "backend.gather_ahead=true", NULL},
    /* the node-major shared layout, read as pairs (after shared matrices:
     * its 16-byte aligned start) */
    {"backend.work_mode=inline", "backend.work_per_thread=2", "backend.fuse_surface=true",
     "backend.fuse_update=true", "backend.vector_loads=true", NULL},
    {"backend.elements_per_block=3", "backend.matrices=shared", "backend.vector_loads=true",
     "backend.prefetch=true", NULL},
    {"backend.work_mode=gemm", "backend.elements_per_block=8", "backend.fuse_surface=true",
     "backend.fuse_update=true", NULL},
    {"backend.work_mode=gemm", "backend.elements_per_block=3", "backend.matrices=shared",
     NULL},
    /* the tensor cores: 8-row tiles are fp64 steps, double only */
    {"backend.work_mode=mma", "backend.elements_per_block=8", "backend.fuse_surface=true",
     "backend.fuse_update=true", NULL},
    {"backend.work_mode=mma", "backend.elements_per_block=16", "backend.layout=element-major",
     NULL},
    {"backend.work_mode=mma", "backend.elements_per_block=8", "backend.fuse_surface=true",
     "backend.fuse_update=true", "backend.gather_ahead=true", NULL},
    /* 16-row tiles (m16n8k4; in float split-TF32 m16n8k8) */
    {"backend.work_mode=mma", "backend.mma_rows=16", "backend.elements_per_block=8",
     "backend.fuse_surface=true", "backend.fuse_update=true", NULL},
    {"backend.work_mode=mma", "backend.mma_rows=16", "backend.elements_per_block=16", NULL},
    /* pairs of sources on the 16 rows, the operator in 8-row tiles
     * (m16n8k4; in float split-TF32 m16n8k8), one more resident block, the
     * L2 prefetch */
    {"backend.work_mode=mma", "backend.mma_pairs=true", "backend.elements_per_block=8",
     "backend.fuse_surface=true", "backend.fuse_update=true", "backend.mma_extra_blocks=1",
     "backend.l2_prefetch=true", NULL},
    {"backend.work_mode=mma", "backend.mma_pairs=true", "backend.elements_per_block=16", NULL},
    /* the residual loaded early (8-row tiles, L2 prefetch), and with gemm */
    {"backend.work_mode=mma", "backend.elements_per_block=8", "backend.fuse_surface=true",
     "backend.fuse_update=true", "backend.early_residual=true", "backend.l2_prefetch=true",
     NULL},
    {"backend.work_mode=gemm", "backend.elements_per_block=4", "backend.fuse_surface=true",
     "backend.fuse_update=true", "backend.early_residual=true", NULL},
    /* ... and with the update's accesses streamed (stream_update) */
    {"backend.work_mode=mma", "backend.elements_per_block=8", "backend.fuse_surface=true",
     "backend.fuse_update=true", "backend.early_residual=true", "backend.stream_update=true",
     NULL},
    /* 16-row tiles, half the threads, the per-node phases in two passes
     * (16 elements: a whole warp in 1D at N = 3 too) */
    {"backend.work_mode=mma", "backend.mma_rows=16", "backend.elements_per_block=16",
     "backend.fuse_surface=true", "backend.fuse_update=true", "backend.volume_passes=2",
     "backend.l2_prefetch=true", NULL},
    /* Bernstein-Bezier coefficients (--bernstein): the sparse derivatives
     * of gemm and mma, every tile shape, and a node-per-thread kernel */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.elements_per_block=8",
     "backend.fuse_surface=true", "backend.fuse_update=true", "backend.gather_ahead=true",
     "backend.l2_prefetch=true", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.early_residual=true", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.volume_passes=2", NULL},
    {"backend.basis=bernstein", "backend.work_mode=gemm", "backend.elements_per_block=4",
     "backend.fuse_surface=true", "backend.fuse_update=true", NULL},
    {"backend.basis=bernstein", "backend.elements_per_block=2", NULL},
    /* ... with the state in shared memory (stage_state) */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.stream_update=true", NULL},
    /* ... the face traces from the staged state (local_traces) */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.local_traces=true", NULL},
    /* the k-steps' source rows strided (strided_k): nodal 16-row tiles over
     * two element tiles, nodal pairs, and the N = 7 form on coefficients */
    {"backend.work_mode=mma", "backend.mma_rows=16", "backend.elements_per_block=16",
     "backend.fuse_surface=true", "backend.fuse_update=true", "backend.strided_k=true", NULL},
    {"backend.work_mode=mma", "backend.mma_pairs=true", "backend.elements_per_block=8",
     "backend.fuse_surface=true", "backend.fuse_update=true", "backend.strided_k=true", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.local_traces=true",
     "backend.strided_k=true", NULL},
    /* the tuner's register twins: the residual loaded field by field
     * (batch_residual off), nodal and the staged two-pass form on
     * coefficients with one more block */
    {"backend.fuse_update=true", "backend.batch_residual=false", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.stream_update=true",
     "backend.batch_residual=false", "backend.mma_extra_blocks=1", NULL},
    /* ... and level 1 before the face fluxes, which overlay the staged
     * state (overlay_state): the N = 7 pairs form */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.strided_k=true",
     "backend.overlay_state=true", NULL},
    /* ... in blocks of three warps whatever NP x EPB is (volume_warps: the
     * per-node phases' last pass partly idle at N = 3 and 5) */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_warps=3", "backend.strided_k=true",
     "backend.overlay_state=true", "backend.l2_prefetch=true", NULL},
    /* ... with the face fluxes element by element and level 1's results
     * unpadded (compact_smem): 16-row tiles strided, pairs with the k-step
     * loops fully unrolled (mma_unroll) */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_warps=3", "backend.strided_k=true",
     "backend.overlay_state=true", "backend.compact_smem=true", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.overlay_state=true",
     "backend.compact_smem=true", "backend.mma_unroll=true", NULL},
    /* ... with the lift's all-zero tensor-core steps left out (sparse_lift:
     * its rows and the face fluxes' k-rows reordered): the N = 7 pairs
     * form, 16-row tiles compact */
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_pairs=true",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_passes=2", "backend.strided_k=true",
     "backend.overlay_state=true", "backend.sparse_lift=true", NULL},
    {"backend.basis=bernstein", "backend.work_mode=mma", "backend.mma_rows=16",
     "backend.elements_per_block=8", "backend.fuse_surface=true", "backend.fuse_update=true",
     "backend.stage_state=true", "backend.volume_warps=3", "backend.strided_k=true",
     "backend.overlay_state=true", "backend.compact_smem=true", "backend.sparse_lift=true",
     NULL},
};

/* argv[2] == flag: dropped (not an override), 1; else 0. */
static int take_flag(int *argc, char ***argv, const char *flag) {
  if (*argc <= 2 || strcmp((*argv)[2], flag) != 0)
    return 0;
  (*argv)[2] = (*argv)[1];
  (*argv)++;
  (*argc)--;
  return 1;
}

/* Variant v on cuda against the cpu reference (rerun on cpu for another
 * scheme): the failures, or -1 when a run fails. */
static int check_variant(size_t v, const char *cfg, char **extra, int nextra,
                         const dg_run_result *ref, double tol) {
  int nk = 0;
  while (variants[v][nk])
    nk++;
  int bb = strcmp(variants[v][0], "backend.basis=bernstein") == 0;
  int ssp = strcmp(variants[v][bb], "time.scheme=ssprk3") == 0;
  dg_run_result cpu = *ref, gpu;
  if (ssp && run(cfg, "cpu", variants[v], nk, extra, nextra, &cpu))
    return -1;
  if (run(cfg, "cuda", variants[v], nk, extra, nextra, &gpu))
    return -1;
  int failures = 0;
  for (int f = 0; f < cpu.nfields; f++) {
    double diff = fabs(gpu.l2[f] - cpu.l2[f]), rel = diff / fmax(cpu.l2[f], 1e-300);
    /* |L2(e_cuda) - L2(e_cpu)| <= ||u_cuda - u_cpu||_L2: in float the states
     * differ by the rounding of O(1) fields over some hundred steps, a few
     * 1e-8 (measured: at most 7e-8), which is 1e-4 of an error norm of 3e-4;
     * a wrong operator differs by far more than both bounds */
    int ok = rel <= tol || (tol > 1e-10 && diff <= 2e-7);
    printf("%s variant %zu field %d: cpu L2 %.12e cuda %.12e rel %.2e %s\n", cfg, v, f,
           cpu.l2[f], gpu.l2[f], rel, ok ? "ok" : "FAIL");
    failures += !ok;
  }
  return failures;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  dg_log_set_level(DG_LOG_WARN);
  if (!dg_device_cuda_available()) {
    printf("no CUDA device: skipped\n");
    return 77;
  }
  int mma_only = take_flag(&argc, &argv, "--mma-only");
  int bernstein = take_flag(&argc, &argv, "--bernstein");
  int is_float = 0;
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "discretization.precision=float") == 0)
      is_float = 1;
  /* float: the two backends round differently at every operation */
  double tol = is_float ? 1e-4 : 1e-10;
  dg_run_result ref;
  const char *none[1] = {NULL};
  if (run(argv[1], "cpu", none, 0, argv + 2, argc - 2, &ref))
    return 1;
  int failures = 0, checked_bb = 0;
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    int bb = strcmp(variants[v][0], "backend.basis=bernstein") == 0;
    const char *const *kv = variants[v] + bb; /* the slicing knobs after the basis */
    int mma = strcmp(kv[0], "backend.work_mode=mma") == 0;
    int tile16 = mma && (strcmp(kv[1], "backend.mma_rows=16") == 0 ||
                         strcmp(kv[1], "backend.mma_pairs=true") == 0);
    if ((is_float && mma && !tile16) || (mma_only && !mma) || (bb && !bernstein))
      continue;
    checked_bb += bb;
    int f = check_variant(v, argv[1], argv + 2, argc - 2, &ref, tol);
    if (f < 0)
      return 1;
    failures += f;
  }
  if (bernstein && checked_bb == 0) {
    printf("FAIL: --bernstein given but no Bernstein-Bezier variant ran\n");
    return 1;
  }
  return failures ? 1 : 0;
}
