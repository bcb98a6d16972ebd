#include "operators/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/codegen_internal.h"
#include "operators/emit_expr.h"
#include "operators/flux_affine.h"
#include "operators/kernel_knobs.h"

/* Bumped whenever generated code changes meaning; part of tuning keys. */
#define GENERATOR_VERSION 5

int dg_codegen_version(void) { return GENERATOR_VERSION; }

/* ---- derivative table: every distinct D(g) of the volume terms ---------- */

static dg_error collect_derivs(const dg_flux_node *n, deriv_table *t) {
  if (!n)
    return DG_OK;
  if (n->op == DG_FLUX_DERIV) {
    for (int i = 0; i < t->n; i++)
      if (t->d[i].node == n || dg_flux_node_equal(t->d[i].node, n))
        return DG_OK;
    DG_CHECK(t->n < MAX_DERIVS, DG_ERR_UNSUPPORTED,
             "more than %d distinct derivative terms", MAX_DERIVS);
    deriv_entry *e = &t->d[t->n];
    dg_flux_shape gs = n->args[0]->shape;
    e->node = n;
    e->gbase = t->ng;
    e->div = 0;
    e->rows = 0;
    e->dbase = t->nd;
    e->curl = 0;
    int nscalars = dg_flux_shape_size(gs);
    if (n->ref == DG_FLUX_D_DIV && t->dim > 0) {
      if (gs.rank == 1 && dg_flux_shape_size(gs) == t->dim)
        e->div = 1, e->rows = 1;
      else if (gs.rank == 2 && gs.cols == t->dim)
        e->div = 1, e->rows = gs.rows;
      t->nd += e->rows;
    } else if (n->ref == DG_FLUX_D_CURL && t->curl_as_div && t->dim == 3 && gs.rank == 1 &&
               nscalars == 3) {
      e->div = 1, e->curl = 1, e->rows = 3;
      t->nd += 3;
      nscalars = e->rows * t->dim; /* the rows' contravariant components */
    }
    t->ng += nscalars;
    t->n++;
    return DG_OK;
  }
  for (int i = 0; i < n->nargs; i++)
    DG_CALL(collect_derivs(n->args[i], t));
  return DG_OK;
}

static const deriv_entry *find_deriv(const deriv_table *t, const dg_flux_node *n) {
  for (int i = 0; i < t->n; i++)
    if (t->d[i].node == n || dg_flux_node_equal(t->d[i].node, n))
      return &t->d[i];
  return NULL;
}

/* Whether a tree (through lets) contains an op. */
static int uses_op(const dg_flux_node *n, dg_flux_op op, const dg_physics *ph, int depth) {
  if (!n || depth > 64)
    return 0;
  if (n->op == op)
    return 1;
  if (n->op == DG_FLUX_LET && n->ref >= 0 && n->ref < ph->nlets &&
      uses_op(ph->lets[n->ref], op, ph, depth + 1))
    return 1;
  for (int i = 0; i < n->nargs; i++)
    if (uses_op(n->args[i], op, ph, depth))
      return 1;
  return 0;
}

/* ---- leaf naming for the two contexts ------------------------------------ */

static void vol_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side) {
  (void)c;
  (void)side; /* volume terms read the node's own value */
  dg_strbuf_appendf(b, "u[%d]", comp);
}
void dg_cg_face_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side) {
  (void)c;
  dg_strbuf_appendf(b, side == DG_FLUX_SIDE_EXT ? "uP[%d]" : "uM[%d]", comp);
}
static void any_position(const dg_emit_ctx *c, dg_strbuf *b, int d) {
  (void)c;
  dg_strbuf_appendf(b, "X[%d]", d);
}
void dg_cg_face_normal(const dg_emit_ctx *c, dg_strbuf *b, int d) {
  (void)c;
  dg_strbuf_appendf(b, "nrm[%d]", d);
}
static void any_time(const dg_emit_ctx *c, dg_strbuf *b) {
  (void)c;
  dg_strbuf_append(b, "t");
}

/* Physical partial d/dx_d of differentiated scalar g: P[g*DIM + d]. */
static void partial(dg_strbuf *b, int dim, int g, int d) {
  dg_strbuf_appendf(b, "P[%d]", g * dim + d);
}

static void vol_derivative(const dg_emit_ctx *c, dg_strbuf *b, const dg_flux_node *n,
                           int comp) {
  const gen_state *st = c->user;
  const deriv_entry *e = find_deriv(st->derivs, n);
  int dim = st->dim;
  if (!e) {
    dg_strbuf_append(b, "0");
    return;
  }
  const dg_flux_node *g = n->args[0];
  int gb = e->gbase, gsize = dg_flux_shape_size(g->shape);
  dg_strbuf_append(b, "(");
  switch ((dg_flux_deriv)n->ref) {
  case DG_FLUX_D_X:
  case DG_FLUX_D_Y:
  case DG_FLUX_D_Z:
    partial(b, dim, gb + comp, n->ref - DG_FLUX_D_X);
    break;
  case DG_FLUX_D_GRAD: /* scalar g: component comp of the gradient */
    partial(b, dim, gb, comp);
    break;
  case DG_FLUX_D_DIV: { /* vector: sum_d dg_d/dx_d; matrix: row-wise */
    if (st->contravariant && e->div) {
      dg_strbuf_appendf(b, "DV[%d]", e->dbase + (g->shape.rank == 2 ? comp : 0));
      break;
    }
    int row0 = g->shape.rank == 2 ? comp * g->shape.cols : 0;
    for (int d = 0; d < dim; d++) {
      if (d)
        dg_strbuf_append(b, " + ");
      partial(b, dim, gb + row0 + d, d);
    }
    break;
  }
  case DG_FLUX_D_CURL:
    if (st->contravariant && e->div) { /* taken as divergences of its rows */
      dg_strbuf_appendf(b, "DV[%d]", e->dbase + comp);
    } else if (dim == 3) {
      int i = (comp + 1) % 3, j = (comp + 2) % 3;
      partial(b, dim, gb + j, i);
      dg_strbuf_append(b, " - ");
      partial(b, dim, gb + i, j);
    } else if (gsize == 1) { /* 2D curl of a scalar: (dg/dy, -dg/dx) */
      if (comp == 0)
        partial(b, dim, gb, 1);
      else {
        dg_strbuf_append(b, "-");
        partial(b, dim, gb, 0);
      }
    } else { /* 2D curl of a 2-vector: dg1/dx - dg0/dy */
      partial(b, dim, gb + 1, 0);
      dg_strbuf_append(b, " - ");
      partial(b, dim, gb + 0, 1);
    }
    break;
  }
  dg_strbuf_append(b, ")");
}

void dg_cg_init_ctx(dg_emit_ctx *c, const dg_physics *ph, int dim, int is_float) {
  memset(c, 0, sizeof *c);
  c->real = is_float ? DG_EMIT_FLOAT : DG_EMIT_DOUBLE;
  c->dim = dim;
  c->lets = ph->lets;
  c->nlets = ph->nlets;
  c->params = ph->params;
  c->nparams = ph->nparams;
  c->field_offset = ph->field_offset;
  c->nfields = ph->nfields;
  c->position = any_position;
  c->time = any_time;
  c->let_side = DG_FLUX_SIDE_NONE;
}

/* ---- pieces of source ------------------------------------------------------ */

/* cuda stores the matrices column-major: thread i reads row i, so
 * neighbouring threads then read neighbouring words (coalesced global
 * loads, conflict-free shared ones); C keeps them row-major. */
static void emit_matrix(dg_strbuf *b, dg_codegen_target tg, dg_matrix_place place,
                        int is_float, const char *name, const double *a, int rows, int cols) {
  const char *qual = tg == DG_CODEGEN_C ? "static const"
                     : place == DG_MATRIX_CONSTANT ? "__constant__ const"
                                                   : "__device__ const";
  int colmajor = tg == DG_CODEGEN_CUDA;
  dg_strbuf_appendf(b, "/* %s: %d x %d, %s */\n%s real %s[%d] = {", name, rows, cols,
                    colmajor ? "column-major" : "row-major", qual, name, rows * cols);
  for (int z = 0; z < rows * cols; z++) {
    if (z % 4 == 0)
      dg_strbuf_append(b, "\n  ");
    double v = colmajor ? a[(z % rows) * cols + z / rows] : a[z];
    dg_strbuf_appendf(b, is_float ? "%.9ef, " : "%.17e, ", v);
  }
  dg_strbuf_append(b, "\n};\n\n");
}

