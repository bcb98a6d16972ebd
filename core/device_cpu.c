/* The cpu backend: generated C is compiled by the system C compiler into a
 * shared object and loaded with dlopen; kernels run chunk by chunk on
 * OpenMP threads.  Memory is 64-byte aligned host memory, streams are
 * synchronous and events read the host's monotonic clock.
 *
 * The compiler runs through posix_spawn with an argument vector (no shell:
 * nothing in a module name or an option can be interpreted as shell
 * syntax), with LC_ALL=C so its diagnostics are plain ASCII we can parse. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "core/device_backend.h"
#include "core/fsutil.h"
#include "core/log.h"

#ifndef DGRUN_DEFAULT_CC
#define DGRUN_DEFAULT_CC "cc"
#endif

extern char **environ;

/* Flags every module is compiled with; options from the caller follow. */
static const char *const BASE_FLAGS[] = {"-O3",   "-march=native", "-fopenmp",
                                         "-shared", "-fPIC",       "-std=c11"};
enum { NBASE = sizeof BASE_FLAGS / sizeof BASE_FLAGS[0], MAX_CC_WORDS = 16 };

typedef struct cpu_state {
  char *cc_words[MAX_CC_WORDS + 1]; /* the compiler command, split on blanks */
  int ncc;
  char *cc_path;  /* cc_words[0] resolved through PATH */
  char *identity; /* path + version + flags + CPU model: the cache key part */
  int threads;
} cpu_state;

/* ------------------------------------------------------------------------ */
/* Host facts. */

static void cpu_model(char *name, size_t n) {
  snprintf(name, n, "host CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    /* x86: "model name"; some ARM kernels: "Model" or "Hardware". */
    if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
        strncmp(line, "Hardware", 8) == 0) {
      char *colon = strchr(line, ':');
      if (!colon)
        continue;
      char *s = colon + 1;
      while (*s == ' ' || *s == '\t')
        s++;
      s[strcspn(s, "\n")] = '\0';
      if (*s) {
        snprintf(name, n, "%s", s);
        break;
      }
    }
  }
  fclose(f);
}

static int host_threads(void) {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
#endif
}

static void fill_info(dg_device_info *info) {
  memset(info, 0, sizeof *info);
  info->backend = DG_BACKEND_CPU;
  snprintf(info->backend_name, sizeof info->backend_name, "cpu");
  cpu_model(info->name, sizeof info->name);
  info->multiprocessors = host_threads();
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->total_memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  /* One "thread" per item in the CUDA sense; no shared memory, no warps. */
  info->max_threads_per_block = 1;
  info->warp_size = 1;
}

static int cpu_available(void) { return 1; }

static dg_error cpu_count(int *n) {
  *n = 1;
  return DG_OK;
}

static dg_error cpu_describe(int index, dg_device_info *info) {
  DG_CHECK(index == 0, DG_ERR_DEVICE, "cpu device index %d: there is only 0",
           index);
  fill_info(info);
  return DG_OK;
}

/* ------------------------------------------------------------------------ */
/* Running the compiler. */

/* Resolve a command name through $PATH (as execvp would); malloc'ed. */
static char *resolve_path(const char *cmd) {
  if (strchr(cmd, '/'))
    return strdup(cmd);
  const char *path = getenv("PATH");
  if (!path || !path[0])
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    size_t len = strcspn(path, ":");
    char dir[4096];
    if (len > 0 && len < sizeof dir - 1) {
      memcpy(dir, path, len);
      dir[len] = '\0';
      char *full = dg_fsutil_join(dir, cmd);
      if (full && access(full, X_OK) == 0)
        return full;
      free(full);
    }
    path += len;
    if (*path == ':')
      path++;
  }
  return NULL;
}

/* The environment of the child: ours, with LC_ALL=C (ASCII diagnostics). */
static char **child_environment(void) {
  size_t n = 0;
  while (environ && environ[n])
    n++;
  char **env = malloc((n + 2) * sizeof *env);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LC_ALL=", 7) != 0)
      env[k++] = environ[i];
  env[k++] = "LC_ALL=C";
  env[k] = NULL;
  return env;
}

/* Run argv (argv[0] an absolute path) with stdin from /dev/null and stdout
 * + stderr into the file log_path; *status is the exit status (or 128 +
 * signal).  Failing to start the program is DG_ERR_UNSUPPORTED. */
