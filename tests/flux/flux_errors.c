/* operators.flux_errors: the error catalogue.  Each case is a valid
 * program with one mistake (or a small text); the diagnostics it gets are
 * asserted one by one: line, column and the exact message.  Also: the
 * report format (source line and caret), several errors in one go, the
 * error limit, and that hostile text is only ever a syntax error. */
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "tests/flux/flux_test.h"

static int failures;

/* Maxwell 3D, every line correct.  Cases replace one line (1-based). */
static const char *const maxwell[] = {
    "dim 3",                                  /* 1 */
    "fields E[3] H[3]",                       /* 2 */
    "params eps = 1, mu = 1",                 /* 3 */
    "rhs E = curl(H)/eps",                    /* 4 */
    "rhs H = -curl(E)/mu",                    /* 5 */
    "flux E = cross(n, avg(H))/eps",          /* 6 */
    "flux H = -cross(n, avg(E))/mu",          /* 7 */
    "boundary pec { E = -E.int; H = H.int }", /* 8 */
    "initial E = [0, 0, sin(pi*x[0])]",       /* 9 */
    "initial H = [0, 0, 0]",                  /* 10 */
    NULL};

/* Advection 1D, every line correct. */
static const char *const advection[] = {
    "dim 1",                                  /* 1 */
    "fields u",                               /* 2 */
    "rhs u = -dx(u)",                         /* 3 */
    "flux u = -n[0]*avg(u)",                  /* 4 */
    "boundary b { u = u.int }",               /* 5 */
    "initial u = sin(x[0])",                  /* 6 */
    NULL};

typedef struct want {
  int line, col;
  const char *message;
} want;


static dg_flux_diags diags;

/* Parse text (size bytes) for dim; expect exactly the errors in w[0..n). */
static void expect_buffer(const char *label, const char *text, size_t size, int dim,
                          const want *w, int n) {
  dg_flux_program *prog = NULL;
  dg_error err = dg_flux_parse_buffer(text, size, "t.flux", dim, &prog, &diags);
  dg_error_clear();
  if (err != DG_ERR_INPUT || prog) {
    printf("FAIL [%s] returned %d (want input error)\n", label, (int)err);
    failures++;
    dg_flux_program_destroy(&prog);
    return;
  }
  int ok = diags.count == n;
  for (int i = 0; ok && i < n; i++)
    ok = diags.items[i].loc.line == w[i].line && diags.items[i].loc.col == w[i].col &&
         strcmp(diags.items[i].message, w[i].message) == 0;
  if (!ok) {
    printf("FAIL [%s]\n  want:\n", label);
    for (int i = 0; i < n; i++)
      printf("    %d:%d: %s\n", w[i].line, w[i].col, w[i].message);
    printf("  got:\n");
    for (int i = 0; i < diags.count; i++)
      printf("    %d:%d: %s\n", diags.items[i].loc.line, diags.items[i].loc.col,
             diags.items[i].message);
    failures++;
  }
}

static void expect_text(const char *label, const char *text, int dim, const want *w, int n) {
  expect_buffer(label, text, strlen(text), dim, w, n);
}

/* One mistake on line `line` of base: one error at (wl, wc). */
static void expect1(const char *const *base, int dim, int line, const char *repl, int wl,
                    int wc, const char *message) {
  char text[4096];
  ft_build_text(base, line, repl, text, sizeof text);
  want w = {wl, wc, message};
  expect_text(repl, text, dim, &w, 1);
}

static void check_valid_bases(void) {
  char text[4096];
  const char *const *bases[] = {maxwell, advection};
  int dims[] = {3, 1};
  for (int b = 0; b < 2; b++) {
    ft_build_text(bases[b], 0, NULL, text, sizeof text);
    dg_flux_program *prog = NULL;
    if (dg_flux_parse_string(text, "base.flux", dims[b], &prog) != DG_OK) {
      printf("FAIL base program %d does not check\n", b);
      dg_error_print(stdout);
      failures++;
    }
    dg_flux_program_destroy(&prog);
  }
}

