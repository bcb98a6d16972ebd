#include "problems/solver/autotune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/hash.h"
#include "core/log.h"
#include "dg/bernstein.h"
#include "operators/flux_affine.h"
#include "operators/kernel_knobs.h"
#include "problems/solver/autotune_progress.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

dg_error dg_autotune_time_kernels(dg_solver *s, int repeats, double cutoff_ms, int score_mask,
                                  double ms[3], int *stopped) {
  dg_device *dev = dg_solver_device(s);
  enum { MAXR = 64 };
  if (repeats < 1)
    repeats = 1;
  if (repeats > MAXR)
    repeats = MAXR;
  *stopped = 0;
  dg_event *ev[4] = {NULL, NULL, NULL, NULL};
  double samples[3][MAXR];
  dg_error err = DG_OK;
  for (int i = 0; i < 4; i++)
    DG_CALL_GOTO(err, done, dg_event_create(dev, &ev[i]));
  for (int k = 0; k < 3; k++) /* warm-up (and first-launch set-up) */
    DG_CALL_GOTO(err, done, dg_solver_launch_kernel(s, (dg_solver_kernel_id)k, 0.0));
  /* A kernel that launches nothing (surface and update fused into the
   * volume kernel) gets no event pair: an empty pair reads about 1.2 us on
   * the H100, event overhead that no time step pays (4 % of a fused Maxwell
   * N = 1 RHS).  Its time is 0; the events bracket the launched kernels,
   * kernel k's interval ending at event end[k] (0: not launched). */
  int done_r = 0;
  for (int r = 0; r < repeats; r++) {
    int end[3] = {0, 0, 0}, n = 0;
    DG_CALL_GOTO(err, done, dg_event_record(ev[0], NULL));
    for (int k = 0; k < 3; k++) {
      if (!dg_solver_kernel_launches(s, (dg_solver_kernel_id)k))
        continue;
      DG_CALL_GOTO(err, done, dg_solver_launch_kernel(s, (dg_solver_kernel_id)k, 0.0));
      DG_CALL_GOTO(err, done, dg_event_record(ev[++n], NULL));
      end[k] = n;
    }
    DG_CALL_GOTO(err, done, dg_event_synchronize(ev[n]));
    double sum = 0;
    for (int k = 0; k < 3; k++) {
      float e = 0;
      if (end[k])
        DG_CALL_GOTO(err, done, dg_event_elapsed_ms(ev[end[k] - 1], ev[end[k]], &e));
      samples[k][r] = e;
      if (score_mask & (1 << k))
        sum += e;
    }
    done_r = r + 1;
    if (r == 0 && cutoff_ms > 0 && sum > cutoff_ms) {
      *stopped = 1;
      break;
    }
  }
  for (int k = 0; k < 3; k++) {
    qsort(samples[k], (size_t)done_r, sizeof(double), cmp_double);
    ms[k] = samples[k][done_r / 2];
  }
done:
  for (int i = 0; i < 4; i++)
    dg_event_destroy(&ev[i]);
  return err;
}

typedef struct tune_ctx {
  const dg_autotune_request *req;
  dg_solver *s;
  int repeats;
  dg_autotune_progress progress;
} tune_ctx;

static int same_layout(const dg_kernel_config *a, const dg_kernel_config *b) {
  return a->np_align == b->np_align && a->layout == b->layout;
}