static dg_error run_program(char *const argv[], const char *log_path,
                            int *status) {
  *status = -1;
  char **env = child_environment();
  DG_CHECK(env, DG_ERR_MEMORY, "out of memory for the compiler environment");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log_path,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  DG_CHECK(rc == 0, DG_ERR_UNSUPPORTED,
           "cannot run the C compiler '%s': %s (set DGRUN_CC or CC to a "
           "working C compiler)", argv[0], strerror(rc));
  int ws;
  while (waitpid(pid, &ws, 0) < 0) {
    DG_CHECK(errno == EINTR, DG_ERR_INTERNAL,
             "waiting for the C compiler '%s' failed: %s", argv[0],
             strerror(errno));
  }
  *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  /* exec failures inside the child surface as exit status 127. */
  DG_CHECK(*status != 127, DG_ERR_UNSUPPORTED,
           "cannot run the C compiler '%s' (exit status 127); set DGRUN_CC or "
           "CC to a working C compiler", argv[0]);
  return DG_OK;
}

/* First line of `cc --version`, or "unknown version". */
static void compiler_version(cpu_state *st, char *out, size_t n) {
  snprintf(out, n, "unknown version");
  char *dir = NULL;
  if (!st->cc_path || dg_fsutil_make_temp_dir("dgrun-ccv-", &dir) != DG_OK) {
    dg_error_clear();
    return;
  }
  char *log = dg_fsutil_join(dir, "version.txt");
  char *argv[MAX_CC_WORDS + 2];
  int k = 0;
  argv[k++] = st->cc_path;
  for (int i = 1; i < st->ncc; i++)
    argv[k++] = st->cc_words[i];
  argv[k++] = "--version";
  argv[k] = NULL;
  int status;
  void *text = NULL;
  size_t len;
  if (log && run_program(argv, log, &status) == DG_OK && status == 0 &&
      dg_fsutil_read_file(log, &text, &len) == DG_OK) {
    char *s = text;
    s[strcspn(s, "\r\n")] = '\0';
    if (s[0])
      snprintf(out, n, "%s", s);
  }
  dg_error_clear();
  free(text);
  free(log);
  (void)dg_fsutil_remove_tree(dir);
  dg_error_clear();
  free(dir);
}

/* ------------------------------------------------------------------------ */
/* Device lifetime. */

static void cpu_close(void *state) {
  cpu_state *st = state;
  if (!st)
    return;
  for (int i = 0; i < st->ncc; i++)
    free(st->cc_words[i]);
  free(st->cc_path);
  free(st->identity);
  free(st);
}

/* The compiler command: $DGRUN_CC, else $CC, else the build's compiler.
 * Split on blanks so "ccache gcc" works; no quoting (paths with spaces
 * need a wrapper script). */
static dg_error split_compiler(cpu_state *st) {
  const char *cc = getenv("DGRUN_CC");
  if (!cc || !cc[0])
    cc = getenv("CC");
  if (!cc || !cc[0])
    cc = DGRUN_DEFAULT_CC;
  const char *p = cc;
  while (*p) {
    p += strspn(p, " \t");
    size_t len = strcspn(p, " \t");
    if (len == 0)
      break;
    DG_CHECK(st->ncc < MAX_CC_WORDS, DG_ERR_INPUT,
             "compiler command '%s' has more than %d words", cc, MAX_CC_WORDS);
    st->cc_words[st->ncc] = malloc(len + 1);
    DG_CHECK(st->cc_words[st->ncc], DG_ERR_MEMORY, "out of memory");
    memcpy(st->cc_words[st->ncc], p, len);
    st->cc_words[st->ncc][len] = '\0';
    st->ncc++;
    p += len;
  }
  DG_CHECK(st->ncc > 0, DG_ERR_INPUT, "empty C compiler command '%s'", cc);
  return DG_OK;
}

