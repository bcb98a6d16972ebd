#include "problems/driver/problem.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/comm_h5.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/timing.h"
#include "meshes/builtin.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_h5.h"
#include "dg/filter.h"
#include "meshes/mesh_order.h"
#include "meshes/mesh_validate.h"
#include "operators/flux_consistency.h"
#include "operators/kernel_knobs.h"
#include "problems/solver/coefficients.h"

/* Where the value of section.key was written ("file:line:col" or
 * "<command line>"), for a message about it; buf holds WHERE_MAX bytes. */
enum { WHERE_MAX = 600 };
#define AT(cfg, sec, key) dg_config_where((cfg), (sec), (key), loc, sizeof loc)

/* Parse up to max numbers from a whitespace-separated list. */
static dg_error parse_list(const dg_config *cfg, const char *key, const char *text, int want,
                           int integers, double *vals) {
  char loc[WHERE_MAX];
  const char *p = text;
  int n = 0;
  while (*p) {
    while (isspace((unsigned char)*p))
      p++;
    if (!*p)
      break;
    char *end;
    double v = strtod(p, &end);
    DG_CHECK(end != p && (*end == '\0' || isspace((unsigned char)*end)), DG_ERR_INPUT,
             "%s: [mesh] %s = '%s': '%.*s' is not a number", AT(cfg, "mesh", key), key, text,
             (int)strcspn(p, " \t"), p);
    DG_CHECK(!integers || (v == (double)(int64_t)v && v >= 1 && v <= 1e9), DG_ERR_INPUT,
             "%s: [mesh] %s = '%s': cell counts must be whole numbers in 1..1e9",
             AT(cfg, "mesh", key), key, text);
    DG_CHECK(n < want, DG_ERR_INPUT,
             "%s: [mesh] %s = '%s' has more than %d values for a %dD mesh",
             AT(cfg, "mesh", key), key, text, want, want);
    vals[n++] = v;
    p = end;
  }
  DG_CHECK(n == want, DG_ERR_INPUT,
           "%s: [mesh] %s = '%s' needs %d values for a %dD mesh", AT(cfg, "mesh", key), key,
           text, want, want);
  return DG_OK;
}

/* [mesh] type = file: Gmsh input or dgrun's HDF5 mesh format, validated. */
static dg_error read_mesh_file(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  const char *path = NULL, *deftag = NULL;
  double size = 0;
  int64_t geo_order = 1;
  DG_CALL(dg_config_get_string(cfg, "mesh", "file", &path));
  DG_CHECK(path[0], DG_ERR_INPUT, "%s: [mesh] type = file needs [mesh] file = <mesh file>",
           AT(cfg, "mesh", "type"));
  DG_CALL(dg_config_get_path(cfg, "mesh", "file", &path));
  DG_CALL(dg_config_get_double(cfg, "mesh", "size", &size));
  DG_CALL(dg_config_get_int(cfg, "mesh", "geometry_order", &geo_order));
  DG_CHECK(geo_order >= 1 && geo_order <= DG_MESH_MAX_GEOM_ORDER, DG_ERR_INPUT,
           "%s: [mesh] geometry_order = %lld must be 1 to %d", AT(cfg, "mesh", "geometry_order"),
           (long long)geo_order, DG_MESH_MAX_GEOM_ORDER);
  DG_CALL(dg_config_get_string(cfg, "mesh", "default_tag", &deftag));
  size_t len = strlen(path);
  if (geo_order > 1 && !(len > 4 && strcmp(path + len - 4, ".geo") == 0) && p->rank == 0)
    dg_warn("%s: [mesh] geometry_order = %lld applies to a .geo only; '%s' keeps its own "
            "geometry order",
            AT(cfg, "mesh", "geometry_order"), (long long)geo_order, path);
  if (len > 3 && strcmp(path + len - 3, ".h5") == 0) {
    int nparts = 0;
    if (p->nranks > 1)
      DG_CALL(dg_mesh_h5_nparts(path, &nparts));
    if (nparts > 1 && nparts == p->nranks) {
      /* Checked when it was imported; each rank reads its part alone. */
      DG_CALL(dg_mesh_h5_read_part(path, p->rank, &p->part));
      p->mesh = p->part->mesh;
      p->dim = p->mesh->dim;
      if (p->rank == 0)
        dg_info("%s has %d parts: each rank reads only its own", path, nparts);
      return DG_OK;
    }
    if (nparts > 1 && p->rank == 0)
      dg_info("%s has %d parts but the run has %d ranks: reading it whole and "
              "partitioning it again",
              path, nparts, p->nranks);
    DG_CALL(dg_mesh_h5_read(path, &p->mesh, NULL));
  } else {
    DG_CALL(dg_mesh_read_gmsh_order(path, size, (int)geo_order, &p->mesh));
  }
  dg_mesh_validate_options vo;
  memset(&vo, 0, sizeof vo);
  vo.default_tag = deftag[0] ? deftag : NULL;
  int ph = dg_timing_begin("mesh validation");
  DG_CALL(dg_mesh_validate(p->mesh, &vo, NULL));
  dg_timing_end(ph);
  p->dim = p->mesh->dim;
  return DG_OK;
}

