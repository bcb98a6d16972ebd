/* core.config_fuzz: random byte strings and mutated valid files fed to the
 * reader (deterministic seed, thousands of cases).  Nothing may crash, and
 * whatever comes back must be coherent:
 *   - an error is DG_ERR_INPUT with *out == NULL and a message that starts
 *     with the file name, fits the trace buffer and is valid UTF-8 text;
 *   - a config that reads prints (dg_config_print) to text that reads back
 *     to the same sections, keys and values;
 *   - typed getters, validation and random overrides on it return OK or an
 *     input error, never anything else.
 * Usage: test [cases [seed]].  Run it under -DDGRUN_SANITIZE=ON too. */
#include <stdint.h>
#include <stdlib.h>

#include "expect.h"

static uint64_t rng_state;
/* xorshift64* (Vigna 2016): small, fast and the same on every machine. */
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1DULL;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static const char *const seeds[] = {
    "; problem\n[discretization]\norder = 3\nprecision = double\n[time]\nfinal = 1.5\n"
    "cfl = 0.4 # trailing\nscheme = \"lsrk4\"\n[mesh]\nfile = \"box ; 1.msh\"\n",
    "[params]\r\ngamma = 1.4\r\nmach = \"0.5\"\r\n[output]\r\nvtk = yes\r\n",
    "\xEF\xBB\xBF[a.b-c_d]\n  k = \"esc \\\" \\\\ x\"\n\tempty =\nu = ünïcödé ✓\n",
    "[x]\n[y]\nk=v\n[z] ; c\n# only comments\n",
};
enum { NSEEDS = sizeof seeds / sizeof *seeds };
/* Characters that matter to the grammar (and a two-byte letter), then
 * bytes that break UTF-8 or are control characters: used less often, so
 * that many mutants still read and the success paths are exercised too. */
static const char interesting[] = "[]=;#\"\\ \t\n\r.-_aZ09\xC3\xA9\xFF\xC0\xE2\x82\x01";
enum { NGOOD = 18 }; /* interesting[0..NGOOD) is ASCII text */
static char pick(void) {
  return below(8) ? interesting[below(NGOOD)] : interesting[below(sizeof interesting - 1)];
}

static const dg_config_key schema[] = {
    {"discretization", "order", DG_CONFIG_INT, NULL, "3", "order"},
    {"discretization", "precision", DG_CONFIG_ENUM, "double|single", "double", "precision"},
    {"time", "final", DG_CONFIG_DOUBLE, NULL, NULL, "final time"},
    {"time", "cfl", DG_CONFIG_DOUBLE, NULL, "0.5", "CFL"},
    {"output", "vtk", DG_CONFIG_BOOL, NULL, "no", "vtk"},
    {"mesh", "file", DG_CONFIG_PATH, NULL, "m.msh", "mesh"},
    {"params", NULL, DG_CONFIG_STRING, NULL, NULL, "parameters"},
};

static int valid_utf8(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  while (*u) {
    int k = *u < 0x80 ? 1 : (*u & 0xE0) == 0xC0 ? 2 : (*u & 0xF0) == 0xE0 ? 3
                          : (*u & 0xF8) == 0xF0 ? 4 : 0;
    if (k == 0)
      return 0;
    for (int i = 1; i < k; i++)
      if ((u[i] & 0xC0) != 0x80)
        return 0;
    u += k;
  }
  return 1;
}

static long case_no, read_ok;
static void fail(const char *what, const char *data, size_t len) {
  failures++;
  if (failures > 10)
    return;
  printf("case %ld: %s\n  message: %s\n  input (%zu bytes): ", case_no, what,
         dg_error_message(), len);
  for (size_t i = 0; i < len && i < 300; i++)
    printf((unsigned char)data[i] >= 0x20 && (unsigned char)data[i] < 0x7F ? "%c" : "\\x%02x",
           (unsigned char)data[i]);
  printf("\n");
}

/* An error from the reader must be an input error with a clean message. */
static void check_error(dg_error e, const char *name, const char *data, size_t len) {
  const char *m = dg_error_message();
  if (e != DG_ERR_INPUT)
    fail("error code is not DG_ERR_INPUT", data, len);
  else if (strncmp(m, name, strlen(name)) != 0 || strlen(m) >= 2047 || !valid_utf8(m))
    fail("bad error message", data, len);
}

