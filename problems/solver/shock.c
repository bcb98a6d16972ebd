/* Shock capturing on the device (shock.h): set-up of the sensor's tables,
 * the vertex connectivity of the continuous viscosity, and the launches;
 * partitioned, the two exchanges of the viscosity (shock.h). */
#include "problems/solver/shock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/log.h"
#include "dg/refelem.h"
#include "problems/solver/solver.h"
#include "problems/solver/solver_private.h"
#include "problems/solver/vertex_exchange.h"

struct dg_shock {
  dg_device *dev;
  dg_module *mod;
  dg_kernel *k_sensor, *k_vertex, *k_nodes, *k_faces, *k_limit;
  long long K, n, nv;
  size_t rs;
  int has_sensor, has_limit;
  int av_coef; /* the coefficient that receives the viscosity (-1: no sensor) */
  double eps_max;
  void *hk, *eps, *v2e_off, *v2e, *vav, *e2v, *mapP; /* device arrays */
  void *active;                /* device int: the sensor's flag of any viscosity */
  dg_shock_shape shape[DG_SHOCK_NKERNELS]; /* the cuda launches */
  /* the coefficient tables an inactive dg_shock_viscosity_active last
   * wrote zeros into, unchanged since (NULL: none known) */
  void *zero_cf, *zero_fcf;
  dg_comm *comm; /* partitioned runs: the solver's (the flag's maximum) */
  /* partitioned runs (NULL serially): the vertex maximum over the ranks,
   * and the neighbours' node values of the viscosity into cf's ghost slots
   * of coefficient av_coef (cf_offset bytes into cf) */
  dg_vertex_exchange *vx;
  dg_halo *avhalo;
  size_t cf_offset;
};

/* A name of the flux file as a scalar tree of the state: a scalar field,
 * a component "m[1]", or a scalar let of fields (and params). *comp: the
 * state component of a field's, else -1. */
static int tree_reads_only_state(const dg_flux_node *n, const dg_flux_program *prog, int depth) {
  if (!n || depth > 64)
    return 1;
  switch (n->op) {
  case DG_FLUX_X: case DG_FLUX_T: case DG_FLUX_NORMAL: case DG_FLUX_COEF: case DG_FLUX_GRADQ:
  case DG_FLUX_LDGB: case DG_FLUX_DERIV:
    return 0;
  case DG_FLUX_FIELD:
    return n->side == DG_FLUX_SIDE_NONE;
  case DG_FLUX_LET:
    if (n->side != DG_FLUX_SIDE_NONE ||
        !tree_reads_only_state(dg_flux_let(prog, n->ref)->body, prog, depth + 1))
      return 0;
    break;
  default:
    break;
  }
  for (int i = 0; i < n->nargs; i++)
    if (!tree_reads_only_state(n->args[i], prog, depth))
      return 0;
  return 1;
}

static dg_error resolve_name(dg_flux_program *prog, const char *where, const char *what,
                             const char *name, const dg_flux_node **tree, int *comp) {
  char base[128];
  int c = -1;
  size_t len = strcspn(name, "[");
  DG_CHECK(len > 0 && len < sizeof base, DG_ERR_INPUT, "%s[shock] %s: '%s' is not a name", where,
           what, name);
  memcpy(base, name, len);
  base[len] = 0;
  if (name[len] == '[') {
    char *end = NULL;
    c = (int)strtol(name + len + 1, &end, 10);
    DG_CHECK(end && end[0] == ']' && end[1] == 0 && c >= 0, DG_ERR_INPUT,
             "%s[shock] %s: '%s' is not a field component such as m[0]", where, what, name);
  }
  int f = -1;
  for (int i = 0; i < dg_flux_field_count(prog); i++)
    if (strcmp(dg_flux_field(prog, i)->name, base) == 0)
      f = i;
  if (f >= 0) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    DG_CHECK(fi->ncomp == 1 || c >= 0, DG_ERR_INPUT,
             "%s[shock] %s: field '%s' is a %d-vector; name one component, e.g. %s[0]", where,
             what, base, fi->ncomp, base);
    DG_CHECK(c < fi->ncomp, DG_ERR_INPUT, "%s[shock] %s: '%s' is out of range for field '%s' "
             "(%d components)", where, what, name, base, fi->ncomp);
    dg_flux_node *n = dg_flux_node_new(dg_flux_program_arena(prog), DG_FLUX_FIELD,
                                       (dg_flux_shape){0, 0, 0}, (dg_flux_loc){0, 0, 0}, 0);
    DG_CHECK(n, DG_ERR_MEMORY, "out of memory");
    n->ref = f;
    n->comp = c < 0 ? 0 : c;
    n->side = DG_FLUX_SIDE_NONE;
    *tree = n;
    *comp = fi->offset + (c < 0 ? 0 : c);
    return DG_OK;
  }
  for (int l = 0; l < dg_flux_let_count(prog); l++) {
    const dg_flux_let_info *li = dg_flux_let(prog, l);
    if (strcmp(li->name, base) != 0)
      continue;
    DG_CHECK(c < 0, DG_ERR_INPUT, "%s[shock] %s: '%s': name a scalar let, not a component",
             where, what, name);
    DG_CHECK(li->body->shape.rank == 0, DG_ERR_INPUT,
             "%s[shock] %s: let '%s' is not a scalar", where, what, base);
    DG_CHECK(tree_reads_only_state(li->body, prog, 0), DG_ERR_INPUT,
             "%s[shock] %s: let '%s' must be a function of the fields and params only (no x, t, "
             "coefficients, gradients, traces or n)", where, what, base);
    *tree = li->body;
    *comp = -1;
    return DG_OK;
  }
  DG_RAISE(DG_ERR_INPUT, "%s[shock] %s: '%s' is neither a field nor a let of the flux file",
           where, what, name);
}