/* [mesh] periodic: the axes of a dim-dimensional mesh it names, into per. */
static dg_error periodic_axes(const dg_config *cfg, int dim, int per[3]) {
  char loc[WHERE_MAX];
  const char *periodic = NULL;
  DG_CALL(dg_config_get_string(cfg, "mesh", "periodic", &periodic));
  if (strcmp(periodic, "none") == 0)
    return DG_OK;
  for (const char *c = periodic; *c; c++) {
    if (isspace((unsigned char)*c) || *c == ',')
      continue;
    int a = *c == 'x' ? 0 : *c == 'y' ? 1 : *c == 'z' ? 2 : -1;
    DG_CHECK(a >= 0 && a < dim, DG_ERR_INPUT,
             "%s: [mesh] periodic = '%s': '%c' is not an axis of a %dD mesh (use x%s%s or none)",
             AT(cfg, "mesh", "periodic"), periodic, *c, dim, dim > 1 ? " y" : "",
             dim > 2 ? " z" : "");
    per[a] = 1;
  }
  return DG_OK;
}

static dg_error build_mesh(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  int type = 0;
  DG_CALL(dg_config_get_enum(cfg, "mesh", "type", &type));
  if (type == 3)
    return read_mesh_file(p);
  p->dim = type + 1;
  const char *cells = NULL, *lower = NULL, *upper = NULL;
  DG_CALL(dg_config_get_string(cfg, "mesh", "cells", &cells));
  DG_CHECK(cells[0], DG_ERR_INPUT, "%s: [mesh] type = %s needs [mesh] cells",
           AT(cfg, "mesh", "type"), type == 0 ? "interval" : type == 1 ? "rectangle" : "box");
  DG_CALL(dg_config_get_string(cfg, "mesh", "lower", &lower));
  DG_CALL(dg_config_get_string(cfg, "mesh", "upper", &upper));
  double nd[3] = {0}, lo[3] = {0}, hi[3] = {0};
  DG_CALL(parse_list(cfg, "cells", cells, p->dim, 1, nd));
  /* lower/upper default to 3 values; only the first dim are used */
  if (lower[0])
    DG_CALL(parse_list(cfg, "lower", lower, p->dim, 0, lo));
  if (upper[0])
    DG_CALL(parse_list(cfg, "upper", upper, p->dim, 0, hi));
  else
    hi[0] = hi[1] = hi[2] = 1;
  int64_t n[3];
  int per[3] = {0, 0, 0};
  for (int a = 0; a < p->dim; a++) {
    n[a] = (int64_t)nd[a];
    DG_CHECK(hi[a] > lo[a], DG_ERR_INPUT,
             "%s: [mesh] upper %g must exceed lower %g along axis %c",
             AT(cfg, "mesh", upper[0] ? "upper" : "lower"), hi[a], lo[a], "xyz"[a]);
  }
  double total = 1;
  for (int a = 0; a < p->dim; a++)
    total *= (double)n[a];
  DG_CHECK(total <= 5e8, DG_ERR_INPUT,
           "%s: [mesh] cells = '%s' gives %.3g cells, more than this build handles (5e8)",
           AT(cfg, "mesh", "cells"), cells, total);
  /* The mesh alone holds about 100 bytes per simplex (vertex ids, face
   * tags, connectivity): refuse what cannot fit in this machine's memory
   * before allocating any of it (rather than being killed half way). */
  double simplices = total * (p->dim == 1 ? 1 : p->dim == 2 ? 2 : 6);
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  DG_CHECK(phys <= 0 || simplices * 100 <= phys, DG_ERR_MEMORY,
           "%s: [mesh] cells = '%s' gives %.3g elements; the mesh alone needs about %.3g GB "
           "of memory, this machine has %.3g GB",
           AT(cfg, "mesh", "cells"), cells, simplices, simplices * 100 / 1e9, phys / 1e9);
  DG_CALL(periodic_axes(cfg, p->dim, per));
  DG_CALL(dg_builtin_mesh(p->dim, lo, hi, n, per, &p->mesh));
  return DG_OK;
}

