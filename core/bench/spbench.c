/* spbench: SpMV per sparse format and CG time per iteration on the
 * synthetic DG-structured matrix of issue 8, against the device copy
 * bandwidth measured in the same run.
 *
 * The matrix: K elements of Np x Np dense blocks; element e is coupled to
 * e +- 1 and e +- s, s = round(sqrt(K)) (a structured 2D-like mesh), so an
 * interior block row holds 5 blocks and a row 5 Np entries (Np = 20: 100
 * entries per row; K = 100000: 2M rows, ~200M entries, the size of the
 * cuSPARSE / CuPy figures quoted in the issue).  Symmetric (entry values
 * are a hash of the unordered index pair), diagonally dominant (the
 * diagonal is 1 + the row's absolute off-diagonal sum): SPD.
 *
 * Figures per format:
 *   ms      mean time of one y = A x over --reps runs (device events);
 *   GB/s    dg_sparse_bytes_moved / time: the fewest bytes a product moves
 *           in that format = stored values (incl. BSR explicit zeros and
 *           ELL padding) + column / block-column indices (int32) + row
 *           pointers (int64) + x once + y once;
 *   frac    GB/s over the copy bandwidth (cuMemcpyDtoD or memcpy of a
 *           large buffer, read + write bytes), measured first;
 *   GF/s    2 nnz / time.
 * CG (dg_krylov, no preconditioner unless --pc): the marginal time of an
 * iteration, (t(i2) - t(i1)) / (i2 - i1) for solves stopped after i1 and
 * i2 = --iters iterations, i1 = i2 / 2 (so the start-up residual and the
 * final check cancel), each the best of three solves.
 *
 * Usage: spbench [--backend auto|cpu|cuda] [--K n] [--np b] [--float]
 *                [--reps n] [--iters n] [--pc none|jacobi|block-jacobi]
 *                [--formats csr-scalar,csr-vector,ell,bsr] [--tune] [--quick]
 *                [--mtx FILE]
 * --mtx: benchmark the matrix of a Matrix Market file instead (e.g. the SIPG
 * matrix dgrun writes with [poisson] matrix_file; --np its block size).
 * --quick: a small matrix (K = 2000, Np = 10) and few repetitions, for the
 * cpu backend and CI smoke runs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/comm.h"
#include "core/device.h"
#include "core/error.h"
#include "core/krylov.h"
#include "core/mmio.h"
#include "core/sparse.h"

#define TRY(expr)                                                             \
  do {                                                                        \
    if ((expr) != DG_OK) {                                                    \
      fprintf(stderr, "spbench: %s failed\n", #expr);                         \
      dg_error_print(stderr);                                                 \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

typedef struct {
  const char *backend;
  int64_t K;
  int np;
  dg_dtype dtype;
  int reps, iters;
  dg_krylov_pc pc;
  int formats[DG_SPARSE_NFORMATS];
  int tune;
  const char *mtx;
} options;

/* A symmetric pseudo-random value in [-1, 1) for the pair {i, j}. */
static double pair_value(int64_t i, int64_t j) {
  uint64_t a = (uint64_t)(i < j ? i : j), b = (uint64_t)(i < j ? j : i);
  uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* Neighbour elements of e in increasing order (itself included). */
static int neighbours(int64_t e, int64_t K, int64_t s, int64_t *out) {
  const int64_t cand[5] = {e - s, e - 1, e, e + 1, e + s};
  int n = 0;
  for (int q = 0; q < 5; q++)
    if (cand[q] >= 0 && cand[q] < K && (n == 0 || cand[q] > out[n - 1]))
      out[n++] = cand[q];
  return n;
}

static dg_csr *build_matrix(int64_t K, int b) {
  int64_t s = (int64_t)llround(sqrt((double)K));
  if (s < 2)
    s = 2;
  int64_t n = K * b;
  dg_csr *A;
  int64_t nnz = 0;
  for (int64_t e = 0; e < K; e++) {
    int64_t nb[5];
    nnz += (int64_t)neighbours(e, K, s, nb) * b * b;
  }
  TRY(dg_sparse_csr_create(n, n, nnz, &A));
  for (int64_t e = 0; e < K; e++) {
    int64_t nb[5];
    int m = neighbours(e, K, s, nb);
    for (int t = 0; t < b; t++)
      A->rowptr[e * b + t + 1] = (int64_t)m * b;
  }
  for (int64_t i = 0; i < n; i++)
    A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    int64_t nb[5];
    int m = neighbours(i / b, K, s, nb);
    int64_t at = A->rowptr[i], diag = -1;
    double off = 0;
    for (int q = 0; q < m; q++)
      for (int c = 0; c < b; c++) {
        int64_t j = nb[q] * b + c;
        A->colind[at] = j;
        if (j == i) {
          diag = at;
        } else {
          A->values[at] = pair_value(i, j);
          off += fabs(A->values[at]);
        }
        at++;
      }
    A->values[diag] = 1.0 + off;
  }
  return A;
}

