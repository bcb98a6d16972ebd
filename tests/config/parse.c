/* core.config_parse_*: what a well-formed file and command line mean.
 * Expected values are written by hand from the text of each input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "expect.h"

/* Comments, quotes, whitespace, CRLF, BOM, empty values, file order. */
static void test_syntax(void) {
  const char *text =
      "\xEF\xBB\xBF; leading comment\n"
      "# another\n"
      "\n"
      "  [ discretization ]   ; trailing comment\n"
      "order=4\n"
      "\t precision \t=\t single \t# comment after value\n"
      "title = \"a ; b # c\"   ; comment after quotes\n"
      "esc = \"say \\\"hi\\\" \\\\ C:\\dir\"\n"
      "spaces = \"  padded  \"\n"
      "empty =\n"
      "empty_quoted = \"\"\r\n"
      "inner = x \"y\" z\n"
      "[time.stepper-2]\r\n"
      "final_time = 1e-3\n"
      "utf8 = héllo wörld\n";
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_string(text, "t.cfg", &cfg));
  if (!cfg)
    return;
  static const struct {
    const char *section, *key, *want;
  } values[] = {
      {"discretization", "order", "4"},
      {"discretization", "precision", "single"},
      {"discretization", "title", "a ; b # c"},
      {"discretization", "esc", "say \"hi\" \\ C:\\dir"},
      {"discretization", "spaces", "  padded  "},
      {"discretization", "empty", ""},
      {"discretization", "empty_quoted", ""},
      {"discretization", "inner", "x \"y\" z"},
      {"time.stepper-2", "utf8", "héllo wörld"},
  };
  const char *s;
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    s = NULL;
    EXPECT_OK(dg_config_get_string(cfg, values[i].section, values[i].key, &s));
    EXPECT_STR(s, values[i].want);
  }
  double d = 0;
  EXPECT_OK(dg_config_get_double(cfg, "time.stepper-2", "final_time", &d));
  EXPECT(d == 1e-3);
  int64_t n = 0;
  EXPECT_OK(dg_config_get_int(cfg, "discretization", "order", &n));
  EXPECT(n == 4);
  /* Names are case-sensitive; an absent key has no value without a schema
   * giving its default (the reader's bug, not the user's). */
  EXPECT_ERROR(dg_config_get_int(cfg, "discretization", "Order", &n), DG_ERR_INTERNAL,
               "[discretization] Order is read while absent, and no config schema gives its "
               "default");
  EXPECT_ERROR(dg_config_get_string(cfg, "nosuch", "order", &s), DG_ERR_INTERNAL,
               "[nosuch] order is read while absent, and no config schema gives its default");
  EXPECT(dg_config_has(cfg, "discretization", "order"));
  EXPECT(!dg_config_has(cfg, "discretization", "ORDER"));
  EXPECT(!dg_config_has(cfg, "time", "final_time"));
  /* Iteration in file order. */
  EXPECT_STR(dg_config_section_at(cfg, 0), "discretization");
  EXPECT_STR(dg_config_section_at(cfg, 1), "time.stepper-2");
  EXPECT(dg_config_section_at(cfg, 2) == NULL);
  const char *keys[] = {"order", "precision", "title", "esc", "spaces",
                        "empty", "empty_quoted", "inner"};
  size_t i = 0;
  for (const char *k; (k = dg_config_key_at(cfg, "discretization", i)); i++)
    EXPECT_STR(k, i < 8 ? keys[i] : "(too many keys)");
  EXPECT(i == 8);
  EXPECT(dg_config_key_at(cfg, "nosuch", 0) == NULL);
  EXPECT_STR(dg_config_name(cfg), "t.cfg");
  dg_config_destroy(&cfg);
  EXPECT(cfg == NULL);
  dg_config_destroy(&cfg); /* harmless twice */

  /* An empty text and a text of comments are empty configs. */
  EXPECT_OK(dg_config_read_string("", "e.cfg", &cfg));
  EXPECT(cfg && dg_config_section_at(cfg, 0) == NULL);
  dg_config_destroy(&cfg);
  EXPECT_OK(dg_config_read_string("; x\n#y\n   \n\t", "e.cfg", &cfg));
  EXPECT(cfg && dg_config_section_at(cfg, 0) == NULL);
  dg_config_destroy(&cfg);
  /* A last line without a newline still counts. */
  EXPECT_OK(dg_config_read_string("[a]\nk = v", "e.cfg", &cfg));
  EXPECT_OK(dg_config_get_string(cfg, "a", "k", &s));
  EXPECT_STR(s, "v");
  dg_config_destroy(&cfg);
}