/* Vertex-to-element lists (CSR) of the owned elements, vertices renumbered
 * compactly, each element's vertices in that numbering, and the mesh vertex
 * of each compact one (vmesh, nv of them). */
static dg_error build_vertex_maps(const dg_discretization *disc, long long **off,
                                  long long **v2e, long long **e2v, int64_t **vmesh,
                                  long long *nv_out) {
  const dg_mesh *m = disc->mesh;
  int nvk = disc->dim + 1;
  int64_t K = disc->K;
  long long *id = malloc(((size_t)m->Nv + 1) * sizeof *id);
  *e2v = malloc(((size_t)K * nvk + 1) * sizeof **e2v);
  *vmesh = malloc(((size_t)K * nvk + 1) * sizeof **vmesh);
  if (!id || !*e2v || !*vmesh) {
    free(id);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int64_t v = 0; v < m->Nv; v++)
    id[v] = -1;
  long long nv = 0;
  for (int64_t i = 0; i < K * nvk; i++) {
    int64_t v = m->EToV[i];
    if (id[v] < 0) {
      (*vmesh)[nv] = v;
      id[v] = nv++;
    }
    (*e2v)[i] = id[v];
  }
  free(id);
  *off = calloc((size_t)nv + 2, sizeof **off);
  *v2e = malloc(((size_t)K * nvk + 1) * sizeof **v2e);
  DG_CHECK(*off && *v2e, DG_ERR_MEMORY, "out of memory");
  for (int64_t i = 0; i < K * nvk; i++)
    (*off)[(*e2v)[i] + 2]++;
  for (long long v = 0; v < nv; v++)
    (*off)[v + 2] += (*off)[v + 1];
  for (int64_t i = 0; i < K * nvk; i++)
    (*v2e)[(*off)[(*e2v)[i] + 1]++] = i / nvk;
  *nv_out = nv;
  return DG_OK;
}

static dg_error upload_new(dg_device *dev, const void *host, size_t bytes, void **out) {
  DG_CALL(dg_solver_upload_new(dev, host, bytes, out));
  return DG_OK;
}

/* Partitioned: the vertex exchange by the global ids of the compact
 * vertices, and the viscosity's exchange over the state's halo faces
 * (collective: every rank creates its dg_shock, after the solver). */
static dg_error setup_exchanges(dg_shock *s, const dg_solver *sol, const int64_t *vmesh,
                                int av_coef) {
  const dg_halo_spec *spec = sol->halo_spec;
  const dg_partition_local *L = spec->local;
  int64_t *gid = malloc(((size_t)s->nv + 1) * sizeof *gid);
  DG_CHECK(gid, DG_ERR_MEMORY, "out of memory");
  for (long long v = 0; v < s->nv; v++)
    gid[v] = L->global_vertex[vmesh[v]];
  dg_error err = dg_vertex_exchange_create(s->dev, spec->comm, s->nv, gid, (int)s->rs, &s->vx);
  free(gid);
  DG_CALL(err);
  DG_CALL(dg_halo_create_coefficient(s->dev, sol->halo, spec, sol->disc, sol->od, &s->avhalo));
  s->cf_offset = (size_t)av_coef * (size_t)sol->od->K * (size_t)sol->od->np_pad * s->rs;
  if (dg_comm_rank(spec->comm) == 0)
    dg_info("shock capturing (rank 0): %lld of %lld vertices shared with %d rank(s)",
            (long long)dg_vertex_exchange_shared(s->vx), s->nv,
            dg_vertex_exchange_neighbors(s->vx));
  return DG_OK;
}

