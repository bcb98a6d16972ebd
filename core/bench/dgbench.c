/* dgbench: memory bandwidth of the generated array kernels, as a fraction of
 * the device-to-device copy bandwidth measured in the same run.
 *
 *   dgbench [--backend auto|cuda|cpu] [--n N] [--repeats R] [--quick]
 *
 * Copy: dg_device_copy and a generated copy kernel, bytes read + written;
 * the better one is the reference.  Then for double and float data:
 *   axpy  y = a*x + y        3 n elements moved (read x, y; write y)
 *   dot   sum x[i] y[i]      2 n
 *   norm  sqrt(sum x[i]^2)   1 n
 * Each time is the median of R repeats, each timed with device events after
 * a warm-up; reductions include returning the result to the host.  Bytes
 * are the minimal bytes an operation must move (DESIGN.md, "Performance
 * yardsticks").  Each kernel's result is checked against the known answer
 * of the data, so a wrong kernel cannot post a good time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/device.h"
#include "core/elementwise.h"
#include "core/error.h"
#include "core/reduction.h"

typedef struct {
  const char *backend;
  int64_t n;
  int repeats;
} options;

typedef dg_error (*op_fn)(void *ctx);

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Median milliseconds of opts->repeats timed calls after two warm-ups. */
static dg_error time_op(dg_device *dev, int repeats, op_fn fn, void *ctx,
                        double *ms) {
  dg_event *start = NULL, *stop = NULL;
  float *t = calloc((size_t)repeats, sizeof *t);
  DG_CHECK(t != NULL, DG_ERR_MEMORY, "out of host memory");
  dg_error err;
  DG_CALL_GOTO(err, done, dg_event_create(dev, &start));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &stop));
  for (int w = 0; w < 2; w++)
    DG_CALL_GOTO(err, done, fn(ctx));
  DG_CALL_GOTO(err, done, dg_device_synchronize(dev));
  for (int r = 0; r < repeats; r++) {
    DG_CALL_GOTO(err, done, dg_event_record(start, NULL));
    DG_CALL_GOTO(err, done, fn(ctx));
    DG_CALL_GOTO(err, done, dg_event_record(stop, NULL));
    DG_CALL_GOTO(err, done, dg_event_synchronize(stop));
    DG_CALL_GOTO(err, done, dg_event_elapsed_ms(start, stop, &t[r]));
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_float);
  *ms = repeats % 2 ? t[repeats / 2] : 0.5 * (t[repeats / 2 - 1] + t[repeats / 2]);
done:
  dg_event_destroy(&start);
  dg_event_destroy(&stop);
  free(t);
  return err;
}

/* ---- the operations ------------------------------------------------------ */

typedef struct {
  dg_device *dev;
  dg_array *x, *y;
  int64_t n;
  dg_elementwise *copy, *axpy;
  dg_reduction *dot, *norm;
  double a, result;
} bench;

static dg_error op_device_copy(void *ctx) {
  bench *b = ctx;
  return dg_device_copy(b->dev, dg_array_data(b->y), dg_array_data(b->x),
                        dg_array_bytes(b->x));
}
static dg_error op_kernel_copy(void *ctx) {
  bench *b = ctx;
  return dg_elementwise_call(b->copy, b->n,
                             (dg_arg[]){DG_ARG_ARRAY(b->y), DG_ARG_ARRAY(b->x)});
}
static dg_error op_axpy(void *ctx) {
  bench *b = ctx;
  return dg_elementwise_call(
      b->axpy, b->n,
      (dg_arg[]){DG_ARG_ARRAY(b->y), DG_ARG_REAL(b->a), DG_ARG_ARRAY(b->x)});
}
static dg_error op_dot(void *ctx) {
  bench *b = ctx;
  return dg_reduction_call(b->dot, b->n,
                           (dg_arg[]){DG_ARG_ARRAY(b->x), DG_ARG_ARRAY(b->y)},
                           &b->result);
}
static dg_error op_norm(void *ctx) {
  bench *b = ctx;
  return dg_reduction_call(b->norm, b->n, (dg_arg[]){DG_ARG_ARRAY(b->x)},
                           &b->result);
}

