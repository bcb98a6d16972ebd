/* The shock-capturing module (gen_shock.h): sensor, continuous artificial
 * viscosity and positivity limiter.  cpu: a loop iteration per element (per
 * vertex for the vertex maximum).  cuda: blocks of whole elements with a
 * thread per node (face node), see dg_codegen_shock_shape. */
#include "operators/gen_shock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"
#include "operators/gen_context.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* About 256 threads a block: whole elements of tpe threads each; the
 * sensor: SENSOR_EPB elements, a thread each (below). */
enum { BLOCK_THREADS = 256, MAX_THREADS = 1024, SENSOR_EPB = 64 };
static int elements_per_block(int tpe) { return tpe >= BLOCK_THREADS ? 1 : BLOCK_THREADS / tpe; }

dg_shock_shape dg_codegen_shock_shape(const dg_element_ops *el, const dg_physics *ph,
                                      int is_float, dg_shock_kernel_id which) {
  dg_shock_shape sh = {el->Np, elements_per_block(el->Np), 0};
  unsigned rs = is_float ? 4u : 8u, t = (unsigned)(sh.items_per_block * el->Np);
  unsigned e = (unsigned)sh.items_per_block, nc = (unsigned)ph->ncomp;
  switch (which) {
  case DG_SHOCK_KSENSOR: /* the quantity's node values, a padded row per element */
    sh.threads_per_item = 1;
    sh.items_per_block = SENSOR_EPB;
    sh.shared_bytes = (unsigned)SENSOR_EPB * (unsigned)(el->Np + 1) * rs;
    break;
  case DG_SHOCK_KVERTEX:
    sh.threads_per_item = 1;
    sh.items_per_block = BLOCK_THREADS;
    break;
  case DG_SHOCK_KFACES:
    sh.threads_per_item = el->Nfaces * el->Nfp;
    sh.items_per_block = elements_per_block(sh.threads_per_item);
    break;
  case DG_SHOCK_KLIMIT: /* node values, a quantity's, the means, theta */
    sh.shared_bytes = (nc * t + t + nc * e + e) * rs;
    break;
  default:
    break;
  }
  return sh;
}

/* A kernel's opening: the cuda signature and its item index (a thread per
 * item: dg_shock_vertex), or the cpu chunk loop over the same index.
 * type[a], name[a]: the arguments
 * (pointers end their type with '*'); item: the loop variable; count: the
 * cuda guard. */
static void kernel_head(dg_strbuf *b, dg_codegen_target tg, const char *kname, int nargs,
                        const char *const *type, const char *const *name, const char *item,
                        const char *count) {
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_appendf(b, "KERNEL void %s(", kname);
    for (int a = 0; a < nargs; a++)
      dg_strbuf_appendf(b, "%s%s %s", a ? ", " : "", type[a], name[a]);
    dg_strbuf_appendf(b, ") {\n  const long long %s = (long long)blockIdx.x * blockDim.x + "
                         "threadIdx.x;\n  if (%s >= %s) return;\n",
                      item, item, count);
    return;
  }
  dg_strbuf_appendf(b, "KERNEL void %s(void **args, int64_t first, int64_t count) {\n", kname);
  for (int a = 0; a < nargs; a++) {
    size_t l = strlen(type[a]);
    if (l && type[a][l - 1] == '*')
      dg_strbuf_appendf(b, "  %s %s = *(%s *)args[%d];\n", type[a], name[a], type[a], a);
    else
      dg_strbuf_appendf(b, "  const %s %s = *(const %s *)args[%d];\n", type[a], name[a], type[a],
                        a);
  }
  dg_strbuf_appendf(b, "  (void)%s;\n  for (long long %s = first; %s < first + count; ++%s) {\n",
                    count, item, item, item);
}

static void kernel_tail(dg_strbuf *b, dg_codegen_target tg) {
  dg_strbuf_append(b, tg == DG_CODEGEN_CUDA ? "}\n\n" : "  }\n}\n\n");
}

/* Leaves of the state as this module reads it: the node values u[c], or
 * the element mean um[c] (ctx->user names the array). */
static void node_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side) {
  (void)side;
  dg_strbuf_appendf(b, "%s[%d]", (const char *)c->user, comp);
}

/* The sensor's leaves: node i's state read where the expression needs it
 * (only the components it names: a sensor of rho reads one array, not the
 * whole state; repeated reads of one component are one load, q being a
 * const restrict pointer).  Expects q, K, k, i. */