/* The mesh, numbered ([mesh] order) and oriented. */
static dg_error load_mesh(dg_problem *p) {
  int ph = dg_timing_begin("mesh (build or read)");
  DG_CALL(build_mesh(p));
  dg_timing_end(ph);
  int numbering = 0;
  DG_CALL(dg_config_get_enum(p->cfg, "mesh", "order", &numbering));
  p->element_order = "input";
  if (numbering == 0 && !p->part) { /* a part read alone keeps the file's numbering */
    ph = dg_timing_begin("mesh element order");
    DG_CALL(dg_mesh_order_hilbert(p->mesh, NULL));
    dg_timing_end(ph);
    p->element_order = "hilbert";
  }
  /* the curved kernels run over the first elements (dg/opdata.h) */
  if (!p->part)
    DG_CALL(dg_mesh_order_curved_first(p->mesh, NULL));
  int64_t nflipped = 0;
  ph = dg_timing_begin("mesh orientation");
  DG_CALL(dg_mesh_orient(p->mesh, &nflipped));
  dg_timing_end(ph);
  return DG_OK;
}

/* [boundaries]: every tag of the mesh maps to a boundary condition. */
static dg_error map_boundaries(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  p->tag_to_bc = malloc(sizeof(int) * (size_t)(p->mesh->ntags + 1));
  DG_CHECK(p->tag_to_bc, DG_ERR_MEMORY, "out of memory");
  for (int t = 0; t < p->mesh->ntags; t++)
    p->tag_to_bc[t] = -1;
  const char *tag;
  for (size_t i = 0; (tag = dg_config_key_at(cfg, "boundaries", i)); i++) {
    int id;
    DG_CALL(dg_mesh_tag_find(p->mesh, tag, &id));
    const char *bcname = NULL;
    DG_CALL(dg_config_get_string(cfg, "boundaries", tag, &bcname));
    int bc;
    DG_CALL(dg_flux_boundary_find(p->program, bcname, &bc));
    p->tag_to_bc[id] = bc;
  }
  for (int t = 0; t < p->mesh->ntags; t++)
    DG_CHECK(p->tag_to_bc[t] >= 0, DG_ERR_INPUT,
             "%s: the mesh has boundary tag '%s' but [boundaries] gives it no boundary "
             "condition (add '%s = <name>' with a boundary of %s, or make the axis periodic)",
             dg_config_name(cfg), p->mesh->tag_names[t], p->mesh->tag_names[t], "the flux file");
  return DG_OK;
}

/* The numerical fluxes against the volume terms' surface forms
 * (operators/flux_consistency.h), at a point inside each of up to 8 elements
 * spread over the mesh (states from the initial condition there are the
 * problem's own, physical ones). */
static dg_error check_flux_consistency(dg_problem *p, const char *flux_path) {
  int mode = 0;
  DG_CALL(dg_config_get_enum(p->cfg, "problem", "check_flux_consistency", &mode));
  const dg_mesh *m = p->mesh;
  enum { NPOINTS = 8 };
  double pts[NPOINTS * DG_MESH_MAX_DIM];
  int np = 0, nv = m->dim + 1;
  for (int j = 0; j < NPOINTS && m->K > 0; j++, np++) {
    int64_t k = (int64_t)((double)m->K * (j + 0.5) / NPOINTS);
    double w[DG_MESH_MAX_DIM + 1], sum = 0;
    for (int v = 0; v < nv; v++) /* barycentric weights, off the faces */
      sum += w[v] = 1.0 + (double)((j * 7 + v * 3) % 5);
    for (int d = 0; d < m->dim; d++) {
      double x = 0;
      for (int v = 0; v < nv; v++)
        x += w[v] / sum * m->VX[m->EToV[k * nv + v] * m->dim + d];
      pts[np * m->dim + d] = x;
    }
  }
  for (int f = 0; f < dg_flux_field_count(p->program) && mode != DG_FLUX_CONSISTENCY_OFF; f++) {
    dg_flux_consistency_result res;
    char why[1024];
    DG_CALL(dg_flux_consistency_field(p->program, f, pts, np, &res, why, sizeof why));
    dg_flux_loc at = dg_flux_field(p->program, f)->flux->loc; /* the flux statement's */
    if (res == DG_FLUX_SKIPPED)
      dg_info("%s:%d:%d: %s", flux_path, at.line, at.col, why);
    else if (res == DG_FLUX_INCONSISTENT && mode == DG_FLUX_CONSISTENCY_WARN)
      dg_warn("%s:%d:%d: %s", flux_path, at.line, at.col, why);
    else if (res == DG_FLUX_INCONSISTENT)
      DG_RAISE(DG_ERR_INPUT, "%s:%d:%d: error: %s", flux_path, at.line, at.col, why);
  }
  return DG_OK;
}

/* [problem] name, or the cfg file's base name up to its first '.'. */
static dg_error load_name(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  const char *name = NULL;
  DG_CALL(dg_config_get_string(cfg, "problem", "name", &name));
  if (!name[0]) {
    const char *base = strrchr(dg_config_name(cfg), '/');
    base = base ? base + 1 : dg_config_name(cfg);
    size_t len = strcspn(base, ".");
    p->name = malloc(len + 1);
    DG_CHECK(p->name, DG_ERR_MEMORY, "out of memory");
    memcpy(p->name, base, len);
    p->name[len] = '\0';
  } else {
    p->name = strdup(name);
    DG_CHECK(p->name, DG_ERR_MEMORY, "out of memory");
  }
  for (const char *c = p->name; *c; c++)
    DG_CHECK(isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.', DG_ERR_INPUT,
             "%s: [problem] name '%s' may only hold letters, digits, '_', '-' and '.' "
             "(it names output files)",
             AT(cfg, "problem", "name"), p->name);
  return DG_OK;
}

