#include "core/nvrtc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dg_error dg_nvrtc_arch_name(int cc_major, int cc_minor, char *buf,
                            size_t size) {
  DG_CHECK(buf && size > 0, DG_ERR_ARG, "no output buffer");
  DG_CHECK(cc_major > 0 && cc_major < 100 && cc_minor >= 0 && cc_minor < 10,
           DG_ERR_ARG, "compute capability %d.%d is not a valid one",
           cc_major, cc_minor);
  int n = snprintf(buf, size, "sm_%d%d", cc_major, cc_minor);
  DG_CHECK(n > 0 && (size_t)n < size, DG_ERR_ARG,
           "buffer of %zu bytes too small for an arch name", size);
  return DG_OK;
}

/* "sm_90" -> 90, "sm_90a" -> 90; -1 when arch is not of that form.  Only
 * real architectures: CUBIN output needs one (compute_XY would give PTX). */
static int arch_number(const char *arch) {
  if (strncmp(arch, "sm_", 3) != 0)
    return -1;
  const char *p = arch + 3;
  int v = 0, digits = 0;
  while (isdigit((unsigned char)*p) && digits < 4) {
    v = 10 * v + (*p - '0');
    p++;
    digits++;
  }
  if (digits < 2)
    return -1;
  /* Arch-specific (sm_90a) and family (sm_100f) variants. */
  if (*p == 'a' || *p == 'f')
    p++;
  return *p == '\0' ? v : -1;
}

static dg_error check_arch(const char *arch) {
  DG_CHECK(arch, DG_ERR_ARG, "arch is NULL");
  DG_CHECK(arch_number(arch) > 0, DG_ERR_ARG,
           "'%s' is not a real GPU architecture (expected sm_<XY>, e.g. "
           "sm_90)",
           arch);
  return DG_OK;
}

/* Little-endian field readers for the ELF64 layout (System V gABI). */
static uint64_t le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* [off, off + len) inside [0, size), without overflow. */
static int inside(uint64_t off, uint64_t len, size_t size) {
  return off <= size && len <= size - off;
}

dg_error dg_nvrtc_check_cubin(const void *blob, size_t blob_size) {
  enum { EHDR = 64, EM_CUDA = 190, SHT_NOBITS = 8 };
  const unsigned char *b = blob;
  DG_CHECK(b, DG_ERR_ARG, "blob is NULL");
  DG_CHECK(blob_size >= EHDR, DG_ERR_INPUT,
           "CUBIN of %zu bytes is shorter than an ELF header (%d bytes)",
           blob_size, EHDR);
  DG_CHECK(memcmp(b, "\x7f" "ELF", 4) == 0 && b[4] == 2 && b[5] == 1,
           DG_ERR_INPUT,
           "not a 64-bit little-endian ELF image (starts %02x %02x %02x %02x "
           "%02x %02x)",
           b[0], b[1], b[2], b[3], b[4], b[5]);
  uint64_t machine = le(b + 18, 2);
  DG_CHECK(machine == EM_CUDA, DG_ERR_INPUT,
           "ELF machine %llu is not EM_CUDA (%d)", (unsigned long long)machine,
           EM_CUDA);
  uint64_t phoff = le(b + 32, 8), shoff = le(b + 40, 8);
  uint64_t phentsize = le(b + 54, 2), phnum = le(b + 56, 2);
  uint64_t shentsize = le(b + 58, 2), shnum = le(b + 60, 2);
  DG_CHECK(inside(phoff, phentsize * phnum, blob_size) &&
               inside(shoff, shentsize * shnum, blob_size),
           DG_ERR_INPUT,
           "CUBIN truncated: headers end past its %zu bytes (program headers "
           "%llu + %llu x %llu, section headers %llu + %llu x %llu)",
           blob_size, (unsigned long long)phoff, (unsigned long long)phnum,
           (unsigned long long)phentsize, (unsigned long long)shoff,
           (unsigned long long)shnum, (unsigned long long)shentsize);
  DG_CHECK(shnum == 0 || shentsize >= 40, DG_ERR_INPUT,
           "section header size %llu is too small",
           (unsigned long long)shentsize);
  for (uint64_t i = 0; i < shnum; i++) {
    const unsigned char *sh = b + shoff + i * shentsize;
    uint64_t type = le(sh + 4, 4), off = le(sh + 24, 8), size = le(sh + 32, 8);
    DG_CHECK(type == SHT_NOBITS || inside(off, size, blob_size), DG_ERR_INPUT,
             "CUBIN truncated: section %llu spans bytes [%llu, %llu) of %zu",
             (unsigned long long)i, (unsigned long long)off,
             (unsigned long long)(off + size), blob_size);
  }
  return DG_OK;
}

