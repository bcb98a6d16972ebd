#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>


void tu_mkdtemp(char *buf, size_t cap) {
  const char *t = getenv("TMPDIR");
  snprintf(buf, cap, "%s/dgrun-output-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(buf)) {
    perror("mkdtemp");
    exit(1);
  }
}

void tu_rmtree(const char *path) {
  if (getenv("DGRUN_TEST_KEEP")) { /* for a look at the files */
    printf("kept %s\n", path);
    return;
  }
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
        continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      tu_rmtree(sub);
    }
    if (d)
      closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

int tu_count(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, needle))
      n++;
  closedir(d);
  return n;
}

int tu_finish(const char *dir, int nfailed) {
  failures += nfailed; /* the caller's, counted in its own translation unit */
  EXPECT(tu_count(dir, ".tmp.") == 0, "temp files remain in %s", dir);
  tu_rmtree(dir);
  return expect_finish();
}

int tu_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

char *tu_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  size_t r = fread(b, 1, (size_t)n, f);
  fclose(f);
  b[r] = '\0';
  if (len)
    *len = r;
  return b;
}

void tu_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len) {
    perror(path);
    exit(1);
  }
  fclose(f);
}

uint64_t tu_rand(void) {
  /* splitmix64 */
  static uint64_t s;
  if (!s)
    s = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Value of attribute `name` inside the tag text [tag, end) into buf. */
static int attr(const char *tag, const char *end, const char *name, char *buf, size_t cap) {
  char key[64];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *p = strstr(tag, key);
  if (!p || p >= end)
    return 0;
  p += strlen(key);
  const char *q = strchr(p, '"');
  if (!q || q >= end || (size_t)(q - p) >= cap)
    return 0;
  memcpy(buf, p, (size_t)(q - p));
  buf[q - p] = '\0';
  return 1;
}

static void check_item(const char *dir, const char *tag, const char *tag_end,
                       const char *body) {
  char dims[64], type[32], prec[8], fmt[16];
  EXPECT(attr(tag, tag_end, "Dimensions", dims, sizeof dims), "DataItem without Dimensions");
  EXPECT(attr(tag, tag_end, "NumberType", type, sizeof type), "DataItem without NumberType");
  EXPECT(attr(tag, tag_end, "Precision", prec, sizeof prec), "DataItem without Precision");
  EXPECT(attr(tag, tag_end, "Format", fmt, sizeof fmt) && !strcmp(fmt, "HDF"),
         "DataItem not in HDF format");
  const char *colon = strchr(body, ':');
  const char *close = strstr(body, "</DataItem>");
  if (!colon || !close || colon > close) {
    EXPECT(0, "DataItem body is not file:/path");
    return;
  }
  char file[4096], dset[512];
  snprintf(file, sizeof file, "%s/%.*s", dir, (int)(colon - body), body);
  snprintf(dset, sizeof dset, "%.*s", (int)(close - colon - 1), colon + 1);
  EXPECT(body[0] != '/', "DataItem path %s is absolute", file);
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT(f >= 0, "XDMF names %s, which HDF5 cannot open", file);
  if (f < 0)
    return;
  hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
  EXPECT(d >= 0, "XDMF names %s:%s, which does not exist", file, dset);
  if (d >= 0) {
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    hsize_t hd[4] = {0};
    int rank = H5Sget_simple_extent_dims(s, hd, NULL);
    char got[64] = "";
    for (int i = 0; i < rank; ++i)
      snprintf(got + strlen(got), sizeof got - strlen(got), i ? " %llu" : "%llu",
               (unsigned long long)hd[i]);
    EXPECT(!strcmp(got, dims), "%s:%s has dims '%s', XDMF says '%s'", file, dset, got, dims);
    int is_float = H5Tget_class(t) == H5T_FLOAT;
    EXPECT(is_float == !strcmp(type, "Float"), "%s:%s number type mismatch (%s)", file, dset,
           type);
    EXPECT((size_t)atoi(prec) == H5Tget_size(t), "%s:%s has %zu-byte values, XDMF says %s",
           file, dset, H5Tget_size(t), prec);
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
}

tu_xdmf tu_xdmf_check(const char *path) {
  tu_xdmf x;
  memset(&x, 0, sizeof x);
  char *text = tu_slurp(path, NULL);
  EXPECT(text != NULL, "cannot read %s", path);
  if (!text)
    return x;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    strcpy(dir, ".");
  EXPECT(!strncmp(text, "<?xml", 5), "%s does not start with <?xml", path);
  char stack[32][32];
  int depth = 0, roots = 0;
  for (const char *p = strchr(text, '<'); p; p = strchr(p, '<')) {
    if (!strncmp(p, "<!--", 4)) {
      const char *e = strstr(p, "-->");
      EXPECT(e != NULL, "unterminated comment");
      p = e ? e + 3 : p + 4;
      continue;
    }
    const char *e = strchr(p, '>');
    EXPECT(e != NULL, "unterminated tag");
    if (!e)
      break;
    if (p[1] == '?' || p[1] == '!') {
      p = e + 1;
      continue;
    }
    char name[32];
    int closing = p[1] == '/';
    const char *n = p + 1 + closing;
    size_t len = strcspn(n, " />");
    snprintf(name, sizeof name, "%.*s", (int)len, n);
    if (closing) {
      EXPECT(depth > 0 && !strcmp(stack[depth - 1], name), "</%s> does not close <%s>", name,
             depth ? stack[depth - 1] : "");
      if (depth)
        depth--;
    } else {
      if (depth == 0)
        roots++;
      char v[64];
      if (!strcmp(name, "Grid") && attr(p, e, "GridType", v, sizeof v)) {
        x.grids += !strcmp(v, "Uniform");
        if (!strcmp(v, "Collection")) {
          x.collections++;
          EXPECT(attr(p, e, "CollectionType", v, sizeof v) && !strcmp(v, "Temporal"),
                 "collection is not temporal");
        }
      }
      if (!strcmp(name, "Time") && attr(p, e, "Value", v, sizeof v) && x.grids <= 64)
        x.times[x.grids - 1] = strtod(v, NULL);
      if (!strcmp(name, "Topology"))
        attr(p, e, "TopologyType", x.topology, sizeof x.topology);
      if (!strcmp(name, "DataItem")) {
        check_item(dir, p, e, e + 1);
        x.data_items++;
      }
      if (e[-1] != '/') {
        EXPECT(depth < 32, "too deep");
        if (depth < 32)
          snprintf(stack[depth++], 32, "%s", name);
      }
    }
    p = e + 1;
  }
  EXPECT(depth == 0, "%s: %d unclosed tags", path, depth);
  EXPECT(roots == 1, "%s: %d root elements", path, roots);
  free(text);
  return x;
}

dg_error tu_snapshot_steps(dg_snapshot_writer *w, double *u, const long long *steps, int n) {
  dg_snapshot_field f = {"u", 1, 8, {u, NULL, NULL}};
  for (int i = 0; i < n; ++i)
    DG_CALL(dg_snapshot_writer_write(w, 0.1 * (double)steps[i], steps[i], &f, 1, NULL, 0));
  return DG_OK;
}