static dg_error measure(void *vctx, const dg_kernel_config *cfg, int phase, double cutoff,
                        dg_tune_timing *out) {
  tune_ctx *c = vctx;
  const dg_autotune_request *q = c->req;
  memset(out, 0, sizeof *out);
  dg_error e;
  if (!c->s || !same_layout(dg_solver_kernels(c->s), cfg)) {
    dg_solver_destroy(&c->s);
    dg_solver_options so = {*cfg, NULL};
    e = dg_solver_create(q->dev, q->disc, q->physics, q->tag_to_bc, &so, &c->s);
    if (e == DG_OK && q->physics->ncoef > 0)
      e = q->coef ? dg_solver_set_coefficients(c->s, q->coef)
                  : dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                                 "tuning a physics with coefficients needs their values");
    if (e == DG_OK && q->u)
      e = dg_solver_set_state(c->s, q->u);
  } else {
    e = dg_solver_set_kernels(c->s, cfg);
  }
  if (e == DG_ERR_INPUT) { /* the generator refuses this combination for this size */
    out->status = 3;
    snprintf(out->why, sizeof out->why, "%s", dg_error_message());
    dg_error_clear();
    return DG_OK;
  }
  DG_CALL(e);
  dg_autotune_progress_timed(&c->progress);
  const dg_device_info *info = dg_device_get_info(q->dev);
  for (int k = 0; k < 2; k++) {
    dg_kernel_attributes a;
    unsigned dyn = 0;
    DG_CALL(dg_solver_kernel_attributes(c->s, (dg_solver_kernel_id)k, &a, &dyn));
    unsigned threads = k == 0 ? (unsigned)cfg->face_threads
                              : (unsigned)dg_kernel_config_volume_threads(cfg, q->disc->Np);
    if (info->backend == DG_BACKEND_CUDA && cutoff >= 0 &&
        dg_tune_prune(&a, threads, dyn, info, out->why, sizeof out->why)) {
      out->status = 1;
      return DG_OK;
    }
  }
  double ms[3];
  int stopped = 0;
  /* the cutoff is on the phase's score: the surface kernel alone in phase 3 */
  DG_CALL(dg_autotune_time_kernels(c->s, c->repeats, cutoff > 0 ? cutoff : 0, phase == 3 ? 1 : 7, ms,
                                   &stopped));
  out->surface_ms = ms[0];
  out->volume_ms = ms[1];
  out->update_ms = ms[2];
  if (stopped) {
    out->status = 2;
    snprintf(out->why, sizeof out->why, "first repeat over 2x the best (%.4f ms)",
             phase == 3 ? ms[0] : ms[0] + ms[1] + ms[2]);
  }
  return DG_OK;
}

/* A copy of matrix a, rounded to a grid of 1e-6 (-0 made 0). */
static double *rounded_copy(const double *a, size_t n) {
  double *r = malloc(sizeof(double) * (n ? n : 1));
  for (size_t z = 0; r && z < n; z++) {
    double v = nearbyint(a[z] * 1e6) / 1e6;
    r[z] = v == 0 ? 0.0 : v;
  }
  return r;
}

/* The digest of the module of the default knobs (curved: the curved
 * module, dg_element_ops.curved). */
static dg_error module_digest(const dg_refelem *re, const dg_physics *physics,
                              int precision_float, int curved, char hex[65]) {
  /* The operator matrices enter rounded: LAPACK/BLAS builds for other
   * processors (OpenBLAS picks its kernels at run time) differ in the last
   * bits of D and LIFT, and the H100 machine's entries must key the same
   * operator here and in CI.  An order or node-set change moves entries by
   * far more than the grid. */
  dg_element_ops el = dg_element_ops_of(re);
  size_t nd = (size_t)re->Np * re->Np, nl = (size_t)re->Np * re->Nfaces * re->Nfp;
  double *m[4] = {rounded_copy(re->Dr, nd), re->dim > 1 ? rounded_copy(re->Ds, nd) : NULL,
                  re->dim > 2 ? rounded_copy(re->Dt, nd) : NULL, rounded_copy(re->LIFT, nl)};
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, m[0] && m[3] && (re->dim < 2 || m[1]) && (re->dim < 3 || m[2]),
                DG_ERR_MEMORY, "out of memory");
  el.Dr = m[0];
  el.Ds = m[1];
  el.Dt = m[2];
  el.LIFT = m[3];
  el.curved = curved;
  dg_kernel_config c = dg_kernel_config_default();
  dg_generated g;
  DG_CALL_GOTO(err, done, dg_codegen_generate(DG_CODEGEN_C, &el, physics, precision_float, &c, &g));
  /* The header's knobs line lists every knob: a new knob (whose default
   * generates what the module was before) must not retire every tuning
   * entry, so the digest leaves that line out.  Absent knobs of an entry
   * read as their defaults (tuning/tune_db.c). */
  const char *kl = strstr(g.source, "\n * knobs: ");
  const char *ke = kl ? strchr(kl + 1, '\n') : NULL;
  dg_hash h;
  dg_hash_init(&h);
  if (ke) {
    dg_hash_update(&h, g.source, (size_t)(kl - g.source));
    dg_hash_update(&h, ke, strlen(ke));
  } else {
    dg_hash_update(&h, g.source, strlen(g.source));
  }
  unsigned char dig[DG_HASH_SIZE];
  dg_hash_final(&h, dig);
  dg_hash_hex(dig, 32, hex);
  dg_generated_free(&g);
