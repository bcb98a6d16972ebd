#include "problems/solver/coefficients.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "operators/flux_expr.h"

enum { WHERE_MAX = 600 };

/* The parsed [regions] and [coefficients] of a cfg. */
typedef struct plan {
  int ncoef, nmesh, nreg;      /* nreg = nmesh + the [regions] keys */
  const char **names;          /* nreg region names */
  dg_flux_expr **pred;         /* nreg - nmesh predicates */
  dg_flux_expr **value;        /* ncoef * (nreg + 1): [c*(nreg+1)] the default, then per region */
  const char **key;            /* the [coefficients] key of each value (NULL: none given) */
} plan;

static void plan_free(plan *p) {
  for (int r = 0; p->pred && r < p->nreg - p->nmesh; r++)
    dg_flux_expr_destroy(&p->pred[r]);
  for (int v = 0; p->value && v < p->ncoef * (p->nreg + 1); v++)
    dg_flux_expr_destroy(&p->value[v]);
  free(p->names);
  free(p->pred);
  free(p->value);
  free(p->key);
  memset(p, 0, sizeof *p);
}

static int has_section(const dg_config *cfg, const char *sec) {
  const char *s;
  for (size_t i = 0; (s = dg_config_section_at(cfg, i)); i++)
    if (strcmp(s, sec) == 0)
      return 1;
  return 0;
}

/* Parse the value of section.key as an expression, located where it was
 * written ("file:line:col" split back into its parts). */
static dg_error parse_value(const dg_config *cfg, const dg_flux_program *prog, int dim,
                            const char *sec, const char *key, dg_flux_expr **out) {
  char where[WHERE_MAX], file[WHERE_MAX];
  const char *text = NULL;
  DG_CALL(dg_config_get_string(cfg, sec, key, &text));
  dg_config_where(cfg, sec, key, where, sizeof where);
  int line = 0, col = 0;
  snprintf(file, sizeof file, "%s", where);
  char *c2 = strrchr(file, ':');
  if (c2 && c2 > file) {
    *c2 = '\0';
    char *c1 = strrchr(file, ':');
    if (c1 && sscanf(c1 + 1, "%d", &line) == 1 && sscanf(c2 + 1, "%d", &col) == 1)
      *c1 = '\0';
    else
      snprintf(file, sizeof file, "%s", where), line = col = 0;
  }
  DG_CALL(dg_flux_expr_parse(text, file, line, col, dim, prog, out));
  return DG_OK;
}

/* "a, b, c" of up to n names into buf. */
static const char *name_list(const char *const *names, int n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", names[i]);
  return n ? buf : "none";
}

static dg_error check_regions(const dg_config *cfg, plan *p, int dim,
                              const dg_flux_program *prog) {
  char loc[WHERE_MAX];
  const char *name;
  for (size_t i = 0; (name = dg_config_key_at(cfg, "regions", i)); i++) {
    dg_config_where(cfg, "regions", name, loc, sizeof loc);
    for (const char *c = name; *c; c++)
      DG_CHECK(isalnum((unsigned char)*c) || *c == '_', DG_ERR_INPUT,
               "%s: [regions] '%s': a region name holds letters, digits and '_' only", loc,
               name);
    for (int r = 0; r < p->nmesh; r++)
      DG_CHECK(strcmp(p->names[r], name) != 0, DG_ERR_INPUT,
               "%s: [regions] %s: the mesh already has a region '%s' (a physical group): "
               "rename this one, or use the mesh's",
               loc, name, name);
    p->names[p->nreg] = name;
    DG_CALL(parse_value(cfg, prog, dim, "regions", name, &p->pred[p->nreg - p->nmesh]));
    p->nreg++;
  }
  return DG_OK;
}

