/* Shared helpers of the tests in tests/array/: command line (--backend,
 * --seed), device opening (exit 77 when cuda is asked for but absent),
 * fresh random data, poisoned device buffers and checks. */
#ifndef DG_TESTS_ARRAY_TEST_H
#define DG_TESTS_ARRAY_TEST_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/device.h"
#include "core/error.h"
#include "tests/expect.h"

static uint64_t rng_state;

/* splitmix64: small, good enough for test data, reproducible from a seed. */
static inline uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1), already rounded to dtype so that host reference and
 * device see the same inputs. */
static inline double rng_value(dg_dtype dtype) {
  double x = (double)(rng_next() >> 11) * 0x1p-52 - 1.0;
  return dtype == DG_FLOAT ? (double)(float)x : x;
}

static inline double *random_values(int64_t n, dg_dtype dtype) {
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  if (!v) {
    printf("out of host memory\n");
    exit(1);
  }
  for (int64_t k = 0; k < n; k++)
    v[k] = rng_value(dtype);
  return v;
}

/* Parse --backend NAME and --seed S; open the device.  A cuda request on a
 * machine without a usable GPU skips the test (exit 77). */
static inline dg_device *test_open(int argc, char **argv) {
  const char *backend = "cpu";
  uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--backend") == 0 && k + 1 < argc)
      backend = argv[++k];
    else if (strcmp(argv[k], "--seed") == 0 && k + 1 < argc)
      seed = strtoull(argv[++k], NULL, 0);
    else {
      printf("usage: %s [--backend cpu|cuda] [--seed S]\n", argv[0]);
      exit(2);
    }
  }
  if (strcmp(backend, "cuda") == 0 && !dg_device_cuda_available()) {
    printf("skipped: no usable CUDA device\n");
    exit(77);
  }
  rng_state = seed;
  printf("backend %s, seed %llu (rerun with --seed to reproduce)\n", backend,
         (unsigned long long)seed);
  dg_device *dev = NULL;
  MUST(dg_device_create(backend, -1, &dev));
  return dev;
}

/* Every element NaN: an output the kernel forgot to write stays NaN, and a
 * NaN read by a reduction from outside its range spoils its result. */
static inline void poison(dg_array *a) {
  int64_t n = dg_array_length(a);
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  for (int64_t k = 0; k < n; k++)
    v[k] = NAN;
  MUST(dg_array_upload_double(a, v));
  free(v);
}

static inline double *download(const dg_array *a) {
  int64_t n = dg_array_length(a);
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  MUST(dg_array_download_double(a, v));
  return v;
}

/* Elements [0, lo) and [hi, length) of a are still NaN (untouched). */
static inline void expect_guards(const dg_array *a, int64_t lo, int64_t hi,
                          const char *what) {
  double *v = download(a);
  int64_t bad = 0;
  for (int64_t k = 0; k < dg_array_length(a); k++)
    if ((k < lo || k >= hi) && !isnan(v[k]))
      bad++;
  EXPECT(bad == 0, "%s: %lld guard elements outside [%lld, %lld) overwritten",
         what, (long long)bad, (long long)lo, (long long)hi);
  free(v);
}

static inline int test_finish(dg_device **dev) {
  dg_device_destroy(dev);
  if (failures == 0)
    printf("ok\n");
  else
    printf("%d failures\n", failures);
  return failures ? 1 : 0;
}

#endif