dg_element_ops dg_element_ops_of(const dg_refelem *re) {
  dg_element_ops el = {re->dim, re->N,  re->Np, re->Nfp,  re->Nfaces,
                       re->Dr,  re->Ds, re->Dt, re->LIFT, re->Fmask, 0};
  return el;
}

dg_element_ops dg_element_ops_of_bernstein(const dg_refelem *re, const dg_bernstein *bb) {
  dg_element_ops el = {re->dim, re->N,  re->Np, re->Nfp,  re->Nfaces,
                       bb->Dr,  bb->Ds, bb->Dt, bb->LIFT, re->Fmask, 1};
  return el;
}

static void emit_prelude(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                         const dg_physics *ph, const dg_kernel_config *cfg, int is_float,
                         int np_pad, int ngeo) {
  char knobs[512];
  dg_kernel_config_describe_code(cfg, knobs, sizeof knobs);
  dg_strbuf_appendf(b,
                    "/* dgrun generated DG operators (generator version %d)\n"
                    " * target %s, precision %s, dim %d, order N = %d\n"
                    " * knobs: %s (NP_PAD %d) */\n",
                    GENERATOR_VERSION, tg == DG_CODEGEN_CUDA ? "cuda" : "c",
                    is_float ? "float" : "double", el->dim, el->N, knobs, np_pad);
  if (tg == DG_CODEGEN_C)
    dg_strbuf_append(b, "#include <math.h>\n#include <stdint.h>\n#define KERNEL\n");
  else
    dg_strbuf_append(b, "#define KERNEL extern \"C\" __global__\n");
  dg_strbuf_appendf(b, "typedef %s real;\n", is_float ? "float" : "double");
  dg_strbuf_appendf(b,
                    "#define DIM %d\n#define NP %d\n#define NP_PAD %d\n#define NFP %d\n"
                    "#define NFACES %d\n#define NFNFP %d\n#define NC %d\n#define NGEO %d\n\n",
                    el->dim, el->Np, np_pad, el->Nfp, el->Nfaces, el->Nfaces * el->Nfp,
                    ph->ncomp, ngeo);
  if (cfg->layout == DG_LAYOUT_FIELD_MAJOR)
    dg_strbuf_append(b, "/* field-major state: component stride K*NP_PAD */\n"
                        "#define CSTRIDE(K) ((long long)(K) * NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NP_PAD + (i))\n\n");
  else
    dg_strbuf_append(b, "/* element-major state: components of one element adjacent */\n"
                        "#define CSTRIDE(K) ((long long)NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NC * NP_PAD + (i))\n\n");
  if (tg == DG_CODEGEN_CUDA && cfg->fuse_surface) {
    dg_strbuf_appendf(b, "/* the volume node of face node m = f*NFP + j */\n"
                         "__device__ const int c_Fmask[%d] = {", el->Nfaces * el->Nfp);
    for (int m = 0; m < el->Nfaces * el->Nfp; m++)
      dg_strbuf_appendf(b, "%s%d", m ? ", " : "", el->Fmask[m]);
    dg_strbuf_append(b, "};\n\n");
  }
  if (tg == DG_CODEGEN_CUDA && (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA))
    return; /* its dg_volume reads its own transposed table (codegen_gemm.c) */
  const char *names[3] = {"c_Dr", "c_Ds", "c_Dt"};
  const double *mats[3] = {el->Dr, el->Ds, el->Dt};
  for (int d = 0; d < el->dim; d++)
    emit_matrix(b, tg, cfg->matrices, is_float, names[d], mats[d], el->Np, el->Np);
  emit_matrix(b, tg, cfg->matrices, is_float, "c_LIFT", el->LIFT, el->Np,
              el->Nfaces * el->Nfp);
}

/* ---- dg_surface ------------------------------------------------------------ */

const char *dg_cg_load(char *buf, const char *form, const char *array, const char *index) {
  if (form[0])
    snprintf(buf, 128, "DG_LD_%s(&%s[%s])", form, array, index);
  else
    snprintf(buf, 128, "%s[%s]", array, index);
  return buf;
}

/* local_traces: whether the neighbour node iP lies in one of the block's
 * elements (slot eP, node jP), whose state the block staged in shared memory
 * ([c][NP][PADE]).  Why: on elements numbered along the Hilbert curve
 * (meshes/mesh_order.h) many face neighbours are in the same block, and
 * shared memory serves them without a global load.  The element stride is
 * BASE(1, 0) - BASE(0, 0) in either layout; a halo element (k >= K) is
 * never local. */
static const char *const LOCAL_M = "smem[(c * NP + c_Fmask[m]) * PADE + s]";
static const char *const LOCAL_P = "lP ? smem[(c * NP + jP) * PADE + eP] : "; /* + the global load */
static void emit_local_neighbour(dg_strbuf *b) {
  dg_strbuf_line(b, "const long long eS = BASE(1, 0) - BASE(0, 0), kP = iP / eS;");
  dg_strbuf_line(b, "const int lP = kP >= k0 && kP < k0 + EPB && kP < K;");
  dg_strbuf_line(b, "const int eP = (int)(kP - k0), jP = (int)(iP - kP * eS);");
}

/* dst: where component %d of the scaled flux of (k, m) goes. */
void dg_cg_emit_surface_body(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             int is_float, int uses_x, dg_emit_ctx *ctx, const char *dst,
                             int absolute_k, int preloaded, int ldg, int local) {
  /* Expects k, m (face node of element k) and the kernel arguments. */
  dg_strbuf_line(b, "const long long idx = k * NFNFP + m;");
  dg_strbuf_line(b, "const int f = m / NFP;");
  dg_strbuf_line(b, "const real *fg = fgeo + (k * NFACES + f) * (DIM + 1); /* per face (affine) */");
  dg_strbuf_line(b, "real nrm[DIM];");
  dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) nrm[d] = fg[d];");
  dg_strbuf_line(b, "const real fscale = fg[DIM];");
  if (uses_x > 1) {
    dg_strbuf_line(b, "real X[DIM];");
    dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = fx[idx * DIM + d];");
  }
  if (preloaded) { /* uM, uP (interior faces) loaded by the caller */
    dg_strbuf_line(b, "const int bc = fbc[k * NFACES + f];");
    dg_strbuf_line(b, "if (bc >= 0) {");
  } else {
    dg_strbuf_line(b, "const long long cs = CSTRIDE(K);");
    if (absolute_k) /* the element's own face node: a table in L1, not a gather */
      dg_strbuf_line(b, "const long long iM = BASE(k, c_Fmask[m]), iP = mapP[idx];");
    else
      dg_strbuf_line(b, "const long long iM = mapM[idx], iP = mapP[idx];");
    char qM[128], qP[128];
    dg_cg_load(qM, ldg ? "NC" : "", "q", "iM + c * cs");
    dg_cg_load(qP, ldg ? "NC" : "", "q", "iP + c * cs");
    dg_strbuf_line(b, "real uM[NC], uP[NC];");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) uM[c] = %s;", local ? LOCAL_M : qM);
    dg_strbuf_line(b, "const int bc = fbc[k * NFACES + f];");
    dg_strbuf_line(b, "if (bc < 0) {");
    b->indent += 2;
    if (local)
      emit_local_neighbour(b);
    b->indent -= 2;
    dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) uP[c] = %s%s;", local ? LOCAL_P : "", qP);
    dg_strbuf_line(b, "} else {");
  }
  b->indent += 2;
  if (uses_x == 1) { /* only boundary conditions read x: not loaded on interior faces */
    dg_strbuf_line(b, "real X[DIM];");
    dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = fx[idx * DIM + d];");
  }
  dg_strbuf_line(b, "/* boundary conditions: the exterior state from the interior one */");
  dg_strbuf_line(b, "switch (bc) {");
  for (int bi = 0; bi < ph->nboundaries; bi++) {
    dg_strbuf_line(b, "case %d:", bi);
    for (int f = 0; f < ph->nfields; f++) {
      const dg_flux_node *e = ph->bc_ext[bi * ph->nfields + f];
      for (int c = 0; c < ph->field_size[f]; c++) {
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, "  uP[%d] = ", ph->field_offset[f] + c);
        dg_emit_expr(ctx, b, e, c);
        dg_strbuf_append(b, ";\n");
      }
    }
    dg_strbuf_line(b, "  break;");
  }
  dg_strbuf_line(b, "default:");
  dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) uP[c] = uM[c];");
  dg_strbuf_line(b, "}");
  b->indent -= 2;
  dg_strbuf_line(b, "}");
  (void)el;
  (void)is_float;
  dg_strbuf_line(b, "/* Fscale * (numerical flux - surface form of the volume term at u-) */");
  for (int f = 0; f < ph->nfields; f++)
    for (int c = 0; c < ph->field_size[f]; c++) {
      int comp = ph->field_offset[f] + c;
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, dst, comp);
      dg_strbuf_append(b, " = fscale * (");
      dg_emit_expr(ctx, b, ph->flux[f], c);
      dg_strbuf_append(b, " - ");
      dg_emit_expr(ctx, b, ph->surface[f], c);
      dg_strbuf_append(b, ");\n");
    }
}