static void node_field_direct(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side) {
  (void)c;
  (void)side;
  dg_strbuf_appendf(b, "q[BASE(k, i) + (long long)%d * CSTRIDE(K)]", comp);
}

/* A table of the module.  cuda: in constant memory when a warp reads one
 * entry at a time (uniform: the sensor's invV, row by row) and it fits
 * (48 KB, of the 64 KB bank), so that the products read it as operands
 * instead of through the load units; otherwise global. */
static void emit_table_as(dg_strbuf *b, dg_codegen_target tg, const char *name, const double *a,
                          int n, int uniform) {
  const char *q = tg != DG_CODEGEN_CUDA                     ? "static const"
                  : uniform && (size_t)n * 8 <= (48u << 10) ? "__constant__"
                                                            : "__device__ const";
  dg_strbuf_appendf(b, "%s real %s[%d] = {", q, name, n);
  for (int i = 0; i < n; i++)
    dg_strbuf_appendf(b, "%s%.17g", i ? (i % 4 ? ", " : ",\n    ") : "", a[i]);
  dg_strbuf_append(b, "};\n");
}

static void emit_table(dg_strbuf *b, dg_codegen_target tg, const char *name, const double *a,
                       int n) {
  emit_table_as(b, tg, name, a, n, 0);
}

/* Load node i's state into u[] (expects q, K, k, i). */
static void emit_load_node(dg_strbuf *b, const char *indent) {
  dg_strbuf_appendf(b, "%sreal u[NC];\n%sfor (int c = 0; c < NC; ++c) u[c] = q[BASE(k, i) + "
                       "(long long)c * CSTRIDE(K)];\n",
                    indent, indent);
}

/* The sensor's end for element k from the sums tot (every mode's c_j^2)
 * and hi (the degree-N modes'): eps[k], and the flag of any viscosity. */
static void emit_sensor_ramp(dg_strbuf *b, const dg_emit_ctx *ctx, const dg_shock_codegen *sc,
                             const char *in) {
  dg_strbuf_appendf(b,
                    "%s/* a constant or zero quantity: no modes to decay, no viscosity */\n"
                    "%sreal s = hi > 0 && tot > 0 ? (real)%.17g * %s(hi / tot) : (real)-1e30;\n"
                    "%sreal e0 = %s((real)%.17g, (real)%.17g * hk[k]);\n"
                    "%sreal z = s - (real)%.17g;\n"
                    "%sreal e = z < -(real)%.17g ? (real)0 : z > (real)%.17g ? e0\n"
                    "%s       : (real)0.5 * e0 * ((real)1 + %s((real)%.17g * z));\n"
                    "%seps[k] = e;\n"
                    "%s/* a NaN counts: the spreading shows it as before */\n"
                    "%sif (!(e <= 0)) *active = 1;\n",
                    in, in, 1.0 / log(10.0), dg_emit_math(ctx, "log"), in,
                    dg_emit_math(ctx, "fmin"), sc->eps_max, sc->eps_scale, in, sc->s0, in,
                    sc->kappa, sc->kappa, in, dg_emit_math(ctx, "sin"), M_PI / (2.0 * sc->kappa),
                    in, in, in);
}

/* cuda: the block's threads load the quantity's node values of its
 * SH_SEPB elements, node after node in the state's order (coalesced), into
 * a row of NP + 1 reals per element (the padding staggers the rows over the
 * shared-memory banks); then a thread per element takes the modal
 * coefficients c_j = sum_l invV[j][l] q_l and their energies.  Every thread
 * of a warp reads the same invV entry at once (a broadcast), and an element's
 * work stays in one thread: no barrier or reduction after the load. */