/* Typed getters on the values each type accepts, at their limits. */
static void test_types(void) {
  const char *text = "[v]\n"
                     "imax = 9223372036854775807\n"
                     "imin = -9223372036854775808\n"
                     "iplus = +42\n"
                     "izero = -0\n"
                     "dexp = -2.5E+3\n"
                     "dint = 7\n"
                     "dtiny = 4.9e-324\n"
                     "dhex = 0x1p-2\n"
                     "b1 = TRUE\nb2 = no\nb3 = On\nb4 = 0\nb5 = yes\nb6 = 1\nb7 = off\nb8 = false\n"
                     "e1 = cpu\n";
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_string(text, "t.cfg", &cfg));
  if (!cfg)
    return;
  int64_t i = 1;
  EXPECT_OK(dg_config_get_int(cfg, "v", "imax", &i));
  EXPECT(i == INT64_MAX);
  EXPECT_OK(dg_config_get_int(cfg, "v", "imin", &i));
  EXPECT(i == INT64_MIN);
  EXPECT_OK(dg_config_get_int(cfg, "v", "iplus", &i));
  EXPECT(i == 42);
  EXPECT_OK(dg_config_get_int(cfg, "v", "izero", &i));
  EXPECT(i == 0);
  double d = 0;
  EXPECT_OK(dg_config_get_double(cfg, "v", "dexp", &d));
  EXPECT(d == -2500.0);
  EXPECT_OK(dg_config_get_double(cfg, "v", "dint", &d));
  EXPECT(d == 7.0);
  EXPECT_OK(dg_config_get_double(cfg, "v", "dtiny", &d));
  EXPECT(d > 0 && d < 1e-323); /* the smallest subnormal is accepted */
  EXPECT_OK(dg_config_get_double(cfg, "v", "dhex", &d));
  EXPECT(d == 0.25);
  const char *bkeys[] = {"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"};
  const int bwant[] = {1, 0, 1, 0, 1, 1, 0, 0};
  for (int k = 0; k < 8; k++) {
    int b = -1;
    EXPECT_OK(dg_config_get_bool(cfg, "v", bkeys[k], &b));
    if (b != bwant[k]) {
      printf("bool %s = %d, want %d\n", bkeys[k], b, bwant[k]);
      failures++;
    }
  }
  /* An enum's choices and an absent key's default come from the schema. */
  int e = -1;
  EXPECT_ERROR(dg_config_get_enum(cfg, "v", "e1", &e), DG_ERR_INTERNAL,
               "[v] e1 is read as a choice, and no config schema gives its choices");
  static const dg_config_key schema[] = {
      {"v", NULL, DG_CONFIG_STRING, NULL, NULL, "open"},
      {"v", "e1", DG_CONFIG_ENUM, "auto|cuda|cpu", "auto", "e"},
      {"v", "e_absent", DG_CONFIG_ENUM, "auto|cuda|cpu", "cuda", "e"},
      {"v", "b_absent", DG_CONFIG_BOOL, NULL, "true", "b"},
      {"v", "d_absent", DG_CONFIG_DOUBLE, NULL, "0.125", "d"},
  };
  EXPECT_OK(dg_config_validate(cfg, schema, sizeof schema / sizeof *schema));
  EXPECT_OK(dg_config_get_enum(cfg, "v", "e1", &e));
  EXPECT(e == 2);
  EXPECT_OK(dg_config_get_enum(cfg, "v", "e_absent", &e));
  EXPECT(e == 1);
  int b = -1;
  EXPECT_OK(dg_config_get_bool(cfg, "v", "b_absent", &b));
  EXPECT(b == 1);
  EXPECT_OK(dg_config_get_double(cfg, "v", "d_absent", &d));
  EXPECT(d == 0.125);
  /* A key the schema does not declare, outside an open section, is the
   * reader's bug. */
  static const dg_config_key closed[] = {{"v", "e1", DG_CONFIG_ENUM, "auto|cuda|cpu", "auto",
                                          "e"}};
  dg_config *one = NULL;
  EXPECT_OK(dg_config_read_string("[v]\ne1 = cuda\n", "t.cfg", &one));
  if (one) {
    EXPECT_OK(dg_config_validate(one, closed, 1));
    EXPECT_ERROR(dg_config_get_int(one, "v", "imax", &i), DG_ERR_INTERNAL,
                 "[v] imax is read but not declared in the config schema");
    dg_config_destroy(&one);
  }
  dg_config_destroy(&cfg);
}