/* Unknown names, arity, shapes, fields without equations, dimensions, arithmetic. */
static void names_and_shapes(void) {
  /* unknown names, with and without a suggestion */
  expect1(maxwell, 3, 4, "rhs E = curl(Hx)/eps", 4, 14, "unknown name 'Hx'; did you mean 'H'?");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/banana", 4, 17, "unknown name 'banana'");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/epss", 4, 17, "unknown name 'epss'; did you mean 'eps'?");
  expect1(maxwell, 3, 9, "initial E = [0, 0, sine(pi*x[0])]", 9, 20,
          "unknown function 'sine'; did you mean 'sin'?");
  expect1(maxwell, 3, 9, "initial E = [0, 0, sin]", 9, 20, "'sin' is a function: call it as sin(...)");
  expect1(maxwell, 3, 6, "flux Ee = cross(n, avg(H))/eps", 6, 6,
          "'flux Ee': unknown field 'Ee'; did you mean 'E'?");
  expect1(maxwell, 3, 8, "boundary pec { E = -E.int; HH = H.int }", 8, 28,
          "unknown field 'HH' in boundary 'pec'; did you mean 'H'?");
  expect1(maxwell, 3, 6, "flx E = cross(n, avg(H))/eps", 6, 1,
          "unknown statement 'flx'; did you mean 'flux'?");

  /* arity */
  expect1(maxwell, 3, 9, "initial E = [0, 0, sin(1, 2)]", 9, 20, "'sin' takes 1 argument, got 2");
  expect1(maxwell, 3, 9, "initial E = [0, 0, atan2(1)]", 9, 20, "'atan2' takes 2 arguments, got 1");
  expect1(maxwell, 3, 9, "initial E = [0, 0, min(1)]", 9, 20, "'min' takes at least 2 arguments, got 1");

  /* scalar/vector and length mismatches */
  expect1(maxwell, 3, 10, "initial H = [0, 0, 0] + 1", 10, 23, "cannot add a 3-vector and a scalar");
  expect1(maxwell, 3, 10, "initial H = [0, 0, 0] - [1, 2]", 10, 23,
          "cannot subtract a 3-vector and a 2-vector");
  expect1(maxwell, 3, 10, "initial H = 0", 10, 13,
          "'initial H' is a scalar, but field 'H' is a 3-vector");
  expect1(maxwell, 3, 10, "initial H = [0, 0, 0]*[1, 1, 1]", 10, 22,
          "cannot multiply a 3-vector by a 3-vector: use dot(a, b) or cross(a, b), or write the "
          "components");
  expect1(maxwell, 3, 9, "initial E = [0, 0, sin(x)]", 9, 24, "'sin' needs scalar arguments, got a 3-vector");
  expect1(maxwell, 3, 9, "initial E = [0, 0, dot(x, [1, 2])]", 9, 20,
          "dot needs two vectors of the same length, got a 3-vector and a 2-vector");
  expect1(maxwell, 3, 9, "initial E = [0, 0, x[3]]", 9, 22, "index 3 is out of range for a 3-vector (0 to 2)");
  expect1(maxwell, 3, 9, "initial E = [0, x, 0]", 9, 17,
          "list elements must all be scalars or all vectors of one length: element 1 is a "
          "3-vector, element 0 is a scalar");
  expect1(maxwell, 3, 9, "initial E = t > 0 ? x : 0", 9, 19,
          "the two branches of '?:' differ: a 3-vector and a scalar");
  expect1(maxwell, 3, 4, "rhs E = grad(H)/eps", 4, 9, "grad needs a scalar argument, got a 3-vector");
  expect1(maxwell, 3, 4, "rhs E = [div(H[0]), 0, 0]", 4, 10,
          "div in 3D needs a 3-vector, or a list of 3-vectors (one per row), got a scalar");

  /* a field without its equations; a boundary condition without a field */
  expect1(maxwell, 3, 5, "", 2, 13, "field 'H' has no volume term ('rhs H = ...')");
  expect1(maxwell, 3, 7, "# no flux for H", 2, 13, "field 'H' has no numerical flux ('flux H = ...')");
  expect1(maxwell, 3, 10, "", 2, 13, "field 'H' has no initial condition ('initial H = ...')");
  expect1(maxwell, 3, 8, "boundary pec { E = -E.int }", 8, 10,
          "boundary 'pec' does not give field 'H' (each field's exterior value is needed, e.g. "
          "'H = H.int')");
  expect1(maxwell, 3, 8, "boundary pec { }", 8, 10,
          "boundary 'pec' does not give fields 'E', 'H' (each field's exterior value is needed, "
          "e.g. 'E = E.int')");
  {
    const char *text = "fields u\nflux u = 0\n";
    want w = {1, 8, "field 'u' has no volume term ('rhs u = ...'), no initial condition "
                    "('initial u = ...')"};
    expect_text("missing two", text, 1, &w, 1);
  }

  /* dimension rules */
  expect1(advection, 1, 6, "initial u = cross(x, x)", 6, 13,
          "cross needs dimension 2 or 3; this is a 1D problem");
  expect1(advection, 1, 3, "rhs u = -curl(u)", 3, 10, "curl needs dimension 2 or 3; this is a 1D problem");
  expect1(advection, 1, 3, "rhs u = -dy(u)", 3, 10, "'dy' needs dimension 2 or more; this is a 1D problem");
  expect1(maxwell, 3, 9, "initial E = cross([1, 2], [3, 4])", 9, 13,
          "cross in 3D takes two 3-vectors, got a 2-vector and a 2-vector");
  expect1(maxwell, 3, 1, "dim 2", 1, 5, "this file is written for dimension 2, but the mesh is 3D");

  /* arithmetic */
  expect1(maxwell, 3, 4, "rhs E = curl(H)/0", 4, 16, "division by zero");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/0.0", 4, 16, "division by zero");
  expect1(maxwell, 3, 9, "initial E = [0, 0, 1e999]", 9, 20, "number '1e999' is too large for a double");
  expect1(maxwell, 3, 9, "initial E = [0, 0, 1 < 2 < 3]", 9, 26,
          "comparisons cannot be chained: write (a < b) && (b < c)");
}

