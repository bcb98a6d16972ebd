/* Linked into every program of a -DDGRUN_SANITIZE=ON build (CMakeLists.txt):
 * the sanitizer runtime asks these hooks for its defaults, so the test pass
 * needs no environment and a user's own ASAN_OPTIONS/LSAN_OPTIONS still win.
 *
 * Leaks: memory that third-party libraries keep until exit by design, not
 * dgrun's.  Open MPI allocates in MPI_Init and its components and never
 * frees all of it; libhdf5 1.10 leaks a few bytes when it gives up on
 * damaged metadata (the corrupt-file tests feed it such files on purpose);
 * a thread still starting at exit trips ASan's own stack query (below).
 * These libraries have no frame pointers, so the fast unwinder loses the
 * stack above them: unwinding on malloc is full, so the entry points show.
 * (It is also most of a sanitizer run's time: the CTest tests that start no
 * MPI run with fast_unwind_on_malloc=1, tests/CMakeLists.txt.)
 *
 * intercept_tls_get_addr=0: up to gcc 13 / LLVM 16 the runtime's
 * __tls_get_addr interceptor takes a dynamic TLS block whose address is
 * 16 bytes past a page boundary for a pre-2.25 glibc block and reads the
 * two words before it as a range; since glibc 2.25 there is no such header,
 * so when a malloc'd block lands there by chance, LeakSanitizer's tracer
 * segfaults at exit ("Tracer caught signal 11", no leak reported).  NVRTC,
 * loaded with dlopen, has dynamic TLS: core.nvrtc_concurrent hit it about
 * once in 60 runs (and once in CI).  The scan then covers static TLS only. */
#include <stdlib.h>

const char *__asan_default_options(void);
const char *__lsan_default_suppressions(void);

const char *__asan_default_options(void) {
  /* allocator_may_return_null: damaged HDF5 metadata can make libhdf5 ask
   * for absurd sizes, which it handles (NULL -> error). */
  return "fast_unwind_on_malloc=0:malloc_context_size=40:allocator_may_return_null=1:"
         "intercept_tls_get_addr=0";
}

const char *__lsan_default_suppressions(void) {
  return "leak:MPI_Init_thread\n"
         "leak:MPI_Init\n"
         "leak:MPI_Finalize\n"
         "leak:MPI_Comm_dup\n"
         "leak:ompi_mpi_init\n"
         "leak:ompi_mpi_finalize\n"
         "leak:libhdf5\n"
         /* Open MPI's PMIx / libevent progress threads (multi-rank runs) */
         "leak:event_base_loop\n"
         "leak:libevent\n"
         "leak:libpmix\n"
         "leak:pmix_\n"
         /* glibc 2.36 + gcc 12 ASan: a thread (OpenMP, OpenBLAS) still
          * starting when the process exits leaves the cpuset that
          * pthread_getattr_np allocated for ASan's own stack query */
         "leak:GetThreadStackTopAndBottom\n"
         /* Gmsh 4.8's high-order optimisation (Mesh.HighOrderOptimize,
          * [mesh] geometry_order) leaks its smoothing objects */
         "leak:highOrderTools\n"
         "leak:HighOrderMeshElasticAnalogy\n";
}

/* Keep Open MPI's components mapped at exit, so that what they allocated
 * has a stack with names (before MPI_Init reads its parameters). */
__attribute__((constructor)) static void keep_mpi_components(void) {
  setenv("OMPI_MCA_mca_base_component_disable_dlclose", "1", 0);
}