static dg_error emit_surface(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                         const dg_physics *ph, int is_float, int uses_x) {
  dg_emit_ctx ctx;
  dg_cg_init_ctx(&ctx, ph, el->dim, is_float);
  ctx.field = dg_cg_face_field;
  ctx.normal = dg_cg_face_normal;
  dg_strbuf_append(b, "/* dg_surface: one face node per iteration (thread). */\n");
  dg_strbuf_append(b,
                   tg == DG_CODEGEN_CUDA
                       ? "KERNEL void dg_surface(const real *__restrict__ q, real *__restrict__ fl,\n"
                         "    const int *__restrict__ mapM, const int *__restrict__ mapP,\n"
                         "    const int *__restrict__ fbc, const real *__restrict__ fgeo,\n"
                         "    const real *__restrict__ fx, real t, long long K) {\n"
                       : "KERNEL void dg_surface(void **args, int64_t first, int64_t count) {\n"
                         "  const real *restrict q = *(const real **)args[0];\n"
                         "  real *restrict fl = *(real **)args[1];\n"
                         "  const int *restrict mapM = *(const int **)args[2];\n"
                         "  const int *restrict mapP = *(const int **)args[3];\n"
                         "  const int *restrict fbc = *(const int **)args[4];\n"
                         "  const real *restrict fgeo = *(const real **)args[5];\n"
                         "  const real *restrict fx = *(const real **)args[6];\n"
                         "  const real t = *(const real *)args[7];\n"
                         "  const long long K = *(const long long *)args[8];\n"
                         "  (void)fx; (void)t;\n");
  b->indent = 2;
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_line(b, "const long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;");
    dg_strbuf_line(b, "if (gid >= K * NFNFP) return;");
    dg_strbuf_line(b, "const long long k = gid / NFNFP;");
    dg_strbuf_line(b, "const int m = (int)(gid - k * NFNFP);");
    dg_strbuf_line(b, "(void)fx; (void)t;");
    dg_cg_emit_surface_body(b, el, ph, is_float, uses_x, &ctx, "fl[((long long)%d * K + k) * NFNFP + m]", 0, 0, 0, 0);
  } else {
    dg_strbuf_line(b, "for (long long k = first; k < first + count; ++k) {");
    dg_strbuf_line(b, "  for (int m = 0; m < NFNFP; ++m) {");
    b->indent = 6;
    dg_cg_emit_surface_body(b, el, ph, is_float, uses_x, &ctx, "fl[((long long)%d * K + k) * NFNFP + m]", 0, 0, 0, 0);
    b->indent = 2;
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
  }
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
  return dg_emit_status(&ctx);
}

/* ---- dg_volume ------------------------------------------------------------- */

void dg_cg_emit_block_faces(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                            int is_float, int uses_fx, dg_emit_ctx *ctx, const char *nslots,
                            const char *nthreads, const char *dst, int zero_past_end,
                            int gather_ahead, int ldg, int local) {
  dg_emit_ctx fctx;
  dg_cg_init_ctx(&fctx, ph, el->dim, is_float);
  fctx.field = dg_cg_face_field;
  fctx.normal = dg_cg_face_normal;
  dg_strbuf_line(b, "/* fused surface: scaled face fluxes of the block's elements */");
  if (gather_ahead) {
    /* every trace the thread needs is requested before the first flux is
     * computed: FITER face nodes' gathers in flight at once instead of one
     * mapP -> q round trip per face node */
    dg_strbuf_line(b, "{");
    b->indent += 2;
    dg_strbuf_line(b, "enum { FITER = (%s * NFNFP + %s - 1) / (%s) };", nslots, nthreads,
                   nthreads);
    dg_strbuf_line(b, "real fuM[FITER][NC], fuP[FITER][NC];");
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int it = 0; it < FITER; ++it) {");
    dg_strbuf_line(b, "  const int z = tid + it * (%s);", nthreads);
    dg_strbuf_line(b, "  const int s = z / NFNFP, m = z - s * NFNFP;");
    dg_strbuf_line(b, "  const long long k = k0 + s;");
    dg_strbuf_line(b, "  if (z < %s * NFNFP && k < K) {", nslots);
    dg_strbuf_line(b, "    const long long idx = k * NFNFP + m, cs = CSTRIDE(K);");
    dg_strbuf_line(b, "    const long long iM = BASE(k, c_Fmask[m]), iP = mapP[idx];");
    dg_strbuf_line(b, "    const int interior = fbc[k * NFACES + m / NFP] < 0;");
    if (local) {
      b->indent += 4;
      emit_local_neighbour(b);
      b->indent -= 4;
    }
    dg_strbuf_line(b, "    #pragma unroll");
    dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) {");
    char qM[128], qP[128];
    dg_cg_load(qM, ldg ? "NC" : "", "q", "iM + c * cs");
    dg_cg_load(qP, ldg ? "NC" : "", "q", "iP + c * cs");
    dg_strbuf_line(b, "      fuM[it][c] = %s;", local ? LOCAL_M : qM);
    if (local)
      dg_strbuf_line(b, "      fuP[it][c] = !interior ? (real)0 : %s%s;", LOCAL_P, qP);
    else
      dg_strbuf_line(b, "      fuP[it][c] = interior ? %s : (real)0;", qP);
    dg_strbuf_line(b, "    }");
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int it = 0; it < FITER; ++it) {");
    dg_strbuf_line(b, "  const int z = tid + it * (%s);", nthreads);
    dg_strbuf_line(b, "  if (z >= %s * NFNFP) break;", nslots);
  } else {
    dg_strbuf_line(b, "for (int z = tid; z < %s * NFNFP; z += %s) {", nslots, nthreads);
  }
  dg_strbuf_line(b, "  const int s = z / NFNFP, m = z - s * NFNFP;");
  dg_strbuf_line(b, "  const long long k = k0 + s;");
  dg_strbuf_line(b, "  if (k < K) {");
  b->indent += 4;
  if (gather_ahead) {
    dg_strbuf_line(b, "real uM[NC], uP[NC];");
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) { uM[c] = fuM[it][c]; uP[c] = fuP[it][c]; }");
  }
  dg_cg_emit_surface_body(b, el, ph, is_float, uses_fx, &fctx, dst, 1, gather_ahead, ldg, local);
  b->indent -= 4;
  if (zero_past_end) {
    dg_strbuf_line(b, "  } else {");
    for (int c = 0; c < ph->ncomp; c++) {
      dg_strbuf_indent(b);
      dg_strbuf_append(b, "    ");
      dg_strbuf_appendf(b, dst, c);
      dg_strbuf_append(b, " = 0;\n");
    }
  }
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
  if (gather_ahead) {
    b->indent -= 2;
    dg_strbuf_line(b, "}");
  }
  if (fctx.failed && !ctx->failed) {
    ctx->failed = 1;
    memcpy(ctx->failure, fctx.failure, sizeof ctx->failure);
  }
}

/* r = volume terms + sources + the lifted flux (lift_fmt names component
 * %d of it), then the store or the fused LSERK update (residual: component
 * c's residual); expects u, k, i. */