done:
  for (int i = 0; i < 4; i++)
    free(m[i]);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_autotune_module_digest(const dg_refelem *re, const dg_physics *physics,
                                   int precision_float, char hex[65]) {
  DG_CALL(module_digest(re, physics, precision_float, 0, hex));
  return DG_OK;
}

dg_error dg_autotune_curved_digest(const dg_refelem *re, const dg_physics *physics,
                                   int precision_float, char hex[65]) {
  DG_CALL(module_digest(re, physics, precision_float, 1, hex));
  return DG_OK;
}

dg_error dg_autotune_op_digest(const dg_refelem *re, const dg_physics *physics,
                               int precision_float, char hex[65]) {
  /* Without its initial condition the module is the RHS kernels alone:
   * the generator emits dg_initial only when initial is set, as the last
   * kernel, and nothing before it reads the initial condition.  So an edit
   * of a problem's initial state keeps its tuning entries; it does not
   * change how fast the RHS runs. */
  dg_physics rhs = *physics;
  rhs.initial = NULL;
  DG_CALL(dg_autotune_module_digest(re, &rhs, precision_float, hex));
  return DG_OK;
}

/* Compile the candidates' sources together ahead of their timing (a
 * failure only means each is compiled when timed), then free them. */
void dg_autotune_precompile_sources(dg_device *dev, char **src, int ns) {
  if (src && dg_device_precompile(dev, (const char *const *)src, ns, 0) != DG_OK)
    dg_error_clear();
  for (int i = 0; i < ns; i++)
    free(src[i]);
  free(src);
}

/* Compile the configurations cfgs[0..n) side by side into the kernel
 * cache, so that timing them loads instead of compiling: compiles, not
 * timings, were most of a tuning run.  Best effort. */
static void precompile_configs(const dg_autotune_request *q, const dg_kernel_config *cfgs,
                               int n) {
  const dg_discretization *d = q->disc;
  dg_element_ops el = dg_element_ops_of(d->re), el_bb = el;
  dg_bernstein *bb = NULL; /* for the candidates on Bernstein-Bezier coefficients */
  int any_bb = 0;
  for (int v = 0; v < n; v++)
    any_bb |= cfgs[v].basis;
  if (any_bb && dg_bernstein_create(d->re, &bb) == DG_OK)
    el_bb = dg_element_ops_of_bernstein(d->re, bb);
  dg_error_clear(); /* without it those candidates compile when timed */
  dg_codegen_target tg = dg_device_get_info(q->dev)->backend == DG_BACKEND_CUDA
                             ? DG_CODEGEN_CUDA
                             : DG_CODEGEN_C;
  int ns = 0;
  char **src = calloc((size_t)n + 1, sizeof *src);
  for (int v = 0; src && v < n; v++) {
    dg_generated g;
    if (dg_codegen_generate(tg, cfgs[v].basis ? &el_bb : &el, q->physics,
                            d->precision == DG_FLOAT, &cfgs[v], &g) != DG_OK) {
      dg_error_clear(); /* refused for this size: the search says so */
      continue;
    }
    src[ns++] = g.source; /* taken over */
    g.source = NULL;
    dg_generated_free(&g);
  }
  dg_autotune_precompile_sources(q->dev, src, ns);
  dg_bernstein_destroy(&bb);
}

/* The layout and volume candidates, exactly the configurations
 * dg_tune_search composes for its first two phases, and the kin entries
 * it times last: in this one wave their compiles overlap the others'
 * (fp64 N = 7 modules take seconds each). */
static void precompile_candidates(tune_ctx *tc, const dg_tune_space *sp) {
  const dg_autotune_request *q = tc->req;
  int cap = sp->nlayouts * (1 + sp->nvolume) + sp->nkin, n = 0;
  dg_kernel_config *c = calloc((size_t)cap + 1, sizeof *c);
  for (int l = 0; c && l < sp->nlayouts; l++)
    for (int v = -1; v < sp->nvolume; v++) {
      c[n] = q->base;
      dg_tune_apply_layout(&c[n], &sp->layouts[l]);
      if (v >= 0)
        dg_tune_apply_volume(&c[n], &sp->volume[v]);
      n++;
    }
  for (int k = 0; c && k < sp->nkin; k++)
    c[n++] = sp->kin[k];
  dg_autotune_progress_compiling(&tc->progress, n);
  if (c)
    precompile_configs(q, c, n);
  free(c);
}