static void emit_sensor_cuda(dg_strbuf *b, dg_emit_ctx *ctx, const dg_shock_codegen *sc) {
  dg_strbuf_append(b,
                   "KERNEL void __launch_bounds__(SH_SEPB) dg_shock_sensor(\n"
                   "    const real *__restrict__ q, const real *__restrict__ hk,\n"
                   "    real *__restrict__ eps, int *__restrict__ active, long long K,\n"
                   "    long long n) {\n"
                   "  extern __shared__ __align__(16) double smem_raw[];\n"
                   "  real *sq = (real *)smem_raw; /* [SH_SEPB][NP + 1] */\n"
                   "  const long long k0 = (long long)blockIdx.x * SH_SEPB;\n"
                   "  const int ne = n - k0 < SH_SEPB ? (int)(n - k0) : SH_SEPB;\n"
                   "  /* unrolled, no early exit: a thread's NP loads are in flight at once */\n"
                   "#pragma unroll\n"
                   "  for (int r = 0; r < NP; ++r) {\n"
                   "    const int f = threadIdx.x + r * SH_SEPB;\n"
                   "    const int slot = f / NP, i = f - slot * NP;\n"
                   "    const long long k = k0 + slot;\n"
                   "    if (slot < ne)\n");
  dg_strbuf_append(b, "      sq[slot * (NP + 1) + i] = ");
  dg_emit_expr(ctx, b, sc->sensor, 0);
  dg_strbuf_append(b, ";\n  }\n"
                      "  __syncthreads();\n"
                      "  const long long k = k0 + threadIdx.x;\n"
                      "  if (k >= n) return;\n"
                      "  const real *qn = sq + threadIdx.x * (NP + 1);\n"
                      "  real tot = 0, hi = 0;\n"
                      "  real x[NP];\n"
                      "  for (int l = 0; l < NP; ++l) x[l] = qn[l];\n"
                      "  for (int j = 0; j < NP; ++j) {\n"
                      "    real cj = 0;\n"
                      "    for (int l = 0; l < NP; ++l) cj += c_invV[j * NP + l] * x[l];\n"
                      "    tot += cj * cj;\n"
                      "    hi += c_top[j] * cj * cj;\n"
                      "  }\n");
  emit_sensor_ramp(b, ctx, sc, "  ");
  dg_strbuf_append(b, "}\n\n");
}

static dg_error emit_sensor(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                            const dg_physics *ph, int is_float, const dg_shock_codegen *sc) {
  emit_table_as(b, tg, "c_invV", sc->invV, el->Np * el->Np, 1); /* row-major */
  double top[64 * 64] = {0};
  int np = el->Np;
  for (int j = 0; j < np; j++)
    top[j] = sc->mode_degree[j] == el->N ? 1.0 : 0.0;
  emit_table_as(b, tg, "c_top", top, np, 1);
  dg_strbuf_appendf(b, "/* dg_shock_sensor: s = log10(|q - P_{N-1} q|^2 / |q|^2) of the modal\n"
                       " * coefficients of the sensor quantity (Persson & Peraire 2006), then\n"
                       " * eps = eps0/2 (1 + sin(pi (s - s0)/(2 kappa))) on |s - s0| < kappa,\n"
                       " * s0 = %.6g, kappa = %.6g, eps0 = min(%.6g, %.6g hk) */\n",
                    sc->s0, sc->kappa, sc->eps_max, sc->eps_scale);
  dg_emit_ctx ctx;
  dg_gen_init_ctx(&ctx, ph, el->dim, is_float);
  ctx.field = node_field_direct;
  if (tg == DG_CODEGEN_CUDA) {
    emit_sensor_cuda(b, &ctx, sc);
    return dg_emit_status(&ctx);
  }
  const char *ty[] = {"const real *", "const real *", "real *", "int *", "long long",
                      "long long"};
  const char *nm[] = {"q", "hk", "eps", "active", "K", "n"};
  kernel_head(b, tg, "dg_shock_sensor", 6, ty, nm, "k", "n");
  dg_strbuf_append(b, "  real qn[NP];\n  for (int i = 0; i < NP; ++i) {\n");
  dg_strbuf_append(b, "    qn[i] = ");
  dg_emit_expr(&ctx, b, sc->sensor, 0);
  dg_strbuf_append(b, ";\n  }\n");
  dg_strbuf_append(b, "  real tot = 0, hi = 0;\n"
                      "  for (int j = 0; j < NP; ++j) {\n"
                      "    real cj = 0;\n"
                      "    for (int i = 0; i < NP; ++i) cj += c_invV[j * NP + i] * qn[i];\n"
                      "    tot += cj * cj;\n"
                      "    hi += c_top[j] * cj * cj;\n"
                      "  }\n");
  emit_sensor_ramp(b, &ctx, sc, "  ");
  kernel_tail(b, tg);
  return dg_emit_status(&ctx);
}

/* cpu: an element a loop iteration, dg_shock_nodes writing the node values
 * and interior traces, dg_shock_faces the exterior traces. */