static void print_row(const char *what, dg_dtype t, double ms, double bytes,
                      double reference) {
  double gbs = bytes / (ms * 1e-3) / 1e9;
  printf("%-14s %-7s %10.4f %10.1f", what, dg_dtype_name(t), ms, gbs);
  if (reference > 0)
    printf(" %8.3f", gbs / reference);
  printf("\n");
}

static void destroy_bench(bench *b) {
  dg_array_destroy(&b->x);
  dg_array_destroy(&b->y);
  dg_elementwise_destroy(&b->copy);
  dg_elementwise_destroy(&b->axpy);
  dg_reduction_destroy(&b->dot);
  dg_reduction_destroy(&b->norm);
}

/* x = 1, y = 2 (exact in both dtypes): dot = 2n, norm = sqrt(n), and after
 * k axpy calls with a = 0.5, y = 2 + k/2 (exact while small). */
static dg_error setup(dg_device *dev, dg_dtype t, int64_t n, bench *b) {
  const char *tn = dg_dtype_name(t);
  char name[64], args[128];
  *b = (bench){.dev = dev, .n = n, .a = 0.5};
  DG_CALL(dg_array_create(dev, t, n, &b->x));
  DG_CALL(dg_array_create(dev, t, n, &b->y));
  DG_CALL(dg_array_fill(b->x, 1.0));
  DG_CALL(dg_array_fill(b->y, 2.0));
  snprintf(name, sizeof name, "bench_copy_%s", tn);
  snprintf(args, sizeof args, "%s *y, const %s *x", tn, tn);
  DG_CALL(dg_elementwise_create(dev, name, args, "y[i] = x[i]", &b->copy));
  snprintf(name, sizeof name, "bench_axpy_%s", tn);
  snprintf(args, sizeof args, "%s *y, %s a, const %s *x", tn, tn, tn);
  DG_CALL(dg_elementwise_create(dev, name, args, "y[i] = a*x[i] + y[i]", &b->axpy));
  DG_CALL(dg_reduction_create_dot(dev, t, &b->dot));
  DG_CALL(dg_reduction_create_norm2(dev, t, &b->norm));
  return DG_OK;
}

static dg_error check(const char *what, double got, double want) {
  DG_CHECK(fabs(got - want) <= 1e-12 * fabs(want), DG_ERR_NUMERIC,
           "dgbench: %s gave %.17g, expected %.17g", what, got, want);
  return DG_OK;
}

/* The copy rows for double data; returns the reference bandwidth. */
static dg_error run_copy(dg_device *dev, const options *o, double *reference) {
  bench b;
  dg_error err;
  double ms_dev, ms_kernel;
  DG_CALL_GOTO(err, done, setup(dev, DG_DOUBLE, o->n, &b));
  double bytes = 2.0 * (double)dg_array_bytes(b.x);
  DG_CALL_GOTO(err, done, time_op(dev, o->repeats, op_device_copy, &b, &ms_dev));
  DG_CALL_GOTO(err, done, time_op(dev, o->repeats, op_kernel_copy, &b, &ms_kernel));
  double best = ms_dev < ms_kernel ? ms_dev : ms_kernel;
  *reference = bytes / (best * 1e-3) / 1e9;
  print_row("copy (device)", DG_DOUBLE, ms_dev, bytes, *reference);
  print_row("copy (kernel)", DG_DOUBLE, ms_kernel, bytes, *reference);
  /* y = x = 1 now: x . y = n. */
  DG_CALL_GOTO(err, done, op_dot(&b));
  DG_CALL_GOTO(err, done, check("copy", b.result, (double)o->n));
done:
  destroy_bench(&b);
  return err;
}

