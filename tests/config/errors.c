/* core.config_errors_*: every kind of mistake in a cfg or on the command
 * line gives an error with the right code, the exact message, and the
 * file:line:col counted by hand from the input text (columns in
 * characters, from 1). */
#include <stdint.h>
#include <stdlib.h>

#include "expect.h"

static void test_syntax(void) {
  EXPECT_PARSE_ERROR("[a]\nx = 1\nthis is garbage ; comment\n",
                     "t.cfg:3:1: error: expected 'key = value' or '[section]', found "
                     "'this is garbage'");
  EXPECT_PARSE_ERROR("\norder = 3\n[a]\n", "t.cfg:2:1: error: key 'order' before any [section]");
  EXPECT_PARSE_ERROR("[a]\nx = 1\n  x = 2\n",
                     "t.cfg:3:3: error: duplicate key 'x' in [a] (first set at line 2)");
  EXPECT_PARSE_ERROR("[a]\n[b]\n[ a ]\n",
                     "t.cfg:3:3: error: duplicate section [a] (first at line 1)");
  EXPECT_PARSE_ERROR("[a]\nke$y = 1\n",
                     "t.cfg:2:3: error: invalid character '$' in key 'ke$y' (names use "
                     "letters, digits, '_', '-', '.')");
  /* A non-ASCII letter is not an identifier character; columns count it
   * as one character. */
  EXPECT_PARSE_ERROR("[a]\nüx = 1\n",
                     "t.cfg:2:1: error: invalid character 'ü' in key 'üx' (names use "
                     "letters, digits, '_', '-', '.')");
  EXPECT_PARSE_ERROR("[a b]\n",
                     "t.cfg:1:3: error: invalid character ' ' in section name 'a b' (names "
                     "use letters, digits, '_', '-', '.')");
  EXPECT_PARSE_ERROR("[a]\n\n[abc\n", "t.cfg:3:1: error: missing ']' to close the section name");
  EXPECT_PARSE_ERROR("[  ]\n", "t.cfg:1:4: error: empty section name");
  EXPECT_PARSE_ERROR("[a] x\n", "t.cfg:1:5: error: unexpected text 'x' after ']'");
  EXPECT_PARSE_ERROR("[a]\nt = \"abc ; x\n",
                     "t.cfg:2:5: error: missing closing '\"' of the value of 't'");
  EXPECT_PARSE_ERROR("[a]\nt = \"ab\" c\n",
                     "t.cfg:2:10: error: unexpected text 'c' after the closing '\"'");
  EXPECT_PARSE_ERROR("[a]\n  = 3\n", "t.cfg:2:3: error: missing key name before '='");
  /* '=' inside a comment does not make a key line. */
  EXPECT_PARSE_ERROR("[a]\nx ; = 3\n",
                     "t.cfg:2:1: error: expected 'key = value' or '[section]', found 'x'");
  /* Long text is cut in messages. */
  EXPECT_PARSE_ERROR("[a]\n0123456789012345678901234567890123456789TAIL\n",
                     "t.cfg:2:1: error: expected 'key = value' or '[section]', found "
                     "'0123456789012345678901234567890123456789...'");
  /* Every problem of a file in one message, one per line; a bad [section]
   * line does not make its keys "before any section". */
  EXPECT_PARSE_ERROR("[a]\nfoo\n[b c]\nk = 1\n[d]\nk = 1\nk = 2\n",
                     "t.cfg:2:1: error: expected 'key = value' or '[section]', found 'foo'\n"
                     "t.cfg:3:3: error: invalid character ' ' in section name 'b c' (names "
                     "use letters, digits, '_', '-', '.')\n"
                     "t.cfg:7:1: error: duplicate key 'k' in [d] (first set at line 6)");
  /* Past 12 problems the rest are counted. */
  char many[256] = "[a]\n";
  for (int i = 0; i < 15; i++)
    strcat(many, "x\n");
  char want[2048] = "";
  for (int i = 0; i < 12; i++) {
    char line[128];
    snprintf(line, sizeof line, "%st.cfg:%d:1: error: expected 'key = value' or '[section]', found 'x'",
             i ? "\n" : "", i + 2);
    strcat(want, line);
  }
  strcat(want, "\n... and 3 more errors");
  EXPECT_PARSE_ERROR(many, want);
}