/* [problem] ldg_beta: before the physics is built from the program, which
 * copies it (operators/physics.c). */
static dg_error load_ldg_beta(dg_problem *p) {
  char loc[WHERE_MAX];
  double beta;
  DG_CALL(dg_config_get_double(p->cfg, "problem", "ldg_beta", &beta));
  /* |beta| <= 1/2: the one-sided choice of Cockburn & Shu 1998 at the ends */
  DG_CHECK(beta >= -0.5 && beta <= 0.5, DG_ERR_INPUT,
           "%s: [problem] ldg_beta = %g must be in [-0.5, 0.5] (0.5: one-sided, the "
           "default; 0: central)", AT(p->cfg, "problem", "ldg_beta"), beta);
  return dg_flux_set_ldg_beta(p->program, beta);
}

/* The flux program: from text (a checkpoint's, named `name` in messages)
 * or from the [problem] flux file; then the [params] and [boundaries]. */
static dg_error load_flux(dg_problem *p, const char *text, size_t len, const char *name) {
  const dg_config *cfg = p->cfg;
  int ph = dg_timing_begin("flux file");
  if (text) {
    p->flux_text = malloc(len + 1);
    if (p->flux_text) {
      memcpy(p->flux_text, text, len);
      p->flux_text[len] = '\0';
    }
    p->flux_len = len;
  } else {
    DG_CALL(dg_config_get_path(cfg, "problem", "flux", &name));
    DG_CALL(dg_flux_read_file(name, &p->flux_text, &p->flux_len));
  }
  p->flux_name = strdup(name);
  DG_CHECK(p->flux_text && p->flux_name, DG_ERR_MEMORY, "out of memory");
  DG_CALL(dg_flux_parse_buffer(p->flux_text, p->flux_len, p->flux_name, p->dim, &p->program,
                               NULL));
  dg_timing_end(ph);
  const char *pname;
  for (size_t i = 0; (pname = dg_config_key_at(cfg, "params", i)); i++) {
    double v;
    DG_CALL(dg_config_get_double(cfg, "params", pname, &v));
    DG_CALL(dg_flux_set_param(p->program, pname, v));
  }
  DG_CALL(load_ldg_beta(p));
  DG_CALL(map_boundaries(p));
  /* names and expressions of [regions] / [coefficients] now; their values
   * per node once the discretization exists (problems/driver/run.c) */
  DG_CALL(dg_coefficients_check(p->program, p->flux_name, cfg, p->dim, p->mesh->nregions,
                                p->mesh->region_names));
  DG_CALL(check_flux_consistency(p, p->flux_name));
  return DG_OK;
}

/* [time] divergence_factor and divergence_window: a number, or off (0). */
static dg_error divergence_key(const dg_config *cfg, const char *key, double min, double *v) {
  char loc[WHERE_MAX];
  const char *text = NULL;
  DG_CALL(dg_config_get_string(cfg, "time", key, &text));
  *v = 0;
  if (strcmp(text, "off") == 0)
    return DG_OK;
  char *end = NULL;
  *v = strtod(text, &end);
  DG_CHECK(end != text && *end == '\0' && isfinite(*v) && (*v == 0 || *v >= min), DG_ERR_INPUT,
           "%s: [time] %s = '%s' must be off, 0 or a number >= %g", AT(cfg, "time", key), key,
           text, min);
  return DG_OK;
}

/* [discretization] filter and its parameters (checked against N here, so
 * that a bad value is refused before any kernel is generated). */
static dg_error filter_keys(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  DG_CALL(dg_config_get_enum(cfg, "discretization", "filter", &p->filter));
  int64_t nc = 0, s = 0;
  DG_CALL(dg_config_get_int(cfg, "discretization", "filter_cutoff", &nc));
  DG_CALL(dg_config_get_int(cfg, "discretization", "filter_order", &s));
  DG_CALL(dg_config_get_double(cfg, "discretization", "filter_alpha", &p->filter_params.alpha));
  p->filter_params.cutoff = nc < 0 || nc > 64 ? -1 : (int)nc;
  p->filter_params.order = s < 0 || s > 1000 ? -1 : (int)s;
  if (!p->filter)
    return DG_OK;
  dg_error e = dg_filter_check(&p->filter_params, p->order);
  if (e != DG_OK) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", dg_error_message());
    dg_error_clear();
    DG_CHECK(0, DG_ERR_INPUT, "%s: [discretization] %s", AT(cfg, "discretization", "filter"),
             msg);
  }
  return DG_OK;
}

