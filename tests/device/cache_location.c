/* core.cache_location: the cache directory follows $DGRUN_CACHE_DIR, then
 * $XDG_CACHE_HOME/dgrun, then $HOME/.cache/dgrun, and is created (0700,
 * with parents).  put/get round-trip arbitrary bytes; keys are checked. */
#include <string.h>
#include <sys/stat.h>

#include "core/kernel_cache.h"
#include "devtest.h"

static void expect_dir(const char *want) {
  char *dir;
  MUST(dg_kernel_cache_default_dir(&dir));
  CHECK(strcmp(dir, want) == 0, "cache dir '%s', expected '%s'", dir, want);
  free(dir);
  dg_kernel_cache *c;
  MUST(dg_kernel_cache_create(NULL, &c));
  struct stat st;
  CHECK(stat(want, &st) == 0 && S_ISDIR(st.st_mode), "%s was not created",
        want);
  CHECK((st.st_mode & 0077) == 0, "%s has mode %o: others may plant code",
        want, (unsigned)(st.st_mode & 0777));
  CHECK(strcmp(dg_kernel_cache_dir(c), want) == 0, "dir %s",
        dg_kernel_cache_dir(c));
  dg_kernel_cache_destroy(&c);
  CHECK(c == NULL, "destroy must clear the handle");
}

int main(void) {
  char root[4096];
  snprintf(root, sizeof root, "%s", dt_fresh_cache_dir());
  char a[4200], b[4200], b_dgrun[4300], home[4200], home_cache[4300];
  snprintf(a, sizeof a, "%s/explicit/deep", root);
  snprintf(b, sizeof b, "%s/xdg", root);
  snprintf(b_dgrun, sizeof b_dgrun, "%s/dgrun", b);
  snprintf(home, sizeof home, "%s/home", root);
  snprintf(home_cache, sizeof home_cache, "%s/.cache/dgrun", home);

  CHECK(setenv("DGRUN_CACHE_DIR", a, 1) == 0, "setenv");
  CHECK(setenv("XDG_CACHE_HOME", b, 1) == 0, "setenv");
  CHECK(setenv("HOME", home, 1) == 0, "setenv");
  expect_dir(a);
  CHECK(unsetenv("DGRUN_CACHE_DIR") == 0, "unsetenv");
  expect_dir(b_dgrun);
  CHECK(setenv("XDG_CACHE_HOME", "", 1) == 0, "setenv"); /* empty = unset */
  expect_dir(home_cache);

  /* Round trip of random bytes, including 0 bytes. */
  uint64_t rng = dt_seed();
  dg_kernel_cache *c;
  MUST(dg_kernel_cache_create(root, &c));
  enum { N = 5000 };
  unsigned char data[N];
  for (int i = 0; i < N; i++)
    data[i] = (unsigned char)((dt_uniform(&rng) + 1.0) * 127.9);
  void *got;
  size_t n;
  dg_kernel_cache_status st;
  MUST(dg_kernel_cache_get(c, "abc123", &got, &n, &st));
  CHECK(st == DG_KERNEL_CACHE_MISS && got == NULL && n == 0, "empty: st %d",
        (int)st);
  MUST(dg_kernel_cache_put(c, "abc123", data, N));
  MUST(dg_kernel_cache_get(c, "abc123", &got, &n, &st));
  CHECK(st == DG_KERNEL_CACHE_HIT && n == N && memcmp(got, data, N) == 0,
        "round trip: st %d, %zu bytes", (int)st, n);
  free(got);
  /* Overwrite with different contents: the new ones win. */
  MUST(dg_kernel_cache_put(c, "abc123", data + 1, N - 1));
  MUST(dg_kernel_cache_get(c, "abc123", &got, &n, &st));
  CHECK(st == DG_KERNEL_CACHE_HIT && n == N - 1 &&
            memcmp(got, data + 1, N - 1) == 0,
        "overwrite: st %d, %zu bytes", (int)st, n);
  free(got);
  MUST(dg_kernel_cache_put(c, "empty", data, 0));
  MUST(dg_kernel_cache_get(c, "empty", &got, &n, &st));
  CHECK(st == DG_KERNEL_CACHE_HIT && n == 0, "empty payload: st %d", (int)st);
  free(got);

  /* Keys that could escape the directory are refused. */
  CHECK(dg_kernel_cache_put(c, "../evil", data, 1) == DG_ERR_ARG,
        "path key accepted");
  dg_error_clear();
  CHECK(dg_kernel_cache_put(c, "", data, 1) == DG_ERR_ARG, "empty key");
  dg_error_clear();
  dg_kernel_cache_destroy(&c);

  /* A cache path that is a file is an I/O error naming it. */
  char file[4300];
  snprintf(file, sizeof file, "%s/abc123.dgk", root);
  CHECK(dg_kernel_cache_create(file, &c) == DG_ERR_IO, "file as cache dir");
  CHECK(strstr(dg_error_message(), "abc123.dgk"), "message: %s",
        dg_error_message());
  dg_error_clear();

  dt_remove_dir(root);
  return 0;
}