/* Bytes that are not UTF-8 text: an error, never a crash. */
static void test_encoding(void) {
  dg_config *cfg = NULL;
  static const char nul[] = "[a]\nx = 1\0\n";
  EXPECT_ERROR(dg_config_read_buffer(nul, sizeof nul - 1, "t.cfg", &cfg), DG_ERR_INPUT,
               "t.cfg:2:6: error: NUL byte (not a text file?)");
  EXPECT(cfg == NULL);
  /* 'é' is two bytes but one column. */
  EXPECT_PARSE_ERROR("[a]\nx = é\xff\n",
                     "t.cfg:2:6: error: invalid UTF-8 byte 0xff (save the file as UTF-8)");
  EXPECT_PARSE_ERROR("[a]\nx = \xC0\xAF\n", /* overlong '/' */
                     "t.cfg:2:5: error: invalid UTF-8 byte 0xc0 (save the file as UTF-8)");
  EXPECT_PARSE_ERROR("[a]\nx = \xED\xA0\x80\n", /* a UTF-16 surrogate */
                     "t.cfg:2:5: error: invalid UTF-8 byte 0xed (save the file as UTF-8)");
  EXPECT_PARSE_ERROR("[a]\nx = ab\xE2\x82", /* truncated at the end */
                     "t.cfg:2:7: error: invalid UTF-8 byte 0xe2 (save the file as UTF-8)");
  EXPECT_PARSE_ERROR("[a]\nx = \x01\n", "t.cfg:2:5: error: control character 0x01");
  EXPECT_PARSE_ERROR("[a]\r\nx = 1\ry = 2\n", "t.cfg:2:6: error: control character 0x0d");
}

static const dg_config_key schema[] = {
    {"discretization", "order", DG_CONFIG_INT, NULL, "3", "polynomial order N"},
    {"discretization", "precision", DG_CONFIG_ENUM, "double|single", "double",
     "floating point type on the device"},
    {"time", "final", DG_CONFIG_DOUBLE, NULL, NULL, "final time"},
    {"time", "cfl", DG_CONFIG_DOUBLE, NULL, "0.5", "CFL number"},
    {"time", "scheme", DG_CONFIG_ENUM, "lsrk4|ssprk3", "lsrk4", "time stepper"},
    {"output", "vtk", DG_CONFIG_BOOL, NULL, "false", "write VTK files"},
    {"mesh", "file", DG_CONFIG_PATH, NULL, NULL, "mesh file"},
    {"mesh", "boxes", DG_CONFIG_INT, NULL, NULL, "number of boxes"},
    {"params", NULL, DG_CONFIG_STRING, NULL, NULL, "flux-file parameter overrides"},
};
static const size_t nschema = sizeof schema / sizeof *schema;

/* Parse text (must succeed), apply the overrides, validate: must fail with
 * exactly want. */
static void expect_invalid(int line, const char *text, const char *override,
                           const char *want) {
  dg_config *cfg = NULL;
  if (dg_config_read_string(text, "problem.cfg", &cfg) != DG_OK) {
    printf("errors.c:%d: parse failed: %s\n", line, dg_error_message());
    failures++;
    return;
  }
  if (override && dg_config_apply_override(cfg, override) != DG_OK) {
    printf("errors.c:%d: override failed: %s\n", line, dg_error_message());
    failures++;
  }
  dg_error_clear();
  dg_error e = dg_config_validate(cfg, schema, nschema);
  if (e != DG_ERR_INPUT || strcmp(dg_error_message(), want) != 0) {
    printf("errors.c:%d: validate gave %d '%s'\n  want '%s'\n", line, (int)e,
           dg_error_message(), want);
    failures++;
  }
  dg_config_destroy(&cfg);
}
#define EXPECT_INVALID(text, override, want) expect_invalid(__LINE__, text, override, want)