/* The device tables of the sensor: h/N per element, the vertex maps; sol
 * partitioned (its halo): the exchanges too. */
static dg_error setup_viscosity(dg_shock *s, const dg_discretization *disc,
                                const dg_opdata *od, const dg_solver *sol, int av_coef) {
  size_t rs = s->rs;
  int64_t K = disc->K;
  void *hk = malloc((size_t)K * rs + 1);
  long long *off = NULL, *v2e = NULL, *e2v = NULL;
  int64_t *vmesh = NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, hk, DG_ERR_MEMORY, "out of memory");
  for (int64_t k = 0; k < K; k++) {
    /* disc->h is half the smallest altitude: the element size is 2 h */
    double v = 2.0 * disc->h[k] / disc->N;
    if (rs == 4)
      ((float *)hk)[k] = (float)v;
    else
      ((double *)hk)[k] = v;
  }
  DG_CALL_GOTO(err, done, build_vertex_maps(disc, &off, &v2e, &e2v, &vmesh, &s->nv));
  int nvk = disc->dim + 1;
  DG_CALL_GOTO(err, done, upload_new(s->dev, hk, (size_t)K * rs, &s->hk));
  DG_CALL_GOTO(err, done, upload_new(s->dev, off, ((size_t)s->nv + 1) * sizeof *off, &s->v2e_off));
  DG_CALL_GOTO(err, done, upload_new(s->dev, v2e, (size_t)K * nvk * sizeof *v2e, &s->v2e));
  DG_CALL_GOTO(err, done, upload_new(s->dev, e2v, (size_t)K * nvk * sizeof *e2v, &s->e2v));
  DG_CALL_GOTO(err, done, upload_new(s->dev, od->mapP, (size_t)od->K * od->nfnfp * sizeof(int32_t),
                                      &s->mapP));
  DG_CALL_GOTO(err, done, dg_device_malloc(s->dev, (size_t)K * rs, &s->eps));
  DG_CALL_GOTO(err, done, dg_device_malloc(s->dev, (size_t)s->nv * rs, &s->vav));
  DG_CALL_GOTO(err, done, dg_device_malloc(s->dev, sizeof(int), &s->active));
  if (sol && sol->halo)
    DG_CALL_GOTO(err, done, setup_exchanges(s, sol, vmesh, av_coef));
done:
  free(hk);
  free(off);
  free(v2e);
  free(e2v);
  free(vmesh);
  return err;
}

static const char *at(const char *where) { return where ? where : ""; }

/* The names of the settings against the program: the sensor's tree, the
 * viscosity coefficient, the limiter's quantities (trees in the program's
 * arena). */
static dg_error resolve_names(dg_flux_program *prog, const dg_shock_settings *set,
                              dg_shock_codegen *sc) {
  if (set->sensor && set->sensor[0]) {
    int comp;
    DG_CALL(resolve_name(prog, at(set->where_sensor), "sensor", set->sensor, &sc->sensor,
                         &comp));
    DG_CHECK(set->viscosity && set->viscosity[0], DG_ERR_INPUT,
             "%s[shock] sensor = %s needs viscosity = NAME: the coefficient of the flux file "
             "that receives the artificial viscosity (declare 'coefficients av >= 0' and use "
             "it in the viscous flux)", at(set->where_sensor), set->sensor);
    DG_CHECK(dg_flux_coef_find(prog, set->viscosity, &sc->av_coef) == DG_OK, DG_ERR_INPUT,
             "%s[shock] viscosity = %s: the flux file has no coefficient '%s' (declare "
             "'coefficients %s >= 0' and use it in a second-order term, e.g. dx(%s*dx(u)))",
             at(set->where_viscosity), set->viscosity, set->viscosity, set->viscosity,
             set->viscosity);
  }
  const char *p = set->positivity ? set->positivity : "";
  while (*p) {
    char name[128];
    size_t len = strcspn(p, ",");
    size_t a = 0, e = len;
    while (a < e && p[a] == ' ')
      a++;
    while (e > a && p[e - 1] == ' ')
      e--;
    DG_CHECK(e > a && e - a < sizeof name, DG_ERR_INPUT,
             "%s[shock] positivity: an empty name in '%s'", at(set->where_positivity),
             set->positivity);
    DG_CHECK(sc->npositive < DG_SHOCK_MAX_POSITIVE, DG_ERR_INPUT,
             "%s[shock] positivity: at most %d quantities", at(set->where_positivity),
             DG_SHOCK_MAX_POSITIVE);
    memcpy(name, p + a, e - a);
    name[e - a] = 0;
    int j = sc->npositive++;
    DG_CALL(resolve_name(prog, at(set->where_positivity), "positivity", name, &sc->positive[j],
                         &sc->positive_comp[j]));
    p += len + (p[len] == ',');
  }
  return DG_OK;
}

