/* Standalone driver for fuzz_flux.c where libFuzzer is not available:
 *   fuzz_flux MUTATIONS DIR...
 * runs every file of the DIRs, then MUTATIONS deterministic random
 * mutations of them (byte flips, deletions, duplications, insertions of
 * language tokens and hostile bytes, splices of two seeds).  Not coverage
 * guided, but it reaches the error paths of every stage. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct seed {
  unsigned char *data;
  size_t size;
} seed;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}
static size_t below(size_t n) { return n ? (size_t)(next_random() % n) : 0; }

static const char *const tokens[] = {
    "fields ", "params ", "let ", "rhs ", "flux ", "boundary ", "initial ", "exact ",
    "source ", "dim 2\n", "dim 1\n", "dim 3\n", "(", ")", "[", "]", "{", "}", ",", ";", "=",
    ".int", ".ext", "+", "-", "*", "/", "^", "<", "<=", "==", "!=", "&&", "||", "!", "?", ":",
    "\n", "#", "avg(", "jump(", "div(", "grad(", "curl(", "dx(", "dy(", "dz(", "cross(",
    "dot(", "norm(", "min(", "max(", "sin(", "pow(", "atan2(", "n", "x", "t", "pi", "x[0]",
    "n[1]", "E", "H", "u", "1e999", "0", "0.5", "1e-3", "[0, 0, 1]", "\xff", "\xc3\xa9",
    "\xe2\x82", "\0", "\"); system(\"rm -rf /\"); (\"", "E[3]", "H[2]", "u[64]", "E[-1]"};

static size_t mutate(const seed *a, const seed *b, unsigned char *out, size_t cap) {
  size_t n = a->size < cap ? a->size : cap;
  memcpy(out, a->data, n);
  int rounds = 1 + (int)below(4);
  for (int r = 0; r < rounds; r++) {
    size_t at = below(n + 1);
    switch (below(6)) {
    case 0: /* flip a byte */
      if (n)
        out[below(n)] ^= (unsigned char)(1u << below(8));
      break;
    case 1: { /* delete a run */
      size_t len = below(16) + 1;
      if (at + len > n)
        len = n - at;
      memmove(out + at, out + at + len, n - at - len);
      n -= len;
      break;
    }
    case 2:
    case 3: { /* insert a token */
      const char *tok = tokens[below(sizeof tokens / sizeof *tokens)];
      size_t len = strlen(tok);
      if (len == 0)
        len = 1; /* the NUL byte */
      if (n + len > cap)
        break;
      memmove(out + at + len, out + at, n - at);
      memcpy(out + at, tok, len);
      n += len;
      break;
    }
    case 4: { /* duplicate a run */
      if (!n)
        break;
      unsigned char run[32];
      size_t from = below(n), len = below(32) + 1;
      if (from + len > n)
        len = n - from;
      if (n + len > cap)
        break;
      memcpy(run, out + from, len);
      memmove(out + at + len, out + at, n - at);
      memcpy(out + at, run, len);
      n += len;
      break;
    }
    default: { /* splice: the head of a, the tail of b */
      size_t cut = below(b->size + 1);
      size_t len = b->size - cut;
      if (at + len > cap)
        len = cap - at;
      memcpy(out + at, b->data + cut, len);
      n = at + len;
      break;
    }
    }
  }
  return n;
}

static int load_dir(const char *dir, seed **seeds, int *nseeds) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open %s\n", dir);
    return 1;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f)
      continue;
    seed s = {malloc(1 << 16), 0};
    if (s.data)
      s.size = fread(s.data, 1, 1 << 16, f);
    fclose(f);
    seed *grown = realloc(*seeds, (size_t)(*nseeds + 1) * sizeof *grown);
    if (!grown || !s.data) {
      free(s.data);
      closedir(d);
      return 1;
    }
    *seeds = grown;
    (*seeds)[(*nseeds)++] = s;
  }
  closedir(d);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MUTATIONS DIR...\n", argv[0]);
    return 2;
  }
  long runs = strtol(argv[1], NULL, 10);
  seed *seeds = NULL;
  int nseeds = 0;
  for (int i = 2; i < argc; i++)
    if (load_dir(argv[i], &seeds, &nseeds))
      return 1;
  if (nseeds == 0) {
    fprintf(stderr, "no seeds\n");
    return 1;
  }
  for (int i = 0; i < nseeds; i++)
    LLVMFuzzerTestOneInput(seeds[i].data, seeds[i].size);
  enum { CAP = 1 << 16 };
  unsigned char *buf = malloc(CAP);
  if (!buf)
    return 1;
  for (long r = 0; r < runs; r++) {
    size_t n = mutate(&seeds[below((size_t)nseeds)], &seeds[below((size_t)nseeds)], buf, CAP);
    LLVMFuzzerTestOneInput(buf, n);
  }
  printf("ran %d seeds and %ld mutations\n", nseeds, runs);
  free(buf);
  for (int i = 0; i < nseeds; i++)
    free(seeds[i].data);
  free(seeds);
  return 0;
}
