/* core.kernel_source_digests: the source text of every kernel core/ makes
 * (the SpMV kernels of core/sparse.c for each format, dtype and shape, the
 * elementwise kernels of core/array.c, core/krylov.c and core/sparse_dist.c,
 * the ready-made and krylov reductions and user maps of core/reduction.c; cuda
 * and cpu backends), generated without a device, hashed one module a line
 * and compared with tests/array/kernel_source_digests.txt.
 *
 * Why: moving core's fixed device code into embedded core/jit files must
 * leave every module byte-identical (the kernel cache keys on the text);
 * `dump DIR` writes the modules for a source diff.  When a kernel is meant
 * to change, regenerate the file (`write`) in the same commit and say why.
 *
 * usage: test_core_kernel_source_digests check|write DIGESTS
 *        test_core_kernel_source_digests dump DIR                         */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elementwise.h"
#include "core/hash.h"
#include "core/reduction.h"
#include "core/sparse.h"
#include "tests/digest_file.h"

typedef digest_run run;

static const char *backend(int cuda) { return cuda ? "cuda" : "cpu"; }

/* One module: its digest line, and its file when dumping. */
static void record(run *r, const char *tag, int cuda, dg_strbuf *b) {
  char *src = NULL;
  MUST(dg_strbuf_finish(b, &src));
  unsigned char d[DG_HASH_SIZE];
  char hex[DG_HASH_HEX_SIZE];
  dg_hash h;
  dg_hash_init(&h);
  dg_hash_update_field(&h, src);
  dg_hash_final(&h, d);
  dg_hash_hex(d, DG_HASH_SIZE, hex);
  CHECK(r->nlines < DIGEST_MAX_LINES, "too many modules");
  snprintf(r->lines[r->nlines++], DIGEST_LINE, "%s_%s %s", tag, backend(cuda), hex);
  if (strcmp(r->mode, "dump") == 0) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%s.%s", r->dir, tag, backend(cuda), cuda ? "cu" : "c");
    digest_dump(path, src);
  }
  free(src);
}

/* Every SpMV shape dg_sparse_create / dg_sparse_tune can make: csr-vector
 * lanes are the powers of two 2..32 (lanes_for), the ell width and the bsr
 * block any positive number (a sample, the DG blocks Np of 2D/3D among
 * them). */
static void spmv(run *r, dg_dtype dt, int cuda) {
  static const int lanes[] = {2, 4, 8, 16, 32};
  static const int widths[] = {1, 7, 27, 64};
  static const int blocks[] = {1, 2, 3, 4, 6, 8, 10, 20, 35};
  for (int f = 0; f < DG_SPARSE_NFORMATS; f++) {
    int n = f == DG_SPARSE_CSR_VECTOR ? 5 : f == DG_SPARSE_ELL ? 4 : f == DG_SPARSE_BSR ? 9 : 1;
    for (int v = 0; v < n; v++) {
      char name[64];
      dg_strbuf b;
      dg_strbuf_init(&b);
      MUST(dg_sparse_emit_source((dg_sparse_format)f, dt, cuda, blocks[v], widths[v % 4],
                                 lanes[v % 5], name, sizeof name, &b));
      record(r, name, cuda, &b);
    }
  }
}

/* The elementwise kernels core/ makes (names and signatures as there). */
static void elementwise(run *r, dg_dtype dt, int cuda) {
  const char *t = dg_dtype_name(dt), *o = dg_dtype_name(dt == DG_FLOAT ? DG_DOUBLE : DG_FLOAT);
  char name[64], args[160], op[160];
  struct {
    const char *name, *args, *op;
  } k[] = {{"fill_%1$s", "%1$s *a, %1$s value", "a[i] = value"},                    /* array.c */
           {"convert_%2$s_to_%1$s", "%1$s *dst, const %2$s *src", "dst[i] = src[i]"}, /* array.c */
           {"cg_direction_%1$s", "%1$s *p, const %1$s *z, double beta",
            "p[i] = z[i] + (%1$s)beta * p[i]"},                                     /* krylov.c */
           {"spmv_gather_%1$s", "%1$s *s, const %1$s *x, const int64_t *idx",
            "s[i] = x[idx[i]]"}};                                                 /* sparse_dist.c */
  for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
    snprintf(name, sizeof name, k[i].name, t, o);
    snprintf(args, sizeof args, k[i].args, t, o);
    snprintf(op, sizeof op, k[i].op, t);
    dg_strbuf b;
    dg_strbuf_init(&b);
    MUST(dg_elementwise_emit_source(name, args, op, cuda, &b));
    record(r, name, cuda, &b);
  }
}

