/* The scaled face fluxes of one face node, or of every face node of a
 * block's elements (the fused surface of the cuda dg_volume): shared by
 * dg_surface (gen_surface.c) and both volume families. */
#include <string.h>

#include "operators/gen_context.h"
#include "operators/physics_ldg_side.h"

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
  dg_strbuf_lines(b,
                  "const long long eS = BASE(1, 0) - BASE(0, 0), kP = iP / eS;\n"
                  "const int lP = kP >= k0 && kP < k0 + EPB && kP < K;\n"
                  "const int eP = (int)(kP - k0), jP = (int)(iP - kP * eS);\n");
}

/* The LDG switch beta_n = ldg_beta * sign(w.n) (Cockburn & Shu 1998's
 * fixed-vector choice): n- = -n+ across an interior face, so the two sides
 * take opposite signs and agree on the face's one-sided values.  w has
 * incommensurate components, so no face of a box-aligned or Kuhn mesh has
 * w.n = 0; boundary faces take 0 (the boundary's own exterior state). */
void dg_gen_emit_ldg_w_dot(dg_strbuf *b, const dg_emit_ctx *ctx, const char *nrm) {
  static const double w[3] = {1.0, 0.7548776662466927, 0.5698402909980532};
  for (int d = 0; d < ctx->dim; d++) {
    dg_strbuf_appendf(b, "%s%s[%d] * ", d ? " + " : "", nrm, d);
    dg_emit_number(ctx, b, w[d]);
  }
}
static void emit_w_dot_n(dg_strbuf *b, const dg_emit_ctx *ctx) {
  dg_gen_emit_ldg_w_dot(b, ctx, "nrm");
}
static void emit_ldg_switch(dg_strbuf *b, const dg_emit_ctx *ctx, const dg_physics *ph) {
  dg_strbuf_indent(b);
  dg_strbuf_append(b, "const real ldgb = bc >= 0 ? (real)0 : (");
  emit_w_dot_n(b, ctx);
  dg_strbuf_append(b, " > 0 ? ");
  dg_emit_number(ctx, b, ph->ldg_beta);
  dg_strbuf_append(b, " : ");
  dg_emit_number(ctx, b, -ph->ldg_beta);
  dg_strbuf_append(b, ");\n");
  dg_strbuf_line(b, "(void)ldgb;");
}

/* An interior face of a physics whose fluxes read gradients through
 * ldg(...) only, with |beta| = 1/2 (physics_ldg_side.h): gP is the
 * exterior trace where ldg takes the exterior side (beta_n = +1/2) and the
 * interior one (gM's values, from the element's own nodes) where it takes
 * the interior side, in whose ldg(...) the exterior half cancels.  So half
 * the faces gather no neighbour's gradients.  gM stays the interior trace
 * everywhere: the surface form of the volume term reads it.  The side's
 * sign is ldgb's, from the same w.n. */
static void emit_one_side_gradients(dg_strbuf *b, const dg_emit_ctx *ctx, const dg_physics *ph) {
  dg_strbuf_indent(b);
  dg_strbuf_append(b, "  const long long iG = (");
  emit_w_dot_n(b, ctx);
  dg_strbuf_appendf(b, " > 0) ? %s : %s; /* ldg's side */\n", ph->ldg_beta > 0 ? "iP" : "iM",
                    ph->ldg_beta > 0 ? "iM" : "iP");
  dg_strbuf_line(b, "  for (int c = 0; c < NQ; ++c) gP[c] = Qg[iG + c * cs];");
}

/* Boundary b's exterior gradients gP (ngrad > 0, the second pass). */
static void emit_bc_gradients(dg_strbuf *b, const dg_physics *ph, dg_emit_ctx *ctx, int bi) {
  for (int j = 0; j < ph->ngrad; j++)
    for (int d = 0; d < ctx->dim; d++) {
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, "  gP[%d] = ", j * ctx->dim + d);
      dg_emit_expr(ctx, b, ph->bc_grad[bi * ph->ngrad + j], d);
      dg_strbuf_append(b, ";\n");
    }
}

/* The interior trace's load where it is loaded on boundary faces only
 * (into the caller's buf: the generator may run on several threads). */