/* Command-line overrides win over the file, later ones over earlier ones. */
static void test_override(void) {
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_string("[discretization]\norder = 3\n[bc.left]\nkind = wall\n",
                                  "t.cfg", &cfg));
  if (!cfg)
    return;
  EXPECT_OK(dg_config_apply_override(cfg, "discretization.order=5"));
  int64_t n = 0;
  EXPECT_OK(dg_config_get_int(cfg, "discretization", "order", &n));
  EXPECT(n == 5);
  EXPECT_OK(dg_config_apply_override(cfg, "  discretization.order =  6  "));
  EXPECT_OK(dg_config_get_int(cfg, "discretization", "order", &n));
  EXPECT(n == 6);
  /* A new section and key; quoted values keep their spaces and '='. */
  EXPECT_OK(dg_config_apply_override(cfg, "output.title=\" a=b ; c \""));
  const char *s;
  EXPECT_OK(dg_config_get_string(cfg, "output", "title", &s));
  EXPECT_STR(s, " a=b ; c ");
  /* Dotted section names: the existing [bc.left] is the section ... */
  EXPECT_OK(dg_config_apply_override(cfg, "bc.left.kind=inflow"));
  EXPECT_OK(dg_config_get_string(cfg, "bc.left", "kind", &s));
  EXPECT_STR(s, "inflow");
  EXPECT(!dg_config_has(cfg, "bc", "left.kind"));
  /* ... else the text before the last '.' is. */
  EXPECT_OK(dg_config_apply_override(cfg, "x.y.z=1"));
  EXPECT(dg_config_has(cfg, "x.y", "z"));
  /* An empty value is a value. */
  EXPECT_OK(dg_config_apply_override(cfg, "output.prefix="));
  EXPECT_OK(dg_config_get_string(cfg, "output", "prefix", &s));
  EXPECT_STR(s, "");
  /* The override keeps the key's place in the iteration order. */
  EXPECT_STR(dg_config_key_at(cfg, "discretization", 0), "order");
  EXPECT(dg_config_key_at(cfg, "discretization", 1) == NULL);
  dg_config_destroy(&cfg);
}

/* dg_config_print writes text that reads back to the same sections, keys
 * and values (in order), whatever characters the values hold. */
static void test_print(void) {
  const char *text = "[a]\n"
                     "plain = 1.5\n"
                     "semi = \"x;y\"\n"
                     "hash = \"#z\"\n"
                     "quote = \"\\\"q\\\" and \\\\\"\n"
                     "lead = \"  lead\"\n"
                     "back = C:\\tmp\\x\n"
                     "empty =\n"
                     "[b-2.c]\n"
                     "u = ünï\n";
  dg_config *cfg = NULL, *again = NULL;
  EXPECT_OK(dg_config_read_string(text, "t.cfg", &cfg));
  if (!cfg)
    return;
  EXPECT_OK(dg_config_apply_override(cfg, "a.cl=\"tab\there\""));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  dg_config_print(cfg, f);
  fclose(f);
  EXPECT_OK(dg_config_read_string(buf, "printed.cfg", &again));
  if (again) {
    size_t nsec = 0;
    for (const char *sec; (sec = dg_config_section_at(cfg, nsec)); nsec++) {
      EXPECT_STR(dg_config_section_at(again, nsec), sec);
      size_t k = 0;
      for (const char *key; (key = dg_config_key_at(cfg, sec, k)); k++) {
        const char *v1, *v2;
        EXPECT_STR(dg_config_key_at(again, sec, k), key);
        EXPECT_OK(dg_config_get_string(cfg, sec, key, &v1));
        EXPECT_OK(dg_config_get_string(again, sec, key, &v2));
        EXPECT_STR(v2, v1);
      }
      EXPECT(dg_config_key_at(again, sec, k) == NULL);
    }
    EXPECT(nsec == 2 && dg_config_section_at(again, 2) == NULL);
  }
  /* Where each value came from is noted. */
  EXPECT(strstr(buf, "plain = 1.5  ; t.cfg:2\n") != NULL);
  EXPECT(strstr(buf, "cl = tab\there  ; command line\n") != NULL);
  free(buf);
  dg_config_destroy(&cfg);
  dg_config_destroy(&again);
}