/* The ready-made reductions, krylov.c's fused ones, and user maps whose
 * neutral elements take each form of the literal (0, -inf, a value). */
static void reductions(run *r, dg_dtype dt, int cuda) {
  const char *t = dg_dtype_name(dt);
  static const char *ready[] = {"sum", "dot", "norm2", "max_abs"};
  for (int w = 0; w < DG_REDUCE_NREADY; w++) {
    dg_strbuf b;
    dg_strbuf_init(&b);
    MUST(dg_reduction_emit_ready_source((dg_reduce_ready)w, dt, cuda, &b));
    char tag[64];
    snprintf(tag, sizeof tag, "%s_%s", ready[w], t);
    record(r, tag, cuda, &b);
  }
  struct {
    const char *name, *args, *map;
    dg_reduce_op op;
    double neutral;
  } k[] = {{"cg_residual_%1$s", "%1$s *r, const %1$s *b, const %1$s *q",
            "(r[i] = b[i] - q[i], (double)r[i] * r[i])", DG_REDUCE_SUM, 0.0},
           {"cg_update_%1$s", "%1$s *x, %1$s *r, const %1$s *p, const %1$s *q, double a",
            "(x[i] += (%1$s)a * p[i], r[i] -= (%1$s)a * q[i], (double)r[i] * r[i])",
            DG_REDUCE_SUM, 0.0},
           {"cg_jacobi_%1$s", "%1$s *z, const %1$s *r, const %1$s *d",
            "(z[i] = d[i] * r[i], (double)r[i] * z[i])", DG_REDUCE_SUM, 0.0},
           {"owned_finite_%1$s", "const %1$s *x, int64_t run, int64_t stride",
            "(double)x[(i / run) * stride + i %% run] * 0.0", DG_REDUCE_SUM, 0.0},
           {"user_max_%1$s", "const %1$s *x, const int *mask", "mask[i] ? x[i] : -1.0",
            DG_REDUCE_MAX, -INFINITY},
           {"user_offset_%1$s", "const %1$s *x, double s", "s * x[i]", DG_REDUCE_SUM, 0.25}};
  for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
    char name[64], args[160], map[200];
    snprintf(name, sizeof name, k[i].name, t);
    snprintf(args, sizeof args, k[i].args, t);
    snprintf(map, sizeof map, k[i].map, t);
    dg_strbuf b;
    dg_strbuf_init(&b);
    MUST(dg_reduction_emit_source(name, args, map, k[i].op, k[i].neutral, cuda, &b));
    record(r, name, cuda, &b);
  }
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s check|write|dump DIGESTS|DIR", argv[0]);
  static run r;
  digest_start(&r, argv[1], argv[2]);
  for (int cuda = 1; cuda >= 0; cuda--)
    for (int d = 0; d < 2; d++) {
      dg_dtype dt = d ? DG_DOUBLE : DG_FLOAT;
      spmv(&r, dt, cuda);
      elementwise(&r, dt, cuda);
      reductions(&r, dt, cuda);
    }
  digest_finish(&r, argv[2],
                "# core.kernel_source_digests: <module>_<backend> <sha256 of its source>\n"
                "# regenerate: test_core_kernel_source_digests write <this file>\n");
  return expect_finish();
}
