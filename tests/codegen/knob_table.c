/* operators.knob_table: the configuration the knob table derives
 * (dg_kernel_config_default) is the one the generator had before the table
 * (the values below, as codegen.c assigned them), and the check derived from
 * the rows refuses every illegal value and every knob given where it does
 * not apply, naming the knob. */
#include <stdio.h>
#include <string.h>

#include "operators/kernel_knobs.h"
#include "tests/expect.h"

/* The check of c must fail, its message starting with want. */
static void refused(const dg_kernel_config *c, int Np, const char *want) {
  dg_error_clear();
  dg_error e = dg_kernel_config_check(c, Np);
  EXPECT(e == DG_ERR_INPUT && strncmp(dg_error_message(), want, strlen(want)) == 0,
         "want '%s...', got %d '%s'", want, (int)e, dg_error_message());
  dg_error_clear();
}

int main(void) {
  dg_kernel_config d = dg_kernel_config_default();
  /* the defaults codegen.c assigned one by one before the table */
  EXPECT(d.elements_per_block == 4 && d.face_threads == 256 && d.matrices == DG_MATRIX_GLOBAL &&
         d.np_align == 1 && d.layout == DG_LAYOUT_FIELD_MAJOR && d.fuse_update == 0 &&
         d.cpu_chunk == 0 && d.work_mode == DG_WORK_PARALLEL && d.work_per_thread == 1 &&
         d.prefetch == 0 && d.fuse_surface == 0 && d.unroll == 4 && d.vector_loads == 0 &&
         d.gather_ahead == 0 && d.mma_rows == 8 && d.mma_pairs == 0 && d.l2_prefetch == 0 &&
         d.early_residual == 0 && d.volume_passes == 1 && d.volume_warps == 0 &&
         d.mma_extra_blocks == 0 && d.basis == 0 && d.stage_state == 0 &&
         d.stream_update == 0 && d.local_traces == 0 && d.strided_k == 0 &&
         d.batch_residual == 1 && d.overlay_state == 0 && d.compact_smem == 0 &&
         d.sparse_lift == 0 && d.mma_unroll == 0);
  MUST(dg_kernel_config_check(&d, 20));
  /* every row: a value past its legal ones is refused by name */
  for (int i = 0; i < dg_kernel_nknobs; i++) {
    const dg_kernel_knob *k = &dg_kernel_knobs[i];
    dg_kernel_config c = d;
    int bad = k->kind == DG_KNOB_BOOL   ? 2
              : k->kind == DG_KNOB_ENUM ? -1
              : k->set[0]               ? 3
                                        : k->hi + 1;
    if (k->kind == DG_KNOB_INT && !k->set[0] && k->hi >= 1 << 30)
      continue; /* cpu_chunk: any integer the reader takes */
    dg_kernel_knob_put(&c, k, bad);
    char want[64];
    snprintf(want, sizeof want, "%s %d ", k->key, bad);
    refused(&c, 1, want);
  }
  /* every row with a condition that the default does not meet: a value
   * other than the default there is refused by name */
  int conditional = 0;
  for (int i = 0; i < dg_kernel_nknobs; i++) {
    const dg_kernel_knob *k = &dg_kernel_knobs[i];
    if (!k->applies || k->applies(&d))
      continue;
    dg_kernel_config c = d;
    int v = k->set[0] ? (k->set[0] == k->def ? k->set[1] : k->set[0]) : k->def ? 0 : 1;
    if (k->kind == DG_KNOB_INT && !k->set[0] && v < k->lo)
      v = k->def + 1;
    dg_kernel_knob_put(&c, k, v);
    refused(&c, 1, k->key);
    conditional++;
  }
  /* 17 knobs have a condition; the default meets those of prefetch and
   * vector_loads (not gemm) and mma_pairs (mma_rows 8) */
  EXPECT(conditional == 14, "%d knobs with a condition the default does not meet", conditional);
  /* the messages of the old hand-written check, as the rows now make them */
  dg_kernel_config c = d;
  c.elements_per_block = 65;
  refused(&c, 1, "elements_per_block 65 must be in 1..64");
  c = d;
  c.face_threads = 33;
  refused(&c, 1, "face_threads 33 must be a multiple of 32 in 32..1024");
  c = d;
  c.unroll = 3;
  refused(&c, 1, "unroll 3 must be 1, 2, 4 or 8");
  c = d;
  c.gather_ahead = 1;
  refused(&c, 1, "gather_ahead shapes the face-flux loop of the fused surface: it needs "
                 "fuse_surface = true");
  c = d;
  c.work_per_thread = 2;
  refused(&c, 1, "work_per_thread 2 needs work_mode sequence or inline");
  c.work_mode = DG_WORK_INLINE;
  MUST(dg_kernel_config_check(&c, 20));
  /* the cross-knob rules */
  c = d;
  refused(&c, 300, "elements_per_block 4 x Np 300 exceeds 1024 threads per block");
  c.work_mode = DG_WORK_MMA;
  refused(&c, 20, "work_mode mma takes elements_per_block a multiple of 8");
  c.elements_per_block = 8;
  c.early_residual = 1;
  refused(&c, 20, "early_residual is a knob of work_mode gemm and mma with fuse_update");
  c.fuse_update = 1;
  MUST(dg_kernel_config_check(&c, 20));
  return expect_finish();
}
