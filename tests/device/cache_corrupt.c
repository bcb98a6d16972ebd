/* core.cache_corrupt: a truncated, bit-flipped, emptied or foreign cache
 * entry is detected, rebuilt (counted as a rebuild and a compilation) and
 * never loaded; the rebuilt entry is valid again (a later device hits) and
 * the kernel is correct throughout. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devtest.h"

static void compile_expect(int64_t comp, int64_t hits, int64_t rebuilds,
                           const char *when, uint64_t *rng) {
  dt_expect_stats(dt_compile_and_check(rng), comp, hits, rebuilds, when);
}

static off_t file_size(const char *path) {
  struct stat st;
  CHECK(stat(path, &st) == 0, "stat %s", path);
  return st.st_size;
}

static void flip_byte(const char *path, off_t at) {
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0, "open %s", path);
  unsigned char c;
  CHECK(pread(fd, &c, 1, at) == 1, "pread");
  c ^= 0x10;
  CHECK(pwrite(fd, &c, 1, at) == 1, "pwrite");
  close(fd);
}

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  uint64_t rng = dt_seed();
  compile_expect(1, 0, 0, "first compile", &rng);
  char entry[8192];
  snprintf(entry, sizeof entry, "%s", dt_single_entry(cache));
  off_t size = file_size(entry);
  CHECK(size > 1000, "entry %s is only %lld bytes", entry, (long long)size);

  /* Truncated to half: payload size no longer matches. */
  CHECK(truncate(entry, size / 2) == 0, "truncate");
  compile_expect(1, 0, 1, "after truncation", &rng);
  CHECK(file_size(entry) == size, "rebuilt entry has %lld bytes, not %lld",
        (long long)file_size(entry), (long long)size);
  compile_expect(0, 1, 0, "after the rebuild", &rng);

  /* One flipped bit in the payload (past the 120-byte header, at a random
   * place): only the checksum can tell. */
  off_t at = 120 + (off_t)((dt_uniform(&rng) + 1.0) * 0.5 * (double)(size - 121));
  flip_byte(entry, at);
  compile_expect(1, 0, 1, "after a payload bit flip", &rng);
  compile_expect(0, 1, 0, "after the rebuild", &rng);

  /* A flipped bit in the stored key (header byte 16). */
  flip_byte(entry, 16);
  compile_expect(1, 0, 1, "after a key bit flip", &rng);

  /* Truncated inside the header, and emptied. */
  CHECK(truncate(entry, 50) == 0, "truncate");
  compile_expect(1, 0, 1, "after truncation into the header", &rng);
  CHECK(truncate(entry, 0) == 0, "truncate");
  compile_expect(1, 0, 1, "after emptying", &rng);

  /* Foreign content with a valid header would need SHA-256 collisions;
   * plain garbage of the right length fails at the magic. */
  int fd = open(entry, O_WRONLY | O_TRUNC);
  CHECK(fd >= 0, "open");
  char junk[4096];
  memset(junk, 'x', sizeof junk);
  CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk, "write");
  close(fd);
  compile_expect(1, 0, 1, "after overwriting with garbage", &rng);
  compile_expect(0, 1, 0, "finally", &rng);

  int entries, others;
  dt_count_files(cache, &entries, &others);
  CHECK(entries == 1 && others == 0, "%d entries, %d other files", entries,
        others);
  dt_remove_dir(cache);
  return 0;
}