static void emit_smoothing_c(dg_strbuf *b, dg_codegen_target tg, int nv) {
  const char *tn[] = {"const real *", "const long long *", "real *", "real *", "long long",
                      "long long"};
  const char *nn[] = {"vav", "e2v", "cf", "fcf", "K", "n"};
  kernel_head(b, tg, "dg_shock_nodes", 6, tn, nn, "k", "n");
  dg_strbuf_appendf(b,
                    "  real w[%d];\n"
                    "  for (int v = 0; v < %d; ++v) w[v] = vav[e2v[k * %d + v]];\n"
                    "  real a[NP];\n"
                    "  for (int i = 0; i < NP; ++i) {\n"
                    "    real s = 0;\n"
                    "    for (int v = 0; v < %d; ++v) s += c_lam[i * %d + v] * w[v];\n"
                    "    a[i] = s;\n"
                    "    cf[((long long)AVC * K + k) * NP_PAD + i] = s;\n"
                    "  }\n"
                    "  for (int m = 0; m < NFNFP; ++m)\n"
                    "    fcf[((k * NFNFP + m) * NCF + AVC) * 2] = a[c_fmask_sh[m]];\n",
                    nv, nv, nv, nv, nv);
  kernel_tail(b, tg);
  /* the exterior trace: the neighbour's node value (through mapP, whose
   * state offset base(k2, i2) names the node; on a boundary face the
   * interior node), so that both sides of a face see one value also where
   * the vertices differ (periodic sides) */
  dg_strbuf_append(b, "/* dg_shock_faces: the exterior traces of coefficient AVC */\n");
  const char *tf[] = {"const real *", "const long long *", "const real *", "const int *",
                      "real *", "long long", "long long"};
  const char *nf[] = {"vav", "e2v", "cf", "mapP", "fcf", "K", "n"};
  kernel_head(b, tg, "dg_shock_faces", 7, tf, nf, "k", "n");
  dg_strbuf_append(b, "  (void)vav; (void)e2v; /* the cuda kernel's */\n"
                      "  for (int m = 0; m < NFNFP; ++m) {\n"
                      "    const long long p = mapP[k * NFNFP + m];\n"
                      "    const long long k2 = p / SLOT, i2 = p - k2 * SLOT;\n"
                      "    fcf[((k * NFNFP + m) * NCF + AVC) * 2 + 1] =\n"
                      "        cf[((long long)AVC * K + k2) * NP_PAD + i2];\n"
                      "  }\n");
  kernel_tail(b, tg);
}

/* cuda: dg_shock_nodes a thread per node; dg_shock_faces a thread per
 * face node, writing both traces (one 16-byte pair: whole memory sectors,
 * where two kernels writing a half each would make every sector a partial
 * write): the interior one and the exterior one of an owned neighbour are
 * the node kernel's sum over the vertices, at the face node's volume node
 * and at the neighbour's node (mapP) -- the same value to the bit; a ghost
 * neighbour's is its node value exchanged into cf. */
