/* core.nvrtc_concurrent: NVRTC compiles on several threads at once give
 * the same CUBINs as one after the other, and no failure (the tuner's
 * precompile now forks workers, core/forkpool.h, as threads serialize in
 * NVRTC; any caller may still compile from threads).  Compile-only, no
 * GPU; 77 without NVRTC. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/nvrtc.h"
#include "tests/expect.h"

enum { N = 12, THREADS = 6 };

typedef struct {
  char src[512];
  void *cubin;
  size_t size;
  dg_error err;
} job;

static job jobs[N];
static int next_job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&lock);
    int i = next_job++;
    pthread_mutex_unlock(&lock);
    if (i >= N)
      return NULL;
    jobs[i].err = dg_nvrtc_compile("k.cu", jobs[i].src, "sm_90", NULL, 0, &jobs[i].cubin,
                                   &jobs[i].size);
    if (jobs[i].err != DG_OK)
      dg_error_clear();
  }
}

int main(void) {
  int major, minor;
  if (dg_nvrtc_version(&major, &minor) != DG_OK) {
    printf("skipped: NVRTC is not available here\n");
    return 77;
  }
  for (int i = 0; i < N; i++) /* distinct modules: constants baked in differ */
    snprintf(jobs[i].src, sizeof jobs[i].src,
             "extern \"C\" __global__ void k(double *x, int n) {\n"
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (i < n) x[i] = %d.5 * x[i] + sqrt(x[i] * %d.0);\n"
             "}\n",
             i, i + 1);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0, "pthread_create");
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < N; i++) {
    EXPECT(jobs[i].err == DG_OK && jobs[i].cubin, "module %d failed on a thread", i);
    void *one = NULL;
    size_t n1 = 0;
    MUST(dg_nvrtc_compile("k.cu", jobs[i].src, "sm_90", NULL, 0, &one, &n1));
    EXPECT(n1 == jobs[i].size && memcmp(one, jobs[i].cubin, n1) == 0,
           "module %d: the concurrent CUBIN differs from the sequential one", i);
    free(one);
    free(jobs[i].cubin);
  }
  return expect_finish();
}
