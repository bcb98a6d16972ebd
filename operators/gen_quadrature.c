/* dg_quantities: L2 errors, max nodal errors and integrals by element
 * quadrature (see gen_quadrature.h). */
#include "operators/gen_quadrature.h"

#include <stdio.h>

#include "operators/gen_context.h"

static int exact_count(const dg_quadrature_spec *sp) {
  int n = 0;
  for (int f = 0; f < sp->ph->nfields; f++)
    n += sp->exact[f] != NULL;
  return n;
}

int dg_gen_quadrature_outputs(const dg_quadrature_spec *sp) {
  return 2 * exact_count(sp) + sp->nintegrals;
}

static void emit_prelude(dg_strbuf *b, dg_codegen_target tg, const dg_quadrature_spec *sp) {
  dg_strbuf_appendf(b,
                    "/* dgrun generated quantities by quadrature (generator version %d)\n"
                    " * target %s, state %s, dim %d, %d nodes, %d cubature points,\n"
                    " * %d exact solutions, %d integrals; arithmetic in double */\n",
                    dg_codegen_version(), tg == DG_CODEGEN_CUDA ? "cuda" : "c",
                    sp->state_float ? "float" : "double", sp->dim, sp->Np, sp->ncub,
                    exact_count(sp), sp->nintegrals);
  if (tg == DG_CODEGEN_C)
    dg_strbuf_append(b, "#include <math.h>\n#include <stdint.h>\n#define KERNEL\n");
  else /* the test emulator defines its own KERNEL */
    dg_strbuf_append(b, "#ifndef KERNEL\n#define KERNEL extern \"C\" __global__\n#endif\n");
  dg_strbuf_appendf(b, "typedef double real; /* the expressions' type */\n"
                       "typedef %s sreal; /* the state's */\n",
                    sp->state_float ? "float" : "double");
  dg_strbuf_appendf(b,
                    "#define DIM %d\n#define NP %d\n#define NP_PAD %d\n#define NC %d\n"
                    "#define NCUB %d\n#define NPT (NCUB + NP)\n#define NOUT %d\n\n",
                    sp->dim, sp->Np, sp->np_pad, sp->ph->ncomp, sp->ncub,
                    dg_gen_quadrature_outputs(sp) > 0 ? dg_gen_quadrature_outputs(sp) : 1);
  if (sp->ph->ncoef > 0) /* the coefficients interpolated to the point like the state */
    dg_strbuf_appendf(b, "#define NCF %d\n#define CFV(c) cv[c]\n\n", sp->ph->ncoef);
  dg_gen_emit_state_layout(b, sp->layout);
}

/* Component c of field f minus its exact solution, as "d = ...;". */
static void emit_difference(dg_strbuf *b, dg_emit_ctx *ctx, const dg_quadrature_spec *sp, int f,
                            int c) {
  dg_strbuf_indent(b);
  dg_strbuf_appendf(b, "d = u[%d] - ", sp->ph->field_offset[f] + c);
  dg_emit_expr(ctx, b, sp->exact[f], c);
  dg_strbuf_append(b, ";\n");
}

/* The work of one element k: expects the kernel arguments and k. */
static void emit_element(dg_strbuf *b, dg_emit_ctx *ctx, const dg_quadrature_spec *sp) {
  const dg_physics *ph = sp->ph;
  int nexact = exact_count(sp);
  dg_strbuf_lines(b,
                  "double acc[NOUT];\n"
                  "for (int o = 0; o < NOUT; ++o) acc[o] = 0;\n"
                  "const double wk = Jk[k];\n"
                  "/* the element's state and node coordinates, read once (cuda: per-thread\n"
                  "   local memory, whose accesses by neighbouring threads coalesce) */\n"
                  "double qe[NC * NP], xe[DIM * NP];\n"
                  "for (int j = 0; j < NP; ++j) {\n"
                  "  for (int c = 0; c < NC; ++c)\n"
                  "    qe[c * NP + j] = (double)q[BASE(k, j) + (long long)c * CSTRIDE(K)];\n"
                  "  for (int a = 0; a < DIM; ++a)\n"
                  "    xe[a * NP + j] = (double)vx[((long long)a * K + k) * NP_PAD + j];\n"
                  "}\n");
  if (ph->ncoef > 0)
    dg_strbuf_lines(b,
                    "double ce[NCF * NP];\n"
                    "for (int j = 0; j < NP; ++j)\n"
                    "  for (int c = 0; c < NCF; ++c)\n"
                    "    ce[c * NP + j] = (double)cf[((long long)c * K + k) * NP_PAD + j];\n");
  dg_strbuf_lines(b,
                  "for (int p = 0; p < NPT; ++p) {\n"
                  "  /* the state and x at point p: cubature points, then the nodes */\n"
                  "  real u[NC], X[DIM];\n"
                  "  for (int c = 0; c < NC; ++c) u[c] = 0;\n"
                  "  for (int a = 0; a < DIM; ++a) X[a] = 0;\n");
  if (ph->ncoef > 0)
    dg_strbuf_lines(b,
                    "  real cv[NCF];\n"
                    "  for (int c = 0; c < NCF; ++c) cv[c] = 0;\n"
                    "  for (int j = 0; j < NP; ++j)\n"
                    "    for (int c = 0; c < NCF; ++c) cv[c] += IQ[p * NP + j] * ce[c * NP + j];\n"
                    "  (void)cv;\n");
  dg_strbuf_lines(b,
                  "  for (int j = 0; j < NP; ++j) {\n"
                  "    const double iq = IQ[p * NP + j], ix = IX[p * NP + j];\n"
                  "    for (int c = 0; c < NC; ++c) u[c] += iq * qe[c * NP + j];\n"
                  "    for (int a = 0; a < DIM; ++a) X[a] += ix * xe[a * NP + j];\n"
                  "  }\n"
                  "  (void)u;\n"
                  "  (void)X;\n"
                  "  double d;\n"
                  "  (void)d;\n"
                  "  if (p < NCUB) {\n"
                  "    const double wJ = W[p] * wk;\n"
                  "    (void)wJ;\n");
  int base = b->indent;
  b->indent = base + 4;
  for (int f = 0, e = 0; f < ph->nfields; f++) {
    if (!sp->exact[f])
      continue;
    dg_strbuf_line(b, "/* |u - exact|^2 of field %d */", f);
    dg_strbuf_line(b, "{");
    b->indent += 2;
    dg_strbuf_line(b, "double e2 = 0;");
    for (int c = 0; c < ph->field_size[f]; c++) {
      emit_difference(b, ctx, sp, f, c);
      dg_strbuf_line(b, "e2 += d * d;");
    }
    dg_strbuf_line(b, "acc[%d] += wJ * e2;", 2 * e);
    b->indent -= 2;
    dg_strbuf_line(b, "}");
    e++;
  }
  for (int i = 0; i < sp->nintegrals; i++) {
    dg_strbuf_line(b, "/* integral %d */", i);
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, "acc[%d] += wJ * ", 2 * nexact + i);
    dg_emit_expr(ctx, b, sp->integrands[i], 0);
    dg_strbuf_append(b, ";\n");
  }
  b->indent = base + 2;
  dg_strbuf_line(b, "} else {");
  b->indent = base + 4;
  dg_strbuf_line(b, "/* max nodal errors: a NaN, once seen, stays */");
  for (int f = 0, e = 0; f < ph->nfields; f++) {
    if (!sp->exact[f])
      continue;
    for (int c = 0; c < ph->field_size[f]; c++) {
      emit_difference(b, ctx, sp, f, c);
      dg_strbuf_line(b, "d = fabs(d);");
      dg_strbuf_line(b, "if (!isnan(acc[%d]) && (isnan(d) || d > acc[%d])) acc[%d] = d;",
                     2 * e + 1, 2 * e + 1, 2 * e + 1);
    }
    e++;
  }
  b->indent = base;
  dg_strbuf_lines(b,
                  "  }\n"
                  "}\n"
                  "for (int o = 0; o < NOUT; ++o) out[(long long)o * K_owned + k] = acc[o];\n");
}