#define GOOD_REST "[time]\nfinal = 1\n[mesh]\nfile = m.msh\nboxes = 2\n"

static void test_schema(void) {
  EXPECT_INVALID("[discretization]\n  ordr = 4\n" GOOD_REST, NULL,
                 "problem.cfg:2:3: error: unknown key 'ordr' in [discretization]; did you "
                 "mean 'order'?");
  EXPECT_INVALID("[discretization]\nbanana = 4\n" GOOD_REST, NULL,
                 "problem.cfg:2:1: error: unknown key 'banana' in [discretization]");
  EXPECT_INVALID(GOOD_REST "[output]\norder = 4\n", NULL,
                 "problem.cfg:7:1: error: unknown key 'order' in [output]; 'order' belongs "
                 "in [discretization]");
  EXPECT_INVALID(GOOD_REST "[ouptut]\nvtk = 1\n", NULL,
                 "problem.cfg:6:2: error: unknown section [ouptut]; did you mean [output]?");
  EXPECT_INVALID(GOOD_REST "[zzz]\n", NULL, "problem.cfg:6:2: error: unknown section [zzz]");
  /* The value's column: 'final = abc' has 'abc' at column 9. */
  EXPECT_INVALID("[discretization]\norder = 2\n[mesh]\nfile = m\nboxes = 1\n[time]\nfinal = abc\n",
                 NULL, "problem.cfg:7:9: error: [time] final: 'abc' is not a number");
  EXPECT_INVALID(GOOD_REST "[discretization]\norder = 2.5\n", NULL,
                 "problem.cfg:7:9: error: [discretization] order: '2.5' is not an integer");
  EXPECT_INVALID(GOOD_REST "[discretization]\norder = 9223372036854775808\n", NULL,
                 "problem.cfg:7:9: error: [discretization] order: '9223372036854775808' is "
                 "out of range for a 64-bit integer");
  EXPECT_INVALID(GOOD_REST "[output]\nvtk = maybe\n", NULL,
                 "problem.cfg:7:7: error: [output] vtk: 'maybe' is not a boolean (use "
                 "true/false, yes/no, on/off or 1/0)");
  EXPECT_INVALID("[time]\nfinal = 1\nscheme = rk4\n[mesh]\nfile = m.msh\nboxes = 2\n", NULL,
                 "problem.cfg:3:10: error: [time] scheme: 'rk4' is not one of: lsrk4, ssprk3");
  EXPECT_INVALID("[time]\nfinal = 1\nscheme = \"ssprk\"\n[mesh]\nfile = m.msh\nboxes = 2\n",
                 NULL,
                 "problem.cfg:3:10: error: [time] scheme: 'ssprk' is not one of: lsrk4, ssprk3 "
                 "(did you mean 'ssprk3'?)");
  EXPECT_INVALID("[time]\nfinal = 1e999\n[mesh]\nfile = m.msh\nboxes = 2\n", NULL,
                 "problem.cfg:2:9: error: [time] final: '1e999' is not a finite number");
  EXPECT_INVALID("[time]\nfinal = nan\n[mesh]\nfile = m.msh\nboxes = 2\n", NULL,
                 "problem.cfg:2:9: error: [time] final: 'nan' is not a finite number");
  EXPECT_INVALID("[time]\nfinal = \" 1\"\n[mesh]\nfile = m.msh\nboxes = 2\n", NULL,
                 "problem.cfg:2:9: error: [time] final: ' 1' is not a number");
  EXPECT_INVALID("[time]\nfinal = 1\n[mesh]\nfile =\nboxes = 2\n", NULL,
                 "problem.cfg:4:7: error: [mesh] file: '' is empty (a path is needed)");
  /* Missing required keys name the section (at its header); a missing
   * section lists what it must hold. */
  EXPECT_INVALID("[time]\ncfl = 0.4\n[mesh]\n file = m.msh\n boxes = 2\n", NULL,
                 "problem.cfg:1:2: error: [time] missing required key 'final' (double: final "
                 "time)");
  EXPECT_INVALID("[time]\nfinal = 1\n", NULL,
                 "problem.cfg: error: missing section [mesh] (required keys 'file', 'boxes')");
  EXPECT_INVALID("[time]\nfinal = 1\n[mesh]\nboxes = 2\n", NULL,
                 "problem.cfg:3:2: error: [mesh] missing required key 'file' (path: mesh file)");
  /* Overrides are checked like file lines, located on the command line. */
  EXPECT_INVALID(GOOD_REST, "discretization.ordr=5",
                 "<command line>: error: unknown key 'ordr' in [discretization]; did you mean "
                 "'order'?");
  EXPECT_INVALID(GOOD_REST, "time.final=soon",
                 "<command line>: error: [time] final: 'soon' is not a number");
  /* All problems in one go, in file order, then the missing ones. */
  EXPECT_INVALID("[discretization]\nordr = 4\nprecision = quad\n[tim]\nfinal = 1\n[mesh]\nfile = m\n",
                 NULL,
                 "problem.cfg:2:1: error: unknown key 'ordr' in [discretization]; did you mean "
                 "'order'?\n"
                 "problem.cfg:3:13: error: [discretization] precision: 'quad' is not one of: "
                 "double, single\n"
                 "problem.cfg:4:2: error: unknown section [tim]; did you mean [time]?\n"
                 "problem.cfg: error: missing section [time] (required key 'final')\n"
                 "problem.cfg:6:2: error: [mesh] missing required key 'boxes' (int: number of "
                 "boxes)");
}