static void emit_smoothing_cuda(dg_strbuf *b, int nv) {
  dg_strbuf_appendf(b,
                    "KERNEL void __launch_bounds__(SH_EPB * NP) dg_shock_nodes(\n"
                    "    const real *__restrict__ vav, const long long *__restrict__ e2v,\n"
                    "    real *__restrict__ cf, real *__restrict__ fcf, long long K,\n"
                    "    long long n) {\n"
                    "  const int tid = threadIdx.x, slot = tid / NP, i = tid - slot * NP;\n"
                    "  const long long k = (long long)blockIdx.x * SH_EPB + slot;\n"
                    "  (void)fcf; /* dg_shock_faces writes the traces */\n"
                    "  if (k >= n) return;\n"
                    "  real s = 0;\n"
                    "  for (int v = 0; v < %d; ++v) s += c_lam[v * NP + i] * vav[e2v[k * %d + v]];\n"
                    "  cf[((long long)AVC * K + k) * NP_PAD + i] = s;\n"
                    "}\n\n",
                    nv, nv);
  dg_strbuf_appendf(b,
                    "/* dg_shock_faces: both traces of coefficient AVC */\n"
                    "KERNEL void __launch_bounds__(SH_FEPB * NFNFP) dg_shock_faces(\n"
                    "    const real *__restrict__ vav, const long long *__restrict__ e2v,\n"
                    "    const real *__restrict__ cf, const int *__restrict__ mapP,\n"
                    "    real *__restrict__ fcf, long long K, long long n) {\n"
                    "  const int tid = threadIdx.x, slot = tid / NFNFP, m = tid - slot * NFNFP;\n"
                    "  const long long k = (long long)blockIdx.x * SH_FEPB + slot;\n"
                    "  if (k >= n) return;\n"
                    "  const long long z = k * NFNFP + m, p = mapP[z];\n"
                    "  const long long k2 = p / SLOT, i2 = p - k2 * SLOT;\n"
                    "  const int f = c_fmask_sh[m];\n"
                    "  real a = 0, x = 0;\n"
                    "  for (int v = 0; v < %d; ++v) a += c_lam[v * NP + f] * vav[e2v[k * %d + v]];\n"
                    "  if (k2 < n)\n"
                    "    for (int v = 0; v < %d; ++v) x += c_lam[v * NP + i2] * vav[e2v[k2 * %d + v]];\n"
                    "  else\n"
                    "    x = cf[((long long)AVC * K + k2) * NP_PAD + i2];\n"
                    "  fcf[(z * NCF + AVC) * 2] = a;\n"
                    "  fcf[(z * NCF + AVC) * 2 + 1] = x;\n"
                    "}\n\n",
                    nv, nv, nv, nv);
}

/* The element values made continuous (PyFR's artificial viscosity: the
 * maximum over the elements of each vertex, then linear inside the
 * element), into coefficient AVC's node values and face traces; the
 * exterior trace is the neighbour's (dg_shock_faces, after every node
 * value is written). */
static void emit_smoothing(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                           int is_float, const dg_shock_codegen *sc) {
  int nv = el->dim + 1;
  dg_strbuf_append(b, "/* dg_shock_vertex: vav[v] = max of eps over the elements of vertex v */\n");
  const char *tv[] = {"const real *", "const long long *", "const long long *", "real *",
                      "long long"};
  const char *nv_[] = {"eps", "v2e_off", "v2e", "vav", "nv"};
  kernel_head(b, tg, "dg_shock_vertex", 5, tv, nv_, "v", "nv");
  dg_strbuf_append(b, "  real m = 0;\n"
                      "  for (long long j = v2e_off[v]; j < v2e_off[v + 1]; ++j)\n"
                      "    m = eps[v2e[j]] > m ? eps[v2e[j]] : m;\n"
                      "  vav[v] = m;\n");
  kernel_tail(b, tg);
  /* cuda: column-major (node i's weights a warp's neighbouring words) */
  if (tg == DG_CODEGEN_CUDA)
    dg_gen_emit_matrix(b, tg, DG_MATRIX_GLOBAL, is_float, "c_lam", sc->vertex_weights, el->Np,
                       nv);
  else
    emit_table(b, tg, "c_lam", sc->vertex_weights, el->Np * nv);
  dg_gen_emit_int_table(b, tg, "c_fmask_sh", el->Fmask, el->Nfaces * el->Nfp);
  dg_strbuf_appendf(b, "/* dg_shock_nodes: coefficient %d at the nodes, linear in the vertex\n"
                       " * values, and its face traces (both sides: it is continuous) */\n",
                    sc->av_coef);
  if (tg == DG_CODEGEN_CUDA)
    emit_smoothing_cuda(b, nv);
  else
    emit_smoothing_c(b, tg, nv);
}

/* The limiter's per-quantity formulas (both targets): the minimum over the
 * nodes, where a NaN value (a negative density's square root) counts as
 * below; theta of Zhang & Shu (2010) eq. 3.7 / 3.9, clamped to [0, 1]. */
#define NAN_MIN "mn = v < mn || v != v ? (v != v ? -(real)1e30 : v) : mn;"
#define THETA "real th = pm > peps ? (pm - peps) / (pm - mn) : (real)0;"
#define THETA_CLAMP "th = th < 0 ? (real)0 : th > 1 ? (real)1 : th;"

/* cuda: thread i of an element holds node i's state in registers; the
 * block's node values staged in shared memory give the element means (one
 * thread per element and component, summing in the nodes' order) and per
 * quantity the minimum (one thread per element), whose theta the element's
 * threads apply to their node; an element is written back only where some
 * quantity limited it. */