static dg_error divergence_keys(dg_problem *p) {
  char loc[WHERE_MAX];
  double f, w;
  DG_CALL(divergence_key(p->cfg, "divergence_factor", 1, &f));
  DG_CALL(divergence_key(p->cfg, "divergence_window", 1, &w));
  DG_CHECK(w == floor(w) && w <= 1e15, DG_ERR_INPUT,
           "%s: [time] divergence_window = %g must be a whole number of steps",
           AT(p->cfg, "time", "divergence_window"), w);
  p->divergence_factor = f > 0 && w > 0 ? f : 0;
  p->divergence_window = f > 0 && w > 0 ? (int64_t)w : 0;
  return DG_OK;
}

/* [time] key: auto (*v = 0) or a positive number. */
static dg_error auto_or_positive(const dg_config *cfg, const char *key, double *v) {
  char loc[WHERE_MAX];
  const char *text = NULL;
  DG_CALL(dg_config_get_string(cfg, "time", key, &text));
  *v = 0;
  if (strcmp(text, "auto") == 0)
    return DG_OK;
  char *end = NULL;
  *v = strtod(text, &end);
  DG_CHECK(end != text && *end == '\0' && isfinite(*v) && *v > 0, DG_ERR_INPUT,
           "%s: [time] %s = %s must be positive (or auto)", AT(cfg, "time", key), key, text);
  return DG_OK;
}

/* Where dt comes from: [time] dt, [time] wave_speed (as before, bit for
 * bit), or the flux file's wave_speed computed on the device
 * (p->speed_computed; check_wave_speed_source below).  cfl = auto: 0.5
 * with a given speed (as before), else the scheme's dg_rk_default_cfl
 * (problems/PROBLEM_CFG.md has the measured limits). */
static dg_error load_wave_speed(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  DG_CALL(dg_config_get_int(cfg, "time", "dt_interval", &p->dt_interval));
  DG_CHECK(p->dt_interval >= 1, DG_ERR_INPUT, "%s: [time] dt_interval = %lld must be >= 1",
           AT(cfg, "time", "dt_interval"), (long long)p->dt_interval);
  DG_CALL(dg_config_get_double(cfg, "time", "dt_growth", &p->dt_growth));
  DG_CHECK(isfinite(p->dt_growth) && p->dt_growth >= 1, DG_ERR_INPUT,
           "%s: [time] dt_growth = %g must be a number >= 1", AT(cfg, "time", "dt_growth"),
           p->dt_growth);
  p->speed_computed = p->kind != 1 && p->dt_fixed == 0 && p->wave_speed == 0;
  if (p->cfl == 0)
    p->cfl = p->speed_computed ? dg_rk_default_cfl(&p->scheme) : 0.5;
  return DG_OK;
}

dg_error dg_problem_check_wave_speed(const dg_problem *p) {
  const dg_config *cfg = p->cfg;
  if (!p->speed_computed || dg_flux_wave_speed(p->program, NULL))
    return DG_OK;
  int lam = dg_flux_rusanov_let(p->program);
  if (lam >= 0) {
    const dg_flux_let_info *li = dg_flux_let(p->program, lam);
    DG_RAISE(DG_ERR_INPUT,
             "%s: no [time] wave_speed, and %s declares no 'wave_speed = ...': its 'let lam' "
             "(%s:%d:%d) is a speed of both faces' traces, which is not taken for the speed "
             "at a node; add 'wave_speed = <the largest |eigenvalue| of the flux Jacobian "
             "at a node, e.g. norm(u) + c>' to the flux file (operators/FLUX_LANGUAGE.md), "
             "or set [time] wave_speed or [time] dt",
             dg_config_name(cfg), p->flux_name, p->flux_name, li->loc.line, li->loc.col);
  }
  DG_RAISE(DG_ERR_INPUT,
           "%s: no [time] wave_speed, and %s declares no 'wave_speed = ...': add one (the "
           "largest |eigenvalue| of the flux Jacobian at a node, e.g. 'wave_speed = norm(a)' "
           "for advection; operators/FLUX_LANGUAGE.md) or set [time] wave_speed or [time] dt",
           dg_config_name(cfg), p->flux_name);
}