/* Brackets, operators, empty input, encoding, duplicates. */
static void syntax(void) {
  /* brackets and operators */
  expect1(maxwell, 3, 9, "initial E = [0, 0, sin(pi*x[0])", 9, 13, "'[' is never closed");
  expect1(maxwell, 3, 9, "initial E = [0, 0, sin(pi*x[0]]]", 9, 31,
          "expected ')' to close the '(' at 9:23, found ']'");
  expect1(maxwell, 3, 9, "initial E = [0, 0, 1])", 9, 22, "unmatched ')'");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/eps +", 4, 21, "missing operand after '+'");
  expect1(maxwell, 3, 10, "initial H = [0, 0, 0] *", 10, 23, "missing operand after '*'");
  expect1(maxwell, 3, 10, "initial H =", 10, 11, "missing operand after '='");
  expect1(maxwell, 3, 10, "initial H = [0, 0, 0] 7", 10, 23,
          "unexpected '7' after the end of the 'initial' statement");
  expect1(maxwell, 3, 9, "initial E = [0, 0, 2x[0]]", 9, 21,
          "a name cannot follow the number '2' directly: write '2*x...'");
  expect1(maxwell, 3, 8, "boundary pec { E = -E.int; H = H.int", 8, 14,
          "'{' of boundary 'pec' is never closed");
  expect1(maxwell, 3, 9, "initial E = []", 9, 13, "empty vector '[]'");
  expect1(maxwell, 3, 9, "initial E = [0, 0, E.in]", 9, 22,
          "expected 'int' or 'ext' after '.', found 'in'");

  /* empty input */
  {
    want w = {1, 1, "empty file: a flux file declares its fields and their equations (e.g. "
                    "'fields u', 'rhs u = -dx(u)', 'flux u = ...', 'initial u = ...')"};
    expect_text("empty", "", 2, &w, 1);
    expect_text("comments only", "# nothing here\n\n   # at all\n", 2, &w, 1);
  }
  {
    want w = {1, 1, "the dimension is unknown: add 'dim 2' (or 1 or 3) to the file, or give "
                    "the mesh dimension"};
    char text[4096];
    ft_build_text(maxwell, 1, "# no dim", text, sizeof text);
    expect_text("no dim", text, 0, &w, 1);
  }

  /* encoding */
  expect1(maxwell, 3, 9, "initial E = [0, 0, \xff]", 9, 20, "invalid UTF-8 byte 0xFF");
  expect1(maxwell, 3, 9, "initial E = [0, 0, 1] # \xc3\x28", 9, 25, "invalid UTF-8 byte 0xC3");
  expect1(maxwell, 3, 9, "initial E = [0, \xc3\xa9, 0]", 9, 17, "unexpected character '\xc3\xa9' (U+00E9)");
  expect1(maxwell, 3, 9, "initial E = [0, 0, $]", 9, 20, "unexpected character '$'");
  {
    /* a NUL byte inside the text */
    char text[4096];
    ft_build_text(maxwell, 9, "initial E = [0, 0, @]", text, sizeof text);
    *strchr(text, '@') = '\0';
    want w = {9, 20, "unexpected control character U+0000"};
    expect_buffer("NUL byte", text, strlen(text) + 1 + strlen(text + strlen(text) + 1), 3, &w, 1);
  }

  /* duplicate definitions */
  expect1(maxwell, 3, 3, "params eps = 1, mu = 1, eps = 2", 3, 25,
          "duplicate definition of 'eps' (already a param, at 3:8)");
  expect1(maxwell, 3, 2, "fields E[3] H[3] E", 2, 18,
          "duplicate definition of 'E' (already a field, at 2:8)");
  expect1(maxwell, 3, 3, "params eps = 1, mu = 1, H = 2", 3, 25,
          "duplicate definition of 'H' (already a field, at 2:13)");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/eps\nrhs E = curl(H)", 5, 1,
          "duplicate 'rhs E' (the first is at 4:1)");
  expect1(maxwell, 3, 8, "boundary pec { E = -E.int; H = H.int }\nboundary pec { E = E.int; H = H.int }",
          9, 10, "duplicate boundary 'pec' (the first is at 8:10)");
  expect1(maxwell, 3, 8, "boundary pec { E = -E.int; H = H.int; E = E.int }", 8, 39,
          "field 'E' is given twice in boundary 'pec' (first at 8:16)");
  expect1(maxwell, 3, 3, "params eps = 1, mu = 1, sin = 2", 3, 25,
          "'sin' is a built-in name and cannot be redefined");
  expect1(maxwell, 3, 2, "fields E[3] H[3] n", 2, 18, "'n' is a built-in name and cannot be redefined");
}