/* dg_tune_search's prepare: the strided_k and register twins of its leaders. */
static void prepare(void *vctx, const dg_kernel_config *cfgs, int n) {
  tune_ctx *c = vctx;
  dg_autotune_progress_compiling(&c->progress, n);
  precompile_configs(c->req, cfgs, n);
}

/* "3D, N = 3, 5 components, double": the operator in words. */
static void operator_words(const dg_autotune_request *q, char *w, size_t n) {
  snprintf(w, n, "%dD, N = %d, %d component%s, %s", q->disc->dim, q->disc->N,
           q->physics->ncomp, q->physics->ncomp == 1 ? "" : "s",
           q->disc->precision == DG_FLOAT ? "float" : "double");
}

/* The local database (exact device), then, if shipped, the shipped
 * entries (device model); a hit is used silently in a run (the log's debug
 * level names it) and named where the caller prints the table (dgrun tune
 * --tune=auto). */
static dg_error look_up(const dg_autotune_request *q, const char *dir, const dg_tune_key *key,
                        int shipped, dg_autotune_outcome *out, int *found) {
  DG_CALL(dg_tune_db_get(dir, key, 0, &out->cfg, &out->rhs_ms, found));
  if (!*found && shipped) {
    DG_CALL(dg_tune_db_get(dg_tune_defaults_dir(), key, 1, &out->cfg, &out->rhs_ms, found));
    out->from_defaults = *found;
  }
  if (*found) {
    char cs[DG_KERNEL_CONFIG_TEXT];
    dg_kernel_config_describe(&out->cfg, cs, sizeof cs);
    dg_log(q->table ? DG_LOG_INFO : DG_LOG_DEBUG, "tuning: %s variant %s",
           out->from_defaults ? "shipped default" : "database", cs);
  }
  return DG_OK;
}

/* The candidates of this operator: the mode's space less the forms the
 * physics cannot take, plus the shipped choices of related devices. */
static dg_error make_space(const dg_autotune_request *q, const dg_tune_key *key,
                           dg_tune_space *sp) {
  const dg_device_info *info = dg_device_get_info(q->dev);
  DG_CALL(dg_tune_space_create(info->backend == DG_BACKEND_CUDA, q->mode, q->disc->Np,
                               q->disc->Nfaces * q->disc->Nfp, sp));
  if (dg_flux_check_affine(q->physics, NULL, NULL) != DG_OK) {
    dg_error_clear(); /* not affine: no Bernstein-Bezier candidates */
    dg_tune_space_drop_bernstein(sp);
  } else if (q->mode == DG_TUNE_AUTO) {
    dg_tune_space_drop_nodal_mma(sp); /* the coefficient forms stand in */
  }
  if (dg_tune_db_kin(dg_tune_defaults_dir(), key, sp) != DG_OK) {
    dg_warn("tuning: shipped entries of related devices not read: %s", dg_error_message());
    dg_error_clear(); /* the search goes on without them */
  }
  if (q->physics->ngrad > 0)
    dg_tune_space_drop_viscous(sp);
  if (q->disc->ncurved > 0) /* the affine kernels beside the curved ones */
    dg_tune_space_drop_curved(sp);
  if (sp->nkin)
    dg_info("tuning: %d shipped choice(s) of related devices join the search", sp->nkin);
  return DG_OK;
}

