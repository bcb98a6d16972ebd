/* The tuner of a companion module (autotune_companion.h): its key is the
 * digest of the module, its candidates the tuning space's volume variants
 * and face-thread counts as the module takes them, timed on the solver
 * itself with the main knobs fixed. */
#include "problems/solver/autotune_companion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "operators/kernel_knobs.h"
#include "tuning/tune_db.h"
#include "tuning/tune_space.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static dg_error launch_both(dg_solver *s, const dg_autotune_companion *c) {
  if (dg_solver_kernel_launches(s, c->surface))
    DG_CALL(dg_solver_launch_kernel(s, c->surface, 0.0));
  DG_CALL(dg_solver_launch_kernel(s, c->volume, 0.0));
  return DG_OK;
}

/* The median time of the module's two kernels (ms) over `repeats` runs. */
static dg_error time_module(dg_solver *s, const dg_autotune_companion *c, int repeats,
                            double *ms) {
  dg_device *dev = dg_solver_device(s);
  enum { MAXR = 64 };
  if (repeats > MAXR)
    repeats = MAXR;
  dg_event *ev[2] = {NULL, NULL};
  double t[MAXR];
  dg_error err = DG_OK;
  for (int i = 0; i < 2; i++)
    DG_CALL_GOTO(err, done, dg_event_create(dev, &ev[i]));
  DG_CALL_GOTO(err, done, launch_both(s, c));
  for (int r = 0; r < repeats; r++) {
    DG_CALL_GOTO(err, done, dg_event_record(ev[0], NULL));
    DG_CALL_GOTO(err, done, launch_both(s, c));
    DG_CALL_GOTO(err, done, dg_event_record(ev[1], NULL));
    DG_CALL_GOTO(err, done, dg_event_synchronize(ev[1]));
    float e = 0;
    DG_CALL_GOTO(err, done, dg_event_elapsed_ms(ev[0], ev[1], &e));
    t[r] = e;
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_double);
  *ms = t[repeats / 2];
done:
  for (int i = 0; i < 2; i++)
    dg_event_destroy(&ev[i]);
  return err;
}

/* c mapped, appended to out[0..*n) unless it is there already (seen: the
 * descriptions).  A fused-surface candidate keeps cur's face-thread count:
 * no surface kernel of its module is launched, so the counts would be
 * copies of one candidate. */
static void add_candidate(const dg_solver *s, const dg_autotune_companion *co,
                          const dg_kernel_config *cur, dg_kernel_config c,
                          char (*seen)[DG_KERNEL_CONFIG_TEXT], dg_kernel_config *out, int *n) {
  c = co->map(s, &c);
  if (co->surface_twins && c.fuse_surface)
    c.face_threads = cur->face_threads;
  char txt[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&c, txt, sizeof txt);
  for (int i = 0; i < *n; i++)
    if (strcmp(seen[i], txt) == 0)
      return;
  snprintf(seen[*n], sizeof seen[*n], "%s", txt);
  out[(*n)++] = c;
}

/* The distinct candidates: volume variants x face-thread counts (x both
 * fuse_surface with surface_twins), mapped. */
static int candidates(const dg_tune_space *sp, const dg_solver *s,
                      const dg_autotune_companion *co, const dg_kernel_config *cur,
                      dg_kernel_config *out, int cap) {
  int n = 0, twins = co->surface_twins ? 2 : 1;
  char (*seen)[DG_KERNEL_CONFIG_TEXT] = calloc((size_t)cap, sizeof *seen);
  if (!seen)
    return 0;
  for (int v = -1; v < sp->nvolume; v++)
    for (int f = 0; f < (sp->nface > 0 ? sp->nface : 1); f++)
      for (int w = 0; w < twins && n < cap; w++) {
        dg_kernel_config c = *cur;
        if (v >= 0)
          dg_tune_apply_volume(&c, &sp->volume[v]);
        if (sp->nface > 0)
          c.face_threads = sp->face_threads[f];
        if (w) { /* the twin: the other surface form */
          c.fuse_surface = !c.fuse_surface;
          if (!c.fuse_surface)
            c.gather_ahead = 0;
        }
        add_candidate(s, co, cur, c, seen, out, &n);
      }
  free(seen);
  return n;
}

/* Compile the candidates' modules side by side into the kernel cache (as
 * autotune.c does the main ones): timing them then loads instead of
 * compiling.  Best effort. */