void dg_cg_emit_rhs_store(dg_strbuf *b, const dg_physics *ph, const dg_kernel_config *cfg,
                           dg_emit_ctx *ctx, const char *lift_fmt, const char *residual) {
  dg_strbuf_line(b, "/* right-hand side: volume terms + sources + LIFT * fl */");
  dg_strbuf_line(b, "real r[NC];");
  for (int f = 0; f < ph->nfields; f++)
    for (int c = 0; c < ph->field_size[f]; c++) {
      int comp = ph->field_offset[f] + c;
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, "r[%d] = ", comp);
      dg_emit_expr(ctx, b, ph->rhs[f], c);
      if (ph->source && ph->source[f]) {
        dg_strbuf_append(b, " + ");
        dg_emit_expr(ctx, b, ph->source[f], c);
      }
      dg_strbuf_append(b, " + ");
      dg_strbuf_appendf(b, lift_fmt, comp);
      dg_strbuf_append(b, ";\n");
    }
  if (cfg->fuse_update) {
    dg_strbuf_line(b, "/* fused LSERK stage: res = a*res + dt*r; q += b*res */");
    /* Why batch: a store to res may alias a later field's residual (the
     * compiler cannot know CSTRIDE(K) > 0), so each load used to wait behind
     * the previous field's stores, one memory round trip a field (ncu: a
     * quarter of the fp64 N = 7 kernel's stall samples on that load).  H100,
     * Maxwell fp64: N = 3 0.203 -> 0.188 ms, N = 6 0.875 -> 0.833 ms; it
     * lost at N = 7 (pairs, 64 registers: 1.217 -> 1.240 ms), hence a knob.
     * The early residual is in registers already. */
    int batched = cfg->batch_residual && !cfg->early_residual;
    if (batched) {
      dg_strbuf_line(b, "real rres[NC]; /* batch_residual: every load before the first store */");
      dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) {");
      dg_strbuf_line(b, "  const long long o = BASE(k, i) + c * CSTRIDE(K);");
      dg_strbuf_line(b, "  rres[c] = %s;", residual);
      dg_strbuf_line(b, "}");
    }
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) {");
    dg_strbuf_line(b, "  const long long o = BASE(k, i) + c * CSTRIDE(K);");
    dg_strbuf_line(b, "  const real rs = rk_a * %s + dt * r[c];", batched ? "rres[c]" : residual);
    if (cfg->stream_update) { /* read once, written once: evict-first */
      dg_strbuf_line(b, "  DG_ST_CS(&res[o], rs);");
      dg_strbuf_line(b, "  DG_ST_CS(&QOUT[o], u[c] + rk_b * rs);");
    } else {
      dg_strbuf_line(b, "  res[o] = rs;");
      dg_strbuf_line(b, "  QOUT[o] = u[c] + rk_b * rs;");
    }
    dg_strbuf_line(b, "}");
  } else {
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) rhs[BASE(k, i) + c * CSTRIDE(K)] = r[c];");
  }
}

/* The per-node part after the differentiated quantities are in G[g][j]
 * (an expression text for "g-th quantity at node j"). */
static void emit_volume_node(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             const deriv_table *dt, const dg_kernel_config *cfg,
                             dg_emit_ctx *ctx, const char *gref, const char *mat_prefix) {
  int dim = el->dim, ng = dt->ng;
  if (ng > 0) {
    dg_strbuf_line(b, "/* reference derivatives of the %d flux quantities */", ng);
    dg_strbuf_line(b, "real R[%d];", ng * dim);
    dg_strbuf_line(b, "for (int g = 0; g < %d; ++g) R[g] = 0;", ng * dim);
    dg_strbuf_line(b, "for (int j = 0; j < NP; ++j) {");
    static const char *dn[3] = {"Dr", "Ds", "Dt"};
    for (int d = 0; d < dim; d++)
      dg_strbuf_line(b, "  const real %s = %sc_%s[i * NP + j];", dn[d], mat_prefix, dn[d]);
    for (int g = 0; g < ng; g++) {
      dg_strbuf_indent(b);
      dg_strbuf_append(b, "  { const real v = ");
      dg_strbuf_appendf(b, gref, g);
      dg_strbuf_append(b, ";");
      for (int d = 0; d < dim; d++)
        dg_strbuf_appendf(b, " R[%d] += %s * v;", g * dim + d, dn[d]);
      dg_strbuf_append(b, " }\n");
    }
    dg_strbuf_line(b, "}");
    dg_strbuf_line(b, "/* chain rule with the element's (affine) geometric factors */");
    dg_strbuf_line(b, "const real *gk = egeo + k * NGEO;");
    dg_strbuf_line(b, "real P[%d];", ng * dim);
    dg_strbuf_line(b, "for (int g = 0; g < %d; ++g)", ng);
    dg_strbuf_line(b, "  for (int d = 0; d < DIM; ++d) {");
    dg_strbuf_line(b, "    real s = 0;");
    dg_strbuf_line(b, "    for (int a = 0; a < DIM; ++a) s += gk[a * DIM + d] * R[g * DIM + a];");
    dg_strbuf_line(b, "    P[g * DIM + d] = s;");
    dg_strbuf_line(b, "  }");
  }
  dg_strbuf_line(b, "real rl[NC];");
  dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) rl[c] = 0;");
  dg_strbuf_line(b, "for (int mm = 0; mm < NFNFP; ++mm) {");
  dg_strbuf_line(b, "  const real L = %sc_LIFT[i * NFNFP + mm];", mat_prefix);
  dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) rl[c] += L * fl[((long long)c * K + k) * NFNFP + mm];");
  dg_strbuf_line(b, "}");
  dg_cg_emit_rhs_store(b, ph, cfg, ctx, "rl[%d]", "res[o]");
}

static void emit_load_node(dg_strbuf *b, int uses_x) {
  dg_strbuf_line(b, "real u[NC];");
  dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = q[BASE(k, i) + c * CSTRIDE(K)];");
  if (uses_x) {
    dg_strbuf_line(b, "real X[DIM];");
    dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = vx[((long long)d * K + k) * NP_PAD + i];");
  }
}

/* contravariant: store a divergence's flux rows in reference directions,
 * ghat_a = sum_d dr_a/dx_d g_d (geometric factors in G[]), so that
 * div g = sum_a D_a ghat_a needs one accumulator per row instead of DIM^2. */
void dg_cg_emit_gvalues(dg_strbuf *b, const deriv_table *dt, dg_emit_ctx *ctx,
                         const char *dst_fmt, int contravariant, int fold_zero) {
  int dim = dt->dim;
  for (int e = 0; e < dt->n; e++) {
    const dg_flux_node *g = dt->d[e].node->args[0];
    if (contravariant && dt->d[e].div) {
      /* a curl's row a is F_a[b] = eps_abc g_c: F_a[a] = 0 (left out),
       * F_a[a+1] = g[a+2], F_a[a+2] = -g[a+1] (indices mod 3) */
      int curl = dt->d[e].curl;
      if (curl) {
        dg_strbuf_line(b, "{");
        for (int c = 0; c < 3; c++) {
          dg_strbuf_indent(b);
          dg_strbuf_appendf(b, "  const real c%d = ", c);
          dg_emit_expr(ctx, b, g, c);
          dg_strbuf_append(b, ";\n");
        }
        b->indent += 2;
      }
      for (int row = 0; row < dt->d[e].rows; row++) {
        dg_strbuf_line(b, "{");
        for (int d = 0; d < dim; d++) {
          if (curl && d == row)
            continue;
          dg_strbuf_indent(b);
          dg_strbuf_appendf(b, "  const real f%d = ", d);
          if (!curl)
            dg_emit_expr(ctx, b, g, row * dim + d);
          else if (d == (row + 1) % 3)
            dg_strbuf_appendf(b, "c%d", (row + 2) % 3);
          else
            dg_strbuf_appendf(b, "-c%d", (row + 1) % 3);
          dg_strbuf_append(b, ";\n");
        }
        for (int a = 0; a < dim; a++) {
          dg_strbuf_indent(b);
          dg_strbuf_append(b, "  ");
          dg_strbuf_appendf(b, dst_fmt, dt->d[e].gbase + row * dim + a);
          dg_strbuf_append(b, " =");
          for (int d = 0, n = 0; d < dim; d++)
            if (!(curl && d == row))
              dg_strbuf_appendf(b, fold_zero ? "%s (f%d == (real)0 ? (real)0 : G[%d] * f%d)"
                                             : "%s G[%d] * f%d",
                                n++ ? " +" : "", fold_zero ? d : a * dim + d,
                                fold_zero ? a * dim + d : d, d);
          dg_strbuf_append(b, ";\n");
        }
        dg_strbuf_line(b, "}");
      }
      if (curl) {
        b->indent -= 2;
        dg_strbuf_line(b, "}");
      }
      continue;
    }
    for (int c = 0; c < dg_flux_shape_size(g->shape); c++) {
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, dst_fmt, dt->d[e].gbase + c);
      dg_strbuf_append(b, " = ");
      dg_emit_expr(ctx, b, g, c);
      dg_strbuf_append(b, ";\n");
    }
  }
}