static void emit_limiter_cuda(dg_strbuf *b, dg_emit_ctx *ctx, const dg_shock_codegen *sc) {
  dg_strbuf_appendf(b,
                    "KERNEL void __launch_bounds__(SH_EPB * NP) dg_shock_limit(\n"
                    "    real *__restrict__ q, long long K, long long n) {\n"
                    "  extern __shared__ __align__(16) double smem_raw[];\n"
                    "  /* the block's node values [NC][SH_EPB * NP], one quantity's node\n"
                    "   * values, the element means [NC][SH_EPB], theta [SH_EPB] (2: not\n"
                    "   * limited; a theta is at most 1, or NaN) */\n"
                    "  real *su = (real *)smem_raw, *sv = su + NC * SH_EPB * NP;\n"
                    "  real *smean = sv + SH_EPB * NP, *sth = smean + NC * SH_EPB;\n"
                    "  const int tid = threadIdx.x, slot = tid / NP, i = tid - slot * NP;\n"
                    "  const long long k = (long long)blockIdx.x * SH_EPB + slot;\n"
                    "  const int live = k < n;\n"
                    "  const real peps = (real)%.17g;\n"
                    "  real u[NC];\n"
                    "  for (int c = 0; c < NC; ++c) {\n"
                    "    u[c] = live ? q[BASE(k, i) + (long long)c * CSTRIDE(K)] : (real)0;\n"
                    "    su[c * SH_EPB * NP + tid] = u[c];\n"
                    "  }\n"
                    "  __syncthreads();\n"
                    "  for (int r = tid; r < NC * SH_EPB; r += SH_EPB * NP) {\n"
                    "    const int c = r / SH_EPB, e = r - c * SH_EPB;\n"
                    "    real s = 0;\n"
                    "    for (int l = 0; l < NP; ++l) s += c_wmean[l] * su[c * SH_EPB * NP + e * NP + l];\n"
                    "    smean[r] = s;\n"
                    "  }\n"
                    "  __syncthreads();\n"
                    "  real um[NC];\n"
                    "  for (int c = 0; c < NC; ++c) um[c] = smean[c * SH_EPB + slot];\n"
                    "  int changed = 0;\n",
                    sc->positive_eps);
  for (int j = 0; j < sc->npositive; j++) {
    int comp = sc->positive_comp[j];
    dg_strbuf_appendf(b, "  { /* quantity %d */\n", j);
    if (comp >= 0) {
      dg_strbuf_appendf(b, "    const int c = %d;\n    sv[tid] = u[c];\n", comp);
    } else {
      ctx->user = (void *)"u";
      dg_strbuf_append(b, "    sv[tid] = ");
      dg_emit_expr(ctx, b, sc->positive[j], 0);
      dg_strbuf_append(b, ";\n");
    }
    dg_strbuf_append(b, "    __syncthreads();\n    if (live && i == 0) {\n");
    if (comp >= 0) {
      dg_strbuf_append(b, "      real pm = um[c], mn = pm;\n"
                          "      for (int l = 0; l < NP; ++l) {\n"
                          "        const real v = sv[slot * NP + l];\n"
                          "        mn = v < mn ? v : mn;\n      }\n");
    } else {
      ctx->user = (void *)"um";
      dg_strbuf_append(b, "      real pm = ");
      dg_emit_expr(ctx, b, sc->positive[j], 0);
      dg_strbuf_appendf(b, ";\n      real mn = pm;\n"
                           "      for (int l = 0; l < NP; ++l) {\n"
                           "        const real v = sv[slot * NP + l];\n"
                           "        %s\n      }\n",
                        NAN_MIN);
    }
    dg_strbuf_appendf(b, "      real t2 = (real)2;\n"
                         "      if (mn < peps) {\n        %s\n        %s\n        t2 = th;\n"
                         "      }\n      sth[slot] = t2;\n    }\n"
                         "    __syncthreads();\n"
                         "    const real th = live ? sth[slot] : (real)2;\n"
                         "    if (th != (real)2) {\n",
                      THETA, THETA_CLAMP);
    if (comp >= 0)
      dg_strbuf_append(b, "      u[c] = um[c] + th * (u[c] - um[c]);\n");
    else
      dg_strbuf_append(b, "      for (int c = 0; c < NC; ++c) u[c] = um[c] + th * (u[c] - um[c]);\n");
    dg_strbuf_append(b, "      changed = 1;\n    }\n  }\n");
  }
  dg_strbuf_append(b, "  if (!live || !changed) return;\n"
                      "  for (int c = 0; c < NC; ++c) q[BASE(k, i) + (long long)c * CSTRIDE(K)] = u[c];\n"
                      "}\n\n");
}