static dg_error cpu_open(int index, dg_device_info *info, void **state) {
  *state = NULL;
  DG_CALL(cpu_describe(index, info));
  cpu_state *st = calloc(1, sizeof *st);
  DG_CHECK(st, DG_ERR_MEMORY, "out of memory for the cpu backend");
  dg_error err = split_compiler(st);
  if (err) {
    cpu_close(st);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  /* A missing compiler is reported when something is compiled: a cpu device
   * without one still serves memory and cached modules. */
  st->cc_path = resolve_path(st->cc_words[0]);
  st->threads = info->multiprocessors;
  char version[256];
  compiler_version(st, version, sizeof version);
  /* -march=native makes the code depend on the CPU too: a cache shared by
   * machines of different CPUs must not mix their modules. */
  size_t len = 1024 + strlen(version) + strlen(info->name);
  for (int i = 0; i < st->ncc; i++)
    len += strlen(st->cc_words[i]) + 1;
  for (int i = 0; i < NBASE; i++)
    len += strlen(BASE_FLAGS[i]) + 1;
  st->identity = malloc(len);
  if (!st->identity) {
    cpu_close(st);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for the compiler identity");
  }
  int k = snprintf(st->identity, len, "cc %s [%s",
                   st->cc_path ? st->cc_path : "(not found)", st->cc_words[0]);
  for (int i = 1; i < st->ncc; i++)
    k += snprintf(st->identity + k, len - (size_t)k, " %s", st->cc_words[i]);
  k += snprintf(st->identity + k, len - (size_t)k, "] %s; flags", version);
  for (int i = 0; i < NBASE; i++)
    k += snprintf(st->identity + k, len - (size_t)k, " %s", BASE_FLAGS[i]);
  snprintf(st->identity + k, len - (size_t)k, "; cpu %s", info->name);
  snprintf(info->compiler_identity, sizeof info->compiler_identity, "%s",
           st->identity);
  *state = st;
  return DG_OK;
}

/* ------------------------------------------------------------------------ */
/* Memory: 64-byte aligned host blocks (a cache line; AVX-512 vector). */

static dg_error cpu_alloc(void *state, size_t bytes, void **ptr) {
  (void)state;
  void *p = NULL;
  int rc = posix_memalign(&p, 64, bytes);
  DG_CHECK(rc == 0, DG_ERR_MEMORY, "cannot allocate %zu bytes of host memory",
           bytes);
  *ptr = p;
  return DG_OK;
}

static dg_error cpu_release(void *state, void *ptr) {
  (void)state;
  free(ptr);
  return DG_OK;
}

static dg_error cpu_memcpy(void *state, void *dst, const void *src,
                           size_t bytes) {
  (void)state;
  memmove(dst, src, bytes);
  return DG_OK;
}

/* Zero in parallel: the threads that run the kernels touch the pages first. */
static dg_error cpu_zero(void *state, void *dst, size_t bytes) {
  (void)state;
  const size_t chunk = (size_t)1 << 20;
  const int64_t n = (int64_t)((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < n; c++) {
    size_t off = (size_t)c * chunk;
    memset((char *)dst + off, 0, bytes - off < chunk ? bytes - off : chunk);
  }
  return DG_OK;
}

/* ------------------------------------------------------------------------ */
/* Compile error reports. */

/* Append at most limit bytes of printf output to buf (length *len, capacity
 * cap), always leaving it terminated. */
static void append(char *buf, size_t cap, size_t *len, size_t limit,
                   const char *fmt, const char *s, int num) {
  if (*len + 1 >= cap)
    return;
  size_t room = cap - *len;
  if (limit + 1 < room)
    room = limit + 1;
  int w = num >= 0 ? snprintf(buf + *len, room, fmt, num, s)
                   : snprintf(buf + *len, room, fmt, s);
  if (w > 0)
    *len += (size_t)w < room ? (size_t)w : room - 1;
}

/* Build the report of a failed compile: the compiler's error lines, then
 * the generated source around each line the log points at ("stem.c:LINE:"),
 * numbered, the bad line marked with '>'.  The error trace holds at most
 * ~2 KiB, so each part is capped; the whole log goes to the debug log.
 * *first_line: the first source line the log points at (1 if none). */
static void compile_report(const char *log, const char *stem, const char *source, char *out,
                           size_t cap, int *first_line) {
  size_t len = 0;
  out[0] = '\0';
  *first_line = 1;
  /* Compiler lines that carry a diagnostic, else the head of the log. */
  size_t errs_start = len;
  for (const char *l = log; *l;) {
    size_t n = strcspn(l, "\n");
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(n < 255 ? n : 255), l);
    size_t used = len - errs_start;
    if (used < 900 &&
        (strstr(line, "error") || strstr(line, "undefined reference")))
      append(out, cap, &len, 900 - used, "  %s\n", line, -1);
    l += n + (l[n] == '\n');
  }
  if (len == errs_start) {
    char head[600];
    snprintf(head, sizeof head, "%s", log);
    append(out, cap, &len, 600, "%s\n", head, -1);
  }
  /* Up to three distinct source lines the log refers to. */
  int lines[3], nlines = 0;
  size_t stemlen = strlen(stem);
  for (const char *p = strstr(log, stem); p && nlines < 3;
       p = strstr(p + 1, stem)) {
    const char *q = p + stemlen;
    if (strncmp(q, ".c:", 3) != 0 || (p > log && p[-1] != '/' &&
                                      p[-1] != '\n' && p[-1] != ' '))
      continue;
    int ln = atoi(q + 3);
    int seen = ln <= 0;
    for (int i = 0; i < nlines && !seen; i++)
      seen = lines[i] == ln;
    if (!seen)
      lines[nlines++] = ln;
  }
  if (nlines == 0)
    return;
  *first_line = lines[0];
  append(out, cap, &len, 64, "%s", "generated source:\n", -1);
  for (int i = 0; i < nlines; i++) {
    int from = lines[i] - 2 < 1 ? 1 : lines[i] - 2, to = lines[i] + 2;
    const char *s = source;
    for (int ln = 1; *s && ln <= to; ln++) {
      size_t n = strcspn(s, "\n");
      if (ln >= from) {
        char text[200];
        snprintf(text, sizeof text, "%.*s", (int)(n < 199 ? n : 199), s);
        append(out, cap, &len, 240,
               ln == lines[i] ? "> %5d | %s\n" : "  %5d | %s\n", text, ln);
      }
      s += n + (s[n] == '\n');
    }
    if (i + 1 < nlines)
      append(out, cap, &len, 16, "%s", "  ...\n", -1);
  }
}

/* Strip every "dir/" from text in place, so messages say "name.c:12:" and
 * not a temporary path. */
static void strip_dir(char *text, const char *dir) {
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/", dir);
  size_t n = strlen(prefix);
  char *w = text;
  for (const char *r = text; *r;) {
    if (strncmp(r, prefix, n) == 0)
      r += n;
    else
      *w++ = *r++;
  }
  *w = '\0';
}

/* A file stem from a module name: [A-Za-z0-9_-], at most 48 characters. */
static void file_stem(const char *name, char *stem, size_t cap) {
  size_t k = 0;
  for (const char *p = name; *p && k + 1 < cap && k < 48; p++) {
    char c = *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
             (c >= '0' && c <= '9') || c == '_' || c == '-';
    stem[k++] = ok ? c : '_';
  }
  if (k == 0)
    k = (size_t)snprintf(stem, cap, "module");
  stem[k] = '\0';
}

/* ------------------------------------------------------------------------ */
/* Compile, load, launch. */

static dg_error cpu_compile(void *state, const char *name, const char *source,
                            const char *const *options, int noptions,
                            void **blob, size_t *blob_size) {
  cpu_state *st = state;
  *blob = NULL;
  *blob_size = 0;
  DG_CHECK(st->cc_path, DG_ERR_UNSUPPORTED,
           "C compiler '%s' not found in PATH; set DGRUN_CC or CC to a C "
           "compiler (needed to build module '%s')", st->cc_words[0], name);
  char stem[64];
  file_stem(name, stem, sizeof stem);
  char *dir;
  DG_CALL(dg_fsutil_make_temp_dir("dgrun-cc-", &dir));
  char file[128];
  char *src = NULL, *so = NULL, *log = NULL;
  char **argv = NULL;
  void *text = NULL;
  size_t text_len = 0;
  dg_error err = DG_OK;
  snprintf(file, sizeof file, "%s.c", stem);
  src = dg_fsutil_join(dir, file);
  snprintf(file, sizeof file, "%s.so", stem);
  so = dg_fsutil_join(dir, file);
  log = dg_fsutil_join(dir, "compiler.log");
  argv = malloc((size_t)(st->ncc + NBASE + noptions + 6) * sizeof *argv);
  DG_CHECK_GOTO(err, done, src && so && log && argv, DG_ERR_MEMORY,
                "out of memory compiling module '%s'", name);
  DG_CALL_GOTO(err, done,
               dg_fsutil_write_file(src, source, strlen(source), 0600));
  int k = 0;
  argv[k++] = st->cc_path;
  for (int i = 1; i < st->ncc; i++)
    argv[k++] = st->cc_words[i];
  for (int i = 0; i < NBASE; i++)
    argv[k++] = (char *)BASE_FLAGS[i];
  for (int i = 0; i < noptions; i++)
    argv[k++] = (char *)options[i];
  argv[k++] = "-o";
  argv[k++] = so;
  argv[k++] = src;
  argv[k++] = "-lm"; /* generated code may call libm; record the need */
  argv[k] = NULL;
  int status;
  DG_CALL_GOTO(err, done, run_program(argv, log, &status));
  if (dg_fsutil_read_file(log, &text, &text_len) != DG_OK) {
    dg_error_clear();
    text = strdup("(no compiler output)");
  }
  if (text)
    strip_dir(text, dir);
  if (status != 0) {
    dg_debug("compiler output for module '%s':\n%s", name,
             text ? (char *)text : "");
    char report[1800];
    int line = 1;
    compile_report(text ? text : "", stem, source, report, sizeof report, &line);
    /* A generator bug: keep the source so path:line can be opened. */
    char *kept = dg_fsutil_keep_source(name, ".c", source);
    char where[600] = "";
    if (kept)
      snprintf(where, sizeof where, "\nthe generated source is kept as %s; first error at %s:%d",
               kept, kept, line);
    free(kept);
    DG_CHECK_GOTO(err, done, 0, DG_ERR_COMPILE,
                  "C compiler failed on generated module '%s' (exit status "
                  "%d)%s:\n%s", name, status, where, report);
  }
  if (text && ((char *)text)[0])
    dg_debug("compiler output for module '%s':\n%s", name, (char *)text);
  DG_CALL_GOTO(err, done, dg_fsutil_read_file(so, blob, blob_size));
done:
  free(text);
  free(argv);
  free(src);
  free(so);
  free(log);
  if (dg_fsutil_remove_tree(dir) != DG_OK) {
    /* Keep the compile's own error; a leftover temp dir only costs space. */
    if (err == DG_OK)
      err = dg_error_push(DG_ERR_IO, __FILE__, __LINE__, __func__);
  }
  free(dir);
  return err;
}

static const char *cpu_compiler_identity(void *state) {
  return ((cpu_state *)state)->identity;
}

/* dlopen needs a file: write the blob to a private temporary file, open it
 * and unlink it at once (the mapping keeps it alive).  A fresh name per
 * load also keeps the dynamic loader from handing back an old handle. */
static dg_error cpu_load(void *state, const void *blob, size_t blob_size,
                         void **module) {
  (void)state;
  *module = NULL;
  char *path;
  DG_CALL(dg_fsutil_write_temp("dgrun-so-", blob, blob_size, &path));
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char *why = h ? NULL : dlerror();
  char msg[512];
  if (why)
    snprintf(msg, sizeof msg, "%s", why);
  unlink(path);
  free(path);
  DG_CHECK(h, DG_ERR_DEVICE,
           "cannot load a compiled module: %s (if $TMPDIR is mounted noexec, "
           "point TMPDIR elsewhere)", msg);
  *module = h;
  return DG_OK;
}

static void cpu_unload(void *state, void *module) {
  (void)state;
  if (module)
    dlclose(module);
}

static dg_error cpu_get_function(void *state, void *module, const char *entry,
                                 void **function) {
  (void)state;
  dlerror();
  void *f = dlsym(module, entry);
  DG_CHECK(f, DG_ERR_ARG, "compiled module has no kernel '%s'", entry);
  *function = f;
  return DG_OK;
}

static dg_error cpu_attributes(void *state, void *function,
                               dg_kernel_attributes *out) {
  (void)state;
  (void)function;
  memset(out, 0, sizeof *out);
  out->max_threads_per_block = 1;
  return DG_OK;
}

typedef void (*cpu_kernel)(void **args, int64_t first, int64_t count);

static dg_error cpu_launch(void *state, void *function, const dg_launch *launch,
                           void **args, void *stream) {
  cpu_state *st = state;
  (void)stream;
  int64_t items = launch->items;
  if (items <= 0)
    return DG_OK;
  /* Default chunk: about four chunks per thread, so static scheduling still
   * balances uneven chunk costs a little without per-chunk overhead. */
  int64_t chunk = launch->chunk;
  if (chunk <= 0) {
    int64_t parts = 4 * (int64_t)(st->threads > 0 ? st->threads : 1);
    chunk = (items + parts - 1) / parts;
  }
  int64_t nchunks = (items + chunk - 1) / chunk;
  cpu_kernel fn;
  /* POSIX guarantees dlsym's object pointer converts to a function pointer;
   * memcpy states that without an ISO C cast between the two kinds. */
  memcpy(&fn, &function, sizeof fn);
  if (nchunks == 1) {
    fn(args, 0, items);
    return DG_OK;
  }
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (int64_t c = 0; c < nchunks; c++) {
    int64_t first = c * chunk;
    int64_t count = items - first < chunk ? items - first : chunk;
    fn(args, first, count);
  }
  return DG_OK;
}

/* ------------------------------------------------------------------------ */
/* Streams (synchronous) and events (host clock). */

typedef struct cpu_event {
  struct timespec t;
  int recorded;
} cpu_event;

static dg_error cpu_stream_create(void *state, void **stream) {
  (void)state;
  /* A token only: work on the cpu backend completes before launch returns. */
  *stream = malloc(1);
  DG_CHECK(*stream, DG_ERR_MEMORY, "out of memory for a stream");
  return DG_OK;
}

static void cpu_stream_destroy(void *state, void *stream) {
  (void)state;
  free(stream);
}

static dg_error cpu_nothing(void *state, void *object) {
  (void)state;
  (void)object;
  return DG_OK;
}

static dg_error cpu_synchronize(void *state) {
  (void)state;
  return DG_OK;
}

static dg_error cpu_event_create(void *state, void **event) {
  (void)state;
  *event = calloc(1, sizeof(cpu_event));
  DG_CHECK(*event, DG_ERR_MEMORY, "out of memory for an event");
  return DG_OK;
}

static void cpu_event_destroy(void *state, void *event) {
  (void)state;
  free(event);
}

static dg_error cpu_event_record(void *state, void *event, void *stream) {
  (void)state;
  (void)stream;
  cpu_event *e = event;
  DG_CHECK(clock_gettime(CLOCK_MONOTONIC, &e->t) == 0, DG_ERR_INTERNAL,
           "clock_gettime(CLOCK_MONOTONIC) failed: %s", strerror(errno));
  e->recorded = 1;
  return DG_OK;
}

static dg_error cpu_event_elapsed_ms(void *state, void *start, void *stop,
                                     float *ms) {
  (void)state;
  cpu_event *a = start, *b = stop;
  DG_CHECK(a->recorded && b->recorded, DG_ERR_ARG,
           "elapsed time asked of an event that was never recorded "
           "(start %s, stop %s)", a->recorded ? "recorded" : "not recorded",
           b->recorded ? "recorded" : "not recorded");
  double d = (double)(b->t.tv_sec - a->t.tv_sec) * 1e3 +
             (double)(b->t.tv_nsec - a->t.tv_nsec) * 1e-6;
  *ms = (float)d;
  return DG_OK;
}

static dg_error cpu_stream_wait_event(void *state, void *stream, void *event) {
  (void)state;
  (void)stream;
  (void)event;
  return DG_OK;
}

/* The identity holds the compiler's path, version and flags. */
static void cpu_print_runtime(FILE *out) {
  dg_device_info info;
  void *st = NULL;
  if (cpu_open(0, &info, &st) == DG_OK)
    fprintf(out, "cpu: kernels compiled by %s\n", cpu_compiler_identity(st));
  else
    fprintf(out, "cpu: no kernel compiler (%s)\n", dg_error_message());
  dg_error_clear();
  if (st)
    cpu_close(st);
}

const dg_backend_ops dg_backend_cpu_ops = {
    .name = "cpu",
    .print_runtime = cpu_print_runtime,
    .priority = 0,
    .available = cpu_available,
    .count = cpu_count,
    .describe = cpu_describe,
    .open = cpu_open,
    .close = cpu_close,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .upload = cpu_memcpy,
    .download = cpu_memcpy,
    .copy = cpu_memcpy,
    .zero = cpu_zero,
    .compile = cpu_compile,
    .compiler_identity = cpu_compiler_identity,
    .load = cpu_load,
    .unload = cpu_unload,
    .get_function = cpu_get_function,
    .attributes = cpu_attributes,
    .launch = cpu_launch,
    .stream_create = cpu_stream_create,
    .stream_destroy = cpu_stream_destroy,
    .stream_synchronize = cpu_nothing,
    .synchronize = cpu_synchronize,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .event_synchronize = cpu_nothing,
    .event_elapsed_ms = cpu_event_elapsed_ms,
    .stream_wait_event = cpu_stream_wait_event,
};
