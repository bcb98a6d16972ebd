/* operators.bb_tables: the Bernstein-Bezier lattice tables that the
 * generated CUDA kernels read row by row (one vector load a row) hold, in
 * every row, what the lattices say:
 * - g_bb_up[b] the degree-N nodes b + e_v of degree-(N-1) point b,
 * - g_bb_dn[a] the degree-(N-1) points a - e_v of node a, and where a_v =
 *   0 the point of the nearest node with a_v > 0 (its lane's address: a
 *   broadcast, not a bank conflict),
 * - g_bb_w[a] the weights a_v / N (0 where a_v = 0),
 * with the rows padded to four entries (2D), node indices as bytes where
 * NP <= 256 and as 16-bit words beyond (3D N = 10, NP = 286: reached by
 * work_mode gemm at one element a block), and the module compiles under
 * NVRTC where it is available.  The multi-indices come from dg_bernstein
 * (alpha, in the node order of dg/refelem.h), not from the generator.
 *
 * usage: test_bb_tables maxwell2d_tm.flux maxwell3d.flux */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "core/nvrtc.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "operators/physics.h"
#include "tests/codegen/physics_file.h"
#include "tests/expect.h"

/* The rows of table `name` in src, four numbers a row, into out[rows][4];
 * returns the rows read. */
static int read_table(const char *src, const char *name, int rows, double (*out)[4]) {
  char key[64];
  snprintf(key, sizeof key, " %s[%d] = {", name, rows);
  const char *p = strstr(src, key);
  if (!p)
    return 0;
  p += strlen(key);
  int n = 0;
  for (; n < rows; n++) {
    p = strchr(p, '{');
    if (!p)
      break;
    p++;
    for (int v = 0; v < 4; v++) { /* "1.0e+00f, " in float: skip the suffix */
      char *end;
      out[n][v] = strtod(p, &end);
      if (end == p)
        return n;
      p = end + strspn(end, "f, ");
    }
    if (*p != '}')
      break;
  }
  return n;
}

/* The index of multi-index m (dim+1 entries) among bb's alphas, or -1. */
static int index_of(const dg_bernstein *bb, const int *m) {
  for (int p = 0; p < bb->Np; p++)
    if (!memcmp(bb->alpha + p * (bb->dim + 1), m, (size_t)(bb->dim + 1) * sizeof *m))
      return p;
  return -1;
}

static void check(const dg_physics *ph, int dim, int N, int is_float, int nvrtc_ok) {
  dg_refelem *re = NULL, *rem = NULL;
  dg_bernstein *bb = NULL, *bbm = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  MUST(dg_refelem_create(dim, N - 1, &rem));
  MUST(dg_bernstein_create(re, &bb));
  MUST(dg_bernstein_create(rem, &bbm));
  dg_element_ops el = dg_element_ops_of_bernstein(re, bb);
  dg_kernel_config c = dg_kernel_config_default();
  c.basis = 1;
  c.stage_state = 1;
  if (re->Np <= 128) { /* the fused tensor-core kernel */
    c.work_mode = DG_WORK_MMA;
    c.elements_per_block = 8;
    c.fuse_surface = c.fuse_update = 1;
    c.mma_rows = 16;
  } else { /* one element a block, products in shared memory */
    c.work_mode = DG_WORK_GEMM;
    c.elements_per_block = 1;
  }
  dg_generated g;
  MUST(dg_codegen_generate(DG_CODEGEN_CUDA, &el, ph, is_float, &c, &g));
  int np = bb->Np, npm = bbm->Np, v1 = dim + 1, bad = 0;
  double(*up)[4] = calloc((size_t)npm, sizeof *up);
  double(*dn)[4] = calloc((size_t)np, sizeof *dn);
  double(*w)[4] = calloc((size_t)np, sizeof *w);
  CHECK(up && dn && w);
  EXPECT(read_table(g.source, "g_bb_up", npm, up) == npm &&
             read_table(g.source, "g_bb_dn", np, dn) == np &&
             read_table(g.source, "g_bb_w", np, w) == np,
         "dim %d N %d: tables not found or short", dim, N);
  const char *want = np <= 256 ? "{ unsigned char x, y, z, w; } dg_bb_index"
                               : "{ unsigned short x, y, z, w; } dg_bb_index";
  EXPECT(strstr(g.source, want) != NULL, "dim %d N %d (NP %d): not %s", dim, N, np, want);
  int m[4];
  for (int b = 0; b < npm; b++)
    for (int v = 0; v < 4; v++) {
      int expect = 0;
      if (v < v1) {
        memcpy(m, bbm->alpha + b * v1, (size_t)v1 * sizeof *m);
        m[v]++;
        expect = index_of(bb, m);
      }
      bad += up[b][v] != expect;
    }
  for (int a = 0; a < np; a++)
    for (int v = 0; v < 4; v++) {
      int expect = 0;
      double wt = 0;
      if (v < v1) {
        /* a_v = 0: the point of the nearest node with a_v > 0 (earlier
         * first), which the neighbouring lane reads in the same load */
        int q = -1;
        for (int d = 0; d < np && q < 0; d++)
          for (int side = 0; side < 2 && q < 0; side++) {
            int c = side ? a + d : a - d;
            if (c >= 0 && c < np && bb->alpha[c * v1 + v] > 0)
              q = c;
          }
        memcpy(m, bb->alpha + q * v1, (size_t)v1 * sizeof *m);
        m[v]--;
        expect = index_of(bbm, m);
        wt = (double)bb->alpha[a * v1 + v] / N;
      }
      bad += dn[a][v] != expect;
      bad += fabs(w[a][v] - wt) > (is_float ? 1e-7 : 1e-15);
    }
  EXPECT(bad == 0, "dim %d N %d %s: %d table entries wrong", dim, N, is_float ? "float" : "double",
         bad);
  if (nvrtc_ok) {
    void *cubin = NULL;
    size_t size = 0;
    dg_error e = dg_nvrtc_compile("dg_operators", g.source, "sm_90", NULL, 0, &cubin, &size);
    if (e == DG_ERR_UNSUPPORTED) {
      dg_error_clear();
    } else {
      EXPECT(e == DG_OK, "dim %d N %d: the module does not compile", dim, N);
      if (e != DG_OK)
        dg_error_print(stdout);
    }
    free(cubin);
  }
  printf("dim %d N %d %s: NP %d, %s indices, %d wrong\n", dim, N, is_float ? "float" : "double",
         np, np <= 256 ? "byte" : "16-bit", bad);
  free(up);
  free(dn);
  free(w);
  dg_generated_free(&g);
  dg_bernstein_destroy(&bbm);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&rem);
  dg_refelem_destroy(&re);
}

int main(int argc, char **argv) {
  dg_log_set_level(DG_LOG_WARN);
  for (int a = 1; a < argc; a++) {
    physics_file f = physics_file_load(argv[a]);
    if (f.dim == 2) {
      check(&f.ph, 2, 5, 0, 1);
      check(&f.ph, 2, 4, 1, 0);
    } else {
      check(&f.ph, 3, 3, 1, 1);
      check(&f.ph, 3, 7, 0, 0);
      check(&f.ph, 3, 10, 0, 1); /* NP 286: 16-bit indices */
    }
    physics_file_free(&f);
  }
  return expect_finish();
}