static void precompile(const dg_autotune_request *q, const dg_autotune_companion *co,
                       const dg_kernel_config *c, int n) {
  dg_element_ops el = dg_element_ops_of(q->disc->re);
  el.curved = co->curved;
  dg_codegen_target tg = dg_device_get_info(q->dev)->backend == DG_BACKEND_CUDA
                             ? DG_CODEGEN_CUDA
                             : DG_CODEGEN_C;
  char **src = calloc((size_t)n + 1, sizeof *src);
  int ns = 0;
  for (int i = 0; src && i < n; i++) {
    dg_generated g;
    if (dg_codegen_generate(tg, &el, co->physics, q->disc->precision == DG_FLOAT, &c[i], &g) !=
        DG_OK) {
      dg_error_clear(); /* refused for this size: the search skips it */
      continue;
    }
    src[ns++] = g.source; /* taken over */
    g.source = NULL;
    dg_generated_free(&g);
  }
  dg_autotune_precompile_sources(q->dev, src, ns);
}

/* Time every candidate on s; the fastest is set on s and returned. */
static dg_error search(const dg_autotune_request *q, dg_solver *s,
                       const dg_autotune_companion *co, dg_autotune_outcome *out) {
  const dg_device_info *info = dg_device_get_info(q->dev);
  dg_tune_space sp;
  DG_CALL(dg_tune_space_create(info->backend == DG_BACKEND_CUDA, q->mode, q->disc->Np,
                               q->disc->Nfaces * q->disc->Nfp, &sp));
  const int cap = (sp.nvolume + 1) * (sp.nface > 0 ? sp.nface : 1) * (co->surface_twins ? 2 : 1);
  dg_kernel_config *c = calloc((size_t)cap, sizeof *c);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, c, DG_ERR_MEMORY, "out of memory");
  const dg_kernel_config start = *co->get(s);
  int n = candidates(&sp, s, co, &start, c, cap), timed = 0;
  dg_info("tuning: %s as an operator of their own: %d candidates", co->what, n);
  precompile(q, co, c, n);
  double best = INFINITY;
  dg_kernel_config pick = start;
  for (int i = 0; i < n; i++) {
    dg_error e = co->set(s, &c[i]);
    if (e == DG_ERR_INPUT || e == DG_ERR_UNSUPPORTED) { /* refused for this size */
      dg_error_clear();
      continue;
    }
    DG_CALL_GOTO(err, done, e);
    double ms = 0;
    DG_CALL_GOTO(err, done, time_module(s, co, q->repeats > 0 ? q->repeats : 7, &ms));
    timed++;
    if (ms < best) {
      best = ms;
      pick = c[i];
    }
  }
  DG_CALL_GOTO(err, done, co->set(s, &pick));
  out->cfg = pick;
  out->rhs_ms = isfinite(best) ? best : 0;
  out->tuned = 1;
  char cs[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&pick, cs, sizeof cs);
  dg_info("tuning: %s %.4f ms with %s (%d timed)", co->name, out->rhs_ms, cs, timed);
done:
  free(c);
  dg_tune_space_free(&sp);
  return err;
}

dg_error dg_autotune_companion_run(const dg_autotune_request *q, dg_solver *s,
                                   const dg_autotune_companion *c, dg_autotune_outcome *out) {
  memset(out, 0, sizeof *out);
  out->cfg = *c->get(s);
  if (q->mode == DG_TUNE_OFF)
    return DG_OK;
  const dg_device_info *info = dg_device_get_info(q->dev);
  const int cpu_default = dg_autotune_cpu_default(q);
  char *dir = NULL;
  DG_CALL(dg_autotune_db_dir(q, &dir));
  dg_error err = DG_OK;
  dg_tune_key key;
  dg_tune_key_make(info, c->digest, q->disc->dim, q->disc->N, q->physics->ncomp,
                   q->disc->precision == DG_FLOAT, &key);
  int found = 0;
  if (q->mode == DG_TUNE_AUTO) {
    dg_kernel_config k;
    double ms = 0;
    DG_CALL_GOTO(err, done, dg_tune_db_get(dir, &key, 0, &k, &ms, &found));
    if (found) { /* the entry's knobs, as the module takes them */
      DG_CALL_GOTO(err, done, c->set(s, &k));
      out->cfg = *c->get(s);
      out->rhs_ms = ms;
      goto done;
    }
    if (cpu_default) /* as the main operator: the default knobs, no search */
      goto done;
  }
  DG_CALL_GOTO(err, done, search(q, s, c, out));
  if (dg_tune_db_put(dir, &key, &out->cfg, out->rhs_ms) != DG_OK) {
    dg_warn("tuning: cannot record the choice of %s in %s: %s", c->what, dir,
            dg_error_message());
    dg_error_clear();
  }
done:
  free(dir);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