/* One [coefficients] key: coefficient or coefficient.region. */
static dg_error check_value(const dg_config *cfg, plan *p, int dim, const dg_flux_program *prog,
                            const char *key) {
  char loc[WHERE_MAX], known[512], cname[256];
  dg_config_where(cfg, "coefficients", key, loc, sizeof loc);
  size_t len = strcspn(key, ".");
  DG_CHECK(len < sizeof cname, DG_ERR_INPUT, "%s: [coefficients] %s: name too long", loc, key);
  memcpy(cname, key, len);
  cname[len] = '\0';
  int c = -1;
  for (int i = 0; i < p->ncoef; i++)
    if (strcmp(dg_flux_coef(prog, i)->name, cname) == 0)
      c = i;
  if (c < 0) {
    const char *names[64];
    int n = p->ncoef < 64 ? p->ncoef : 64;
    for (int i = 0; i < n; i++)
      names[i] = dg_flux_coef(prog, i)->name;
    const char *close = dg_suggest_closest(cname, names, (size_t)n);
    DG_RAISE(DG_ERR_INPUT, "%s: [coefficients] %s: the flux file has no coefficient '%s'%s%s%s "
             "(its coefficients: %s)",
             loc, key, cname, close ? " (did you mean '" : "", close ? close : "",
             close ? "'?)" : "", name_list(names, n, known, sizeof known));
  }
  int slot = 0; /* the default */
  if (key[len] == '.') {
    const char *rname = key + len + 1;
    for (int r = 0; r < p->nreg && !slot; r++)
      if (strcmp(p->names[r], rname) == 0)
        slot = r + 1;
    if (!slot) {
      const char *close = dg_suggest_closest(rname, p->names, (size_t)p->nreg);
      DG_RAISE(DG_ERR_INPUT,
               "%s: [coefficients] %s: there is no region '%s'%s%s%s (regions: %s; a region is "
               "a physical group of the mesh or a [regions] key)",
               loc, key, rname, close ? " (did you mean '" : "", close ? close : "",
               close ? "'?)" : "", name_list(p->names, p->nreg, known, sizeof known));
    }
  }
  int v = c * (p->nreg + 1) + slot;
  p->key[v] = key;
  DG_CALL(parse_value(cfg, prog, dim, "coefficients", key, &p->value[v]));
  return DG_OK;
}

