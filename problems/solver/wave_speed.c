/* The step rate from the wave speed on the device (wave_speed.h). */
#include "problems/solver/wave_speed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reduction.h"
#include "dg/bernstein.h"
#include "operators/gen_wave_speed.h"
#include "operators/physics.h"
#include "problems/solver/element_module.h"

struct dg_wave_speed {
  dg_solver *s;
  dg_device *dev;
  dg_parallel *par;
  dg_physics ph;
  dg_physics_tables *tables;
  int basis, one_chunk;
  dg_codegen_target tg;
  dg_module *mod;
  dg_kernel *k;
  void *hk, *VB, *out;
  dg_reduction *rmax;
  int64_t K, K_owned;
};

void dg_wave_speed_destroy(dg_wave_speed **wp) {
  if (!wp || !*wp)
    return;
  dg_wave_speed *w = *wp;
  dg_module_destroy(&w->mod);
  void *dev_arrays[] = {w->hk, w->VB, w->out};
  for (int i = 0; i < 3; i++)
    if (dev_arrays[i])
      dg_device_free(w->dev, dev_arrays[i]);
  dg_reduction_destroy(&w->rmax);
  dg_physics_tables_destroy(&w->tables);
  free(w);
  *wp = NULL;
}

static dg_error upload(dg_device *dev, const void *host, size_t bytes, void **out) {
  DG_CALL(dg_device_malloc(dev, bytes, out));
  DG_CALL(dg_device_upload(dev, *out, host, bytes));
  return DG_OK;
}

/* The Bernstein Vandermonde (node values from coefficients) for a
 * Bernstein-Bezier state; one zero otherwise (never read). */
static dg_error upload_vandermonde(dg_wave_speed *w, const dg_refelem *re) {
  if (!w->basis) {
    double zero = 0;
    DG_CALL(upload(w->dev, &zero, sizeof zero, &w->VB));
    return DG_OK;
  }
  dg_bernstein *bb = NULL;
  DG_CALL(dg_bernstein_create(re, &bb));
  dg_error err = upload(w->dev, bb->V, sizeof(double) * (size_t)re->Np * re->Np, &w->VB);
  dg_bernstein_destroy(&bb);
  DG_CALL(err);
  return DG_OK;
}

static dg_error load_module(dg_wave_speed *w, const dg_flux_program *prog,
                            const dg_discretization *disc, char *(*wrap)(const char *)) {
  const dg_opdata *od = dg_solver_opdata(w->s);
  dg_wave_speed_spec spec = {
      .dim = od->dim,
      .N = disc->N,
      .Np = od->Np,
      .np_pad = od->np_pad,
      .layout = od->element_major ? DG_LAYOUT_ELEMENT_MAJOR : DG_LAYOUT_FIELD_MAJOR,
      .state_float = disc->precision == DG_FLOAT,
      .bernstein = w->basis,
      .ph = &w->ph,
      .speed = dg_flux_wave_speed(prog, NULL)};
  char *src = NULL;
  DG_CALL(dg_gen_wave_speed(w->tg, &spec, &src));
  DG_CALL(dg_element_module_load(w->s, "dg_wave_speed", w->tg, src, wrap, &w->mod, &w->k));
  return DG_OK;
}

static dg_error create(dg_solver *s, const dg_discretization *disc, const dg_flux_program *prog,
                       dg_parallel *par, int target, char *(*wrap)(const char *),
                       dg_wave_speed **out) {
  *out = NULL;
  DG_CHECK(dg_flux_wave_speed(prog, NULL), DG_ERR_ARG, "the flux file declares no wave_speed");
  dg_wave_speed *w = calloc(1, sizeof *w);
  DG_CHECK(w, DG_ERR_MEMORY, "out of memory");
  w->s = s;
  w->dev = dg_solver_device(s);
  w->par = par;
  const dg_opdata *od = dg_solver_opdata(s);
  w->K = od->K;
  w->K_owned = od->K_owned;
  w->basis = dg_solver_kernels(s)->basis;
  w->tg = dg_element_module_target(s, target);
  w->one_chunk = wrap != NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, fail, dg_physics_from_program(prog, &w->ph, &w->tables));
  DG_CALL_GOTO(err, fail, upload_vandermonde(w, disc->re));
  /* opdata's element k is the discretization's for k < K_owned */
  DG_CALL_GOTO(err, fail,
               dg_device_malloc(w->dev, sizeof(double) * (size_t)(w->K_owned + 1), &w->hk));
  if (w->K_owned > 0)
    DG_CALL_GOTO(err, fail, dg_device_upload(w->dev, w->hk, disc->h,
                                             sizeof(double) * (size_t)w->K_owned));
  DG_CALL_GOTO(err, fail,
               dg_device_malloc(w->dev, sizeof(double) * (size_t)(w->K_owned + 1), &w->out));
  DG_CALL_GOTO(err, fail, load_module(w, prog, disc, wrap));
  DG_CALL_GOTO(err, fail, dg_reduction_create_max_abs(w->dev, DG_DOUBLE, &w->rmax));
  *out = w;
  return DG_OK;
fail:
  dg_wave_speed_destroy(&w);
  return err;
}

dg_error dg_wave_speed_create(dg_solver *s, const dg_discretization *disc,
                              const dg_flux_program *prog, dg_parallel *par,
                              dg_wave_speed **ws) {
  DG_CALL(create(s, disc, prog, par, -1, NULL, ws));
  return DG_OK;
}

dg_error dg_wave_speed_create_wrapped(dg_solver *s, const dg_discretization *disc,
                                      const dg_flux_program *prog, dg_parallel *par,
                                      dg_codegen_target tg, char *(*wrap)(const char *source),
                                      dg_wave_speed **ws) {
  DG_CALL(create(s, disc, prog, par, (int)tg, wrap, ws));
  return DG_OK;
}

dg_error dg_wave_speed_rate(dg_wave_speed *w, double t, double nu, double *rate) {
  DG_CHECK(dg_solver_kernels(w->s)->basis == w->basis, DG_ERR_ARG,
           "the solver's basis changed since its wave speed was set up");
  void *state = dg_solver_device_state(w->s), *vx = dg_solver_device_coordinates(w->s);
  void *cf = dg_solver_device_coefficients(w->s); /* read only with ncoef > 0 */
  long long K = w->K, K_owned = w->K_owned;
  void *args[] = {&state, &vx, &w->hk, &w->VB, &t, &nu, &K, &K_owned, &w->out, &cf};
  double r = 0;
  DG_CALL(dg_element_module_launch(w->s, w->k, K_owned, w->one_chunk, args));
  if (K_owned > 0)
    DG_CALL(dg_reduction_call(w->rmax, K_owned, (dg_arg[]){DG_ARG_POINTER(w->out)}, &r));
  if (w->par && w->par->size > 1) { /* with a flag for a NaN: a max may skip it */
    double v[2] = {isnan(r) ? 0 : r, isnan(r)};
    DG_CALL(dg_parallel_max(w->par, v, 2));
    r = v[1] > 0 ? NAN : v[0];
  }
  *rate = r;
  return DG_OK;
}