static void exercise(dg_config *cfg, const char *data, size_t len) {
  /* Print and read back: same sections, keys and values, in order. */
  char *buf = NULL;
  size_t blen = 0;
  FILE *f = open_memstream(&buf, &blen);
  dg_config_print(cfg, f);
  fclose(f);
  dg_config *again = NULL;
  if (dg_config_read_string(buf, "printed", &again) != DG_OK) {
    fail("printed config does not read back", buf, blen);
  } else {
    for (size_t i = 0; dg_config_section_at(cfg, i); i++) {
      const char *sec = dg_config_section_at(cfg, i);
      if (!dg_config_section_at(again, i) || strcmp(sec, dg_config_section_at(again, i)))
        fail("section differs after print", buf, blen);
      for (size_t k = 0; dg_config_key_at(cfg, sec, k); k++) {
        const char *key = dg_config_key_at(cfg, sec, k), *v1 = NULL, *v2 = NULL;
        dg_config_get_string(cfg, sec, key, NULL, &v1);
        dg_config_get_string(again, sec, key, NULL, &v2);
        if (!v2 || strcmp(v1, v2) != 0)
          fail("value differs after print", buf, blen);
        /* Every getter on every value: OK or an input error. */
        int64_t iv;
        double dv;
        int bv, ev;
        const char *pv;
        dg_error errs[] = {
            dg_config_get_int(cfg, sec, key, 0, &iv),
            dg_config_get_double(cfg, sec, key, 0, &dv),
            dg_config_get_bool(cfg, sec, key, 0, &bv),
            dg_config_get_enum(cfg, sec, key, "a|b|double", 0, &ev),
            dg_config_get_path(cfg, sec, key, NULL, &pv),
        };
        for (size_t j = 0; j < sizeof errs / sizeof *errs; j++)
          if (errs[j] != DG_OK && errs[j] != DG_ERR_INPUT)
            fail("getter gave an unexpected code", data, len);
      }
    }
  }
  free(buf);
  dg_config_destroy(&again);
  /* Random overrides, some well-formed, some not. */
  for (int o = 0; o < 3; o++) {
    char arg[64];
    size_t n = below(sizeof arg);
    for (size_t i = 0; i < n; i++)
      arg[i] = below(3) ? pick() : (char)(1 + below(255));
    arg[n] = '\0';
    if (below(2))
      snprintf(arg, sizeof arg, "%s.%s=%c", below(2) ? "time" : "params", below(2) ? "final" : "x",
               pick());
    dg_error e = dg_config_apply_override(cfg, arg);
    if (e != DG_OK)
      check_error(e, "<command line>", arg, n);
  }
  dg_error e = dg_config_validate(cfg, schema, sizeof schema / sizeof *schema);
  if (e != DG_OK && e != DG_ERR_INPUT)
    fail("validate gave an unexpected code", data, len);
}

static void run_case(const char *data, size_t len) {
  dg_config *cfg = (dg_config *)&case_no; /* poison */
  dg_error_clear();
  dg_error e = dg_config_read_buffer(data, len, "fuzz.cfg", &cfg);
  if (e != DG_OK) {
    check_error(e, "fuzz.cfg", data, len);
    if (cfg != NULL)
      fail("failed read left a config", data, len);
    return;
  }
  if (!cfg) {
    fail("read succeeded without a config", data, len);
    return;
  }
  read_ok++;
  exercise(cfg, data, len);
  dg_config_destroy(&cfg);
}

enum { MAXLEN = 1024 };

/* One mutation of buf[0..*len): flip, insert, delete, duplicate, truncate. */
static void mutate(char *buf, size_t *len) {
  size_t n = *len, at = below(n + 1);
  switch (below(7)) {
  case 0: /* random byte, now and then */
    if (n && below(3) == 0)
      buf[below(n)] = (char)below(256);
    break;
  case 1: /* grammar character */
  case 6:
    if (n)
      buf[below(n)] = pick();
    break;
  case 2: /* insert */
    if (n < MAXLEN) {
      memmove(buf + at + 1, buf + at, n - at);
      buf[at] = pick();
      n++;
    }
    break;
  case 3: /* delete a range */
    if (n) {
      size_t k = below(n - at + 1);
      memmove(buf + at, buf + at + k, n - at - k);
      n -= k;
    }
    break;
  case 4: { /* duplicate a range (e.g. a line: duplicate keys/sections) */
    size_t from = below(n + 1), k = below(n - from + 1);
    if (n + k <= MAXLEN) {
      memmove(buf + at + k, buf + at, n - at);
      memmove(buf + at, buf + (from < at ? from : from + k), k);
      n += k;
    }
    break;
  }
  default: /* truncate */
    n = below(n + 1);
  }
  *len = n;
}

int main(int argc, char **argv) {
  long cases = argc > 1 ? atol(argv[1]) : 20000;
  rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9E3779B97F4A7C15ULL;
  if (rng_state == 0)
    rng_state = 1;
  char buf[MAXLEN + 1];
  for (case_no = 0; case_no < cases; case_no++) {
    size_t len = 0;
    switch (case_no % 4) {
    case 0: /* any bytes */
      len = below(200);
      for (size_t i = 0; i < len; i++)
        buf[i] = (char)below(256);
      break;
    case 1: /* grammar characters and letters */
      len = below(300);
      for (size_t i = 0; i < len; i++)
        buf[i] = below(2) ? pick() : (char)('a' + below(4));
      break;
    default: { /* a valid file, mutated 1..8 times */
      const char *s = seeds[below(NSEEDS)];
      len = strlen(s);
      memcpy(buf, s, len);
      for (size_t m = 1 + below(4); m > 0; m--)
        mutate(buf, &len);
    }
    }
    run_case(buf, len);
    /* The same bytes as a C string (cut at the first NUL). */
    buf[len] = '\0';
    dg_config *cfg = NULL;
    dg_error e = dg_config_read_string(buf, "fuzz.cfg", &cfg);
    if (e != DG_OK)
      check_error(e, "fuzz.cfg", buf, strlen(buf));
    dg_config_destroy(&cfg);
  }
  /* The seeds themselves must read and satisfy the round trip. */
  for (int i = 0; i < NSEEDS; i++) {
    dg_config *cfg = NULL;
    if (dg_config_read_string(seeds[i], "seed.cfg", &cfg) != DG_OK)
      fail("a seed does not read", seeds[i], strlen(seeds[i]));
    dg_config_destroy(&cfg);
  }
  printf("%ld cases, %ld read without error\n", cases, read_ok);
  return expect_finish();
}