/* Device time between timer_start and timer_stop (events on the default
 * stream; a host clock on cpu). */
typedef struct {
  dg_event *start, *stop;
} timer;

static timer timer_start(dg_device *dev) {
  timer t;
  TRY(dg_event_create(dev, &t.start));
  TRY(dg_event_create(dev, &t.stop));
  TRY(dg_event_record(t.start, NULL));
  return t;
}

static double timer_stop(timer *t) {
  float ms;
  TRY(dg_event_record(t->stop, NULL));
  TRY(dg_event_synchronize(t->stop));
  TRY(dg_event_elapsed_ms(t->start, t->stop, &ms));
  dg_event_destroy(&t->start);
  dg_event_destroy(&t->stop);
  return ms;
}

static double copy_bandwidth(dg_device *dev, size_t bytes, int reps) {
  void *a, *b;
  TRY(dg_device_malloc(dev, bytes, &a));
  TRY(dg_device_malloc(dev, bytes, &b));
  TRY(dg_device_copy(dev, b, a, bytes)); /* warm-up (and first touch) */
  timer t = timer_start(dev);
  for (int r = 0; r < reps; r++)
    TRY(dg_device_copy(dev, b, a, bytes));
  double ms = timer_stop(&t);
  TRY(dg_device_free(dev, a));
  TRY(dg_device_free(dev, b));
  return 2.0 * (double)bytes * reps / (ms * 1e-3);
}

static double time_spmv(dg_device *dev, dg_sparse *M, dg_array *x, dg_array *y,
                        int reps) {
  TRY(dg_sparse_spmv(M, x, y, 0, NULL)); /* warm-up */
  timer t = timer_start(dev);
  for (int r = 0; r < reps; r++)
    TRY(dg_sparse_spmv(M, x, y, 0, NULL));
  return timer_stop(&t) / reps;
}

/* Wall time of a CG solve stopped after exactly iters iterations (the
 * tolerance is out of reach, so the solve ends in DG_ERR_NUMERIC, which is
 * expected here). */
static double time_cg(dg_device *dev, dg_sparse_dist *D, const dg_csr *A,
                      const options *o, dg_array *b, dg_array *x, int iters) {
  dg_krylov_options opt = dg_krylov_defaults();
  opt.rtol = 1e-300;
  opt.max_iterations = iters;
  opt.pc = o->pc;
  opt.block = o->np;
  dg_krylov *k;
  TRY(dg_krylov_create(D, A, &opt, &k));
  TRY(dg_array_fill(x, 0.0));
  TRY(dg_device_synchronize(dev));
  timer t = timer_start(dev);
  dg_krylov_result res;
  dg_error err = dg_krylov_solve(k, b, x, &res);
  double ms = timer_stop(&t);
  if (err != DG_ERR_NUMERIC || res.iterations != iters) {
    fprintf(stderr, "spbench: CG stopped after %d of %d iterations (%s)\n",
            res.iterations, iters, dg_error_name(err));
    dg_error_print(stderr);
    exit(1);
  }
  dg_error_clear();
  dg_krylov_destroy(&k);
  return ms;
}