static dg_error plan_create(const dg_flux_program *prog, const char *flux_name,
                            const dg_config *cfg, int dim, int nmesh, char *const *mesh_names,
                            plan *p) {
  memset(p, 0, sizeof *p);
  char loc[WHERE_MAX];
  p->ncoef = dg_flux_coef_count(prog);
  p->nmesh = nmesh;
  int has = has_section(cfg, "coefficients");
  const char *first = dg_config_key_at(cfg, "coefficients", 0);
  if (has && p->ncoef == 0)
    DG_RAISE(DG_ERR_INPUT,
             "%s: [coefficients] is given, but the flux file '%s' declares no coefficients "
             "(remove the section, or declare them in the flux file: coefficients <names>)",
             first ? dg_config_where(cfg, "coefficients", first, loc, sizeof loc)
                   : dg_config_name(cfg),
             flux_name);
  if (!has && p->ncoef > 0) {
    const dg_flux_coef_info *ci = dg_flux_coef(prog, 0);
    DG_RAISE(DG_ERR_INPUT,
             "%s: the flux file declares coefficients (%s:%d:%d: '%s'), but the cfg has no "
             "[coefficients] section: add one with a value per coefficient, e.g. "
             "'[coefficients]' and '%s = 1'",
             dg_config_name(cfg), flux_name, ci->loc.line, ci->loc.col, ci->name, ci->name);
  }
  size_t npred = 0;
  while (dg_config_key_at(cfg, "regions", npred))
    npred++;
  p->names = calloc((size_t)nmesh + npred + 1, sizeof *p->names);
  p->pred = calloc(npred + 1, sizeof *p->pred);
  size_t nv = (size_t)p->ncoef * ((size_t)nmesh + npred + 1) + 1;
  p->value = calloc(nv, sizeof *p->value);
  p->key = calloc(nv, sizeof *p->key);
  if (!p->names || !p->pred || !p->value || !p->key) {
    plan_free(p);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int r = 0; r < nmesh; r++)
    p->names[r] = mesh_names[r];
  p->nreg = nmesh;
  dg_error err = check_regions(cfg, p, dim, prog);
  for (size_t i = 0; err == DG_OK && (first = dg_config_key_at(cfg, "coefficients", i)); i++)
    err = check_value(cfg, p, dim, prog, first);
  if (err != DG_OK) {
    plan_free(p);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}

dg_error dg_coefficients_check(const dg_flux_program *prog, const char *flux_name,
                               const dg_config *cfg, int dim, int nmesh_regions,
                               char *const *mesh_region_names) {
  plan p;
  DG_CALL(plan_create(prog, flux_name, cfg, dim, nmesh_regions, mesh_region_names, &p));
  plan_free(&p);
  return DG_OK;
}

void dg_coefficients_destroy(dg_coefficients **c) {
  if (!c || !*c)
    return;
  free((*c)->values);
  free((*c)->region_names);
  free((*c)->region);
  free(*c);
  *c = NULL;
}

/* "(0.25, 0.5)" */
static const char *point_text(const double *x, int dim, char *buf, size_t cap) {
  size_t len = (size_t)snprintf(buf, cap, "(");
  for (int a = 0; a < dim && len < cap; a++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%.6g", a ? ", " : "", x[a]);
  if (len < cap)
    snprintf(buf + len, cap - len, ")");
  return buf;
}

/* The flux file's bounds of coefficient ci at value v (and finite: the
 * kernels divide by coefficients, and NaN or inf would run silently). */
static int within(const dg_flux_coef_info *ci, double v) {
  if (!isfinite(v))
    return 0;
  if (ci->has_min && (ci->min_strict ? !(v > ci->min) : !(v >= ci->min)))
    return 0;
  if (ci->has_max && (ci->max_strict ? !(v < ci->max) : !(v <= ci->max)))
    return 0;
  return 1;
}

typedef struct elem {
  long long id;      /* for messages */
  double xc[3];      /* centroid */
  int in[256];       /* its regions */
  int nin;
} elem;

/* The value expression of coefficient c at element e (which region's, or
 * the default), into *ex and *slot. */
static dg_error pick_value(const dg_coefficients_input *in, const plan *p, const elem *e, int c,
                           const dg_flux_expr **ex, int *slot) {
  char loc[WHERE_MAX], pt[160], known[512];
  const dg_flux_coef_info *ci = dg_flux_coef(in->prog, c);
  int dim = in->mesh->dim, base = c * (p->nreg + 1);
  *slot = -1;
  for (int j = 0; j < e->nin; j++) {
    int s = e->in[j] + 1;
    if (!p->value[base + s])
      continue;
    DG_CHECK(*slot < 0, DG_ERR_INPUT,
             "%s: element %lld (centroid %s) is in regions '%s' and '%s', which both give "
             "coefficient '%s' (%s and %s): make the regions disjoint there, or give the "
             "value in one of them",
             dg_config_where(in->cfg, "coefficients", p->key[base + s], loc, sizeof loc), e->id,
             point_text(e->xc, dim, pt, sizeof pt), p->names[*slot - 1], p->names[s - 1],
             ci->name, p->key[base + *slot], p->key[base + s]);
    *slot = s;
  }
  if (*slot < 0 && p->value[base])
    *slot = 0;
  if (*slot < 0) {
    const char *mine[256];
    for (int j = 0; j < e->nin; j++)
      mine[j] = p->names[e->in[j]];
    DG_RAISE(DG_ERR_INPUT,
             "%s: [coefficients] gives coefficient '%s' no value at element %lld (centroid %s, "
             "regions: %s): add a default '%s = <value>'%s%s%s",
             dg_config_name(in->cfg), ci->name, e->id, point_text(e->xc, dim, pt, sizeof pt),
             name_list(mine, e->nin, known, sizeof known), ci->name,
             e->nin ? " or '" : "", e->nin ? ci->name : "",
             e->nin ? ".<one of its regions> = <value>'" : "");
  }
  *ex = p->value[base + *slot];
  return DG_OK;
}

/* Coefficient c at every node of element k. */
static dg_error fill_element(const dg_coefficients_input *in, const plan *p, const elem *e,
                             int64_t k, int c, double *out) {
  char loc[WHERE_MAX], pt[160];
  const dg_flux_coef_info *ci = dg_flux_coef(in->prog, c);
  const dg_flux_expr *ex = NULL;
  int slot = 0, dim = in->mesh->dim, per_node;
  DG_CALL(pick_value(in, p, e, c, &ex, &slot));
  per_node = dg_flux_expr_uses_x(ex);
  double x[3] = {0, 0, 0}, v = 0;
  for (int i = 0; i < in->Np; i++) {
    for (int a = 0; a < dim; a++)
      x[a] = in->X[a][k * in->Np + i];
    if (per_node || i == 0)
      DG_CALL(dg_flux_expr_eval(ex, per_node ? x : e->xc, &v));
    out[i] = v;
    if (within(ci, v))
      continue;
    char bound[128] = "";
    size_t len = 0;
    if (ci->has_min)
      len += (size_t)snprintf(bound, sizeof bound, "%s %s %g", ci->name,
                              ci->min_strict ? ">" : ">=", ci->min);
    if (ci->has_max)
      snprintf(bound + len, sizeof bound - len, "%s%s %s %g", len ? ", " : "", ci->name,
               ci->max_strict ? "<" : "<=", ci->max);
    DG_RAISE(DG_ERR_INPUT,
             "%s: [coefficients] %s: coefficient '%s' is %.17g at x = %s (node %d of element %lld, "
             "region %s), outside the bound %s that the flux file declares (%s:%d:%d): give "
             "a value within it",
             dg_config_where(in->cfg, "coefficients", p->key[c * (p->nreg + 1) + slot], loc,
                             sizeof loc),
             p->key[c * (p->nreg + 1) + slot], ci->name, v,
             point_text(per_node ? x : e->xc, dim, pt, sizeof pt), i, e->id,
             slot ? p->names[slot - 1] : "(default)", bound[0] ? bound : "(finite)",
             in->flux_name, ci->loc.line, ci->loc.col);
  }
  return DG_OK;
}

/* Element k's id, centroid and region set. */
static dg_error element_regions(const dg_coefficients_input *in, const plan *p, int64_t k,
                                elem *e) {
  const dg_mesh *m = in->mesh;
  int nv = m->dim + 1;
  e->id = in->gk ? (long long)in->gk[k] : (long long)k;
  for (int a = 0; a < 3; a++)
    e->xc[a] = 0;
  for (int v = 0; v < nv; v++)
    for (int a = 0; a < m->dim; a++)
      e->xc[a] += m->VX[m->EToV[k * nv + v] * m->dim + a] / nv;
  e->nin = 0;
  if (in->mesh_region && in->mesh_region[k] >= 0) {
    DG_CHECK(in->mesh_region[k] < p->nmesh, DG_ERR_INTERNAL,
             "element %lld: mesh region %d of %d", e->id, in->mesh_region[k], p->nmesh);
    e->in[e->nin++] = in->mesh_region[k];
  }
  for (int r = p->nmesh; r < p->nreg && e->nin < 256; r++) {
    double t;
    DG_CALL(dg_flux_expr_eval(p->pred[r - p->nmesh], e->xc, &t));
    if (t != 0)
      e->in[e->nin++] = r;
  }
  return DG_OK;
}

static dg_error fill(const dg_coefficients_input *in, const plan *p, dg_coefficients *co) {
  elem e;
  for (int64_t k = 0; k < co->K; k++) {
    DG_CALL(element_regions(in, p, k, &e));
    if (co->region)
      co->region[k] = e.nin ? e.in[0] : -1;
    for (int c = 0; c < co->ncoef; c++)
      DG_CALL(fill_element(in, p, &e, k, c, co->values + ((int64_t)c * co->K + k) * co->Np));
  }
  return DG_OK;
}

dg_error dg_coefficients_build(const dg_coefficients_input *in, dg_coefficients **out) {
  *out = NULL;
  plan p;
  DG_CALL(plan_create(in->prog, in->flux_name, in->cfg, in->mesh->dim, in->nmesh_regions,
                      in->mesh_region_names, &p));
  dg_coefficients *co = calloc(1, sizeof *co);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, co, DG_ERR_MEMORY, "out of memory");
  co->ncoef = p.ncoef;
  co->K = in->mesh->K;
  co->Np = in->Np;
  co->nregions = p.nreg;
  size_t n = (size_t)co->ncoef * (size_t)co->K * (size_t)co->Np;
  co->values = malloc(sizeof(double) * (n + 1));
  co->region_names = malloc(sizeof(char *) * ((size_t)p.nreg + 1));
  co->region = p.nreg ? malloc(sizeof(int) * ((size_t)co->K + 1)) : NULL;
  DG_CHECK_GOTO(err, done, co->values && co->region_names && (co->region || !p.nreg),
                DG_ERR_MEMORY, "out of memory for %zu coefficient values", n);
  for (int r = 0; r < p.nreg; r++)
    co->region_names[r] = p.names[r];
  err = fill(in, &p, co);
done:
  plan_free(&p);
  if (err != DG_OK) {
    dg_coefficients_destroy(&co);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = co;
  return DG_OK;
}