/* Derivatives, where things may appear, let bindings. */
static void placement(void) {
  /* derivatives */
  /* (nested derivatives, and derivatives in lets, fluxes and boundaries, are
   * lifted gradients: tests/flux/flux_gradients.c has their errors) */
  expect1(maxwell, 3, 4, "rhs E = curl(curl(H))/eps", 4, 14,
          "curl of a lifted gradient (inside a derivative, a let, a flux or a boundary) is not "
          "available; write it with dx, dy and dz");
  expect1(maxwell, 3, 6, "flux E = cross(n, grad(H[0]))/eps", 6, 19,
          "grad(H[0]) needs a trace in a numerical flux: write grad(H[0]).int, grad(H[0]).ext, "
          "or avg, jump or ldg of it");
  expect1(maxwell, 3, 4, "rhs E = H[0]*curl(H)/eps", 4, 9,
          "a derivative may be multiplied only by an expression of constants, params, "
          "coefficients, x and t; this factor depends on fields");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/eps + [0, 0, sin(div(H))]", 4, 30,
          "a derivative may appear only in sums, differences, products with field-free factors, "
          "vectors and components; not inside this operation");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/H", 4, 16, "cannot divide by a 3-vector");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/(1 + div(H))", 4, 16, "a derivative cannot be in a denominator");
  expect1(maxwell, 3, 3, "params eps = 1, mu = 1\nlet F = grad(2*H[0])", 4, 9,
          "grad of an expression inside a derivative, a let, a flux or a boundary: a "
          "second-order term differentiates a name; write let q = ... and grad(q)");

  /* where things may appear */
  expect1(maxwell, 3, 6, "flux E = cross(n, H)/eps", 6, 19,
          "field 'H' needs a trace in a numerical flux: write H.int, H.ext, avg(H) or jump(H)");
  expect1(maxwell, 3, 8, "boundary pec { E = -E; H = H.int }", 8, 21,
          "field 'E' needs a trace in a boundary condition: write E.int");
  expect1(maxwell, 3, 8, "boundary pec { E = -E.ext; H = H.int }", 8, 22,
          "'.ext' reads the exterior state, which a boundary condition defines; use .int traces only");
  expect1(maxwell, 3, 8, "boundary pec { E = -avg(E); H = H.int }", 8, 21,
          "'avg' reads the exterior state, which a boundary condition defines; use .int traces only");
  expect1(maxwell, 3, 4, "rhs E = curl(H)/eps + n", 4, 23,
          "the normal n exists only on faces (flux and boundary expressions), not in a volume term (rhs)");
  expect1(maxwell, 3, 4, "rhs E = curl(H.int)/eps", 4, 15,
          "'.int' exists only on faces (flux and boundary expressions), not in a volume term (rhs)");
  expect1(maxwell, 3, 10, "initial H = E", 10, 13,
          "field 'E' cannot be used in an initial condition, which depends only on x, t and params");
  expect1(maxwell, 3, 6, "flux E = cross(n, avg(H.int))/eps", 6, 24,
          "nested trace: '.int' inside another trace (.int, .ext, avg, jump)");
  expect1(maxwell, 3, 3, "params eps = 1, mu = x[0]", 3, 22,
          "'x' is not a constant; a param default can use only numbers, pi and functions of them");
  expect1(maxwell, 3, 3, "params eps = 1, mu = eps", 3, 22,
          "'eps' is a param; a param default can use only numbers, pi and functions of them");

  /* let bindings */
  expect1(maxwell, 3, 3, "params eps = 1, mu = 1\nlet a = b\nlet b = 1", 4, 9,
          "'b' is defined below (at 5:5); a let can use only names defined above it");
  expect1(maxwell, 3, 3, "params eps = 1, mu = 1\nlet q = H + E.int", 4, 5,
          "let 'q' mixes fields with and without traces; bind the pointwise part and apply "
          ".int/.ext/avg/jump where it is used");
  expect1(maxwell, 3, 6, "let F = H/eps\nflux E = cross(n, F)", 7, 19,
          "'F' depends on fields; in a numerical flux write F.int, F.ext, avg(F) or jump(F)");
  expect1(maxwell, 3, 9, "let F = [0, 0, Hx[0]]\ninitial E = F + x", 9, 16,
          "unknown name 'Hx'; did you mean 'H'?"); /* and no echo where F is used */
  expect1(maxwell, 3, 9, "let F = H/eps\ninitial E = F", 10, 13,
          "'F' depends on fields, which an initial condition cannot use");
}

