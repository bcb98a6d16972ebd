/* Size + SHA-256 seals of files dgrun wrote (see seal.h). */
#include "core/seal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/hash.h"

static void header(char *head, const char *magic, unsigned long long n, const unsigned char *d) {
  char hex[DG_HASH_HEX_SIZE];
  dg_hash_hex(d, DG_HASH_SIZE, hex);
  memset(head, 0, DG_SEAL_SIZE);
  snprintf(head, DG_SEAL_SIZE, "%s v1\nsize %llu\nsha256 %s\n", magic, n, hex);
}

void dg_seal_image(unsigned char *image, size_t n, const char *magic) {
  unsigned char d[DG_HASH_SIZE];
  dg_hash_buffer(image + DG_SEAL_SIZE, n - DG_SEAL_SIZE, d);
  header((char *)image, magic, (unsigned long long)n, d);
}

/* SHA-256 of fd's bytes from its current offset to its end; *total += their count.
 * -1 (errno set) on a read error. */
static int hash_rest(int fd, unsigned char *d, unsigned long long *total) {
  dg_hash h;
  dg_hash_init(&h);
  static _Thread_local unsigned char buf[1 << 16];
  for (;;) {
    ssize_t k = read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      return -1;
    if (k == 0)
      break;
    dg_hash_update(&h, buf, (size_t)k);
    *total += (unsigned long long)k;
  }
  dg_hash_final(&h, d);
  return 0;
}

dg_error dg_seal_file(const char *path, const char *magic) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  DG_CHECK(fd >= 0, DG_ERR_IO, "cannot open '%s' to seal it: %s", path, strerror(errno));
  unsigned char d[DG_HASH_SIZE];
  unsigned long long total = DG_SEAL_SIZE;
  int ok = lseek(fd, DG_SEAL_SIZE, SEEK_SET) == DG_SEAL_SIZE && hash_rest(fd, d, &total) == 0;
  int e = errno;
  struct stat st;
  ok = ok && fstat(fd, &st) == 0 && (unsigned long long)st.st_size == total;
  dg_error err = DG_OK;
  if (ok) {
    char head[DG_SEAL_SIZE];
    header(head, magic, total, d);
    ok = lseek(fd, 0, SEEK_SET) == 0;
    err = ok ? dg_fsutil_write_fd(fd, head, sizeof head, path) : DG_OK;
    e = errno;
  }
  if (close(fd) != 0 && ok && err == DG_OK) {
    ok = 0;
    e = errno;
  }
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  DG_CHECK(ok, DG_ERR_IO, "cannot seal '%s': %s", path, strerror(e));
  return DG_OK;
}

dg_error dg_seal_check(const char *path, const char *magic, const char *what,
                       const char *not_sealed, int full) {
  int fd;
  DG_CALL(dg_fsutil_open_input(path, what, &fd));
  char head[DG_SEAL_SIZE + 1];
  size_t got = 0;
  while (got < DG_SEAL_SIZE) {
    ssize_t k = read(fd, head + got, DG_SEAL_SIZE - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  head[got] = '\0';
  size_t lm = strlen(magic);
  unsigned long long size = 0;
  char want[DG_HASH_HEX_SIZE] = "";
  int ok = got == DG_SEAL_SIZE && strncmp(head, magic, lm) == 0 &&
           strncmp(head + lm, " v1\n", 4) == 0 &&
           sscanf(head + lm + 4, "size %llu\nsha256 %64[0-9a-f]\n", &size, want) == 2 &&
           strlen(want) == 64;
  if (!ok) {
    close(fd);
    DG_RAISE(DG_ERR_INPUT, "%s '%s' is not %s (no '%s' header: %s)", what, path, not_sealed,
             magic, "truncated, corrupt, or not written by dgrun");
  }
  struct stat st;
  unsigned long long total = 0;
  if (fstat(fd, &st) != 0) {
    close(fd);
    DG_RAISE(DG_ERR_IO, "cannot stat %s '%s': %s", what, path, strerror(errno));
  }
  total = (unsigned long long)st.st_size;
  unsigned char d[DG_HASH_SIZE];
  if (full) {
    total = DG_SEAL_SIZE;
    if (hash_rest(fd, d, &total) != 0) {
      int e = errno;
      close(fd);
      DG_RAISE(DG_ERR_IO, "cannot read %s '%s': %s", what, path, strerror(e));
    }
  }
  close(fd);
  DG_CHECK(total == size, DG_ERR_INPUT,
           "%s '%s' is truncated or corrupt: %llu bytes, its header says %llu", what, path,
           total, size);
  if (full) {
    char hex[DG_HASH_HEX_SIZE];
    dg_hash_hex(d, DG_HASH_SIZE, hex);
    DG_CHECK(strcmp(hex, want) == 0, DG_ERR_INPUT,
             "%s '%s' is corrupt: its bytes do not match the SHA-256 in its header", what,
             path);
  }
  return DG_OK;
}