static void usage(void) {
  fprintf(stderr,
          "usage: spbench [--backend auto|cpu|cuda] [--K n] [--np b] "
          "[--float]\n"
          "               [--reps n] [--iters n] [--pc none|jacobi|"
          "block-jacobi]\n"
          "               [--formats csr-scalar,csr-vector,ell,bsr] [--tune] "
          "[--quick]\n"
          "               [--mtx FILE]\n");
  exit(2);
}

static void parse_formats(const char *list, options *o) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  for (int f = 0; f < DG_SPARSE_NFORMATS; f++)
    o->formats[f] = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    dg_sparse_format f;
    if (dg_sparse_format_parse(tok, &f) != DG_OK || f == DG_SPARSE_AUTO) {
      fprintf(stderr, "spbench: unknown format '%s'\n", tok);
      usage();
    }
    o->formats[f] = 1;
  }
}

static options parse(int argc, char **argv) {
  options o = {.backend = "auto", .K = 100000, .np = 20, .dtype = DG_DOUBLE,
               .reps = 20, .iters = 50, .pc = DG_KRYLOV_PC_NONE,
               .formats = {1, 1, 1, 1}};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick")) {
      o.K = 2000;
      o.np = 10;
      o.reps = 5;
      o.iters = 10;
    } else if (!strcmp(a, "--float")) {
      o.dtype = DG_FLOAT;
    } else if (!strcmp(a, "--tune")) {
      o.tune = 1;
    } else if (v && !strcmp(a, "--mtx")) {
      o.mtx = v, i++;
    } else if (v && !strcmp(a, "--backend")) {
      o.backend = v, i++;
    } else if (v && !strcmp(a, "--K")) {
      o.K = atoll(v), i++;
    } else if (v && !strcmp(a, "--np")) {
      o.np = atoi(v), i++;
    } else if (v && !strcmp(a, "--reps")) {
      o.reps = atoi(v), i++;
    } else if (v && !strcmp(a, "--iters")) {
      o.iters = atoi(v), i++;
    } else if (v && !strcmp(a, "--pc")) {
      if (dg_krylov_pc_parse(v, &o.pc) != DG_OK)
        usage();
      i++;
    } else if (v && !strcmp(a, "--formats")) {
      parse_formats(v, &o);
      i++;
    } else {
      usage();
    }
  }
  if (o.K < 1 || o.np < 1 || o.reps < 1 || o.iters < 2)
    usage();
  return o;
}