dg_error dg_shock_check(dg_flux_program *prog, const dg_shock_settings *set) {
  dg_shock_codegen sc;
  memset(&sc, 0, sizeof sc);
  DG_CALL(resolve_names(prog, set, &sc));
  return DG_OK;
}

static dg_error describe(const dg_discretization *disc, dg_flux_program *prog,
                         const dg_physics *ph, const dg_shock_settings *set, dg_shock_codegen *sc,
                         int *deg, double *lam, double *w) {
  const dg_refelem *re = disc->re;
  int np = re->Np, dim = re->dim;
  memset(sc, 0, sizeof *sc);
  DG_CALL(resolve_names(prog, set, sc));
  if (sc->sensor) {
    DG_CHECK(set->kappa > 0 && set->max_viscosity >= 0 && set->scale >= 0, DG_ERR_INPUT,
             "[shock] kappa must be positive, scale and max_viscosity not negative");
    dg_refelem_mode_degrees(dim, re->N, deg);
    sc->invV = re->invV;
    sc->mode_degree = deg;
    sc->s0 = -(set->c0 + 4.0 * log10((double)re->N));
    sc->kappa = set->kappa;
    sc->eps_scale = set->scale;
    sc->eps_max = set->max_viscosity;
    const double *rst[3] = {re->r, re->s, re->t};
    for (int i = 0; i < np; i++) { /* dg/discretization.c's affine map */
      double sum = 0;
      for (int a = 0; a < dim; a++) {
        lam[i * (dim + 1) + a + 1] = 0.5 * (1.0 + rst[a][i]);
        sum += lam[i * (dim + 1) + a + 1];
      }
      lam[i * (dim + 1)] = 1.0 - sum;
    }
    sc->vertex_weights = lam;
  }
  if (sc->npositive > 0) {
    for (int i = 0; i < np; i++) { /* w = M 1: the integration weights of the nodes */
      w[i] = 0;
      for (int j = 0; j < np; j++)
        w[i] += re->M[i * np + j];
    }
    sc->weights = w;
    sc->positive_eps = set->positivity_eps;
  }
  (void)ph;
  return DG_OK;
}

static dg_error load(dg_shock *s, const char *source) {
  DG_CALL(dg_device_compile(s->dev, "dg_shock", source, NULL, 0, &s->mod));
  if (s->has_sensor) {
    DG_CALL(dg_module_get_kernel(s->mod, "dg_shock_sensor", &s->k_sensor));
    DG_CALL(dg_module_get_kernel(s->mod, "dg_shock_vertex", &s->k_vertex));
    DG_CALL(dg_module_get_kernel(s->mod, "dg_shock_nodes", &s->k_nodes));
    DG_CALL(dg_module_get_kernel(s->mod, "dg_shock_faces", &s->k_faces));
  }
  if (s->has_limit)
    DG_CALL(dg_module_get_kernel(s->mod, "dg_shock_limit", &s->k_limit));
  return DG_OK;
}

/* The description's tables, owned here for the generator's call. */
typedef struct {
  int *deg;
  double *lam, *w;
} tables;