void dg_cg_emit_volume_signature_cuda(dg_strbuf *b, const char *nthreads, int min_blocks) {
  if (min_blocks > 1)
    dg_strbuf_appendf(b, "KERNEL void __launch_bounds__(%s, %d) ", nthreads, min_blocks);
  else
    dg_strbuf_appendf(b, "KERNEL void __launch_bounds__(%s) ", nthreads);
  dg_strbuf_append(b,
    "dg_volume(real *__restrict__ q,\n"
    "    real *__restrict__ rhs, const real *__restrict__ fl, const real *__restrict__ egeo,\n"
    "    const real *__restrict__ vx, real t, long long K, real *__restrict__ res,\n"
    "    real rk_a, real rk_b, real dt, real *__restrict__ q_out,\n"
    "    const int *__restrict__ mapM, const int *__restrict__ mapP,\n"
    "    const int *__restrict__ fbc, const real *__restrict__ fgeo,\n"
    "    const real *__restrict__ fx) {\n");
}

static const char *volume_signature_c =
    "KERNEL void dg_volume(void **args, int64_t first, int64_t count) {\n"
    "  real *restrict q = *(real **)args[0];\n"
    "  real *restrict rhs = *(real **)args[1];\n"
    "  const real *restrict fl = *(const real **)args[2];\n"
    "  const real *restrict egeo = *(const real **)args[3];\n"
    "  const real *restrict vx = *(const real **)args[4];\n"
    "  const real t = *(const real *)args[5];\n"
    "  const long long K = *(const long long *)args[6];\n"
    "  real *restrict res = *(real **)args[7];\n"
    "  const real rk_a = *(const real *)args[8];\n"
    "  const real rk_b = *(const real *)args[9];\n"
    "  const real dt = *(const real *)args[10];\n"
    "#define QOUT q\n";

/* Open "for each of the thread's WI elements in the pass, if it exists" and
 * load its node's state u (closed by the caller at indent 4). */
static void open_slot_loop(dg_strbuf *b, const char *uload) {
  dg_strbuf_line(b, "for (int w = 0; w < WI; ++w) {");
  dg_strbuf_line(b, "  const int s = w * EPB + e;");
  dg_strbuf_line(b, "  const long long k = k0 + s;");
  dg_strbuf_line(b, "  if (k < K) {");
  b->indent = 8;
  dg_strbuf_line(b, "real u[NC];");
  dg_strbuf_line(b, "%s", uload);
  dg_strbuf_line(b, "(void)u;");
}

/* The flux quantities of a node in shared memory: NG apart in the plain
 * layout; with vector_loads, a node's NG values side by side, padded to an
 * even count (pairs) that is 2 mod 4, so that the stores of a warp's nodes
 * spread over the banks (a multiple of 4 would put every node on the same
 * bank group) and every pair stays 8- or 16-byte aligned. */
static int g_stride(int ng, const dg_kernel_config *cfg) {
  int ngs = ng > 0 ? ng : 1;
  if (!cfg->vector_loads)
    return ngs;
  int v = (ngs + 1) / 2 * 2;
  return v % 4 == 0 ? v + 2 : v;
}

/* Where s_g starts (in reals) after n reals: 16-byte aligned for pairs. */
static size_t g_offset(size_t n, const dg_kernel_config *cfg) {
  return cfg->vector_loads ? (n + 3) / 4 * 4 : n;
}

/* The number of elements one cuda dg_volume pass keeps in shared memory. */
static int volume_slots(const dg_kernel_config *cfg) {
  return cfg->elements_per_block *
         (cfg->work_mode == DG_WORK_INLINE ? cfg->work_per_thread : 1);
}

/* Shared memory of the cuda dg_volume, in reals. */
static size_t volume_shared_reals(const dg_element_ops *el, int ng, int ncomp,
                                  const dg_kernel_config *cfg) {
  size_t nfnfp = (size_t)el->Nfaces * el->Nfp, slots = (size_t)volume_slots(cfg);
  size_t n = 0;
  if (cfg->matrices == DG_MATRIX_SHARED)
    n += (size_t)el->dim * el->Np * el->Np + (size_t)el->Np * nfnfp;
  n = g_offset(n, cfg) + slots * (size_t)g_stride(ng, cfg) * (size_t)el->Np;
  if (cfg->prefetch)
    n += slots * (size_t)ncomp * (size_t)el->Np;
  if (cfg->prefetch || cfg->fuse_surface)
    n += slots * (size_t)ncomp * nfnfp;
  return n;
}

/* Flux quantity g of node j in the product loop: a half of pair g/2, or a
 * shared load NP apart. */
static const char *g_value(char *buf, size_t n, int vec, int g) {
  if (vec)
    snprintf(buf, n, "gp%d.%c", g / 2, g % 2 ? 'y' : 'x');
  else
    snprintf(buf, n, "gj[%d * NP]", g);
  return buf;
}

/* cuda dg_volume.  Block = NP x EPB threads; thread (i, e) owns node i of
 * the elements slot = w*EPB + e of a pass (w < WI: inline mode, WI = W;
 * otherwise WI = 1), and sequence mode runs W passes.  A pass: (prefetch:
 * coalesced copy of the pass's q and fl into shared) -> the flux quantities
 * g(u) of every node into shared -> R = D_r/D_s/D_t g (each matrix entry
 * read once for the WI elements) -> LIFT * fl -> pointwise terms, chain
 * rule, store.  No thread returns early: every one reaches the barriers. */