/* Search, print the table where asked, store the choice in dir. */
static dg_error search_and_store(const dg_autotune_request *q, const dg_tune_key *key,
                                 const char *dir, dg_autotune_outcome *out) {
  const dg_device_info *info = dg_device_get_info(q->dev);
  dg_tune_space sp;
  DG_CALL(make_space(q, key, &sp));
  char ow[96];
  operator_words(q, ow, sizeof ow);
  int planned = sp.nlayouts + sp.nvolume + sp.nface + sp.nkin;
  if (q->mode == DG_TUNE_AUTO)
    dg_info("tuning: no tuning entry for this operator (%s) on %s: tuning it once now "
            "(%d candidates; the choice is stored in %s for the next runs; --tune=off skips "
            "this)", ow, info->name, planned, dir);
  else
    dg_info("tuning: full search for this operator (%s) on %s: %d layouts, %d volume and "
            "%d surface variants", ow, info->name, sp.nlayouts, sp.nvolume, sp.nface);
  tune_ctx c = {q, NULL, q->repeats > 0 ? q->repeats : 7, {0}};
  dg_autotune_progress_begin(&c.progress, planned);
  precompile_candidates(&c, &sp);
  dg_tune_result res;
  dg_error err = dg_tune_search(&sp, &q->base, measure, prepare, &c, &res);
  dg_autotune_progress_end(&c.progress);
  double took = dg_autotune_progress_elapsed(&c.progress);
  dg_solver_destroy(&c.s);
  dg_tune_space_free(&sp);
  DG_CALL(err);
  if (q->table)
    dg_tune_print(q->table, &res);
  out->cfg = res.best;
  out->rhs_ms = res.rhs_ms;
  out->tuned = 1;
  int timed = res.nrows;
  dg_tune_result_free(&res);
  char cs[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&out->cfg, cs, sizeof cs);
  if (dg_tune_db_put(dir, key, &out->cfg, out->rhs_ms) != DG_OK) {
    /* a read-only cache costs a re-tune next time, not this run */
    dg_warn("tuning: cannot record the choice in %s: %s", dir, dg_error_message());
    dg_error_clear();
  } else {
    dg_info("tuning: done in %.0f s (%d timings): RHS %.4f ms with %s; stored", took, timed,
            out->rhs_ms, cs);
  }
  return DG_OK;
}

/* The cpu backend's default runs the base knobs with this one line where
 * no entry exists. */
static void cpu_notice(const dg_autotune_request *q) {
  char ow[96];
  operator_words(q, ow, sizeof ow);
  dg_info("tuning: no tuning entry for this operator (%s) on the cpu backend: running the "
          "default knobs (its variants time alike within noise; `dgrun tune problem.cfg` or "
          "backend.tuning=auto searches them)", ow);
}

/* Whether dir holds no entry at all: then the cpu backend's default need
 * not compute the operator digest (a generation of the module, 30-50 ms at
 * 3D N = 5..7, more under the sanitizers, on every run of the test suite). */
static int no_entries(const char *dir) {
  char **names = NULL;
  int n = 0;
  if (dg_fsutil_list(dir, ".tune", &names, &n) != DG_OK) {
    dg_error_clear();
    return 0; /* unreadable: the lookup says why */
  }
  dg_fsutil_free_names(names, n);
  return n == 0;
}

int dg_autotune_cpu_default(const dg_autotune_request *q) {
  return q->mode == DG_TUNE_AUTO && q->search == DG_AUTOTUNE_BY_BACKEND &&
         dg_device_get_info(q->dev)->backend != DG_BACKEND_CUDA;
}

dg_error dg_autotune_db_dir(const dg_autotune_request *q, char **dir) {
  *dir = NULL;
  if (q->db_dir) {
    *dir = strdup(q->db_dir);
    DG_CHECK(*dir, DG_ERR_MEMORY, "out of memory");
  } else {
    DG_CALL(dg_tune_db_default_dir(dir));
  }
  return DG_OK;
}

dg_error dg_autotune(const dg_autotune_request *q, dg_autotune_outcome *out) {
  memset(out, 0, sizeof *out);
  out->cfg = q->base;
  if (q->mode == DG_TUNE_OFF)
    return DG_OK;
  const dg_device_info *info = dg_device_get_info(q->dev);
  /* the cpu backend's default: its own database only (shipped entries are
   * for GPU models) */
  int cpu_default = dg_autotune_cpu_default(q);
  char *dir = NULL;
  DG_CALL(dg_autotune_db_dir(q, &dir));
  dg_error err = DG_OK;
  int found = 0;
  if (cpu_default && no_entries(dir)) {
    cpu_notice(q);
    goto done;
  }
  char hex[65];
  DG_CALL_GOTO(err, done, dg_autotune_op_digest(q->disc->re, q->physics,
                                                q->disc->precision == DG_FLOAT, hex));
  dg_tune_key key;
  dg_tune_key_make(info, hex, q->disc->dim, q->disc->N, q->physics->ncomp,
                   q->disc->precision == DG_FLOAT, &key);
  if (q->mode == DG_TUNE_AUTO) {
    DG_CALL_GOTO(err, done, look_up(q, dir, &key, !cpu_default, out, &found));
    if (found)
      goto done;
    if (cpu_default) {
      cpu_notice(q);
      goto done;
    }
  }
  DG_CALL_GOTO(err, done, search_and_store(q, &key, dir, out));
done:
  free(dir);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
