/* The shared emit context of the generator (gen_context.h): the derivative
 * table, the expression leaves of volume and face code, global loads, the
 * cuda dg_volume signature, the flux quantities g(u) and the rhs store. */
#include "operators/gen_context.h"

#include <stdio.h>
#include <string.h>

/* ---- derivative table: every distinct D(g) of the volume terms ---------- */

dg_error dg_gen_collect_derivs(const dg_flux_node *n, deriv_table *t) {
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
    DG_CALL(dg_gen_collect_derivs(n->args[i], t));
  return DG_OK;
}

static const deriv_entry *find_deriv(const deriv_table *t, const dg_flux_node *n) {
  for (int i = 0; i < t->n; i++)
    if (t->d[i].node == n || dg_flux_node_equal(t->d[i].node, n))
      return &t->d[i];
  return NULL;
}

/* Whether a tree (through lets) contains an op. */
int dg_gen_uses_op(const dg_flux_node *n, dg_flux_op op, const dg_physics *ph, int depth) {
  if (!n || depth > 64)
    return 0;
  if (n->op == op)
    return 1;
  if (n->op == DG_FLUX_LET && n->ref >= 0 && n->ref < ph->nlets &&
      dg_gen_uses_op(ph->lets[n->ref], op, ph, depth + 1))
    return 1;
  for (int i = 0; i < n->nargs; i++)
    if (dg_gen_uses_op(n->args[i], op, ph, depth))
      return 1;
  return 0;
}

void dg_gen_emit_int_table(dg_strbuf *b, dg_codegen_target tg, const char *name, const int *a,
                           int n) {
  dg_strbuf_appendf(b, "%s int %s[%d] = {",
                    tg == DG_CODEGEN_CUDA ? "__device__ const" : "static const", name, n);
  for (int m = 0; m < n; m++)
    dg_strbuf_appendf(b, "%s%d", m ? ", " : "", a[m]);
  dg_strbuf_append(b, "};\n");
}

/* cuda stores the matrices column-major: thread i reads row i, so
 * neighbouring threads then read neighbouring words (coalesced global
 * loads, conflict-free shared ones); C keeps them row-major. */
void dg_gen_emit_state_layout(dg_strbuf *b, dg_field_layout layout) {
  if (layout == DG_LAYOUT_FIELD_MAJOR)
    dg_strbuf_append(b, "#define CSTRIDE(K) ((long long)(K) * NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NP_PAD + (i))\n\n");
  else
    dg_strbuf_append(b, "#define CSTRIDE(K) ((long long)NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NC * NP_PAD + (i))\n\n");
}

/* ---- leaf naming for the two contexts ------------------------------------ */

void dg_gen_volume_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side) {
  (void)c;
  (void)side; /* volume terms read the node's own value */
  dg_strbuf_appendf(b, "u[%d]", comp);
}
void dg_gen_face_field(const dg_emit_ctx *c, dg_strbuf *b, int comp, dg_flux_side side) {
  (void)c;
  dg_strbuf_appendf(b, side == DG_FLUX_SIDE_EXT ? "uP[%d]" : "uM[%d]", comp);
}
/* Coefficients (ncoef > 0): at a volume node CFV(c), the prelude's macro
 * reading cf at node (k, i); on a face the traces cM[c] / cP[c] the surface
 * body loads from fcf (codegen.h has both layouts). */
void dg_gen_volume_coef(const dg_emit_ctx *c, dg_strbuf *b, int coef, dg_flux_side side) {
  (void)c;
  (void)side; /* volume terms read the node's own value */
  dg_strbuf_appendf(b, "CFV(%d)", coef);
}
void dg_gen_face_coef(const dg_emit_ctx *c, dg_strbuf *b, int coef, dg_flux_side side) {
  (void)c;
  dg_strbuf_appendf(b, side == DG_FLUX_SIDE_EXT ? "cP[%d]" : "cM[%d]", coef);
}
/* Lifted gradients (ngrad > 0): component d of gradient j is Q component
 * j*DIM + d; at a volume node QV(c), the prelude's macro reading Qg at node
 * (k, i); on a face the traces gM[c] / gP[c] the surface body loads. */