/* A valid config: open sections take any key, defaults are filled in. */
static void test_schema_ok(void) {
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_string("[params]\ngamma = 1.4\nany-thing.x = y\n" GOOD_REST
                                  "[discretization]\nprecision = single\n",
                                  "problem.cfg", &cfg));
  if (!cfg)
    return;
  EXPECT_OK(dg_config_validate(cfg, schema, nschema));
  int64_t order = 0;
  /* An absent key reads the schema's default. */
  EXPECT_OK(dg_config_get_int(cfg, "discretization", "order", &order));
  EXPECT(order == 3);
  EXPECT(!dg_config_has(cfg, "discretization", "order"));
  EXPECT(dg_config_has(cfg, "discretization", "precision"));
  int vtk = -1;
  EXPECT_OK(dg_config_get_bool(cfg, "output", "vtk", &vtk));
  EXPECT(vtk == 0);
  int prec = -1;
  EXPECT_OK(dg_config_get_enum(cfg, "discretization", "precision", &prec));
  EXPECT(prec == 1);
  EXPECT_STR(dg_config_key_at(cfg, "params", 1), "any-thing.x");
  /* Validating again (defaults now present) is still fine. */
  EXPECT_OK(dg_config_validate(cfg, schema, nschema));
  dg_config_destroy(&cfg);

  /* A schema whose default is not of its type is a framework bug. */
  static const dg_config_key bad[] = {{"s", "k", DG_CONFIG_INT, NULL, "three", "k"}};
  EXPECT_OK(dg_config_read_string("[s]\n", "problem.cfg", &cfg));
  EXPECT_ERROR(dg_config_validate(cfg, bad, 1), DG_ERR_INTERNAL,
               "config schema: default of [s] k: 'three' is not an integer");
  dg_config_destroy(&cfg);
}

