/* nvrtc: compile generated CUDA C++ source to a CUBIN with NVRTC.
 *
 * Needs no GPU: the target architecture is given explicitly ("sm_90"), so
 * generated kernels can be compile-checked on any machine with the toolkit
 * (CI does).  The cuda backend calls this with the arch of its device.
 *
 * Options always passed (the caller's options follow them):
 *   --gpu-architecture=<arch>   a real arch, so NVRTC emits SASS (CUBIN), no
 *                               PTX JIT at load time
 *   -default-device             unannotated functions are device functions
 *   --std=c++17
 * Fast math stays off (NVRTC's defaults: -ftz=false, -prec-div=true,
 * -prec-sqrt=true); a caller may pass --use_fast_math.
 *
 * A compile error is DG_ERR_COMPILE whose message holds NVRTC's log and the
 * offending source lines with their numbers, e.g.
 *     axpy.cu(7): error: identifier "q" is undefined
 *     source lines around the errors:
 *          6 |   if (i < n)
 *     >    7 |     y[i] = a * q[i] + y[i];
 *          8 | }
 */
#ifndef DG_CORE_NVRTC_H
#define DG_CORE_NVRTC_H

#include <stddef.h>

#include "core/error.h"

/* Version of the NVRTC library that would be used.  DG_ERR_UNSUPPORTED if
 * none can be loaded (the message says what was tried). */
dg_error dg_nvrtc_version(int *major, int *minor);

/* Path of the NVRTC library in use, e.g. "libnvrtc.so.13". */
dg_error dg_nvrtc_path(const char **path);

/* "sm_<major><minor>" for a compute capability, e.g. (9, 0) -> "sm_90". */
dg_error dg_nvrtc_arch_name(int cc_major, int cc_minor, char *buf,
                            size_t size);

/* Whether this NVRTC can emit code for arch ("sm_90").  When NVRTC cannot
 * list its architectures (very old releases) the answer is 1 and the
 * compiler itself will decide. */
dg_error dg_nvrtc_supports_arch(const char *arch, int *supported);

/* Compiler identity for cache keys: "nvrtc <major>.<minor> <arch>". */
dg_error dg_nvrtc_identity(const char *arch, char *buf, size_t size);

/* Compile source (program name `name`, used in the log: "name(LINE): ...")
 * for arch.  options: extra NVRTC options (may be NULL when noptions == 0).
 * On success *cubin is a malloc'ed ELF image of *cubin_size bytes, freed by
 * the caller with free().  Errors: DG_ERR_COMPILE (the source does not
 * compile, or NVRTC rejects an option), DG_ERR_UNSUPPORTED (no NVRTC, or it
 * cannot target arch), DG_ERR_ARG, DG_ERR_MEMORY. */
dg_error dg_nvrtc_compile(const char *name, const char *source,
                          const char *arch, const char *const *options,
                          int noptions, void **cubin, size_t *cubin_size);

/* Whether blob is a complete 64-bit little-endian CUDA ELF image: header,
 * program and section headers, and every section's bytes lie inside
 * blob_size.  The driver's loader takes no size, so a truncated or corrupt
 * blob (e.g. a damaged cache entry) must be caught before it reads past the
 * end.  Errors: DG_ERR_INPUT saying what is wrong. */
dg_error dg_nvrtc_check_cubin(const void *blob, size_t blob_size);

#endif
