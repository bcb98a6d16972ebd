/* operators.physics_vanish: a coefficient set to zero in a physics
 * (operators/physics_vanish.h), the first-order twin of shock capturing.
 *
 * 1. Single trees, printed against hand-simplified forms: a product with
 *    the coefficient vanishes, a sum or difference drops it, a function that
 *    is not zero at zero (exp) keeps a literal 0, a vector keeps its other
 *    entries, a let whose body vanishes vanishes where it is read.
 * 2. The Euler vortex with artificial viscosity
 *    (problems/cases/euler3d_vortex_shock) has a first-order twin whose
 *    generated kernels, on both targets, are byte for byte those of the
 *    plain Euler vortex file (euler3d_vortex.flux with the same coefficient
 *    declared): the same volume, surface and face-flux code, no gradient
 *    pass.
 * 3. A viscosity that does not carry the coefficient (Navier-Stokes-like
 *    nu*grad(u) beside av*grad(u)) leaves second-order terms: no twin.
 * usage: physics_vanish CASES_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dg/refelem.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "operators/physics.h"
#include "operators/physics_vanish.h"
#include "tests/flux/flux_test.h"

static int failures;

static dg_flux_program *parse(const char *text, int dim) {
  dg_flux_program *prog = NULL;
  dg_flux_diags diags;
  if (dg_flux_parse_buffer(text, strlen(text), "t.flux", dim, &prog, &diags) != DG_OK) {
    for (int i = 0; i < diags.count; i++)
      printf("  %d:%d: %s\n", diags.items[i].loc.line, diags.items[i].loc.col,
             diags.items[i].message);
    dg_error_print(stdout);
    dg_error_clear();
    return NULL;
  }
  return prog;
}

/* let `name`'s body with coefficient 0 printed against want (zero: whether
 * it must vanish). */
static void expect_let(dg_flux_program *prog, const char *name, const unsigned char *let_zero,
                       const char *want, int zero) {
  for (int l = 0; l < dg_flux_let_count(prog); l++) {
    const dg_flux_let_info *li = dg_flux_let(prog, l);
    if (strcmp(li->name, name) != 0)
      continue;
    const dg_flux_node *out = NULL;
    int z = -1;
    if (dg_flux_ast_vanish(dg_flux_program_arena(prog), li->body, 0, let_zero, &out, &z) !=
        DG_OK) {
      dg_error_print(stdout);
      dg_error_clear();
      CHECK(0, "let %s: vanish failed", name);
      return;
    }
    char buf[1024];
    dg_flux_print(prog, out, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0 && z == zero, "let %s:\n  got  %s (zero %d)\n  want %s (zero %d)",
          name, buf, z, want, zero);
    return;
  }
  CHECK(0, "no let %s", name);
}

static void single_trees(void) {
  const char *text = "dim 2\nfields u\ncoefficients av >= 0\n"
                     "let a = av*u\nlet b = u + av*u\nlet c = av - u\nlet d = exp(av) + u\n"
                     "let e = [av*u, u]\nlet f = 2*a\nlet g = dot([av, av], [u, u])\n"
                     "rhs u = -dx(u)\nflux u = -avg(u)*n[0]\ninitial u = 0\n";
  dg_flux_program *prog = parse(text, 0);
  CHECK(prog != NULL, "the single-tree program does not parse");
  if (!prog)
    return;
  unsigned char let_zero[16] = {0};
  expect_let(prog, "a", NULL, "0", 1);
  expect_let(prog, "b", NULL, "u", 0);
  expect_let(prog, "c", NULL, "(-u)", 0);
  expect_let(prog, "d", NULL, "(exp(0) + u)", 0);
  expect_let(prog, "e", NULL, "[0, u]", 0);
  expect_let(prog, "f", NULL, "(2*a)", 0); /* a is not yet known to vanish */
  let_zero[0] = 1;                       /* let a (index 0) vanishes */
  expect_let(prog, "f", let_zero, "0", 1);
  expect_let(prog, "g", NULL, "0", 1);
  dg_flux_program_destroy(&prog);
}

/* prog's physics *ph (tables *t) and its twin with coefficient 0 (*twin,
 * *vt, *first_order); 0 when all of it builds, else the error printed. */
static int twin_of(dg_flux_program *prog, dg_physics *ph, dg_physics_tables **t,
                   dg_physics *twin, dg_physics_vanish_tables **vt, int *first_order) {
  if (dg_physics_from_program(prog, ph, t) == DG_OK &&
      dg_physics_vanish(ph, dg_flux_program_arena(prog), 0, twin, vt, first_order) == DG_OK)
    return 0;
  dg_error_print(stdout);
  dg_error_clear();
  return -1;
}

