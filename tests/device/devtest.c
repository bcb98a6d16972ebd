#include "devtest.h"

#include <dirent.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fsutil.h"

const char *dt_fresh_cache_dir(void) {
  static char dir[4096];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/dgrun-test-cache-XXXXXX",
           tmp && tmp[0] ? tmp : "/tmp");
  CHECK(mkdtemp(dir), "mkdtemp(%s) failed", dir);
  CHECK(setenv("DGRUN_CACHE_DIR", dir, 1) == 0, "setenv failed");
  return dir;
}

void dt_remove_dir(const char *dir) { MUST(dg_fsutil_remove_tree(dir)); }

uint64_t dt_seed(void) {
  const char *s = getenv("DT_SEED");
  uint64_t seed;
  if (s && s[0]) {
    seed = strtoull(s, NULL, 10);
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
           ((uint64_t)getpid() << 40);
  }
  fprintf(stderr, "random seed: DT_SEED=%llu\n", (unsigned long long)seed);
  return seed;
}

double dt_uniform(uint64_t *state) {
  /* splitmix64 (Steele, Lea & Flood 2014): 53 random mantissa bits. */
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

const char *const dt_kernel_source =
    "#include <stdint.h>\n"
    "/* z = a x + b y */\n"
    "void axpby(void **args, int64_t first, int64_t count) {\n"
    "  double *z = *(double **)args[0];\n"
    "  const double *x = *(const double **)args[1];\n"
    "  const double *y = *(const double **)args[2];\n"
    "  const double a = *(const double *)args[3];\n"
    "  const double b = *(const double *)args[4];\n"
    "  for (int64_t i = first; i < first + count; i++)\n"
    "    z[i] = a * x[i] + b * y[i];\n"
    "}\n"
    "/* which chunk covered item i */\n"
    "void mark(void **args, int64_t first, int64_t count) {\n"
    "  int64_t *owner = *(int64_t **)args[0];\n"
    "  int64_t *len = *(int64_t **)args[1];\n"
    "  for (int64_t i = first; i < first + count; i++) {\n"
    "    owner[i] = first;\n"
    "    len[i] = count;\n"
    "  }\n"
    "}\n";

void dt_check_axpby(dg_device *dev, dg_module *mod, int64_t n, int64_t items,
                    int64_t chunk, uint64_t *rng) {
  size_t bytes = (size_t)n * sizeof(double);
  double *x = malloc(bytes + 1), *y = malloc(bytes + 1), *z = malloc(bytes + 1);
  CHECK(x && y && z, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    x[i] = dt_uniform(rng);
    y[i] = dt_uniform(rng);
    z[i] = NAN;
  }
  double a = dt_uniform(rng) * 3.0, b = dt_uniform(rng) * 3.0;
  void *dx, *dy, *dz;
  MUST(dg_device_malloc(dev, bytes, &dx));
  MUST(dg_device_malloc(dev, bytes, &dy));
  MUST(dg_device_malloc(dev, bytes, &dz));
  MUST(dg_device_upload(dev, dx, x, bytes));
  MUST(dg_device_upload(dev, dy, y, bytes));
  MUST(dg_device_upload(dev, dz, z, bytes)); /* poison the output */
  dg_kernel *k;
  MUST(dg_module_get_kernel(mod, "axpby", &k));
  void *args[] = {&dz, &dx, &dy, &a, &b};
  dg_launch launch = {.items = items, .chunk = chunk};
  MUST(dg_kernel_launch(k, &launch, args, NULL));
  MUST(dg_device_synchronize(dev));
  MUST(dg_device_download(dev, z, dz, bytes));
  for (int64_t i = 0; i < n; i++) {
    if (i >= items) {
      CHECK(isnan(z[i]), "z[%lld] = %g past items = %lld was written",
            (long long)i, z[i], (long long)items);
      continue;
    }
    /* The generated code may contract a*x + b*y into one fused multiply-add
     * (one rounding instead of two): the results then differ by at most one
     * rounding of the terms, 2^-53 (|a x| + |b y|); allow 2 eps of that. */
    double ref = a * x[i] + b * y[i];
    double tol = 2.0 * 2.220446049250313e-16 * (fabs(a * x[i]) + fabs(b * y[i]));
    CHECK(fabs(z[i] - ref) <= tol, "z[%lld] = %.17g, expected %.17g "
          "(items %lld, chunk %lld)", (long long)i, z[i], ref, (long long)items,
          (long long)chunk);
  }
  MUST(dg_device_free(dev, dx));
  MUST(dg_device_free(dev, dy));
  MUST(dg_device_free(dev, dz));
  free(x);
  free(y);
  free(z);
}

dg_device_stats dt_compile_and_check(uint64_t *rng) {
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  dg_module *mod;
  MUST(dg_device_compile(dev, "k", dt_kernel_source, NULL, 0, &mod));
  dg_device_stats s = dg_device_get_stats(dev);
  dt_check_axpby(dev, mod, 777, 775, 50, rng);
  dg_module_destroy(&mod);
  dg_device_destroy(&dev);
  return s;
}

void dt_expect_stats(dg_device_stats s, int64_t compilations, int64_t hits,
                     int64_t rebuilds, const char *when) {
  CHECK(s.compilations == compilations && s.cache_hits == hits &&
            s.cache_rebuilds == rebuilds,
        "%s: %lld compilations, %lld hits, %lld rebuilds; expected %lld, "
        "%lld, %lld", when, (long long)s.compilations,
        (long long)s.cache_hits, (long long)s.cache_rebuilds,
        (long long)compilations, (long long)hits, (long long)rebuilds);
}

void dt_count_files(const char *dir, int *entries, int *others) {
  *entries = *others = 0;
  DIR *d = opendir(dir);
  CHECK(d, "cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    size_t n = strlen(e->d_name);
    if (n > 4 && strcmp(e->d_name + n - 4, ".dgk") == 0)
      (*entries)++;
    else
      (*others)++;
  }
  closedir(d);
}

void dt_precompile_expect(dg_device *dev, const char *dir, char *const *src, int n, int threads,
                          int distinct) {
  MUST(dg_device_precompile(dev, (const char *const *)src, n, threads));
  dg_device_stats s = dg_device_get_stats(dev);
  EXPECT(s.compilations == distinct, "precompile compiled %lld modules, expected %d",
         (long long)s.compilations, distinct);
  int entries, others;
  dt_count_files(dir, &entries, &others);
  EXPECT(entries == distinct && others == 0, "%d cache entries, %d others; expected %d, 0",
         entries, others, distinct);
}

void dt_expect_compile_error(dg_device *dev, const char *src) {
  dg_module *bad = NULL;
  EXPECT(dg_device_compile(dev, "bad", src, NULL, 0, &bad) == DG_ERR_COMPILE && !bad,
         "the broken source did not report its compile error");
  dg_error_clear();
}

const char *dt_single_entry(const char *dir) {
  static char path[8192];
  int entries, others;
  dt_count_files(dir, &entries, &others);
  CHECK(entries == 1 && others == 0, "%s holds %d entries and %d other files, "
        "expected exactly one entry", dir, entries, others);
  DIR *d = opendir(dir);
  CHECK(d, "cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".dgk"))
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
  closedir(d);
  return path;
}