#if defined(DGRUN_HAVE_CUDA)

#include "core/cuda_loader.h"
#include "core/fsutil.h"
#include "core/log.h"

dg_error dg_nvrtc_version(int *major, int *minor) {
  DG_CHECK(major && minor, DG_ERR_ARG, "major/minor is NULL");
  const dg_cuda_nvrtc *rtc;
  DG_CALL(dg_cuda_loader_nvrtc(&rtc));
  *major = rtc->major;
  *minor = rtc->minor;
  return DG_OK;
}

dg_error dg_nvrtc_path(const char **path) {
  DG_CHECK(path, DG_ERR_ARG, "path is NULL");
  const dg_cuda_nvrtc *rtc;
  DG_CALL(dg_cuda_loader_nvrtc(&rtc));
  *path = rtc->path;
  return DG_OK;
}

dg_error dg_nvrtc_supports_arch(const char *arch, int *supported) {
  DG_CHECK(supported, DG_ERR_ARG, "supported is NULL");
  DG_CALL(check_arch(arch));
  const dg_cuda_nvrtc *rtc;
  DG_CALL(dg_cuda_loader_nvrtc(&rtc));
  *supported = 1;
  if (!rtc->nvrtcGetNumSupportedArchs || !rtc->nvrtcGetSupportedArchs)
    return DG_OK;
  int n = 0;
  DG_CHECK(rtc->nvrtcGetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0,
           DG_ERR_INTERNAL, "nvrtcGetNumSupportedArchs failed");
  int *list = malloc((size_t)n * sizeof *list);
  DG_CHECK(list, DG_ERR_MEMORY, "out of host memory for %d archs", n);
  nvrtcResult r = rtc->nvrtcGetSupportedArchs(list);
  int want = arch_number(arch), found = 0;
  for (int i = 0; r == NVRTC_SUCCESS && i < n; i++)
    found |= list[i] == want;
  free(list);
  DG_CHECK(r == NVRTC_SUCCESS, DG_ERR_INTERNAL,
           "nvrtcGetSupportedArchs failed: %s", rtc->nvrtcGetErrorString(r));
  *supported = found;
  return DG_OK;
}

dg_error dg_nvrtc_identity(const char *arch, char *buf, size_t size) {
  DG_CHECK(buf && size > 0, DG_ERR_ARG, "no output buffer");
  DG_CALL(check_arch(arch));
  int major, minor;
  DG_CALL(dg_nvrtc_version(&major, &minor));
  int n = snprintf(buf, size, "nvrtc %d.%d %s", major, minor, arch);
  DG_CHECK(n > 0 && (size_t)n < size, DG_ERR_ARG,
           "buffer of %zu bytes too small for the compiler identity", size);
  return DG_OK;
}

/* ------------------------------------------------ compile error reporting */

/* The report must fit the error trace's message (2 KiB): the log gets this
 * much, the source excerpt the rest. */
enum { LOG_BUDGET = 1000, EXCERPT_BUDGET = 760, MAX_ERROR_LINES = 4,
       CONTEXT_LINES = 2, LINE_WIDTH = 110 };

/* Line numbers of errors in an NVRTC log: lines of the form
 * "name(LINE): error: ..." or "name(LINE): catastrophic error: ...". */
static int error_lines(const char *log, const char *name, long *lines,
                       int max) {
  int n = 0;
  size_t len = strlen(name);
  for (const char *p = log; *p && n < max;) {
    const char *eol = strchr(p, '\n');
    if (strncmp(p, name, len) == 0 && p[len] == '(') {
      char *end;
      long line = strtol(p + len + 1, &end, 10);
      if (line > 0 && strncmp(end, "): ", 3) == 0 &&
          (strncmp(end + 3, "error", 5) == 0 ||
           strncmp(end + 3, "catastrophic error", 18) == 0)) {
        int seen = 0;
        for (int i = 0; i < n; i++)
          seen |= lines[i] == line;
        if (!seen)
          lines[n++] = line;
      }
    }
    if (!eol)
      break;
    p = eol + 1;
  }
  return n;
}