/* [discretization], [problem] kind and [time]. */
static dg_error load_time(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  int64_t order;
  DG_CALL(dg_config_get_int(cfg, "discretization", "order", &order));
  DG_CHECK(order >= 1 && order <= 15, DG_ERR_INPUT,
           "%s: [discretization] order = %lld must be in 1..15",
           AT(cfg, "discretization", "order"), (long long)order);
  p->order = (int)order;
  int prec = 1;
  DG_CALL(dg_config_get_enum(cfg, "discretization", "precision", &prec));
  p->precision = prec == 0 ? DG_FLOAT : DG_DOUBLE;

  DG_CALL(dg_config_get_enum(cfg, "problem", "kind", &p->kind));
  DG_CHECK(p->kind == 1 || dg_config_has(cfg, "time", "final"), DG_ERR_INPUT,
           "%s: [time] final is required (the run's final time)", dg_config_name(cfg));
  int scheme = 0;
  DG_CALL(dg_config_get_enum(cfg, "time", "scheme", &scheme));
  DG_CALL(dg_rk_scheme_get(scheme == 1 ? "ssprk3" : scheme == 4 ? "lsrk14" : "lserk4", &p->scheme));
  DG_CALL(dg_problem_adaptive_keys(p, scheme));
  DG_CALL(dg_config_get_double(cfg, "time", "final", &p->t_final));
  DG_CHECK(p->kind == 1 || p->t_final >= 0, DG_ERR_INPUT,
           "%s: [time] final = %g must not be negative", AT(cfg, "time", "final"), p->t_final);
  DG_CALL(dg_config_get_double(cfg, "time", "dt", &p->dt_fixed));
  DG_CHECK(p->dt_fixed >= 0, DG_ERR_INPUT, "%s: [time] dt = %g must not be negative",
           AT(cfg, "time", "dt"), p->dt_fixed);
  DG_CALL(auto_or_positive(cfg, "wave_speed", &p->wave_speed));
  DG_CALL(auto_or_positive(cfg, "cfl", &p->cfl));
  DG_CALL(load_wave_speed(p));
  DG_CALL(dg_config_get_double(cfg, "time", "diffusivity", &p->diffusivity));
  DG_CHECK(isfinite(p->diffusivity) && p->diffusivity >= 0, DG_ERR_INPUT,
           "%s: [time] diffusivity = %g must not be negative (0: no diffusive limit)",
           AT(cfg, "time", "diffusivity"), p->diffusivity);
  DG_CALL(dg_config_get_int(cfg, "time", "max_steps", &p->max_steps));
  DG_CALL(divergence_keys(p));
  DG_CALL(filter_keys(p));
  return DG_OK;
}

/* [output] fields: all, or names of the flux file's fields. */
static dg_error output_fields(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  const char *fields = NULL;
  DG_CALL(dg_config_get_string(cfg, "output", "fields", &fields));
  int nf = dg_flux_field_count(p->program);
  p->output_field = calloc((size_t)nf + 1, sizeof(int));
  DG_CHECK(p->output_field, DG_ERR_MEMORY, "out of memory");
  if (strcmp(fields, "all") == 0) {
    for (int f = 0; f < nf; f++)
      p->output_field[f] = 1;
    return DG_OK;
  }
  for (const char *c = fields; *c;) {
    c += strspn(c, " \t,");
    size_t len = strcspn(c, " \t,");
    if (len == 0)
      break;
    char name[128];
    DG_CHECK(len < sizeof name, DG_ERR_INPUT, "%s: [output] fields: a name is too long",
             AT(cfg, "output", "fields"));
    memcpy(name, c, len);
    name[len] = '\0';
    int f;
    DG_CALL(dg_flux_field_find(p->program, name, &f));
    p->output_field[f] = 1;
    c += len;
  }
  return DG_OK;
}

/* [output] history and when its rows are written. */
static dg_error load_history(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  DG_CALL(dg_config_get_string(cfg, "output", "history", &p->history));
  DG_CALL(dg_config_get_int(cfg, "output", "history_steps", &p->history_steps));
  DG_CALL(dg_config_get_double(cfg, "output", "history_interval", &p->history_interval));
  DG_CHECK(p->history_steps >= 0 && p->history_interval >= 0, DG_ERR_INPUT,
           "%s: [output] history_steps = %lld and history_interval = %g must not be negative",
           AT(cfg, "output", p->history_steps < 0 ? "history_steps" : "history_interval"),
           (long long)p->history_steps, p->history_interval);
  DG_CHECK(p->history_steps == 0 || p->history_interval == 0, DG_ERR_INPUT,
           "%s: [output] history_steps and history_interval are both set: choose rows by "
           "step count or by time, not both", AT(cfg, "output", "history_interval"));
  DG_CHECK(p->kind == 0 || !p->history[0], DG_ERR_INPUT,
           "%s: [output] history is of time-dependent runs; kind = poisson has none (remove "
           "it)", AT(cfg, "output", "history"));
  return DG_OK;
}

