/* Shock capturing kernels (issue 41): the Persson-Peraire modal-decay
 * sensor, the element artificial viscosity made continuous (vertex max,
 * then linear interpolation, as PyFR does) and written into a coefficient
 * slot of the DG kernels, and the Zhang-Shu positivity-preserving limiter.
 * A module of its own (dg_shock), so that the DG operators' source is the
 * same with shock capturing on or off.
 *
 * Kernels (args[i] points at the value on both backends; cpu: chunks of
 * items, the elements or vertices; cuda: dg_codegen_shock_shape's blocks):
 *   dg_shock_sensor (q, hk, eps, active, K, n) eps[k] = eps0_k * ramp(s_k), k < n;
 *                                              *active = 1 where some eps[k] > 0
 *   dg_shock_vertex (eps, v2e_off, v2e, vav, nv)  vav[v] = max of eps over v's elements
 *   dg_shock_nodes  (vav, e2v, cf, fcf, K, n)  cf, interior fcf of coefficient AVC from vav
 *                                              (cuda: cf only)
 *   dg_shock_faces  (vav, e2v, cf, mapP, fcf, K, n)  exterior fcf: the neighbour's cf
 *                                              (cuda: both traces, see gen_shock.c)
 *   dg_shock_limit  (q, K, n)                  the positivity limiter, in place
 * with q, hk, eps, vav, cf, fcf real pointers, v2e_off, v2e, e2v int64, mapP int32,
 * active int (the caller zeroes it; every element with viscosity stores 1),
 * K (the state's element stride), n (owned elements), nv long long.  The
 * state layout, cf and fcf are those of operators/codegen.h.
 *
 * cuda: the element kernels run blocks of whole elements, one thread per
 * node (per face node in dg_shock_faces), so that a warp's loads and
 * stores of node values are neighbouring words; the sensor and the limiter
 * stage the block's node values in shared memory for their per-element
 * sums and minima (one thread per element and sum, in the nodes' order:
 * the cpu kernels' arithmetic). */
#ifndef DG_OPERATORS_GEN_SHOCK_H
#define DG_OPERATORS_GEN_SHOCK_H

#include "operators/codegen.h"

enum { DG_SHOCK_MAX_POSITIVE = 4 };

typedef struct dg_shock_codegen {
  /* Sensor (NULL: no sensor, no AV kernels): a scalar tree of the state
   * (a side-NONE FIELD component or LET leaf), its nodal values turned
   * into modal ones by invV (Np x Np, row-major); mode_degree[j] the total
   * degree of mode j.  s_e = log10(sum_{deg N} c_j^2 / sum_j c_j^2)
   * (Persson & Peraire 2006, eq. 11 with the top-degree modes), the ramp
   * eps0/2 (1 + sin(pi (s_e - s0)/(2 kappa))) on |s_e - s0| < kappa. */
  const dg_flux_node *sensor;
  const double *invV;
  const int *mode_degree;
  double s0, kappa;
  /* eps0_k = min(eps_max, eps_scale * hk[k]): hk is the element size
   * over N (the caller's). */
  double eps_scale, eps_max;
  int av_coef;            /* the coefficient slot written (< physics ncoef) */
  const double *vertex_weights; /* Np x (DIM+1): barycentric coordinates of the nodes */
  /* Positivity (npositive 0: no dg_shock_limit): quantity j is field
   * component positive_comp[j] (>= 0: its own deviation scaled, Zhang &
   * Shu 2010 eq. 3.7 for the density) or the tree positive[j] (a concave
   * function of the state such as the pressure: every component's
   * deviation scaled, their eq. 3.9 in the simplified linear form). */
  int npositive;
  int positive_comp[DG_SHOCK_MAX_POSITIVE];
  const dg_flux_node *positive[DG_SHOCK_MAX_POSITIVE];
  double positive_eps;
  const double *weights; /* Np quadrature weights of the nodal basis (M 1), any scale */
} dg_shock_codegen;

/* The module's kernels, in the order of shock.h's numbering. */
typedef enum {
  DG_SHOCK_KSENSOR = 0,
  DG_SHOCK_KVERTEX = 1,
  DG_SHOCK_KNODES = 2,
  DG_SHOCK_KFACES = 3,
  DG_SHOCK_KLIMIT = 4
} dg_shock_kernel_id;

/* A cuda kernel's launch: blocks of items_per_block items (elements, or
 * vertices for dg_shock_vertex) with threads_per_item threads each, and
 * shared_bytes of dynamic shared memory; a launch over n items has
 * ceil(n / items_per_block) blocks. */
typedef struct dg_shock_shape {
  int threads_per_item, items_per_block;
  unsigned shared_bytes;
} dg_shock_shape;
dg_shock_shape dg_codegen_shock_shape(const dg_element_ops *el, const dg_physics *ph,
                                      int is_float, dg_shock_kernel_id which);

/* The module's source for the state layout of the DG kernels (np_pad,
 * field-major or not). */
dg_error dg_codegen_shock(dg_codegen_target tg, const dg_element_ops *el, const dg_physics *ph,
                          int is_float, dg_field_layout layout, int np_pad,
                          const dg_shock_codegen *sc, char **source);

#endif