dg_error dg_gen_quadrature(dg_codegen_target tg, const dg_quadrature_spec *sp, char **source) {
  *source = NULL;
  DG_CHECK(sp && sp->ph && sp->exact && sp->dim >= 1 && sp->dim <= 3 && sp->Np > 0 &&
               sp->ncub > 0 && (sp->nintegrals == 0 || sp->integrands),
           DG_ERR_ARG, "bad quadrature module description");
  dg_emit_ctx ctx;
  dg_gen_init_ctx(&ctx, sp->ph, sp->dim, 0); /* double arithmetic whatever the state */
  ctx.field = dg_gen_volume_field;           /* u[c]: the state at the point */
  if (sp->ph->ncoef > 0)
    ctx.coef = dg_gen_volume_coef; /* CFV(c): cv[c], the coefficients at the point */
  dg_strbuf b;
  dg_strbuf_init(&b);
  emit_prelude(&b, tg, sp);
  dg_strbuf_append(&b, "/* dg_quantities: per owned element, the squared L2 error and the max\n"
                       "   nodal error of each field with an exact solution, then each\n"
                       "   integral, into out[o * K_owned + k] */\n");
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_append(&b, "KERNEL void dg_quantities(const sreal *__restrict__ q,\n"
                         "    const sreal *__restrict__ vx, const double *__restrict__ Jk,\n"
                         "    const double *__restrict__ IQ, const double *__restrict__ IX,\n"
                         "    const double *__restrict__ W, double t, long long K,\n"
                         "    long long K_owned, double *__restrict__ out");
    dg_strbuf_append(&b, sp->ph->ncoef > 0 ? ", const sreal *__restrict__ cf) {\n" : ") {\n");
    b.indent = 2;
    dg_strbuf_lines(&b, "const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "if (k >= K_owned) return;\n"
                        "(void)t;\n");
  } else {
    dg_strbuf_append(&b, "KERNEL void dg_quantities(void **args, int64_t first, int64_t count) {\n"
                         "  const sreal *restrict q = *(const sreal **)args[0];\n"
                         "  const sreal *restrict vx = *(const sreal **)args[1];\n"
                         "  const double *restrict Jk = *(const double **)args[2];\n"
                         "  const double *restrict IQ = *(const double **)args[3];\n"
                         "  const double *restrict IX = *(const double **)args[4];\n"
                         "  const double *restrict W = *(const double **)args[5];\n"
                         "  const double t = *(const double *)args[6];\n"
                         "  const long long K = *(const long long *)args[7];\n"
                         "  const long long K_owned = *(const long long *)args[8];\n"
                         "  double *restrict out = *(double **)args[9];\n"
                         "  (void)t;\n");
    if (sp->ph->ncoef > 0)
      dg_strbuf_append(&b, "  const sreal *restrict cf = *(const sreal **)args[10];\n");
    dg_strbuf_append(&b, "  for (long long k = first; k < first + count; ++k) {\n");
    b.indent = 4;
  }
  emit_element(&b, &ctx, sp);
  DG_CALL(dg_gen_finish_element_kernel(&b, tg, &ctx, source));
  return DG_OK;
}