static dg_error load_output(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  DG_CALL(dg_config_get_path(cfg, "output", "directory", &p->output_dir));
  DG_CALL(dg_config_get_double(cfg, "output", "interval", &p->output_interval));
  DG_CALL(dg_config_get_double(cfg, "output", "checkpoint_interval", &p->checkpoint_interval));
  DG_CHECK(p->output_interval >= 0 && p->checkpoint_interval >= 0, DG_ERR_INPUT,
           "%s: [output] intervals must not be negative",
           AT(cfg, "output", p->output_interval < 0 ? "interval" : "checkpoint_interval"));
  DG_CALL(dg_config_get_bool(cfg, "output", "enabled", &p->output_enabled));
  int fmt = 0;
  DG_CALL(dg_config_get_enum(cfg, "output", "format", &fmt));
  p->output_formats = fmt == 0 ? 3 : fmt == 1 ? 2 : 1; /* DG_SNAPSHOT_XDMF 1, _VTKHDF 2 */
  int pio = 0;
  DG_CALL(dg_config_get_enum(cfg, "output", "parallel_io", &pio));
  DG_CHECK(pio != 1 || dg_comm_h5_parallel(), DG_ERR_INPUT,
           "%s: [output] parallel_io = collective needs a dgrun built with parallel HDF5 "
           "(install libhdf5-openmpi-dev and configure with -DDGRUN_PARALLEL_HDF5=ON); this "
           "build has serial HDF5: use parallel_io = gather (rank 0 writes) or auto",
           AT(cfg, "output", "parallel_io"));
  p->parallel_io = pio == 0 ? (dg_comm_h5_parallel() ? DG_IO_COLLECTIVE : DG_IO_GATHER)
                   : pio == 1 ? DG_IO_COLLECTIVE
                              : DG_IO_GATHER;
  DG_CALL(load_history(p));
  DG_CALL(output_fields(p));
  return DG_OK;
}

/* [backend]: device, tuning, the kernel knobs (read as the schema typed
 * them), the NaN check interval. */
static dg_error load_backend(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  int tuning = 0;
  DG_CALL(dg_config_get_enum(cfg, "backend", "tuning", &tuning));
  p->tuning = tuning;
  p->tuning_given = dg_config_has(cfg, "backend", "tuning");
  int dev = 0;
  DG_CALL(dg_config_get_enum(cfg, "backend", "device", &dev));
  p->device = dev == 0 ? "auto" : dev == 1 ? "cuda" : "cpu";
  dg_kernel_config *kc = &p->kernels;
  *kc = dg_kernel_config_default();
  for (int k = 0; k < dg_kernel_nknobs; k++) {
    const dg_kernel_knob *kn = &dg_kernel_knobs[k];
    int v = 0;
    if (kn->kind == DG_KNOB_ENUM) {
      DG_CALL(dg_config_get_enum(cfg, "backend", kn->key, &v));
    } else if (kn->kind == DG_KNOB_BOOL) {
      DG_CALL(dg_config_get_bool(cfg, "backend", kn->key, &v));
    } else {
      int64_t x;
      DG_CALL(dg_config_get_int(cfg, "backend", kn->key, &x));
      v = x < -1 || x > (1 << 30) ? -1 : (int)x; /* out of range: the check below says so */
    }
    dg_kernel_knob_put(kc, kn, v);
  }
  if (dg_kernel_config_check(kc, 1) != DG_OK) {
    /* the check's messages start with the knob's key: say where it was set */
    char msg[1024], key[64];
    snprintf(msg, sizeof msg, "%s", dg_error_message());
    snprintf(key, sizeof key, "%.*s", (int)strcspn(msg, " "), msg);
    dg_error_clear();
    DG_RAISE(DG_ERR_INPUT, "%s: [backend] %s", AT(cfg, "backend", key), msg);
  }
  /* auto is the default, but knobs set by hand are run as given: a tuned
   * entry would silently replace them */
  for (int k = 0; k < dg_kernel_nknobs && !p->tuning_given; k++)
    if (dg_config_has(cfg, "backend", dg_kernel_knobs[k].key))
      p->tuning = 0; /* off */
  DG_CALL(dg_config_get_int(cfg, "backend", "nan_check_steps", &p->nan_check_steps));
  DG_CHECK(p->nan_check_steps >= 1, DG_ERR_INPUT,
           "%s: [backend] nan_check_steps = %lld must be >= 1",
           AT(cfg, "backend", "nan_check_steps"), (long long)p->nan_check_steps);
  return DG_OK;
}