static void emit_volume_cuda(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             const deriv_table *dtab, const dg_kernel_config *cfg,
                             dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float) {
  int ng = dtab->ng, dim = el->dim;
  int ngs = ng > 0 ? ng : 1;
  int inl = cfg->work_mode == DG_WORK_INLINE;
  int wi = inl ? cfg->work_per_thread : 1;
  int passes = cfg->work_mode == DG_WORK_SEQUENCE ? cfg->work_per_thread : 1;
  int slots = volume_slots(cfg);
  int sfl = cfg->prefetch || cfg->fuse_surface; /* face fluxes of the pass in shared */
  dg_strbuf_appendf(b, "#define EPB %d\n#define WI %d\n#define SLOTS %d\n#define PASSES %d\n",
                    cfg->elements_per_block, wi, slots, passes);
  dg_strbuf_appendf(b, "#define QOUT %s\n", cfg->fuse_surface ? "q_out" : "q");
  if (cfg->vector_loads)
    dg_strbuf_appendf(b, "typedef %s real2;\n", is_float ? "float2" : "double2");
  dg_cg_emit_volume_signature_cuda(b, "NP * EPB", 1);
  b->indent = 2;
  dg_strbuf_line(b, "extern __shared__ __align__(16) double smem_raw[];");
  dg_strbuf_line(b, "real *smem = (real *)smem_raw;");
  dg_strbuf_line(b, "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;");
  dg_strbuf_line(b, "(void)q_out; (void)mapM; (void)mapP; (void)fbc; (void)fgeo; (void)fx; (void)fl;");
  dg_strbuf_line(b, "const int i = threadIdx.x, e = threadIdx.y, tid = e * NP + i;");
  dg_strbuf_line(b, "(void)tid;");
  static const char *dn[3] = {"Dr", "Ds", "Dt"};
  const char *mp = "";
  size_t off = 0;
  if (cfg->matrices == DG_MATRIX_SHARED) {
    for (int d = 0; d < dim; d++) {
      dg_strbuf_line(b, "real *s_c_%s = smem + %zu;", dn[d], off);
      off += (size_t)el->Np * el->Np;
    }
    dg_strbuf_line(b, "real *s_c_LIFT = smem + %zu;", off);
    off += (size_t)el->Np * el->Nfaces * el->Nfp;
    dg_strbuf_line(b, "for (int z = tid; z < NP * NP; z += NP * EPB) {");
    for (int d = 0; d < dim; d++)
      dg_strbuf_line(b, "  s_c_%s[z] = c_%s[z];", dn[d], dn[d]);
    dg_strbuf_line(b, "}");
    dg_strbuf_line(b, "for (int z = tid; z < NP * NFNFP; z += NP * EPB) s_c_LIFT[z] = c_LIFT[z];");
    mp = "s_";
  }
  int gst = g_stride(ng, cfg), vec = cfg->vector_loads;
  off = g_offset(off, cfg);
  if (vec)
    dg_strbuf_line(b, "real *s_g = smem + %zu; /* [SLOTS][NP][%d] */", off, gst);
  else
    dg_strbuf_line(b, "real *s_g = smem + %zu; /* [SLOTS][NG][NP] */", off);
  off += (size_t)slots * gst * el->Np;
  if (cfg->prefetch) {
    dg_strbuf_line(b, "real *s_q = smem + %zu; /* [NC][SLOTS][NP] */", off);
    off += (size_t)slots * ph->ncomp * el->Np;
  }
  if (sfl)
    dg_strbuf_line(b, "real *s_fl = smem + %zu; /* [NC][SLOTS][NFNFP] */", off);
  dg_strbuf_line(b, "for (int pass = 0; pass < PASSES; ++pass) {");
  b->indent = 4;
  dg_strbuf_line(b, "const long long k0 = ((long long)blockIdx.x * PASSES + pass) * SLOTS;");
  if (cfg->prefetch) {
    dg_strbuf_line(b, "/* coalesced copies of the pass's state and face fluxes */");
    dg_strbuf_line(b, "for (int z = tid; z < NC * SLOTS * NP; z += NP * EPB) {");
    dg_strbuf_line(b, "  const int c = z / (SLOTS * NP), r = z - c * (SLOTS * NP);");
    dg_strbuf_line(b, "  const int s = r / NP, j = r - s * NP;");
    dg_strbuf_line(b, "  const long long kk = k0 + s;");
    dg_strbuf_line(b, "  s_q[z] = kk < K ? q[BASE(kk, j) + c * CSTRIDE(K)] : (real)0;");
    dg_strbuf_line(b, "}");
    if (!cfg->fuse_surface) {
      dg_strbuf_line(b, "for (int z = tid; z < NC * SLOTS * NFNFP; z += NP * EPB) {");
      dg_strbuf_line(b, "  const int c = z / (SLOTS * NFNFP), r = z - c * (SLOTS * NFNFP);");
      dg_strbuf_line(b, "  s_fl[z] = k0 * NFNFP + r < K * NFNFP ? fl[((long long)c * K + k0) * NFNFP + r] : (real)0;");
      dg_strbuf_line(b, "}");
    }
  }
  if (cfg->fuse_surface) /* the pass's face fluxes, straight into shared memory */
    dg_cg_emit_block_faces(b, el, ph, is_float, uses_fx, ctx, "SLOTS", "NP * EPB",
                           "s_fl[(%d * SLOTS + s) * NFNFP + m]", 0, cfg->gather_ahead, 0, 0);
  if (cfg->prefetch || cfg->fuse_surface)
    dg_strbuf_line(b, "__syncthreads();");
  const char *uload = cfg->prefetch
                          ? "for (int c = 0; c < NC; ++c) u[c] = s_q[(c * SLOTS + s) * NP + i];"
                          : "for (int c = 0; c < NC; ++c) u[c] = q[BASE(k, i) + c * CSTRIDE(K)];";
  dg_strbuf_line(b, "/* pointwise flux quantities of every node into shared */");
  dg_strbuf_line(b, "#pragma unroll");
  open_slot_loop(b, uload);
  if (dtab->nd > 0) {
    dg_strbuf_line(b, "real G[DIM * DIM]; /* dr_a/dx_d of the (affine) element */");
    dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[k * NGEO + a];");
  }
  char fmt[64];
  if (vec)
    snprintf(fmt, sizeof fmt, "s_g[(s * NP + i) * %d + %%d]", gst);
  else
    snprintf(fmt, sizeof fmt, "s_g[(s * %d + %%d) * NP + i]", ngs);
  dg_cg_emit_gvalues(b, dtab, ctx, fmt, 1, 0);
  b->indent = 4;
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
  dg_strbuf_line(b, "__syncthreads();");
  int nd = dtab->nd, nr = 0; /* divergence and other accumulators */
  for (int x = 0; x < dtab->n; x++)
    if (!dtab->d[x].div)
      nr += dg_flux_shape_size(dtab->d[x].node->args[0]->shape) * dim;
  if (ng > 0) {
    dg_strbuf_line(b, "/* reference derivatives, each matrix entry used for WI elements:");
    dg_strbuf_line(b, " * DV = divergences (contravariant rows), R = other partials */");
    if (nd > 0)
      dg_strbuf_line(b, "real DVa[WI][%d];", nd);
    if (nr > 0)
      dg_strbuf_line(b, "real R[WI][%d];", ng * dim);
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int w = 0; w < WI; ++w) {");
    if (nd > 0) {
      dg_strbuf_line(b, "  #pragma unroll");
      dg_strbuf_line(b, "  for (int g = 0; g < %d; ++g) DVa[w][g] = 0;", nd);
    }
    if (nr > 0) {
      dg_strbuf_line(b, "  #pragma unroll");
      dg_strbuf_line(b, "  for (int g = 0; g < %d; ++g) R[w][g] = 0;", ng * dim);
    }
    dg_strbuf_line(b, "}");
    dg_strbuf_line(b, "#pragma unroll %d", cfg->unroll);
    dg_strbuf_line(b, "for (int j = 0; j < NP; ++j) {");
    for (int d = 0; d < dim; d++)
      dg_strbuf_line(b, "  const real %s = %sc_%s[j * NP + i];", dn[d], mp, dn[d]);
    dg_strbuf_line(b, "  #pragma unroll");
    dg_strbuf_line(b, "  for (int w = 0; w < WI; ++w) {");
    char gv[32];
    if (vec) { /* the node's values as pairs, one shared load per pair */
      dg_strbuf_line(b, "    const real2 *gj = (const real2 *)(s_g + ((w * EPB + e) * NP + j) * %d);",
                     gst);
      for (int q = 0; q < (ng + 1) / 2; q++)
        dg_strbuf_line(b, "    const real2 gp%d = gj[%d];", q, q);
    } else {
      dg_strbuf_line(b, "    const real *gj = s_g + (w * EPB + e) * %d * NP + j;", ngs);
    }
    for (int x = 0; x < dtab->n; x++) {
      const deriv_entry *de = &dtab->d[x];
      if (de->div) {
        for (int row = 0; row < de->rows; row++) {
          dg_strbuf_indent(b);
          dg_strbuf_appendf(b, "    DVa[w][%d] +=", de->dbase + row);
          for (int a = 0; a < dim; a++)
            dg_strbuf_appendf(b, "%s %s * %s", a ? " +" : "", dn[a],
                              g_value(gv, sizeof gv, vec, de->gbase + row * dim + a));
          dg_strbuf_append(b, ";\n");
        }
        continue;
      }
      int gsz = dg_flux_shape_size(de->node->args[0]->shape);
      for (int c = 0; c < gsz; c++) {
        int g = de->gbase + c;
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, "    { const real v = %s;", g_value(gv, sizeof gv, vec, g));
        for (int d = 0; d < dim; d++)
          dg_strbuf_appendf(b, " R[w][%d] += %s * v;", g * dim + d, dn[d]);
        dg_strbuf_append(b, " }\n");
      }
    }
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
  }
  dg_strbuf_line(b, "/* lifting: LIFT * fl, each LIFT entry used for WI elements */");
  dg_strbuf_line(b, "real rl[WI][NC];");
  dg_strbuf_line(b, "#pragma unroll");
  dg_strbuf_line(b, "for (int w = 0; w < WI; ++w)");
  dg_strbuf_line(b, "  #pragma unroll");
  dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) rl[w][c] = 0;");
  dg_strbuf_line(b, "#pragma unroll %d", cfg->unroll);
  dg_strbuf_line(b, "for (int mm = 0; mm < NFNFP; ++mm) {");
  dg_strbuf_line(b, "  const real L = %sc_LIFT[mm * NP + i];", mp);
  dg_strbuf_line(b, "  #pragma unroll");
  dg_strbuf_line(b, "  for (int w = 0; w < WI; ++w) {");
  dg_strbuf_line(b, "    const int s = w * EPB + e;");
  if (sfl) {
    dg_strbuf_line(b, "    #pragma unroll");
    dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) rl[w][c] += L * s_fl[(c * SLOTS + s) * NFNFP + mm];");
  } else {
    dg_strbuf_line(b, "    const long long k = k0 + s < K ? k0 + s : K - 1;");
    dg_strbuf_line(b, "    #pragma unroll");
    dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) rl[w][c] += L * fl[((long long)c * K + k) * NFNFP + mm];");
  }
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
  dg_strbuf_line(b, "#pragma unroll");
  open_slot_loop(b, uload);
  if (uses_x) {
    dg_strbuf_line(b, "real X[DIM];");
    dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = vx[((long long)d * K + k) * NP_PAD + i];");
  }
  if (nd > 0) {
    dg_strbuf_line(b, "real DV[%d];", nd);
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int g = 0; g < %d; ++g) DV[g] = DVa[w][g];", nd);
  }
  if (nr > 0) {
    dg_strbuf_line(b, "/* chain rule with the element's (affine) geometric factors */");
    dg_strbuf_line(b, "real G[DIM * DIM];");
    dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[k * NGEO + a];");
    dg_strbuf_line(b, "real P[%d];", ng * dim);
    for (int x = 0; x < dtab->n; x++) {
      const deriv_entry *de = &dtab->d[x];
      if (de->div)
        continue;
      int gsz = dg_flux_shape_size(de->node->args[0]->shape);
      for (int c = 0; c < gsz; c++)
        for (int d = 0; d < dim; d++) {
          int g = de->gbase + c;
          dg_strbuf_indent(b);
          dg_strbuf_appendf(b, "P[%d] =", g * dim + d);
          for (int a = 0; a < dim; a++)
            dg_strbuf_appendf(b, "%s G[%d] * R[w][%d]", a ? " +" : "", a * dim + d,
                              g * dim + a);
          dg_strbuf_append(b, ";\n");
        }
    }
  }
  dg_cg_emit_rhs_store(b, ph, cfg, ctx, "rl[w][%d]", "res[o]");
  b->indent = 4;
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
  if (passes > 1)
    dg_strbuf_line(b, "__syncthreads(); /* s_g (and s_q, s_fl) are reused by the next pass */");
  b->indent = 2;
  dg_strbuf_line(b, "}");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
}