static const char *qM_late(char buf[128], int ldg) {
  return dg_gen_load(buf, ldg ? "NC" : "", "q", "iM + c * cs");
}

void dg_gen_emit_face_traces(dg_strbuf *b, const dg_physics *ph, int uses_x, dg_emit_ctx *ctx,
                             int absolute_k, int preloaded, int ldg, int local, int flags) {
  /* Expects k, m (face node of element k) and the kernel arguments. */
  int grads = flags & DG_GEN_TRACES_GRADIENTS, um_late = flags & DG_GEN_TRACES_UM_ON_BOUNDARIES;
  int one_side = grads && dg_physics_ldg_one_sided(ph);
  dg_strbuf_lines(b,
                  "const long long idx = k * NFNFP + m;\n"
                  "const int f = m / NFP;\n");
  dg_strbuf_line(b, flags & DG_GEN_TRACES_PER_NODE_GEOMETRY
                        ? "const real *fg = fgeo + idx * (DIM + 1); /* per face node (curved) */"
                        : "const real *fg = fgeo + (k * NFACES + f) * (DIM + 1); /* per face (affine) */");
  dg_strbuf_lines(b,
                  "real nrm[DIM];\n"
                  "for (int d = 0; d < DIM; ++d) nrm[d] = fg[d];\n"
                  "const real fscale = fg[DIM];\n");
  if (ph->ncoef > 0) { /* the coefficients' traces (boundary faces: exterior = interior) */
    dg_strbuf_line(b, "real cM[NCF], cP[NCF];");
    dg_strbuf_line(b, "for (int c = 0; c < NCF; ++c) { cM[c] = fcf[(idx * NCF + c) * 2]; cP[c] = fcf[(idx * NCF + c) * 2 + 1]; }");
    dg_strbuf_line(b, "(void)cM; (void)cP;");
  }
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
    dg_gen_load(qM, ldg ? "NC" : "", "q", "iM + c * cs");
    dg_gen_load(qP, ldg ? "NC" : "", "q", "iP + c * cs");
    dg_strbuf_line(b, "real uM[NC], uP[NC];");
    if (!um_late)
      dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) uM[c] = %s;", local ? LOCAL_M : qM);
    if (grads) /* Qg has the field-major layout: iM, iP and cs serve it too */
      dg_strbuf_line(b, "real gM[NQ], gP[NQ];");
    if (grads)
      dg_strbuf_line(b, "for (int c = 0; c < NQ; ++c) gM[c] = Qg[iM + c * cs];");
    dg_strbuf_line(b, "const int bc = fbc[k * NFACES + f];");
    dg_strbuf_line(b, "if (bc < 0) {");
    b->indent += 2;
    if (local)
      emit_local_neighbour(b);
    b->indent -= 2;
    dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) uP[c] = %s%s;", local ? LOCAL_P : "", qP);
    if (grads && one_side)
      emit_one_side_gradients(b, ctx, ph);
    else if (grads)
      dg_strbuf_line(b, "  for (int c = 0; c < NQ; ++c) gP[c] = Qg[iP + c * cs];");
    dg_strbuf_line(b, "} else {");
  }
  b->indent += 2;
  if (um_late && !preloaded) {
    char buf[128];
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) uM[c] = %s;", qM_late(buf, ldg));
  }
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
    if (grads)
      emit_bc_gradients(b, ph, ctx, bi);
    dg_strbuf_line(b, "  break;");
  }
  dg_strbuf_lines(b,
                  "default:\n"
                  "  for (int c = 0; c < NC; ++c) uP[c] = uM[c];\n");
  if (grads)
    dg_strbuf_line(b, "  for (int c = 0; c < NQ; ++c) gP[c] = gM[c];");
  dg_strbuf_line(b, "}");
  b->indent -= 2;
  dg_strbuf_line(b, "}");
  if (dg_gen_uses_ldgb(ph))
    emit_ldg_switch(b, ctx, ph);
}