dg_error dg_problem_read_config(const char *cfg_path, const char *cfg_text,
                                const char *const *overrides, int noverrides,
                                dg_config **out) {
  *out = NULL;
  dg_config *cfg = NULL;
  if (cfg_text)
    DG_CALL(dg_config_read_string(cfg_text, cfg_path, &cfg));
  else
    DG_CALL(dg_config_read_file(cfg_path, &cfg));
  dg_error err = DG_OK;
  for (int i = 0; i < noverrides && err == DG_OK; i++)
    err = dg_config_apply_override(cfg, overrides[i]);
  size_t nschema = 0;
  const dg_config_key *schema = dg_problem_schema(&nschema);
  if (err == DG_OK)
    err = dg_config_validate(cfg, schema, nschema);
  if (err != DG_OK) {
    dg_config_destroy(&cfg);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = cfg;
  return DG_OK;
}

dg_error dg_problem_load_config(dg_config *cfg, const char *flux_text, size_t flux_len,
                                const char *flux_name, int rank, int nranks, dg_problem **out) {
  *out = NULL;
  dg_problem *p = calloc(1, sizeof *p);
  if (!p)
    dg_config_destroy(&cfg);
  DG_CHECK(p, DG_ERR_MEMORY, "out of memory");
  p->cfg = cfg;
  p->rank = rank;
  p->nranks = nranks;
  dg_error err = load_name(p);
  if (err == DG_OK)
    err = load_mesh(p);
  if (err == DG_OK)
    err = load_flux(p, flux_text, flux_len, flux_name);
  if (err == DG_OK)
    err = load_time(p);
  if (err == DG_OK)
    err = dg_problem_load_shock(p);
  if (err == DG_OK)
    err = load_output(p);
  if (err == DG_OK)
    err = load_backend(p);
  if (err == DG_OK)
    err = dg_problem_resolved_text(p, &p->resolved_cfg);
  if (err != DG_OK) {
    dg_problem_destroy(&p);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = p;
  return DG_OK;
}

dg_error dg_problem_load(const char *cfg_path, const char *const *overrides, int noverrides,
                         dg_problem **out) {
  DG_CALL(dg_problem_load_rank(cfg_path, overrides, noverrides, 0, 1, out));
  return DG_OK;
}

dg_error dg_problem_load_rank(const char *cfg_path, const char *const *overrides,
                              int noverrides, int rank, int nranks, dg_problem **out) {
  *out = NULL;
  dg_config *cfg;
  DG_CALL(dg_problem_read_config(cfg_path, NULL, overrides, noverrides, &cfg));
  DG_CALL(dg_problem_load_config(cfg, NULL, 0, NULL, rank, nranks, out));
  return DG_OK;
}

/* path made absolute against the working directory (malloc'd). */
static char *absolute(const char *path) {
  if (path[0] == '/')
    return strdup(path);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd))
    return NULL;
  return dg_fsutil_join(cwd, path);
}

dg_error dg_problem_resolved_text(const dg_problem *p, char **out) {
  const dg_config *cfg = p->cfg;
  const char *flux = NULL, *mesh = NULL;
  DG_CALL(dg_config_get_path(cfg, "problem", "flux", &flux));
  DG_CALL(dg_config_get_string(cfg, "mesh", "file", &mesh));
  if (mesh[0])
    DG_CALL(dg_config_get_path(cfg, "mesh", "file", &mesh));
  char *aflux = absolute(flux), *amesh = mesh[0] ? absolute(mesh) : NULL,
       *aout = absolute(p->output_dir);
  dg_config_pin pins[4] = {{"problem", "name", p->name},
                           {"problem", "flux", aflux},
                           {"output", "directory", aout},
                           {"mesh", "file", amesh}};
  dg_error err = DG_OK;
  if (!aflux || !aout || (mesh[0] && !amesh))
    err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                         "out of memory (or the working directory has no name)");
  else
    err = dg_config_write_text(cfg, pins, amesh ? 4 : 3, out);
  free(aflux);
  free(amesh);
  free(aout);
  DG_CALL(err);
  return DG_OK;
}

void dg_problem_destroy(dg_problem **pp) {
  if (!pp || !*pp)
    return;
  dg_problem *p = *pp;
  dg_flux_program_destroy(&p->program);
  if (p->part)
    p->mesh = NULL; /* the part's */
  dg_partition_local_destroy(&p->part);
  dg_mesh_destroy(&p->mesh);
  dg_config_destroy(&p->cfg);
  free(p->tag_to_bc);
  free(p->output_field);
  free(p->flux_text);
  free(p->flux_name);
  free(p->resolved_cfg);
  free(p->name);
  free(p);
  *pp = NULL;
}

dg_error dg_problem_boundaries_used(const dg_mesh *mesh, const int *tag_to_bc, int nb,
                                    dg_comm *comm, unsigned char **used) {
  *used = calloc((size_t)nb + 1, 1);
  double *u = calloc((size_t)nb + 1, sizeof *u);
  if (!*used || !u) {
    free(*used);
    *used = NULL;
    free(u);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int64_t z = 0; z < mesh->K * (mesh->dim + 1); z++) {
    int tag = mesh->face_tag[z];
    int bc = tag >= 0 && tag_to_bc ? tag_to_bc[tag] : -1;
    if (bc >= 0 && bc < nb)
      u[bc] = 1;
  }
  dg_error err = nb > 0 && comm ? dg_comm_allreduce_max(comm, u, nb) : DG_OK;
  for (int b = 0; b < nb; b++)
    (*used)[b] = u[b] > 0;
  free(u);
  if (err != DG_OK) {
    free(*used);
    *used = NULL;
  }
  DG_CALL(err);
  return DG_OK;
}
