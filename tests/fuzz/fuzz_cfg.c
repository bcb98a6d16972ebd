/* Fuzz target of the .cfg reader (core/config.c): any bytes must either
 * read, or fail with DG_ERR_INPUT, no config left behind and a message that
 * starts with the file name, fits the error buffer and is valid UTF-8;
 * never a crash, a hang, a leak or undefined behaviour.  The same bytes cut
 * at the first NUL go through dg_config_read_string too.  A config that reads must print to text that reads back to the
 * same values, every typed getter on every value must answer OK or an input
 * error, and overrides taken from the input and validation against a schema
 * like dgrun's must do the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const dg_config_key schema[] = {
    {"discretization", "order", DG_CONFIG_INT, NULL, "3", "order"},
    {"discretization", "precision", DG_CONFIG_ENUM, "double|float", "double", "precision"},
    {"time", "final", DG_CONFIG_DOUBLE, NULL, NULL, "final time"},
    {"time", "cfl", DG_CONFIG_DOUBLE, NULL, "0.5", "CFL"},
    {"output", "enabled", DG_CONFIG_BOOL, NULL, "no", "output"},
    {"output", "directory", DG_CONFIG_PATH, NULL, "output", "output directory"},
    {"mesh", "file", DG_CONFIG_PATH, NULL, "m.msh", "mesh"},
    {"params", NULL, DG_CONFIG_STRING, NULL, NULL, "parameters"},
};

static void must(int cond) {
  if (!cond)
    abort();
}

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

/* An error must be an input error whose message names the source, fits
 * the message buffer (2048 bytes with its NUL) and is text. */
static void input_error(dg_error e, const char *name) {
  const char *m = dg_error_message();
  must(e == DG_ERR_INPUT);
  must(strncmp(m, name, strlen(name)) == 0);
  must(strlen(m) < 2047 && valid_utf8(m));
  dg_error_clear();
}

static void exercise(dg_config *cfg, const uint8_t *data, size_t size) {
  char *buf = NULL;
  size_t blen = 0;
  FILE *f = open_memstream(&buf, &blen);
  must(f != NULL);
  dg_config_print(cfg, f);
  fclose(f);
  dg_config *again = NULL;
  must(dg_config_read_string(buf, "printed", &again) == DG_OK);
  for (size_t i = 0; dg_config_section_at(cfg, i); i++) {
    const char *sec = dg_config_section_at(cfg, i);
    must(dg_config_section_at(again, i) && strcmp(sec, dg_config_section_at(again, i)) == 0);
    for (size_t k = 0; dg_config_key_at(cfg, sec, k); k++) {
      const char *key = dg_config_key_at(cfg, sec, k), *v1 = NULL, *v2 = NULL, *pv;
      must(dg_config_get_string(cfg, sec, key, &v1) == DG_OK);
      must(dg_config_get_string(again, sec, key, &v2) == DG_OK);
      must(v1 && v2 && strcmp(v1, v2) == 0);
      int64_t iv;
      double dv;
      int bv, ev;
      dg_error errs[] = {
          dg_config_get_int(cfg, sec, key, &iv),
          dg_config_get_double(cfg, sec, key, &dv),
          dg_config_get_bool(cfg, sec, key, &bv),
          dg_config_get_enum(cfg, sec, key, &ev),
          dg_config_get_path(cfg, sec, key, &pv),
      };
      /* (an enum without a schema has no choices: the reader's bug, 3) */
      for (size_t j = 0; j < sizeof errs / sizeof *errs; j++)
        must(errs[j] == DG_OK || errs[j] == DG_ERR_INPUT ||
             (j == 3 && errs[j] == DG_ERR_INTERNAL));
      dg_error_clear();
    }
  }
  free(buf);
  dg_config_destroy(&again);
  /* The last line of the input as a command-line override. */
  size_t start = size;
  while (start > 0 && data[start - 1] != '\n')
    start--;
  char arg[256];
  size_t n = size - start < sizeof arg - 1 ? size - start : sizeof arg - 1;
  memcpy(arg, data + start, n);
  arg[n] = '\0';
  dg_error e = dg_config_apply_override(cfg, arg);
  if (e != DG_OK)
    input_error(e, "<command line>");
  e = dg_config_validate(cfg, schema, sizeof schema / sizeof *schema);
  must(e == DG_OK || e == DG_ERR_INPUT);
  dg_error_clear();
}

static void read_as_string(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  must(text != NULL);
  memcpy(text, data, size);
  text[size] = '\0';
  dg_config *cfg = NULL;
  dg_error e = dg_config_read_string(text, "fuzz.cfg", &cfg);
  if (e != DG_OK)
    input_error(e, "fuzz.cfg");
  dg_config_destroy(&cfg);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  read_as_string(data, size);
  dg_config *cfg = (dg_config *)&cfg; /* poison: a failed read must set NULL */
  dg_error e = dg_config_read_buffer((const char *)data, size, "fuzz.cfg", &cfg);
  if (e != DG_OK) {
    must(cfg == NULL);
    input_error(e, "fuzz.cfg");
    return 0;
  }
  must(cfg != NULL);
  exercise(cfg, data, size);
  dg_config_destroy(&cfg);
  return 0;
}