static dg_error generate(const dg_discretization *disc, const dg_opdata *od,
                         dg_flux_program *prog, const dg_physics *ph,
                         const dg_shock_settings *set, dg_codegen_target tg, int is_float,
                         dg_shock_codegen *sc, char **source) {
  int np = disc->Np;
  tables t = {calloc((size_t)np, sizeof(int)), calloc((size_t)np * 4, sizeof(double)),
              calloc((size_t)np, sizeof(double))};
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, t.deg && t.lam && t.w, DG_ERR_MEMORY, "out of memory");
  DG_CALL_GOTO(err, done, describe(disc, prog, ph, set, sc, t.deg, t.lam, t.w));
  DG_CHECK_GOTO(err, done, sc->sensor || sc->npositive > 0, DG_ERR_INPUT,
                "[shock] asks for neither a sensor nor positivity");
  dg_element_ops el = dg_element_ops_of(disc->re);
  DG_CALL_GOTO(err, done, dg_codegen_shock(tg, &el, ph, is_float,
                                           od->element_major ? DG_LAYOUT_ELEMENT_MAJOR
                                                             : DG_LAYOUT_FIELD_MAJOR,
                                           od->np_pad, sc, source));
done:
  free(t.deg);
  free(t.lam);
  free(t.w);
  return err;
}

dg_error dg_shock_source(const dg_discretization *disc, const dg_opdata *od,
                         dg_flux_program *prog, const dg_physics *ph,
                         const dg_shock_settings *set, dg_codegen_target tg, int is_float,
                         char **source) {
  dg_shock_codegen sc;
  DG_CALL(generate(disc, od, prog, ph, set, tg, is_float, &sc, source));
  return DG_OK;
}

/* dg_shock_create_source, for solver sol when given: partitioned (its
 * halo), the exchanges of the viscosity. */
static dg_error create(dg_device *dev, const dg_discretization *disc, const dg_opdata *od,
                       dg_flux_program *prog, const dg_physics *ph, const dg_shock_settings *set,
                       int is_float, const char *source, const dg_solver *dump,
                       const dg_solver *sol, dg_shock **out) {
  *out = NULL;
  int partitioned = sol && sol->halo;
  DG_CHECK(partitioned || od->K == od->K_owned, DG_ERR_ARG,
           "dg_shock: %lld element slots beside the %lld owned ones but no halo: a partitioned "
           "solver's shock capturing comes from dg_shock_create_for",
           (long long)(od->K - od->K_owned), (long long)od->K_owned);
  dg_shock *s = calloc(1, sizeof *s);
  char *own = NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, fail, s, DG_ERR_MEMORY, "out of memory");
  s->dev = dev;
  s->rs = is_float ? 4 : 8;
  s->K = od->K;
  s->n = od->K_owned;
  dg_shock_codegen sc;
  dg_codegen_target tg = dg_device_get_info(dev)->backend == DG_BACKEND_CUDA ? DG_CODEGEN_CUDA
                                                                             : DG_CODEGEN_C;
  DG_CALL_GOTO(err, fail, generate(disc, od, prog, ph, set, tg, is_float, &sc, &own));
  s->has_sensor = sc.sensor != NULL;
  s->has_limit = sc.npositive > 0;
  s->eps_max = s->has_sensor ? sc.eps_max : 0;
  s->av_coef = s->has_sensor ? sc.av_coef : -1;
  s->comm = partitioned ? sol->halo_spec->comm : NULL;
  dg_element_ops el = dg_element_ops_of(disc->re);
  for (int w = 0; w < DG_SHOCK_NKERNELS; w++)
    s->shape[w] = dg_codegen_shock_shape(&el, ph, is_float, (dg_shock_kernel_id)w);
  if (dump)
    DG_CALL_GOTO(err, fail,
                 dg_solver_dump(dump, tg == DG_CODEGEN_CUDA ? "dg_shock.cu" : "dg_shock.c",
                                source ? source : own));
  DG_CALL_GOTO(err, fail, load(s, source ? source : own));
  if (s->has_sensor)
    DG_CALL_GOTO(err, fail, setup_viscosity(s, disc, od, partitioned ? sol : NULL, sc.av_coef));
  free(own);
  *out = s;
  return DG_OK;
fail:
  free(own);
  dg_shock_destroy(&s);
  return err;
}

dg_error dg_shock_create_source(dg_device *dev, const dg_discretization *disc,
                                const dg_opdata *od, dg_flux_program *prog,
                                const dg_physics *ph, const dg_shock_settings *set,
                                int is_float, const char *source, const dg_solver *dump,
                                dg_shock **out) {
  DG_CALL(create(dev, disc, od, prog, ph, set, is_float, source, dump, NULL, out));
  return DG_OK;
}