/* dst: where component %d of the scaled flux of (k, m) goes. */
void dg_gen_emit_surface_body(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                              int is_float, int uses_x, dg_emit_ctx *ctx, const char *dst,
                              int absolute_k, int preloaded, int ldg, int local) {
  dg_gen_emit_face_traces(b, ph, uses_x, ctx, absolute_k, preloaded, ldg, local,
                          (ph->ngrad > 0 ? DG_GEN_TRACES_GRADIENTS : 0) |
                              (el->curved ? DG_GEN_TRACES_PER_NODE_GEOMETRY : 0));
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

void dg_gen_emit_block_faces(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             int is_float, int uses_fx, dg_emit_ctx *ctx, const char *nslots,
                             const char *nthreads, const char *dst, int zero_past_end,
                             int gather_ahead, int ldg, int local) {
  dg_emit_ctx fctx;
  dg_gen_face_ctx(&fctx, ph, el->dim, is_float);
  /* curved: the elements [0, KC) only (the affine ones after them are the
   * affine module's, and the per-face-node geometry ends at KC) */
  const char *kend = el->curved ? "KC" : "K";
  dg_strbuf_line(b, "/* fused surface: scaled face fluxes of the block's elements */");
  if (gather_ahead) {
    /* every trace the thread needs is requested before the first flux is
     * computed: FITER face nodes' gathers in flight at once instead of one
     * mapP -> q round trip per face node */
    dg_strbuf_line(b, "{");
    b->indent += 2;
    dg_strbuf_line(b, "enum { FITER = (%s * NFNFP + %s - 1) / (%s) };", nslots, nthreads,
                   nthreads);
    dg_strbuf_lines(b,
                    "real fuM[FITER][NC], fuP[FITER][NC];\n"
                    "#pragma unroll\n"
                    "for (int it = 0; it < FITER; ++it) {\n");
    dg_strbuf_line(b, "  const int z = tid + it * (%s);", nthreads);
    dg_strbuf_line(b, "  const int s = z / NFNFP, m = z - s * NFNFP;");
    dg_strbuf_line(b, "  const long long k = k0 + s;");
    dg_strbuf_line(b, "  if (z < %s * NFNFP && k < %s) {", nslots, kend);
    dg_strbuf_lines(b,
                    "    const long long idx = k * NFNFP + m, cs = CSTRIDE(K);\n"
                    "    const long long iM = BASE(k, c_Fmask[m]), iP = mapP[idx];\n"
                    "    const int interior = fbc[k * NFACES + m / NFP] < 0;\n");
    if (local) {
      b->indent += 4;
      emit_local_neighbour(b);
      b->indent -= 4;
    }
    dg_strbuf_line(b, "    #pragma unroll");
    dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) {");
    char qM[128], qP[128];
    dg_gen_load(qM, ldg ? "NC" : "", "q", "iM + c * cs");
    dg_gen_load(qP, ldg ? "NC" : "", "q", "iP + c * cs");
    dg_strbuf_line(b, "      fuM[it][c] = %s;", local ? LOCAL_M : qM);
    if (local)
      dg_strbuf_line(b, "      fuP[it][c] = !interior ? (real)0 : %s%s;", LOCAL_P, qP);
    else
      dg_strbuf_line(b, "      fuP[it][c] = interior ? %s : (real)0;", qP);
    dg_strbuf_lines(b,
                    "    }\n"
                    "  }\n"
                    "}\n"
                    "#pragma unroll\n"
                    "for (int it = 0; it < FITER; ++it) {\n");
    dg_strbuf_line(b, "  const int z = tid + it * (%s);", nthreads);
    dg_strbuf_line(b, "  if (z >= %s * NFNFP) break;", nslots);
  } else {
    dg_strbuf_line(b, "for (int z = tid; z < %s * NFNFP; z += %s) {", nslots, nthreads);
  }
  dg_strbuf_lines(b,
                  "  const int s = z / NFNFP, m = z - s * NFNFP;\n"
                  "  const long long k = k0 + s;\n");
  dg_strbuf_line(b, "  if (k < %s) {", kend);
  b->indent += 4;
  if (gather_ahead) {
    dg_strbuf_lines(b,
                    "real uM[NC], uP[NC];\n"
                    "#pragma unroll\n"
                    "for (int c = 0; c < NC; ++c) { uM[c] = fuM[it][c]; uP[c] = fuP[it][c]; }\n");
  }
  dg_gen_emit_surface_body(b, el, ph, is_float, uses_fx, &fctx, dst, 1, gather_ahead, ldg, local);
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