/* Both targets' sources of ph with the default knobs. */
static int generate(const dg_physics *ph, int dim, dg_codegen_target tg, char **src) {
  dg_refelem *re = NULL;
  if (dg_refelem_create(dim, 2, &re) != DG_OK)
    return -1;
  dg_element_ops el = dg_element_ops_of(re);
  dg_kernel_config cfg = dg_kernel_config_default();
  dg_generated gen;
  dg_error err = dg_codegen_generate(tg, &el, ph, 0, &cfg, &gen);
  dg_refelem_destroy(&re);
  if (err != DG_OK) {
    dg_error_print(stdout);
    dg_error_clear();
    return -1;
  }
  *src = gen.source;
  gen.source = NULL;
  dg_generated_free(&gen);
  return 0;
}

static void euler_twin(const char *cases) {
  dg_flux_program *av = load_flux(cases, "euler3d_vortex_shock/euler3d_vortex_shock.flux", 0);
  char path[1024], *text = NULL;
  size_t len = 0;
  snprintf(path, sizeof path, "%s/euler3d_vortex/euler3d_vortex.flux", cases);
  CHECK(av && dg_flux_read_file(path, &text, &len) == DG_OK, "the vortex files do not load");
  if (!av || !text)
    return;
  /* the plain file with the same (unused) coefficient: the same kernel arguments */
  char *with = malloc(len + 64);
  snprintf(with, len + 64, "%s\ncoefficients av >= 0\n", text);
  dg_flux_program *plain = parse(with, 0);
  CHECK(plain != NULL, "euler3d_vortex.flux with a coefficient does not parse");
  dg_physics ph_av, ph_plain, twin;
  dg_physics_tables *t_av = NULL, *t_plain = NULL;
  dg_physics_vanish_tables *vt = NULL;
  int first_order = 0;
  if (plain && dg_physics_from_program(plain, &ph_plain, &t_plain) == DG_OK &&
      twin_of(av, &ph_av, &t_av, &twin, &vt, &first_order) == 0) {
    CHECK(ph_av.ngrad == 5 && first_order && twin.ngrad == 0,
          "the AV file: %d gradients, twin first order %d with %d", ph_av.ngrad, first_order,
          twin.ngrad);
    for (int tg = 0; tg < 2; tg++) {
      dg_codegen_target target = tg ? DG_CODEGEN_CUDA : DG_CODEGEN_C;
      char *a = NULL, *b = NULL;
      CHECK(generate(&twin, 3, target, &a) == 0 && generate(&ph_plain, 3, target, &b) == 0,
            "generation failed");
      CHECK(a && b && strcmp(a, b) == 0, "%s: the twin's kernels differ from the Euler file's",
            tg ? "cuda" : "c");
      if (a && b && strcmp(a, b) == 0)
        printf("%s: the twin's module is the Euler file's (%zu bytes)\n", tg ? "cuda" : "c",
               strlen(a));
      free(a);
      free(b);
    }
  } else {
    dg_error_clear();
    CHECK(0, "the physics do not build");
  }
  dg_physics_vanish_tables_destroy(&vt);
  dg_physics_tables_destroy(&t_av);
  dg_physics_tables_destroy(&t_plain);
  dg_flux_program_destroy(&plain);
  dg_flux_program_destroy(&av);
  free(with);
  free(text);
}

static void no_twin(void) {
  const char *text = "dim 1\nfields u\nparams nu = 0.1\ncoefficients av >= 0\n"
                     "rhs u = -dx(u^2/2) + dx(nu*dx(u)) + dx(av*dx(u))\n"
                     "flux u = -n[0]*avg(u^2/2) - jump(u) + n[0]*ldg(nu*dx(u) + av*dx(u))\n"
                     "initial u = 0\n";
  dg_flux_program *prog = parse(text, 0);
  CHECK(prog != NULL, "the viscous program does not parse");
  dg_physics ph, twin;
  dg_physics_tables *t = NULL;
  dg_physics_vanish_tables *vt = NULL;
  int first_order = 1;
  if (prog && twin_of(prog, &ph, &t, &twin, &vt, &first_order) == 0)
    CHECK(!first_order, "nu*dx(u) does not vanish with av, yet a first-order twin was made");
  else
    CHECK(0, "the viscous physics does not build");
  dg_physics_vanish_tables_destroy(&vt);
  dg_physics_tables_destroy(&t);
  dg_flux_program_destroy(&prog);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: physics_vanish CASES_DIR\n");
    return 2;
  }
  single_trees();
  euler_twin(argv[1]);
  no_twin();
  if (failures) {
    printf("%d check(s) failed\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