static dg_error emit_volume(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                        const dg_physics *ph, const deriv_table *dtab,
                        const dg_kernel_config *cfg, int is_float, int uses_x, int uses_fx) {
  gen_state st = {dtab, el->dim, tg == DG_CODEGEN_CUDA};
  dg_emit_ctx ctx;
  dg_cg_init_ctx(&ctx, ph, el->dim, is_float);
  ctx.field = vol_field;
  ctx.derivative = vol_derivative;
  ctx.user = &st;
  int ng = dtab->ng;
  dg_strbuf_append(b, "/* dg_volume: volume terms, sources and lifting, one node per thread\n"
                      " * (cuda: NP x EPB threads per block, EPB elements per block). */\n");
  if (tg == DG_CODEGEN_CUDA && (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA)) {
    dg_cg_emit_volume_gemm(b, el, ph, dtab, cfg, &ctx, uses_x, uses_fx, is_float);
  } else if (tg == DG_CODEGEN_CUDA) {
    emit_volume_cuda(b, el, ph, dtab, cfg, &ctx, uses_x, uses_fx, is_float);
  } else {
    dg_strbuf_append(b, volume_signature_c);
    b->indent = 2;
    dg_strbuf_line(b, "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;");
    dg_strbuf_line(b, "for (long long k = first; k < first + count; ++k) {");
    b->indent = 4;
    dg_strbuf_line(b, "real g_all[%d][NP]; /* flux quantities at every node */", ng > 0 ? ng : 1);
    dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
    b->indent = 6;
    emit_load_node(b, 0);
    dg_strbuf_line(b, "(void)u;");
    dg_cg_emit_gvalues(b, dtab, &ctx, "g_all[%d][i]", 0, 0);
    b->indent = 4;
    dg_strbuf_line(b, "}");
    dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
    b->indent = 6;
    emit_load_node(b, uses_x);
    emit_volume_node(b, el, ph, dtab, cfg, &ctx, "g_all[%d][j]", "");
    b->indent = 4;
    dg_strbuf_line(b, "}");
    b->indent = 2;
    dg_strbuf_line(b, "}");
    b->indent = 0;
    dg_strbuf_append(b, "}\n\n");
  }
  return dg_emit_status(&ctx);
}

/* ---- updates ----------------------------------------------------------------- */

static void emit_updates(dg_strbuf *b, dg_codegen_target tg) {
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_append(b,
        "/* LSERK stage update: res = a*res + dt*rhs; q += b*res (grid-stride) */\n"
        "KERNEL void dg_update_lserk(real *__restrict__ q, real *__restrict__ res,\n"
        "    const real *__restrict__ rhs, real rk_a, real rk_b, real dt, long long n) {\n"
        "  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;\n"
        "       z += (long long)gridDim.x * blockDim.x) {\n"
        "    const real rs = rk_a * res[z] + dt * rhs[z];\n"
        "    res[z] = rs;\n"
        "    q[z] += rk_b * rs;\n"
        "  }\n"
        "}\n\n"
        "/* SSP-RK stage (Shu-Osher form): q = alpha*q0 + beta*(q + dt*rhs) */\n"
        "KERNEL void dg_update_ssp(real *__restrict__ q, const real *__restrict__ q0,\n"
        "    const real *__restrict__ rhs, real alpha, real beta, real dt, long long n) {\n"
        "  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;\n"
        "       z += (long long)gridDim.x * blockDim.x)\n"
        "    q[z] = alpha * q0[z] + beta * (q[z] + dt * rhs[z]);\n"
        "}\n");
  } else {
    dg_strbuf_append(b,
        "/* LSERK stage update: res = a*res + dt*rhs; q += b*res */\n"
        "KERNEL void dg_update_lserk(void **args, int64_t first, int64_t count) {\n"
        "  real *restrict q = *(real **)args[0];\n"
        "  real *restrict res = *(real **)args[1];\n"
        "  const real *restrict rhs = *(const real **)args[2];\n"
        "  const real a = *(const real *)args[3], bb = *(const real *)args[4];\n"
        "  const real dt = *(const real *)args[5];\n"
        "  for (int64_t z = first; z < first + count; ++z) {\n"
        "    const real rs = a * res[z] + dt * rhs[z];\n"
        "    res[z] = rs;\n"
        "    q[z] += bb * rs;\n"
        "  }\n"
        "}\n\n"
        "/* SSP-RK stage (Shu-Osher form): q = alpha*q0 + beta*(q + dt*rhs) */\n"
        "KERNEL void dg_update_ssp(void **args, int64_t first, int64_t count) {\n"
        "  real *restrict q = *(real **)args[0];\n"
        "  const real *restrict q0 = *(const real **)args[1];\n"
        "  const real *restrict rhs = *(const real **)args[2];\n"
        "  const real alpha = *(const real *)args[3], beta = *(const real *)args[4];\n"
        "  const real dt = *(const real *)args[5];\n"
        "  for (int64_t z = first; z < first + count; ++z)\n"
        "    q[z] = alpha * q0[z] + beta * (q[z] + dt * rhs[z]);\n"
        "}\n");
  }
}

/* ---- initial condition ------------------------------------------------------ */

static dg_error emit_initial(dg_strbuf *b, dg_codegen_target tg, const dg_physics *ph,
                             int dim, int is_float) {
  dg_emit_ctx ctx;
  dg_cg_init_ctx(&ctx, ph, dim, is_float);
  ctx.field = vol_field; /* an initial condition reads no fields (checked) */
  /* K strides the state and vx; only the K_owned elements are evaluated:
   * the ghost slots after them hold neighbours' traces, and their zero
   * coordinates may be a singular point of the expression */
  dg_strbuf_append(b, "/* dg_initial: the initial condition at every volume node of the owned\n"
                      "   elements [0, K_owned) (ghost slots after them are left alone) */\n");
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_append(b, "KERNEL void dg_initial(real *__restrict__ q, const real *__restrict__ vx,\n"
                        "    real t, long long K, long long K_owned) {\n");
    b->indent = 2;
    dg_strbuf_line(b, "const long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;");
    dg_strbuf_line(b, "if (gid >= K_owned * NP) return;");
    dg_strbuf_line(b, "const long long k = gid / NP;");
    dg_strbuf_line(b, "const int i = (int)(gid - k * NP);");
  } else {
    dg_strbuf_append(b, "KERNEL void dg_initial(void **args, int64_t first, int64_t count) {\n"
                        "  real *restrict q = *(real **)args[0];\n"
                        "  const real *restrict vx = *(const real **)args[1];\n"
                        "  const real t = *(const real *)args[2];\n"
                        "  const long long K = *(const long long *)args[3];\n"
                        "  /* args[4], K_owned: the launch covers [0, K_owned) */\n"
                        "  for (long long k = first; k < first + count; ++k)\n"
                        "  for (int i = 0; i < NP; ++i) {\n");
    b->indent = 4;
  }
  dg_strbuf_line(b, "(void)t;");
  dg_strbuf_line(b, "real X[DIM];");
  dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = vx[((long long)d * K + k) * NP_PAD + i];");
  dg_strbuf_line(b, "(void)X;");
  for (int f = 0; f < ph->nfields; f++)
    for (int c = 0; c < ph->field_size[f]; c++) {
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, "q[BASE(k, i) + (long long)%d * CSTRIDE(K)] = ", ph->field_offset[f] + c);
      dg_emit_expr(&ctx, b, ph->initial[f], c);
      dg_strbuf_append(b, ";\n");
    }
  b->indent = 0;
  dg_strbuf_append(b, tg == DG_CODEGEN_CUDA ? "}\n\n" : "  }\n}\n\n");
  return dg_emit_status(&ctx);
}