static int is_error_line(long line, const long *lines, int n) {
  for (int i = 0; i < n; i++)
    if (lines[i] == line)
      return 1;
  return 0;
}

static int near_error_line(long line, const long *lines, int n) {
  for (int i = 0; i < n; i++)
    if (line >= lines[i] - CONTEXT_LINES && line <= lines[i] + CONTEXT_LINES)
      return 1;
  return 0;
}

/* Append printf-style text to buf (size cap) without overflowing. */
static void append(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void append(char *buf, size_t cap, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= cap)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, cap - used, fmt, ap);
  va_end(ap);
}

/* Write the numbered source lines around each error line into out (cap
 * bytes), marking the error lines with '>' and separating gaps with "...". */
static void source_excerpt(const char *source, const long *lines, int n,
                           char *out, size_t cap) {
  out[0] = '\0';
  long line = 1, last_shown = 0;
  for (const char *p = source; *p; line++) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    if (near_error_line(line, lines, n)) {
      if (last_shown && line > last_shown + 1)
        append(out, cap, "       ...\n");
      int w = len > LINE_WIDTH ? LINE_WIDTH : (int)len;
      append(out, cap, "%c %5ld | %.*s%s\n",
             is_error_line(line, lines, n) ? '>' : ' ', line, w, p,
             len > LINE_WIDTH ? " [...]" : "");
      last_shown = line;
    }
    if (!eol)
      break;
    p = eol + 1;
  }
}

static dg_error raise_compile_error(const dg_cuda_nvrtc *rtc, const char *name,
                                    const char *arch, const char *source,
                                    const char *log, nvrtcResult r) {
  /* The whole log, for a reader who needs more than fits the message. */
  dg_debug("NVRTC log for '%s' (%s):\n%s", name, arch, log);
  long lines[MAX_ERROR_LINES];
  int n = error_lines(log, name, lines, MAX_ERROR_LINES);
  char excerpt[EXCERPT_BUDGET];
  excerpt[0] = '\0';
  if (n > 0)
    source_excerpt(source, lines, n, excerpt, sizeof excerpt);
  size_t loglen = strlen(log);
  while (loglen > 0 && isspace((unsigned char)log[loglen - 1]))
    loglen--;
  int shown = loglen > LOG_BUDGET ? LOG_BUDGET : (int)loglen;
  /* A generator bug: keep the source so path:line can be opened. */
  char *kept = dg_fsutil_keep_source(name, ".cu", source);
  char where[600] = "";
  if (kept)
    snprintf(where, sizeof where, "\nthe generated source is kept as %s; first error at %s:%ld",
             kept, kept, n > 0 ? lines[0] : 1L);
  free(kept);
  DG_RAISE(DG_ERR_COMPILE,
           "NVRTC %d.%d could not compile '%s' for %s (%s)%s:\n%.*s%s%s%s",
           rtc->major, rtc->minor, name, arch, rtc->nvrtcGetErrorString(r), where,
           shown, log,
           loglen > LOG_BUDGET ? "\n[log truncated; the whole log is printed "
                                 "at log level debug]"
                               : "",
           n > 0 ? "\nsource lines around the errors:\n" : "", excerpt);
}

/* ------------------------------------------------------------- compiling */

/* Copy NVRTC's log of prog into a malloc'ed string ("" on failure). */
static char *program_log(const dg_cuda_nvrtc *rtc, nvrtcProgram prog) {
  size_t size = 0;
  char *log = NULL;
  if (rtc->nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 0)
    log = malloc(size + 1);
  if (log && rtc->nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
    log[size] = '\0';
    return log;
  }
  free(log);
  log = malloc(1);
  if (log)
    log[0] = '\0';
  return log;
}