dg_error dg_shock_create(dg_device *dev, const dg_discretization *disc, const dg_opdata *od,
                         dg_flux_program *prog, const dg_physics *ph,
                         const dg_shock_settings *set, int is_float, dg_shock **out) {
  DG_CALL(dg_shock_create_source(dev, disc, od, prog, ph, set, is_float, NULL, NULL, out));
  return DG_OK;
}

void dg_shock_destroy(dg_shock **sp) {
  if (!sp || !*sp)
    return;
  dg_shock *s = *sp;
  void *bufs[] = {s->hk, s->eps, s->v2e_off, s->v2e, s->vav, s->e2v, s->mapP, s->active};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i])
      dg_device_free(s->dev, bufs[i]);
  dg_vertex_exchange_destroy(&s->vx);
  dg_halo_destroy(&s->avhalo);
  dg_module_destroy(&s->mod);
  free(s);
  *sp = NULL;
}

/* Kernel `which` over items elements (vertices): cuda blocks of its shape,
 * cpu chunks of the items. */
static dg_error launch(dg_shock *s, int which, dg_kernel *k, long long items, void **args) {
  if (items <= 0)
    return DG_OK;
  const dg_shock_shape *sh = &s->shape[which];
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.block[0] = (unsigned)(sh->threads_per_item * sh->items_per_block);
  l.grid[0] = (unsigned)((items + sh->items_per_block - 1) / sh->items_per_block);
  l.grid[1] = l.grid[2] = l.block[1] = l.block[2] = 1;
  l.shared_bytes = sh->shared_bytes;
  l.items = items;
  l.chunk = 0;
  DG_CALL(dg_kernel_launch(k, &l, args, NULL));
  return DG_OK;
}

/* Kernel `which` of the module (shock.h's numbering) on q, cf, fcf. */
static dg_error launch_one(dg_shock *s, int which, void *q, void *cf, void *fcf) {
  switch (which) {
  case DG_SHOCK_KSENSOR: {
    void *a[] = {&q, &s->hk, &s->eps, &s->active, &s->K, &s->n};
    return launch(s, which, s->k_sensor, s->n, a);
  }
  case DG_SHOCK_KVERTEX: {
    void *a[] = {&s->eps, &s->v2e_off, &s->v2e, &s->vav, &s->nv};
    return launch(s, which, s->k_vertex, s->nv, a);
  }
  case DG_SHOCK_KNODES: {
    s->zero_cf = s->zero_fcf = NULL;
    void *a[] = {&s->vav, &s->e2v, &cf, &fcf, &s->K, &s->n};
    return launch(s, which, s->k_nodes, s->n, a);
  }
  case DG_SHOCK_KFACES: {
    s->zero_cf = s->zero_fcf = NULL;
    void *a[] = {&s->vav, &s->e2v, &cf, &s->mapP, &fcf, &s->K, &s->n};
    return launch(s, which, s->k_faces, s->n, a);
  }
  default: {
    void *a[] = {&q, &s->K, &s->n};
    return launch(s, which, s->k_limit, s->n, a);
  }
  }
}

/* The sensor's element values spread into cf and fcf: the vertex maximum,
 * the node values, the exterior traces (partitioned: with their
 * exchanges, shock.h). */
static dg_error spread(dg_shock *s, void *q, void *cf, void *fcf) {
  DG_CALL(launch_one(s, DG_SHOCK_KVERTEX, q, cf, fcf));
  if (s->vx) /* a vertex's elements on other ranks */
    DG_CALL(dg_vertex_exchange_max(s->vx, s->vav));
  DG_CALL(launch_one(s, DG_SHOCK_KNODES, q, cf, fcf));
  if (s->avhalo) { /* the neighbours' node values, which dg_shock_faces reads through mapP */
    void *av = dg_device_offset(cf, s->cf_offset);
    DG_CALL(dg_halo_start(s->avhalo, av));
    DG_CALL(dg_halo_finish(s->avhalo, av));
  }
  DG_CALL(launch_one(s, DG_SHOCK_KFACES, q, cf, fcf));
  return DG_OK;
}

