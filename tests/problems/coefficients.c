/* problems.coefficients: the values of [regions] / [coefficients] on a
 * built-in 4 x 4 rectangle at N = 2 (problems/solver/coefficients.h), per
 * element by its centroid and per node for an expression of x, against
 * values computed here from the node coordinates; and every input error,
 * each naming the cfg's file:line:col. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "dg/discretization.h"
#include "tests/expect.h"
#include "meshes/builtin.h"
#include "operators/flux.h"
#include "problems/driver/problem.h"
#include "problems/solver/coefficients.h"

/* eps at x.flux:2:14, mu at 2:23; the same file without coefficients */
static const char flux_text[] = "dim 2\ncoefficients eps > 0, mu\nfields u\nrhs u = 0\n"
                                "flux u = 0\ninitial u = 0\n";
static const char flux_plain[] = "dim 2\n\nfields u\nrhs u = 0\nflux u = 0\ninitial u = 0\n";
static dg_flux_program *prog, *prog2, *prog0;
static dg_mesh *mesh;
static dg_discretization *disc;
static int mreg[64]; /* a hand-made mesh region "low": centroid y < 0.5 */
static char *mnames[] = {"low"};

static dg_config *config(const char *body) {
  char text[2048];
  snprintf(text, sizeof text, "[problem]\nflux = x.flux\n[mesh]\ntype = rectangle\n[discretization]\norder = 2\n%s", body);
  dg_config *cfg = NULL;
  MUST(dg_config_read_string(text, "problem.cfg", &cfg));
  size_t n;
  const dg_config_key *schema = dg_problem_schema(&n);
  MUST(dg_config_validate(cfg, schema, n));
  return cfg;
}

static dg_error build(const char *body, int with_mesh_regions, dg_coefficients **out) {
  dg_config *cfg = config(body);
  dg_coefficients_input in = {prog, "x.flux", cfg, mesh, with_mesh_regions ? mreg : NULL,
                              with_mesh_regions, mnames, (const double *const *)disc->X,
                              disc->Np, NULL};
  dg_error err = dg_coefficients_build(&in, out);
  dg_config_destroy(&cfg); /* (the region names it lent are not read after this) */
  return err;
}

static void centroid(int64_t k, double xc[2]) {
  xc[0] = xc[1] = 0;
  for (int v = 0; v < 3; v++)
    for (int a = 0; a < 2; a++)
      xc[a] += mesh->VX[mesh->EToV[k * 3 + v] * 2 + a] / 3;
}

/* eps: 1, 2.25 right of x = 0.5 (a predicate region); mu = 1 + x y per node. */
static void values(void) {
  dg_coefficients *co = NULL;
  MUST(build("[regions]\nright = x[0] > 0.5\n[coefficients]\neps = 1\neps.right = 2.25\n"
             "mu = 1 + x[0]*x[1]\n",
             0, &co));
  CHECK(co->ncoef == 2 && co->K == mesh->K && co->Np == disc->Np && co->nregions == 1);
  int nright = 0;
  for (int64_t k = 0; k < co->K; k++) {
    double xc[2];
    centroid(k, xc);
    int right = xc[0] > 0.5;
    nright += right;
    EXPECT(co->region[k] == (right ? 0 : -1), "element %lld region %d", (long long)k,
           co->region[k]);
    for (int i = 0; i < co->Np; i++) {
      double x = disc->x[k * disc->Np + i], y = disc->y[k * disc->Np + i];
      double eps = co->values[(0 * co->K + k) * co->Np + i];
      double mu = co->values[(1 * co->K + k) * co->Np + i];
      EXPECT(eps == (right ? 2.25 : 1.0), "element %lld node %d: eps %g", (long long)k, i, eps);
      /* the same product in double: exact to rounding */
      EXPECT(fabs(mu - (1 + x * y)) <= 1e-15, "element %lld node %d: mu %.17g", (long long)k,
             i, mu);
    }
  }
  EXPECT(nright == (int)mesh->K / 2, "%d elements right of x = 0.5", nright);
  dg_coefficients_destroy(&co);
  /* a mesh region's value overrides the default, and a constant expression
   * of params is the element's constant */
  MUST(build("[coefficients]\neps = 1\neps.low = 4\nmu = 2\n", 1, &co));
  for (int64_t k = 0; k < co->K; k++)
    EXPECT(co->values[k * co->Np] == (mreg[k] == 0 ? 4.0 : 1.0) && co->region[k] == mreg[k],
           "element %lld", (long long)k);
  dg_coefficients_destroy(&co);
}