void dg_gen_volume_gradq(const dg_emit_ctx *c, dg_strbuf *b, int grad, int d,
                         dg_flux_side side) {
  (void)side; /* volume terms read the node's own value */
  dg_strbuf_appendf(b, "QV(%d)", grad * c->dim + d);
}
void dg_gen_face_gradq(const dg_emit_ctx *c, dg_strbuf *b, int grad, int d, dg_flux_side side) {
  dg_strbuf_appendf(b, side == DG_FLUX_SIDE_EXT ? "gP[%d]" : "gM[%d]", grad * c->dim + d);
}
void dg_gen_face_ldgb(const dg_emit_ctx *c, dg_strbuf *b) {
  (void)c;
  dg_strbuf_append(b, "ldgb");
}
static void any_position(const dg_emit_ctx *c, dg_strbuf *b, int d) {
  (void)c;
  dg_strbuf_appendf(b, "X[%d]", d);
}
void dg_gen_face_normal(const dg_emit_ctx *c, dg_strbuf *b, int d) {
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

void dg_gen_volume_derivative(const dg_emit_ctx *c, dg_strbuf *b, const dg_flux_node *n,
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

void dg_gen_init_ctx(dg_emit_ctx *c, const dg_physics *ph, int dim, int is_float) {
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

void dg_gen_face_ctx(dg_emit_ctx *c, const dg_physics *ph, int dim, int is_float) {
  dg_gen_init_ctx(c, ph, dim, is_float);
  c->field = dg_gen_face_field;
  c->normal = dg_gen_face_normal;
  if (ph->ncoef > 0)
    c->coef = dg_gen_face_coef;
  if (ph->ngrad > 0)
    c->gradq = dg_gen_face_gradq;
  if (dg_gen_uses_ldgb(ph))
    c->ldgb = dg_gen_face_ldgb;
}

int dg_gen_uses_ldgb(const dg_physics *ph) {
  if (ph->ngrad > 0)
    return 1;
  for (int f = 0; f < ph->nfields; f++) /* ldg() in a first-order program's flux */
    if (dg_gen_uses_op(ph->flux[f], DG_FLUX_LDGB, ph, 0))
      return 1;
  return 0;
}

const char *dg_gen_load(char *buf, const char *form, const char *array, const char *index) {
  if (form[0])
    snprintf(buf, 128, "DG_LD_%s(&%s[%s])", form, array, index);
  else
    snprintf(buf, 128, "%s[%s]", array, index);
  return buf;
}

/* r = volume terms + sources + the lifted flux (lift_fmt names component
 * %d of it), then the store or the fused LSERK update (residual: component
 * c's residual); expects u, k, i. */
void dg_gen_emit_rhs_store(dg_strbuf *b, const dg_physics *ph, const dg_kernel_config *cfg,
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
      dg_strbuf_lines(b,
                      "real rres[NC]; /* batch_residual: every load before the first store */\n"
                      "for (int c = 0; c < NC; ++c) {\n"
                      "  const long long o = BASE(k, i) + c * CSTRIDE(K);\n");
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

/* contravariant: store a divergence's flux rows in reference directions,
 * ghat_a = sum_d dr_a/dx_d g_d (geometric factors in G[]), so that
 * div g = sum_a D_a ghat_a needs one accumulator per row instead of DIM^2. */
void dg_gen_emit_gvalues(dg_strbuf *b, const deriv_table *dt, dg_emit_ctx *ctx,
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

void dg_gen_emit_volume_signature_cuda(dg_strbuf *b, const char *nthreads, int min_blocks,
                                       int ncoef, int ngrad) {
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
    "    const real *__restrict__ fx");
  if (ngrad > 0) /* both coefficient arrays, so that Qg's position is fixed */
    dg_strbuf_append(b, ",\n    const real *__restrict__ cf, const real *__restrict__ fcf,\n"
                        "    const real *__restrict__ Qg) {\n"
                        "  (void)cf; (void)fcf; (void)Qg;\n");
  else
    dg_strbuf_append(b, ncoef > 0 ? ",\n    const real *__restrict__ cf, const real *__restrict__ fcf) {\n"
                                    "  (void)cf; (void)fcf;\n"
                                  : ") {\n");
}

void dg_gen_emit_volume_signature_curved_cuda(dg_strbuf *b, const char *nthreads) {
  dg_strbuf_appendf(b, "KERNEL void __launch_bounds__(%s) ", nthreads);
  dg_strbuf_append(b,
    "dg_volume_curved(real *__restrict__ q,\n"
    "    real *__restrict__ rhs, const real *__restrict__ fl, const real *__restrict__ egeo,\n"
    "    const real *__restrict__ vx, real t, long long K, real *__restrict__ res,\n"
    "    real rk_a, real rk_b, real dt, real *__restrict__ q_out,\n"
    "    const int *__restrict__ mapM, const int *__restrict__ mapP,\n"
    "    const int *__restrict__ fbc, const real *__restrict__ fgeo,\n"
    "    const real *__restrict__ fx, const real *__restrict__ cf,\n"
    "    const real *__restrict__ fcf, const real *__restrict__ Qg, long long KC) {\n"
    "  (void)cf; (void)fcf; (void)Qg;\n");
}

/* The lattice of Bernstein-Bezier coefficients and nodes (the listing
 * order is in gen_gemm_bernstein.c). */
int dg_gen_lattice_count(int dim, int n) {
  if (n < 0)
    return 0;
  return dim == 1 ? n + 1 : dim == 2 ? (n + 1) * (n + 2) / 2 : (n + 1) * (n + 2) * (n + 3) / 6;
}

dg_error dg_gen_finish_element_kernel(dg_strbuf *b, dg_codegen_target tg, dg_emit_ctx *ctx,
                                      char **source) {
  b->indent = 0;
  dg_strbuf_append(b, tg == DG_CODEGEN_CUDA ? "}\n" : "  }\n}\n");
  dg_error err = dg_emit_status(ctx);
  if (err != DG_OK) {
    dg_strbuf_free(b);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  DG_CALL(dg_strbuf_finish(b, source));
  return DG_OK;
}