/* dg_config_write_text: what the file and the overrides set, defaults left
 * out, pins in place of (or added to) the values; the exact text is written
 * by hand from the input.  dg_config_where names each value's origin. */
static void test_canonical(void) {
  const char *text = "; comment\n"
                     "[a]\n"
                     "x = 1   ; trailing\n"
                     "path = rel/dir\n"
                     "[b]\n"
                     "s = \"semi;colon\"\n";
  static const dg_config_key schema[] = {
      {"a", "x", DG_CONFIG_INT, NULL, "0", "x"},
      {"a", "path", DG_CONFIG_PATH, NULL, "p", "path"},
      {"a", "d", DG_CONFIG_DOUBLE, NULL, "2.5", "a default"},
      {"b", "s", DG_CONFIG_STRING, NULL, "", "s"},
      {"b", "n", DG_CONFIG_STRING, NULL, "", "a derived value"},
      {"c", "k", DG_CONFIG_INT, NULL, "3", "a section of pins only"},
  };
  dg_config *cfg = NULL, *again = NULL;
  EXPECT_OK(dg_config_read_string(text, "dir/t.cfg", &cfg));
  if (!cfg)
    return;
  EXPECT_OK(dg_config_apply_override(cfg, "a.x=7"));
  EXPECT_OK(dg_config_validate(cfg, schema, sizeof schema / sizeof *schema));
  char loc[128];
  EXPECT_STR(dg_config_where(cfg, "a", "path", loc, sizeof loc), "dir/t.cfg:4:8");
  EXPECT_STR(dg_config_where(cfg, "a", "x", loc, sizeof loc), "<command line>");
  EXPECT_STR(dg_config_where(cfg, "a", "d", loc, sizeof loc), "dir/t.cfg");
  dg_config_pin pins[] = {{"a", "path", "/abs/dir/rel/dir"}, {"b", "n", "derived"},
                          {"c", "k", "4"}};
  char *out = NULL;
  EXPECT_OK(dg_config_write_text(cfg, pins, 3, &out));
  EXPECT_STR(out, "[a]\n"
                  "x = 7\n"
                  "path = /abs/dir/rel/dir\n"
                  "\n"
                  "[b]\n"
                  "s = \"semi;colon\"\n"
                  "n = derived\n"
                  "\n"
                  "[c]\n"
                  "k = 4\n");
  if (out) {
    EXPECT_OK(dg_config_read_string(out, "again.cfg", &again));
    const char *s = NULL;
    if (again)
      EXPECT_OK(dg_config_get_string(again, "b", "s", &s));
    EXPECT_STR(s, "semi;colon");
  }
  free(out);
  dg_config_destroy(&cfg);
  dg_config_destroy(&again);
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  if (strcmp(which, "syntax") == 0)
    test_syntax();
  else if (strcmp(which, "types") == 0)
    test_types();
  else if (strcmp(which, "override") == 0)
    test_override();
  else if (strcmp(which, "print") == 0)
    test_print();
  else if (strcmp(which, "canonical") == 0)
    test_canonical();
  else {
    printf("unknown case '%s'\n", which);
    return 2;
  }
  return expect_finish();
}