/* Several errors at once, the report's form, hostile text. */
static void reports(void) {
  /* several errors in one go, in source order */
  {
    const char *lines[11];
    memcpy(lines, maxwell, sizeof lines);
    lines[3] = "rhs E = curl(Hx)/eps";
    lines[8] = "initial E = [0, 0, sin(1, 2)]";
    char text[4096];
    ft_build_text(lines, 0, NULL, text, sizeof text);
    want w[] = {{4, 14, "unknown name 'Hx'; did you mean 'H'?"},
                {9, 20, "'sin' takes 1 argument, got 2"}};
    expect_text("two errors", text, 3, w, 2);
  }
  {
    /* syntax errors on several lines, the statements between them fine */
    const char *text = "fields u\nrhs u = (1 +\nflux u = 0\ninitial u = sin(\nexact u = 1 +* 2\n";
    want w[] = {{2, 12, "missing operand after '+'"},
                {4, 16, "'(' is never closed"},
                {5, 14, "expected an operand after '+', found '*'"}};
    expect_text("three syntax errors", text, 1, w, 3);
  }
  {
    /* the limit: 30 mistakes, 20 reported, the rest counted */
    char text[8192] = "dim 1\nfields u\n";
    for (int i = 0; i < 30; i++)
      strcat(text, "let a = nope\n");
    dg_flux_program *prog = NULL;
    dg_flux_parse_buffer(text, strlen(text), "many.flux", 0, &prog, &diags);
    if (diags.count != DG_FLUX_MAX_ERRORS || diags.dropped < 10) {
      printf("FAIL error limit: %d kept, %d dropped\n", diags.count, diags.dropped);
      failures++;
    }
    if (!strstr(dg_error_message(), "more errors not shown")) {
      printf("FAIL error limit message: %s\n", dg_error_message());
      failures++;
    }
    dg_error_clear();
  }

  /* the report: file:line:col, the line, a caret under the token */
  {
    char text[4096];
    ft_build_text(maxwell, 4, "rhs E = curl(Hx)/eps", text, sizeof text);
    dg_flux_program *prog = NULL;
    dg_flux_parse_string(text, "maxwell.flux", 3, &prog);
    const char *want_text = "maxwell.flux:4:14: error: unknown name 'Hx'; did you mean 'H'?\n"
                            "  rhs E = curl(Hx)/eps\n"
                            "               ^~\n";
    if (!strstr(dg_error_message(), want_text)) {
      printf("FAIL report:\n%s\nwant it to contain:\n%s", dg_error_message(), want_text);
      failures++;
    }
    dg_error_clear();
    /* tabs are kept in the caret line so it lines up */
    ft_build_text(maxwell, 4, "rhs E =\tcurl(Hx)/eps", text, sizeof text);
    dg_flux_parse_buffer(text, strlen(text), "tab.flux", 3, &prog, &diags);
    if (diags.count != 1 || !strstr(diags.items[0].text, "  rhs E =\tcurl(Hx)/eps\n  "
                                                          "       \t     ^~\n")) {
      printf("FAIL tab caret:\n%s", diags.count ? diags.items[0].text : "(none)\n");
      failures++;
    }
    dg_error_clear();
  }

  /* hostile text: only ever a syntax error */
  {
    const char *text = "\"); system(\"rm -rf /\"); (\"";
    dg_flux_program *prog = NULL;
    dg_error err = dg_flux_parse_buffer(text, strlen(text), "evil.flux", 3, &prog, &diags);
    if (err != DG_ERR_INPUT || prog || diags.count < 1 || diags.items[0].loc.line != 1 ||
        diags.items[0].loc.col != 1 ||
        strcmp(diags.items[0].message, "unexpected character '\"'") != 0) {
      printf("FAIL injection text: err %d, %d diagnostics, first '%s'\n", (int)err, diags.count,
             diags.count ? diags.items[0].message : "");
      failures++;
    }
    dg_error_clear();
  }
}

int main(void) {
  check_valid_bases();
  names_and_shapes();
  syntax();
  placement();
  reports();

  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