dg_error dg_shock_viscosity(dg_shock *s, void *q, void *cf, void *fcf) {
  if (!s->has_sensor)
    return DG_OK;
  DG_CHECK(cf && fcf, DG_ERR_ARG, "shock capturing needs the coefficient tables");
  DG_CALL(launch_one(s, DG_SHOCK_KSENSOR, q, cf, fcf));
  DG_CALL(spread(s, q, cf, fcf));
  return DG_OK;
}

dg_error dg_shock_viscosity_active(dg_shock *s, void *q, void *cf, void *fcf, int *active) {
  DG_CHECK(active, DG_ERR_ARG, "dg_shock_viscosity_active: NULL active");
  *active = 0;
  if (!s->has_sensor)
    return DG_OK;
  DG_CHECK(cf && fcf, DG_ERR_ARG, "shock capturing needs the coefficient tables");
  /* the flag only here: dg_shock_viscosity leaves it alone (no memset a stage) */
  DG_CALL(dg_device_zero(s->dev, s->active, sizeof(int)));
  DG_CALL(launch_one(s, DG_SHOCK_KSENSOR, q, cf, fcf));
  int flag = 0;
  DG_CALL(dg_device_download(s->dev, &flag, s->active, sizeof flag));
  /* [0]: some element viscous, [1]: the tables may hold other than zeros;
   * maxima over the ranks, so that every rank takes the same branch (the
   * spreading's exchanges are collective) */
  double v[2] = {flag != 0, !(s->zero_cf == cf && s->zero_fcf == fcf)};
  if (s->comm)
    DG_CALL(dg_comm_allreduce_max(s->comm, v, 2));
  *active = v[0] > 0;
  if (v[0] > 0 || v[1] > 0)
    DG_CALL(spread(s, q, cf, fcf));
  if (!*active) { /* every element's eps is zero: so are the tables now */
    s->zero_cf = cf;
    s->zero_fcf = fcf;
  }
  return DG_OK;
}

void dg_shock_forget_coefficients(dg_shock *s) {
  if (s)
    s->zero_cf = s->zero_fcf = NULL;
}

dg_error dg_shock_limit(dg_shock *s, void *q) {
  if (!s->has_limit)
    return DG_OK;
  DG_CALL(launch_one(s, DG_SHOCK_KLIMIT, q, NULL, NULL));
  return DG_OK;
}

const char *dg_shock_kernel_name(int which) {
  static const char *names[DG_SHOCK_NKERNELS] = {"sensor", "vertexmax", "av nodes", "av faces",
                                                 "limiter"};
  return which >= 0 && which < DG_SHOCK_NKERNELS ? names[which] : "?";
}

int dg_shock_kernel_launches(const dg_shock *s, int which) {
  return which >= 0 && which < DG_SHOCK_NKERNELS && (which < 4 ? s->has_sensor : s->has_limit);
}

dg_error dg_shock_launch_kernel(dg_shock *s, const dg_solver *solver, int which) {
  DG_CHECK(dg_shock_kernel_launches(s, which), DG_ERR_ARG,
           "dg_shock: kernel %d is not in this module", which);
  DG_CHECK(which == 4 || (solver->cf && solver->fcf), DG_ERR_ARG,
           "shock capturing needs the coefficient tables");
  DG_CALL(launch_one(s, which, solver->q, solver->cf, solver->fcf));
  return DG_OK;
}

dg_error dg_shock_element_viscosity(dg_shock *s, double *out) {
  DG_CHECK(s->has_sensor, DG_ERR_ARG, "no sensor");
  void *buf = malloc((size_t)s->n * s->rs + 1);
  DG_CHECK(buf, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_device_download(s->dev, buf, s->eps, (size_t)s->n * s->rs);
  for (long long k = 0; k < s->n && err == DG_OK; k++)
    out[k] = s->rs == 4 ? ((float *)buf)[k] : ((double *)buf)[k];
  free(buf);
  DG_CALL(err);
  return DG_OK;
}

double dg_shock_max_viscosity(const dg_shock *s) { return s->eps_max; }

dg_error dg_shock_create_for(const dg_solver *solver, const dg_discretization *disc,
                             dg_flux_program *prog, const dg_physics *ph,
                             const dg_shock_settings *set, int is_float, dg_shock **out) {
  DG_CALL(create(dg_solver_device(solver), disc, dg_solver_opdata(solver), prog, ph, set,
                 is_float, NULL, solver, solver, out));
  return DG_OK;
}

int dg_shock_viscosity_coefficient(const dg_shock *s) { return s->av_coef; }