int main(int argc, char **argv) {
  options o = parse(argc, argv);
  dg_comm *comm;
  TRY(dg_comm_create_world(&comm));
  dg_device *dev;
  TRY(dg_device_create(o.backend, -1, &dev));
  const dg_device_info *info = dg_device_get_info(dev);
  int cuda = info->backend == DG_BACKEND_CUDA;
  printf("device: %s (%s)\n", info->name, info->backend_name);

  dg_csr *A;
  if (o.mtx) {
    TRY(dg_mmio_read(o.mtx, &A));
    if (A->nrows % o.np || A->nrows != A->ncols) {
      fprintf(stderr, "spbench: %s: %lld x %lld is not square in blocks of %d (--np)\n",
              o.mtx, (long long)A->nrows, (long long)A->ncols, o.np);
      return 2;
    }
    o.K = A->nrows / o.np;
    printf("matrix file: %s\n", o.mtx);
  } else {
    A = build_matrix(o.K, o.np);
  }
  printf("matrix: K = %lld elements of %d x %d blocks, %lld rows, %lld "
         "entries (%.1f per row), %s\n", (long long)o.K, o.np, o.np,
         (long long)A->nrows, (long long)A->nnz,
         (double)A->nnz / (double)A->nrows, dg_dtype_name(o.dtype));

  size_t copy_bytes = cuda ? (size_t)1 << 30 : (size_t)64 << 20;
  double copy = copy_bandwidth(dev, copy_bytes, cuda ? 20 : 5);
  printf("copy bandwidth: %.1f GB/s (read + write, %zu MiB buffers)\n",
         copy * 1e-9, copy_bytes >> 20);

  dg_array *x, *y;
  TRY(dg_array_create(dev, o.dtype, A->ncols, &x));
  TRY(dg_array_create(dev, o.dtype, A->nrows, &y));
  TRY(dg_array_fill(x, 1.0));
  printf("\n%-11s %10s %12s %10s %7s %8s\n", "format", "ms", "bytes", "GB/s",
         "frac", "GF/s");
  double best_ms = INFINITY;
  dg_sparse_format best = DG_SPARSE_BSR;
  for (int f = 0; f < DG_SPARSE_NFORMATS; f++) {
    if (!o.formats[f])
      continue;
    dg_sparse *M;
    TRY(dg_sparse_create(dev, A, (dg_sparse_format)f, o.np, o.dtype, &M));
    double ms = time_spmv(dev, M, x, y, o.reps);
    double bytes = (double)dg_sparse_bytes_moved(M);
    double gbs = bytes / (ms * 1e-3);
    printf("%-11s %10.4f %12.4g %10.1f %7.3f %8.1f\n",
           dg_sparse_format_name((dg_sparse_format)f), ms, bytes, gbs * 1e-9,
           gbs / copy, 2.0 * (double)A->nnz / (ms * 1e-3) * 1e-9);
    if (ms < best_ms) {
      best_ms = ms;
      best = (dg_sparse_format)f;
    }
    dg_sparse_destroy(&M);
  }
  dg_sparse_format heuristic;
  TRY(dg_sparse_choose(dev, A, o.np, &heuristic));
  printf("fastest: %s; heuristic choice: %s\n", dg_sparse_format_name(best),
         dg_sparse_format_name(heuristic));
  if (o.tune) {
    double ms[DG_SPARSE_NFORMATS];
    dg_sparse_format tuned;
    TRY(dg_sparse_tune(dev, A, o.np, o.dtype, 5, &tuned, ms));
    printf("dg_sparse_tune picks %s\n", dg_sparse_format_name(tuned));
  }
  dg_array_destroy(&x);
  dg_array_destroy(&y);

  /* CG on the fastest format, on this rank alone. */
  dg_sparse_dist *D;
  TRY(dg_sparse_dist_create(comm, dev, A, 0, best, o.np, o.dtype, &D));
  dg_array *b, *xs;
  TRY(dg_array_create(dev, o.dtype, A->nrows, &b));
  TRY(dg_array_create(dev, o.dtype, A->nrows, &xs));
  TRY(dg_array_fill(b, 1.0));
  int i1 = o.iters / 2, i2 = o.iters;
  time_cg(dev, D, A, &o, b, xs, 2); /* compile and warm up */
  /* Best of three of each: one slow solve (a busy host) must not make the
   * difference meaningless. */
  double t1 = INFINITY, t2 = INFINITY;
  for (int r = 0; r < 3; r++) {
    t1 = fmin(t1, time_cg(dev, D, A, &o, b, xs, i1));
    t2 = fmin(t2, time_cg(dev, D, A, &o, b, xs, i2));
  }
  double per = (t2 - t1) / (i2 - i1);
  printf("\nCG (%s, preconditioner %s): %.4f ms per iteration (%.2f SpMV "
         "times)\n", dg_sparse_format_name(best), dg_krylov_pc_name(o.pc), per,
         per / best_ms);
  dg_array_destroy(&b);
  dg_array_destroy(&xs);
  dg_sparse_dist_destroy(&D);
  dg_sparse_csr_destroy(&A);
  dg_device_destroy(&dev);
  dg_comm_destroy(&comm);
  return 0;
}
