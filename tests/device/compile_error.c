/* core.device_compile_error: a compile error in generated source raises
 * DG_ERR_COMPILE whose message holds the compiler's diagnostic and the bad
 * source line with its number; nothing is cached, nothing is counted. */
#include <string.h>
#include <unistd.h>

#include "devtest.h"

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  const char *src = "#include <stdint.h>\n"                            /* 1 */
                    "void broken(void **args, int64_t first,\n"          /* 2 */
                    "            int64_t count) {\n"                     /* 3 */
                    "  double *z = *(double **)args[0];\n"               /* 4 */
                    "  for (int64_t i = first; i < first + count; i++)\n" /* 5 */
                    "    z[i] = undeclared_thing * 2.0;\n"               /* 6 */
                    "}\n";
  dg_module *mod = (dg_module *)&mod;
  dg_error err = dg_device_compile(dev, "broken module", src, NULL, 0, &mod);
  CHECK(err == DG_ERR_COMPILE, "expected DG_ERR_COMPILE, got %d", (int)err);
  CHECK(mod == NULL, "a failed compile must leave *out NULL");
  const char *msg = dg_error_message();
  fprintf(stderr, "message:\n%s\n", msg);
  CHECK(strstr(msg, "broken module"), "message lacks the module name");
  /* gcc and clang both say "error: use of undeclared identifier" or
   * "'undeclared_thing' undeclared": the identifier appears either way, on
   * a line that has "error". */
  const char *diag = strstr(msg, "error");
  CHECK(diag && strstr(diag, "undeclared_thing"),
        "message lacks the compiler's error");
  CHECK(strstr(msg, "broken_module.c:6:"), "message lacks file:line 6");
  CHECK(strstr(msg, ">     6 |     z[i] = undeclared_thing * 2.0;"),
        "message lacks the numbered, marked bad source line");
  CHECK(strstr(msg, "      5 |   for (int64_t i"),
        "message lacks the line before");
  CHECK(!strstr(msg, "dgrun-cc-"), "message leaks the temporary directory");
  /* The source is kept for the reader: its path, and path:line of the
   * first error, holding exactly the generated text. */
  const char *kept = strstr(msg, "the generated source is kept as ");
  CHECK(kept, "message does not say where the generated source is kept");
  char path[512];
  CHECK(sscanf(kept + strlen("the generated source is kept as "), "%511[^;]", path) == 1,
        "no path after 'kept as'");
  char at[600];
  snprintf(at, sizeof at, "first error at %s:6", path);
  CHECK(strstr(msg, at), "message lacks '%s'", at);
  FILE *f = fopen(path, "r");
  char back[512] = "";
  size_t nb = f ? fread(back, 1, sizeof back - 1, f) : 0;
  back[nb] = '\0';
  if (f)
    fclose(f);
  CHECK(strcmp(back, src) == 0, "kept file %s does not hold the generated source", path);
  unlink(path);
  dg_error_clear();

  dg_device_stats s = dg_device_get_stats(dev);
  CHECK(s.compilations == 0 && s.cache_hits == 0,
        "failed compile counted: %lld compilations, %lld hits",
        (long long)s.compilations, (long long)s.cache_hits);
  int entries, others;
  dt_count_files(cache, &entries, &others);
  CHECK(entries == 0 && others == 0, "a failed compile left %d entries, %d "
        "other files in the cache", entries, others);

  /* A bad option is a compile error too, with the compiler's complaint. */
  const char *opts[] = {"-fno-such-option-for-dgrun"};
  err = dg_device_compile(dev, "opt", "void f(void) {}\n", opts, 1, &mod);
  CHECK(err == DG_ERR_COMPILE, "bad option: got %d", (int)err);
  CHECK(strstr(dg_error_message(), "no-such-option-for-dgrun"),
        "message lacks the bad option: %s", dg_error_message());
  dg_error_clear();

  /* A compiler that does not exist is reported as such. */
  CHECK(setenv("DGRUN_CC", "/nonexistent/dgrun-cc", 1) == 0, "setenv");
  dg_device *dev2;
  MUST(dg_device_create("cpu", 0, &dev2));
  err = dg_device_compile(dev2, "x", "void f(void) {}\n", NULL, 0, &mod);
  CHECK(err == DG_ERR_UNSUPPORTED, "missing compiler: got %d", (int)err);
  CHECK(strstr(dg_error_message(), "/nonexistent/dgrun-cc") &&
            strstr(dg_error_message(), "DGRUN_CC"),
        "message: %s", dg_error_message());
  dg_error_clear();
  dg_device_destroy(&dev2);

  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return 0;
}