/* Zhang & Shu (2010): per quantity in order, theta = min(1, (mean - eps) /
 * (mean - min over the nodes)) scales the deviation from the element mean
 * (the mean, hence mass, is kept).  A field component scales itself (the
 * density, their eq. 3.7); a concave function of the state (the pressure)
 * scales every component, which keeps it above eps by concavity
 * (p(um + th (u - um)) >= (1 - th) p(um) + th p(u)). */
static dg_error emit_limiter(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                             const dg_physics *ph, int is_float, const dg_shock_codegen *sc) {
  double w[64 * 64], sum = 0;
  for (int i = 0; i < el->Np; i++)
    sum += sc->weights[i];
  for (int i = 0; i < el->Np; i++)
    w[i] = sc->weights[i] / sum;
  emit_table(b, tg, "c_wmean", w, el->Np);
  dg_strbuf_appendf(b, "/* dg_shock_limit: the positivity-preserving limiter (Zhang & Shu 2010),\n"
                       " * eps = %.6g, %d quantities */\n",
                    sc->positive_eps, sc->npositive);
  dg_emit_ctx ctx;
  dg_gen_init_ctx(&ctx, ph, el->dim, is_float);
  ctx.field = node_field;
  if (tg == DG_CODEGEN_CUDA) {
    emit_limiter_cuda(b, &ctx, sc);
    return dg_emit_status(&ctx);
  }
  const char *tl[] = {"real *", "long long", "long long"};
  const char *nl[] = {"q", "K", "n"};
  kernel_head(b, tg, "dg_shock_limit", 3, tl, nl, "k", "n");
  dg_strbuf_appendf(b,
                    "  const real peps = (real)%.17g;\n"
                    "  real um[NC];\n"
                    "  for (int c = 0; c < NC; ++c) {\n"
                    "    real s = 0;\n"
                    "    for (int i = 0; i < NP; ++i) s += c_wmean[i] * q[BASE(k, i) + "
                    "(long long)c * CSTRIDE(K)];\n"
                    "    um[c] = s;\n"
                    "  }\n",
                    sc->positive_eps);
  for (int j = 0; j < sc->npositive; j++) {
    dg_strbuf_appendf(b, "  { /* quantity %d */\n", j);
    if (sc->positive_comp[j] >= 0) {
      dg_strbuf_appendf(b, "    const int c = %d;\n    real pm = um[c], mn = pm;\n"
                           "    for (int i = 0; i < NP; ++i) {\n"
                           "      real v = q[BASE(k, i) + (long long)c * CSTRIDE(K)];\n"
                           "      mn = v < mn ? v : mn;\n    }\n",
                        sc->positive_comp[j]);
    } else {
      ctx.user = (void *)"um";
      dg_strbuf_append(b, "    real pm = ");
      dg_emit_expr(&ctx, b, sc->positive[j], 0);
      dg_strbuf_append(b, ";\n    real mn = pm;\n    for (int i = 0; i < NP; ++i) {\n");
      emit_load_node(b, "      ");
      ctx.user = (void *)"u";
      dg_strbuf_append(b, "      real v = ");
      dg_emit_expr(&ctx, b, sc->positive[j], 0);
      dg_strbuf_appendf(b, ";\n      %s\n    }\n", NAN_MIN);
    }
    dg_strbuf_appendf(b, "    if (mn < peps) {\n      %s\n      %s\n", THETA, THETA_CLAMP);
    if (sc->positive_comp[j] >= 0)
      dg_strbuf_append(b, "      for (int i = 0; i < NP; ++i) {\n"
                          "        long long o = BASE(k, i) + (long long)c * CSTRIDE(K);\n"
                          "        q[o] = um[c] + th * (q[o] - um[c]);\n      }\n");
    else
      dg_strbuf_append(b, "      for (int c = 0; c < NC; ++c)\n"
                          "        for (int i = 0; i < NP; ++i) {\n"
                          "          long long o = BASE(k, i) + (long long)c * CSTRIDE(K);\n"
                          "          q[o] = um[c] + th * (q[o] - um[c]);\n        }\n");
    dg_strbuf_append(b, "    }\n  }\n");
  }
  kernel_tail(b, tg);
  return dg_emit_status(&ctx);
}

