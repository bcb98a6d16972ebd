/* A stand-in for libcuda.so.1 (tests/cuda/mock_cuda.c), so the cuda
 * backend's own logic runs on machines without a GPU: ctest puts the mock's
 * folder first on LD_LIBRARY_PATH and the backend dlopens it instead of the
 * driver.  It keeps "device memory" in host memory, accepts any ELF image
 * as a module, and emulates two kernels on the host:
 *   iota(long long n, int *p)      p[i] = i for i < min(n, grid.x*block.x)
 *   big_shared(int *p)             does nothing; 1 KiB static shared
 * It exports only the symbol names the real driver exports, including the
 * old cuEventElapsedTime but not cuEventElapsedTime_v2, to exercise the
 * loader's fallback.  The test reads what the backend did through
 * mock_cuda_get_stats (dlsym on the same library). */
#ifndef DG_TESTS_CUDA_MOCK_CUDA_H
#define DG_TESTS_CUDA_MOCK_CUDA_H

/* The mock device (H100-like numbers, 1 GiB of memory). */
#define MOCK_CUDA_NAME "Mock H100 for dgrun tests"
#define MOCK_CUDA_TOTAL_MEMORY (1ull << 30)
#define MOCK_CUDA_SMS 132
#define MOCK_CUDA_SHARED_DEFAULT (48 * 1024)
#define MOCK_CUDA_SHARED_OPTIN (227 * 1024)
#define MOCK_CUDA_STATIC_SHARED 1024 /* of big_shared */
#define MOCK_CUDA_MAX_THREADS 256    /* of big_shared */

typedef struct mock_cuda_stats {
  int ctx_refs;            /* primary context retains - releases */
  int ctx_set_current;     /* cuCtxSetCurrent calls with that context */
  int streams_live, events_live, modules_live;
  unsigned last_stream_flags;
  long long bytes_live;    /* allocated and not freed */
  int set_attribute_calls; /* cuFuncSetAttribute(MAX_DYNAMIC_SHARED...) */
  int dynamic_shared_attr; /* its last value */
  int launches;
  unsigned last_grid[3], last_block[3], last_shared;
  void *last_stream;
  /* Make the next call of the driver function named fail_call return
   * fail_code (then it is cleared). */
  char fail_call[64];
  int fail_code;
} mock_cuda_stats;

typedef mock_cuda_stats *(*mock_cuda_get_stats_fn)(void);

#endif