static dg_error run_dtype(dg_device *dev, const options *o, dg_dtype t,
                          double reference) {
  bench b;
  dg_error err;
  double ms;
  double bytes = (double)o->n * (double)dg_dtype_size(t);
  DG_CALL_GOTO(err, done, setup(dev, t, o->n, &b));
  /* dot and norm first, on the known data. */
  DG_CALL_GOTO(err, done, time_op(dev, o->repeats, op_dot, &b, &ms));
  print_row("dot", t, ms, 2 * bytes, reference);
  DG_CALL_GOTO(err, done, check("dot", b.result, 2.0 * (double)o->n));
  DG_CALL_GOTO(err, done, time_op(dev, o->repeats, op_norm, &b, &ms));
  print_row("norm", t, ms, bytes, reference);
  DG_CALL_GOTO(err, done, check("norm", b.result, sqrt((double)o->n)));
  DG_CALL_GOTO(err, done, time_op(dev, o->repeats, op_axpy, &b, &ms));
  print_row("axpy", t, ms, 3 * bytes, reference);
  /* 2 warm-ups + repeats calls, each adding a * x = 0.5. */
  double y = 2.0 + 0.5 * (o->repeats + 2);
  DG_CALL_GOTO(err, done, op_dot(&b));
  DG_CALL_GOTO(err, done, check("axpy", b.result, y * (double)o->n));
done:
  destroy_bench(&b);
  return err;
}

static int usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [--backend auto|cuda|cpu] [--n N] [--repeats R] [--quick]\n"
          "  --n N        elements per array (default 2^26)\n"
          "  --repeats R  timed repeats per operation, median reported (default 20)\n"
          "  --quick      n = 2^20, 5 repeats: a few seconds on a CPU\n",
          prog);
  return 2;
}

static dg_error run(const options *o) {
  dg_device *dev = NULL;
  DG_CALL(dg_device_create(o->backend, -1, &dev));
  const dg_device_info *info = dg_device_get_info(dev);
  printf("dgbench: backend %s, device %s (%d %s), n = %lld, median of %d\n",
         info->backend_name, info->name, info->multiprocessors,
         info->backend == DG_BACKEND_CUDA ? "SMs" : "threads", (long long)o->n,
         o->repeats);
  printf("%-14s %-7s %10s %10s %8s\n", "operation", "dtype", "time ms", "GB/s",
         "of copy");
  double reference = 0;
  dg_error err;
  DG_CALL_GOTO(err, done, run_copy(dev, o, &reference));
  DG_CALL_GOTO(err, done, run_dtype(dev, o, DG_DOUBLE, reference));
  DG_CALL_GOTO(err, done, run_dtype(dev, o, DG_FLOAT, reference));
  printf("(GB/s counts the minimal bytes: copy 2n, axpy 3n, dot 2n, norm n "
         "elements; reference copy %.1f GB/s)\n", reference);
done:
  dg_device_destroy(&dev);
  return err;
}

/* The array benchmark; `dgbench` (problems/bench/dgbench_main.c) runs it
 * unless its first argument names another benchmark. */
int dg_arraybench_main(int argc, char **argv) {
  options o = {.backend = "auto", .n = (int64_t)1 << 26, .repeats = 20};
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--backend") == 0 && k + 1 < argc)
      o.backend = argv[++k];
    else if (strcmp(argv[k], "--n") == 0 && k + 1 < argc)
      o.n = strtoll(argv[++k], NULL, 0);
    else if (strcmp(argv[k], "--repeats") == 0 && k + 1 < argc)
      o.repeats = atoi(argv[++k]);
    else if (strcmp(argv[k], "--quick") == 0) {
      o.n = (int64_t)1 << 20;
      o.repeats = 5;
    } else
      return usage(argv[0]);
  }
  if (o.n < 1 || o.repeats < 1) {
    fprintf(stderr, "dgbench: --n and --repeats must be positive\n");
    return usage(argv[0]);
  }
  if (run(&o) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  return 0;
}