/* Getters report bad values where they were written. */
static void test_getters(void) {
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_string("[time]\n\n\n\n\n\nfinal = abc\n"
                                  "n = -9223372036854775809\n"
                                  "i = 12abc\n"
                                  "b = 2\n"
                                  "e = \"CPU\"\n"
                                  "p = \"\"\n",
                                  "problem.cfg", &cfg));
  if (!cfg)
    return;
  /* e's choices are the schema's; the getters report as validation does */
  static const dg_config_key tschema[] = {
      {"time", NULL, DG_CONFIG_STRING, NULL, NULL, "open"},
      {"time", "e", DG_CONFIG_ENUM, "auto|cuda|cpu", "auto", "e"},
  };
  EXPECT(dg_config_validate(cfg, tschema, 2) == DG_ERR_INPUT);
  double d = 1;
  EXPECT_ERROR(dg_config_get_double(cfg, "time", "final", &d), DG_ERR_INPUT,
               "problem.cfg:7:9: error: [time] final: 'abc' is not a number");
  int64_t n = 0;
  EXPECT_ERROR(dg_config_get_int(cfg, "time", "n", &n), DG_ERR_INPUT,
               "problem.cfg:8:5: error: [time] n: '-9223372036854775809' is out of range for "
               "a 64-bit integer");
  EXPECT_ERROR(dg_config_get_int(cfg, "time", "i", &n), DG_ERR_INPUT,
               "problem.cfg:9:5: error: [time] i: '12abc' is not an integer");
  int b = 0;
  EXPECT_ERROR(dg_config_get_bool(cfg, "time", "b", &b), DG_ERR_INPUT,
               "problem.cfg:10:5: error: [time] b: '2' is not a boolean (use true/false, "
               "yes/no, on/off or 1/0)");
  int e = 0;
  EXPECT_ERROR(dg_config_get_enum(cfg, "time", "e", &e), DG_ERR_INPUT,
               "problem.cfg:11:5: error: [time] e: 'CPU' is not one of: auto, cuda, cpu (did "
               "you mean 'cpu'?)");
  const char *p = NULL;
  EXPECT_ERROR(dg_config_get_path(cfg, "time", "p", &p), DG_ERR_INPUT,
               "problem.cfg:12:5: error: [time] p: '' is empty (a path is needed)");
  EXPECT_OK(dg_config_apply_override(cfg, "time.final=later"));
  EXPECT_ERROR(dg_config_get_double(cfg, "time", "final", &d), DG_ERR_INPUT,
               "<command line>: error: [time] final: 'later' is not a number");
  dg_config_destroy(&cfg);
}

static void test_override(void) {
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_string("[a]\nk = 1\n", "t.cfg", &cfg));
  if (!cfg)
    return;
#define FORM " is not of the form section.key=value (e.g. discretization.order=5)"
  static const struct {
    const char *arg, *want;
  } bad[] = {
      {"order=5", "override 'order=5'" FORM},
      {"a.k", "override 'a.k'" FORM},
      {".k=1", "override '.k=1'" FORM},
      {"a.=1", "override 'a.=1'" FORM},
      {"=1", "override '=1'" FORM},
      {"a b.k=1", "override 'a b.k=1': invalid character ' ' in 'section.key' (names use "
                  "letters, digits, '_', '-', '.')"},
      {"a.k=\"open", "override 'a.k=\"open': the value's quotes are not closed at its end"},
      {"a.k=\"x\" y", "override 'a.k=\"x\" y': the value's quotes are not closed at its end"},
      {"a.k=x\ny", "override 'a.k=x?y': line break at byte 6"},
      {"a.k=\xff", "override 'a.k=?': invalid UTF-8 byte 0xff (save the file as UTF-8) at "
                   "byte 5"},
  };
#undef FORM
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char want[512];
    snprintf(want, sizeof want, "<command line>: error: %s", bad[i].want);
    EXPECT_ERROR(dg_config_apply_override(cfg, bad[i].arg), DG_ERR_INPUT, want);
  }
  /* Nothing of the failed overrides was applied. */
  const char *v;
  EXPECT_OK(dg_config_get_string(cfg, "a", "k", &v));
  EXPECT_STR(v, "1");
  EXPECT(dg_config_section_at(cfg, 1) == NULL);
  dg_config_destroy(&cfg);
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  if (strcmp(which, "syntax") == 0)
    test_syntax();
  else if (strcmp(which, "encoding") == 0)
    test_encoding();
  else if (strcmp(which, "schema") == 0)
    test_schema();
  else if (strcmp(which, "schema_ok") == 0)
    test_schema_ok();
  else if (strcmp(which, "getters") == 0)
    test_getters();
  else if (strcmp(which, "override") == 0)
    test_override();
  else {
    printf("unknown case '%s'\n", which);
    return 2;
  }
  return expect_finish();
}