/* body must fail with a message holding every one of want[] (NULL-ended). */
static void fails(const char *what, const char *body, int with_mesh_regions, int ncoef,
                  const char *const *want) {
  prog = ncoef ? prog2 : prog0;
  dg_coefficients *co = NULL;
  dg_error err = build(body, with_mesh_regions, &co);
  EXPECT(err == DG_ERR_INPUT, "%s: error %d", what, (int)err);
  const char *msg = dg_error_message();
  if (getenv("SHOW")) printf("%s\n", msg);
  for (int i = 0; want[i]; i++)
    EXPECT(strstr(msg, want[i]), "%s: no '%s' in: %s", what, want[i], msg);
  dg_error_clear();
  dg_coefficients_destroy(&co);
  prog = prog2;
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static void errors(void) {
  /* lines: 1 [problem] 2 flux 3 [mesh] 4 type 5 [discretization] 6 order 7.. the body */
  fails("unknown coefficient", "[coefficients]\neps = 1\nmu = 1\nepz = 2\n", 0, 2,
        W("problem.cfg:10:7", "no coefficient 'epz'", "did you mean 'eps'"));
  fails("unknown region", "[regions]\nright = x[0] > 0.5\n[coefficients]\neps = 1\n"
        "eps.rigt = 2\nmu = 1\n", 0, 2,
        W("problem.cfg:11:12", "no region 'rigt'", "did you mean 'right'"));
  fails("region clash", "[regions]\nlow = x[1] < 0.25\n[coefficients]\neps = 1\nmu = 1\n", 1, 2,
        W("problem.cfg:8:7", "already has a region 'low'"));
  fails("no coefficients in the flux file", "[coefficients]\neps = 1\n", 0, 0,
        W("problem.cfg:8:7", "declares no coefficients"));
  fails("no [coefficients]", "", 0, 2, W("problem.cfg: ", "x.flux:2:14", "no [coefficients]"));
  fails("no value", "[regions]\nright = x[0] > 0.5\n[coefficients]\neps = 1\nmu.right = 1\n", 0,
        2, W("coefficient 'mu' no value at element", "centroid (0.", "regions: none",
             "add a default 'mu = <value>'"));
  fails("bound", "[coefficients]\neps = x[0] - 0.5\nmu = 1\n", 0, 2,
        W("problem.cfg:8:7", "outside the bound eps > 0", "x.flux:2:14", "region (default)"));
  fails("two regions", "[regions]\nright = x[0] > 0.5\n[coefficients]\neps = 1\neps.low = 2\n"
        "eps.right = 3\nmu = 1\n", 1, 2,
        W("is in regions 'low' and 'right'", "coefficient 'eps'", "centroid (0."));
  fails("bad expression", "[coefficients]\neps = 1 +\nmu = 1\n", 0, 2, W("problem.cfg:8:9"));
  fails("bad predicate", "[regions]\nright = y > 0\n[coefficients]\neps = 1\nmu = 1\n", 0, 2,
        W("problem.cfg:8:9"));
}

int main(void) {
  double lo[2] = {0, 0}, hi[2] = {1, 1};
  int64_t n[2] = {4, 4};
  MUST(dg_builtin_mesh(2, lo, hi, n, NULL, &mesh));
  MUST(dg_discretization_create(mesh, 2, DG_DOUBLE, &disc));
  MUST(dg_flux_parse_buffer(flux_text, strlen(flux_text), "x.flux", 2, &prog2, NULL));
  MUST(dg_flux_parse_buffer(flux_plain, strlen(flux_plain), "x.flux", 2, &prog0, NULL));
  prog = prog2;
  CHECK(mesh->K == 32 && mesh->K <= 64);
  for (int64_t k = 0; k < mesh->K; k++) {
    double xc[2];
    centroid(k, xc);
    mreg[k] = xc[1] < 0.5 ? 0 : -1;
  }
  values();
  errors();
  dg_flux_program_destroy(&prog2);
  dg_flux_program_destroy(&prog0);
  dg_discretization_destroy(&disc);
  dg_mesh_destroy(&mesh);
  return expect_finish();
}