dg_error dg_codegen_shock(dg_codegen_target tg, const dg_element_ops *el, const dg_physics *ph,
                          int is_float, dg_field_layout layout, int np_pad,
                          const dg_shock_codegen *sc, char **source) {
  *source = NULL;
  DG_CHECK(el->Np <= 64 * 64, DG_ERR_ARG, "Np %d too large for the shock kernels", el->Np);
  DG_CHECK(sc->sensor || sc->npositive > 0, DG_ERR_ARG, "neither a sensor nor a limiter");
  DG_CHECK(!sc->sensor || (sc->av_coef >= 0 && sc->av_coef < ph->ncoef), DG_ERR_ARG,
           "artificial viscosity coefficient %d of %d", sc->av_coef, ph->ncoef);
  int nfnfp = el->Nfaces * el->Nfp;
  DG_CHECK(tg != DG_CODEGEN_CUDA || (el->Np <= MAX_THREADS && nfnfp <= MAX_THREADS), DG_ERR_ARG,
           "Np %d / %d face nodes: the cuda shock kernels run a thread per node, at most %d",
           el->Np, nfnfp, MAX_THREADS);
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_appendf(&b, "/* dgrun generated shock capturing (issue 41): target %s, precision "
                        "%s, dim %d, N = %d */\n",
                    tg == DG_CODEGEN_CUDA ? "cuda" : "c", is_float ? "float" : "double", el->dim,
                    el->N);
  if (tg == DG_CODEGEN_C)
    dg_strbuf_append(&b, "#include <math.h>\n#include <stdint.h>\n#define KERNEL\n");
  else
    dg_strbuf_append(&b, "#define KERNEL extern \"C\" __global__\n");
  dg_strbuf_appendf(&b, "typedef %s real;\n#define DIM %d\n#define NP %d\n#define NP_PAD %d\n"
                        "#define NFNFP %d\n#define NC %d\n#define NCF %d\n#define AVC %d\n",
                    is_float ? "float" : "double", el->dim, el->Np, np_pad,
                    el->Nfaces * el->Nfp, ph->ncomp, ph->ncoef > 0 ? ph->ncoef : 1,
                    sc->sensor ? sc->av_coef : 0);
  if (tg == DG_CODEGEN_CUDA) /* dg_codegen_shock_shape's blocks */
    dg_strbuf_appendf(&b, "/* elements a block: of the node kernels (SH_EPB * NP threads), of\n"
                          " * dg_shock_faces (SH_FEPB * NFNFP threads), of the sensor (SH_SEPB\n"
                          " * threads) */\n"
                          "#define SH_EPB %d\n#define SH_FEPB %d\n#define SH_SEPB %d\n",
                      dg_codegen_shock_shape(el, ph, is_float, DG_SHOCK_KNODES).items_per_block,
                      dg_codegen_shock_shape(el, ph, is_float, DG_SHOCK_KFACES).items_per_block,
                      dg_codegen_shock_shape(el, ph, is_float, DG_SHOCK_KSENSOR).items_per_block);
  if (layout == DG_LAYOUT_FIELD_MAJOR)
    dg_strbuf_append(&b, "#define CSTRIDE(K) ((long long)(K) * NP_PAD)\n"
                         "#define BASE(k, i) ((long long)(k) * NP_PAD + (i))\n"
                         "#define SLOT ((long long)NP_PAD)\n\n");
  else
    dg_strbuf_append(&b, "#define CSTRIDE(K) ((long long)NP_PAD)\n"
                         "#define BASE(k, i) ((long long)(k) * NC * NP_PAD + (i))\n"
                         "#define SLOT ((long long)NC * NP_PAD)\n\n");
  dg_error err = DG_OK;
  if (sc->sensor) {
    err = emit_sensor(&b, tg, el, ph, is_float, sc);
    if (err == DG_OK)
      emit_smoothing(&b, tg, el, is_float, sc);
  }
  if (err == DG_OK && sc->npositive > 0)
    err = emit_limiter(&b, tg, el, ph, is_float, sc);
  if (err != DG_OK) {
    dg_strbuf_free(&b);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  DG_CALL(dg_strbuf_finish(&b, source));
  return DG_OK;
}