dg_error dg_nvrtc_compile(const char *name, const char *source,
                          const char *arch, const char *const *options,
                          int noptions, void **cubin, size_t *cubin_size) {
  DG_CHECK(name && name[0], DG_ERR_ARG, "module name is empty");
  DG_CHECK(source, DG_ERR_ARG, "source of '%s' is NULL", name);
  DG_CHECK(cubin && cubin_size, DG_ERR_ARG, "cubin/cubin_size is NULL");
  DG_CHECK(noptions >= 0 && (noptions == 0 || options), DG_ERR_ARG,
           "%d options but no option array", noptions);
  DG_CALL(check_arch(arch));
  *cubin = NULL;
  *cubin_size = 0;
  const dg_cuda_nvrtc *rtc;
  DG_CALL(dg_cuda_loader_nvrtc(&rtc));
  int supported;
  DG_CALL(dg_nvrtc_supports_arch(arch, &supported));
  DG_CHECK(supported, DG_ERR_UNSUPPORTED,
           "NVRTC %d.%d (%s) cannot generate code for %s; point $DGRUN_NVRTC "
           "at a newer libnvrtc.so",
           rtc->major, rtc->minor, rtc->path, arch);

  enum { NFIXED = 3 };
  const char **opts = malloc((size_t)(NFIXED + noptions) * sizeof *opts);
  DG_CHECK(opts, DG_ERR_MEMORY, "out of host memory for %d options",
           noptions);
  char archopt[64];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
  opts[0] = archopt;
  opts[1] = "-default-device";
  opts[2] = "--std=c++17";
  for (int i = 0; i < noptions; i++)
    opts[NFIXED + i] = options[i];

  dg_error err = DG_OK;
  char *log = NULL;
  nvrtcProgram prog = NULL;
  nvrtcResult r = rtc->nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL);
  DG_CHECK_GOTO(err, done, r == NVRTC_SUCCESS,
                r == NVRTC_ERROR_OUT_OF_MEMORY ? DG_ERR_MEMORY
                                               : DG_ERR_INTERNAL,
                "nvrtcCreateProgram('%s') failed: %s", name,
                rtc->nvrtcGetErrorString(r));
  r = rtc->nvrtcCompileProgram(prog, NFIXED + noptions, opts);
  log = program_log(rtc, prog);
  DG_CHECK_GOTO(err, done, log, DG_ERR_MEMORY,
                "out of host memory for the NVRTC log");
  if (r != NVRTC_SUCCESS) {
    err = raise_compile_error(rtc, name, arch, source, log, r);
    goto done;
  }
  if (log[0])
    dg_debug("NVRTC warnings for '%s' (%s):\n%s", name, arch, log);

  size_t size = 0;
  r = rtc->nvrtcGetCUBINSize(prog, &size);
  DG_CHECK_GOTO(err, done, r == NVRTC_SUCCESS && size > 0, DG_ERR_INTERNAL,
                "nvrtcGetCUBINSize('%s') failed: %s (size %zu)", name,
                rtc->nvrtcGetErrorString(r), size);
  *cubin = malloc(size);
  DG_CHECK_GOTO(err, done, *cubin, DG_ERR_MEMORY,
                "out of host memory for a CUBIN of %zu bytes", size);
  r = rtc->nvrtcGetCUBIN(prog, *cubin);
  if (r != NVRTC_SUCCESS) {
    free(*cubin);
    *cubin = NULL;
    err = dg_error_raise(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                         "nvrtcGetCUBIN('%s') failed: %s", name,
                         rtc->nvrtcGetErrorString(r));
    goto done;
  }
  *cubin_size = size;
done:
  if (prog)
    rtc->nvrtcDestroyProgram(&prog);
  free(log);
  free(opts);
  return err;
}

#else /* built without the CUDA headers: no NVRTC */

#define NO_CUDA                                                               \
  DG_RAISE(DG_ERR_UNSUPPORTED,                                                \
           "dgrun was built without the CUDA toolkit headers (cuda.h, "       \
           "nvrtc.h), so it cannot use NVRTC; rebuild with the toolkit "      \
           "installed")

dg_error dg_nvrtc_version(int *major, int *minor) {
  (void)major, (void)minor;
  NO_CUDA;
}
dg_error dg_nvrtc_path(const char **path) {
  (void)path;
  NO_CUDA;
}
dg_error dg_nvrtc_supports_arch(const char *arch, int *supported) {
  (void)supported;
  DG_CALL(check_arch(arch));
  NO_CUDA;
}
dg_error dg_nvrtc_identity(const char *arch, char *buf, size_t size) {
  (void)buf, (void)size;
  DG_CALL(check_arch(arch));
  NO_CUDA;
}
dg_error dg_nvrtc_compile(const char *name, const char *source,
                          const char *arch, const char *const *options,
                          int noptions, void **cubin, size_t *cubin_size) {
  (void)name, (void)source, (void)options, (void)noptions;
  (void)cubin, (void)cubin_size;
  DG_CALL(check_arch(arch));
  NO_CUDA;
}

#endif