dg_error dg_codegen_generate(dg_codegen_target target, const dg_element_ops *el,
                             const dg_physics *ph, int precision_float,
                             const dg_kernel_config *cfg, dg_generated *out) {
  memset(out, 0, sizeof *out);
  DG_CHECK(el->dim >= 1 && el->dim <= 3, DG_ERR_ARG, "dim %d", el->dim);
  DG_CALL(dg_kernel_config_check(cfg, el->Np));
  DG_CHECK(el->bernstein == cfg->basis, DG_ERR_ARG,
           "the element operators are %s but the kernel configuration asks for basis %s",
           el->bernstein ? "Bernstein-Bezier" : "nodal", cfg->basis ? "bernstein" : "nodal");
  if (cfg->basis) /* pointwise work on coefficients is exact for affine physics only */
    DG_CALL(dg_flux_check_affine(ph, NULL, NULL));
  deriv_table *dtab = calloc(1, sizeof *dtab);
  DG_CHECK(dtab, DG_ERR_MEMORY, "out of memory");
  dtab->dim = el->dim;
  dtab->curl_as_div = target == DG_CODEGEN_CUDA &&
                      (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA);
  dg_error err = DG_OK;
  for (int f = 0; f < ph->nfields && err == DG_OK; f++)
    err = collect_derivs(ph->rhs[f], dtab);
  if (err != DG_OK) {
    free(dtab);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  /* uses_fx: 2 when a numerical flux reads the face node's x, 1 when only
   * a boundary condition does (x is then loaded on boundary faces only) */
  int uses_fx = 0, uses_vx = 0;
  for (int f = 0; f < ph->nfields; f++) {
    if (uses_op(ph->flux[f], DG_FLUX_X, ph, 0))
      uses_fx = 2;
    uses_vx |= uses_op(ph->rhs[f], DG_FLUX_X, ph, 0);
    if (ph->source && ph->source[f])
      uses_vx |= uses_op(ph->source[f], DG_FLUX_X, ph, 0);
  }
  for (int i = 0; i < ph->nboundaries * ph->nfields && !uses_fx; i++)
    if (uses_op(ph->bc_ext[i], DG_FLUX_X, ph, 0))
      uses_fx = 1;

  int np_pad = (el->Np + cfg->np_align - 1) / cfg->np_align * cfg->np_align;
  int ngeo = el->dim * el->dim + 1;
  int is_float = precision_float != 0;
  size_t rs = is_float ? 4 : 8;
  size_t nfnfp = (size_t)el->Nfaces * el->Nfp;
  size_t shared = volume_shared_reals(el, dtab->ng, ph->ncomp, cfg) * rs;
  size_t matrix_bytes = ((size_t)el->dim * el->Np * el->Np + (size_t)el->Np * nfnfp) * rs;
  if (target == DG_CODEGEN_CUDA && cfg->work_mode == DG_WORK_MMA) {
    DG_CHECK_GOTO(err, done, !is_float || cfg->mma_rows == 16 || cfg->mma_pairs, DG_ERR_INPUT,
                  "work_mode mma in float runs split-TF32 steps (m16n8k8): mma_rows must be "
                  "16 (or 8 with mma_pairs), not %d", cfg->mma_rows);
    DG_CHECK_GOTO(err, done, dg_kernel_config_volume_threads(cfg, el->Np) >= 32,
                  DG_ERR_INPUT,
                  "work_mode mma needs a whole warp: elements_per_block %d / volume_passes %d "
                  "x Np %d < 32",
                  cfg->elements_per_block, cfg->volume_passes, el->Np);
  }
  DG_CHECK_GOTO(err, done, 32L * cfg->volume_warps < (long)el->Np * cfg->elements_per_block,
                DG_ERR_INPUT,
                "volume_warps %d: %d threads would leave none of the per-node phases' %d "
                "points a second pass (take fewer warps than NP x EPB / 32, or volume_passes)",
                cfg->volume_warps, 32 * cfg->volume_warps, el->Np * cfg->elements_per_block);
  if (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA) {
    /* its own table of (transposed or fragment-ordered) matrices */
    size_t mt = 0;
    shared = dg_cg_gemm_shared_reals(el, dtab, ph->ncomp, cfg, is_float, &mt) * rs;
    matrix_bytes = mt * rs;
  }
  if (target == DG_CODEGEN_CUDA) {
    DG_CHECK_GOTO(err, done, shared <= 227 * 1024, DG_ERR_INPUT,
                  "dg_volume needs %zu bytes of shared memory (> 227 KiB): fewer "
                  "elements per block or matrices out of shared memory", shared);
    DG_CHECK_GOTO(err, done, cfg->matrices != DG_MATRIX_CONSTANT || matrix_bytes <= 60 * 1024,
                  DG_ERR_INPUT,
                  "operator matrices take %zu bytes, more than constant memory holds",
                  matrix_bytes);
  }
  dg_strbuf b;
  dg_strbuf_init(&b);
  emit_prelude(&b, target, el, ph, cfg, is_float, np_pad, ngeo);
  DG_CALL_GOTO(err, fail_buf, emit_surface(&b, target, el, ph, is_float, uses_fx));
  DG_CALL_GOTO(err, fail_buf, emit_volume(&b, target, el, ph, dtab, cfg, is_float, uses_vx, uses_fx));
  emit_updates(&b, target);
  int has_initial = ph->initial != NULL;
  for (int f = 0; f < ph->nfields && has_initial; f++)
    has_initial = ph->initial[f] != NULL;
  if (has_initial)
    DG_CALL_GOTO(err, fail_buf, emit_initial(&b, target, ph, el->dim, is_float));
  DG_CALL_GOTO(err, fail_buf, dg_strbuf_finish(&b, &out->source));
  out->np_pad = np_pad;
  out->ngeo = ngeo;
  out->nderiv = dtab->ng;
  out->nproducts = 0;
  out->sparse_flops = 0;
  int sparse = target == DG_CODEGEN_CUDA && cfg->basis &&
               (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA);
  int npm = dg_cg_lattice_count(el->dim, el->N - 1);
  for (int x = 0; x < dtab->n; x++) {
    const deriv_entry *de = &dtab->d[x];
    /* a contravariant divergence source takes one application, any other
     * differentiated scalar DIM (a curl taken as rows is a divergence) */
    int napp = target == DG_CODEGEN_CUDA && de->div
                   ? de->rows * el->dim
                   : dg_flux_shape_size(de->node->args[0]->shape) * el->dim;
    if (!sparse) {
      out->nproducts += napp;
      continue;
    }
    /* per derivative (a divergence row, or one partial): at the NPM
     * points a difference and a sum per application and one scaling, then
     * DIM+1 multiply-adds per node (codegen_gemm.c) */
    int nacc = de->div ? de->rows : napp, per = de->div ? el->dim : 1;
    out->sparse_flops += (double)nacc * ((2.0 * per + 1) * npm + 2.0 * (el->dim + 1) * el->Np);
  }
  out->uses_face_x = uses_fx;
  out->uses_volume_x = uses_vx;
  out->volume_shared_bytes = (unsigned)shared;
  out->has_initial = has_initial;
  free(dtab);
  return DG_OK;
fail_buf:
  dg_strbuf_free(&b);
done:
  free(dtab);
  return err;
}

void dg_generated_free(dg_generated *g) {
  free(g->source);
  memset(g, 0, sizeof *g);
}
