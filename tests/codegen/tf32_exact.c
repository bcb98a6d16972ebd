/* operators.tf32_exact: the float tensor-core lift in two split-TF32 steps
 * where the operator is TF32 values, three elsewhere.
 *
 * The claim the generator rests on (operators/gen_gemm_plan.c,
 * plan_tf32_exact): every entry of the Bernstein-Bezier LIFT is a TF32
 * value (at most 11 significant bits) up to round-off noise, while the
 * nodal LIFT is not.  Checked here on dg_bernstein's LIFT itself, in 2D and
 * 3D for N = 1..8, not on the generator's tables.  Then the modules:
 * - Bernstein-Bezier, float, mma (16-row tiles, pairs, sparse_lift): every
 *   lift fragment in g_AF is a TF32 value and every product is DG_TMMA2 /
 *   DG_TMMA2T (two steps), none DG_TMMA3 / DG_TMMA3T;
 * - nodal, float, mma: three steps (DG_TMMA3 / DG_TMMA3T), none with two.
 * That the two-step products compute the same results is
 * operators.cuda_emulate_*'s part (float Bernstein variants against the cpu
 * backend) and, on a GPU, problems.backend_match_*.
 *
 * usage: test_tf32_exact maxwell2d_tm.flux maxwell3d.flux */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "operators/physics.h"
#include "tests/codegen/physics_file.h"
#include "tests/expect.h"

/* v's distance from the nearest TF32 value, relative to scale: fp32 with
 * 10 mantissa bits, rounded to nearest. */
static double tf32_distance(double v, double scale) {
  int e;
  double m = frexp(v, &e); /* v = m 2^e, 0.5 <= |m| < 1 */
  double t = ldexp(nearbyint(ldexp(m, 11)), e - 11);
  return fabs(v - t) / scale;
}

/* The largest distance of a LIFT entry from TF32 (entries under 1e-12 of
 * the largest count as the structural zeros they are). */
static double lift_distance(const double *lift, size_t n) {
  double amax = 0, worst = 0;
  for (size_t z = 0; z < n; z++)
    amax = fmax(amax, fabs(lift[z]));
  for (size_t z = 0; z < n; z++)
    if (fabs(lift[z]) > 1e-12 * amax)
      worst = fmax(worst, tf32_distance(lift[z], amax));
  return worst;
}

static void check_lift(int dim, int N) {
  dg_refelem *re = NULL;
  dg_bernstein *bb = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  MUST(dg_bernstein_create(re, &bb));
  size_t n = (size_t)re->Np * re->Nfaces * re->Nfp;
  double bbd = lift_distance(bb->LIFT, n), nod = lift_distance(re->LIFT, n);
  EXPECT(bbd < 1e-12, "%dD N = %d: a Bernstein LIFT entry is %.3g (of the largest) from TF32",
         dim, N, bbd);
  if (N >= 3) /* at N = 1, 2 the nodal LIFT is TF32 values too (the generator then
                 takes two steps there as well) */
    EXPECT(nod > 1e-6, "%dD N = %d: the nodal LIFT is TF32 values (%.3g): the test proves nothing",
           dim, N, nod);
  printf("%dD N = %d: Bernstein LIFT %.2g from TF32, nodal %.2g\n", dim, N, bbd, nod);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
}

/* Calls of macro `name` (its uses, "name(dd", not its definition). */
static int calls(const char *src, const char *name) {
  char key[32];
  snprintf(key, sizeof key, "%s(dd", name);
  int n = 0;
  for (const char *p = strstr(src, key); p; p = strstr(p + 1, key))
    n++;
  return n;
}

/* g_AF's entries from offset `from` on that are not TF32 values. */
static int non_tf32_fragments(const char *src, int from) {
  const char *p = strstr(src, " g_AF[");
  if (!p || !(p = strchr(p, '{')))
    return -1;
  int bad = 0, z = 0;
  for (p++; *p && *p != '}'; z++) {
    char *end;
    float f = strtof(p, &end);
    if (end == p)
      return -1;
    unsigned u;
    memcpy(&u, &f, sizeof u);
    bad += z >= from && (u & 0x1fffu) != 0;
    p = end + strspn(end, "f, \n");
  }
  return bad;
}

static void check_module(const dg_physics *ph, int dim, int N, int basis, int variant) {
  dg_refelem *re = NULL;
  dg_bernstein *bb = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  MUST(dg_bernstein_create(re, &bb));
  dg_element_ops el = basis ? dg_element_ops_of_bernstein(re, bb) : dg_element_ops_of(re);
  dg_kernel_config c = dg_kernel_config_default();
  c.basis = basis;
  c.stage_state = basis;
  c.work_mode = DG_WORK_MMA;
  c.elements_per_block = 8;
  c.fuse_surface = c.fuse_update = 1;
  c.mma_rows = 16;
  if (variant == 1) { /* the operator on the B side */
    c.mma_pairs = 1;
    c.mma_rows = 8;
  }
  if (variant == 2) /* zero k-steps left out */
    c.sparse_lift = 1;
  dg_generated g;
  MUST(dg_codegen_generate(DG_CODEGEN_CUDA, &el, ph, 1, &c, &g));
  int two = calls(g.source, "DG_TMMA2") + calls(g.source, "DG_TMMA2T");
  int three = calls(g.source, "DG_TMMA3") + calls(g.source, "DG_TMMA3T");
  if (basis) {
    /* g_AF holds the lift only behind D_r..D_t's fragments, which the
     * Bernstein kernels do not use: all of it must be TF32 values */
    int bad = non_tf32_fragments(g.source, 0);
    EXPECT(two > 0 && three == 0, "%dD N = %d variant %d: %d two-step and %d three-step products",
           dim, N, variant, two, three);
    EXPECT(bad == 0, "%dD N = %d variant %d: %d fragments are not TF32 values (or no g_AF)", dim,
           N, variant, bad);
  } else {
    EXPECT(three > 0 && two == 0, "%dD N = %d nodal variant %d: %d two-step and %d three-step",
           dim, N, variant, two, three);
  }
  printf("%dD N = %d %s variant %d: %d two-step, %d three-step products\n", dim, N,
         basis ? "bernstein" : "nodal", variant, two, three);
  dg_generated_free(&g);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
}

int main(int argc, char **argv) {
  dg_log_set_level(DG_LOG_WARN);
  for (int dim = 2; dim <= 3; dim++)
    for (int N = 1; N <= 8; N++)
      check_lift(dim, N);
  for (int a = 1; a < argc; a++) {
    physics_file f = physics_file_load(argv[a]);
    int orders[2] = {f.dim == 2 ? 4 : 3, f.dim == 2 ? 7 : 6};
    for (int o = 0; o < 2; o++)
      for (int variant = 0; variant < 3; variant++) {
        check_module(&f.ph, f.dim, orders[o], 1, variant);
        if (variant < 2) /* sparse_lift is a Bernstein-Bezier knob */
          check_module(&f.ph, f.dim, orders[o], 0, variant);
      }
    physics_file_free(&f);
  }
  return expect_finish();
}
