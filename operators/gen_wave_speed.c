/* dg_wave_speed: the step rate of every element from the flux file's wave
 * speed (see gen_wave_speed.h). */
#include "operators/gen_wave_speed.h"

#include "operators/gen_context.h"

static void emit_prelude(dg_strbuf *b, dg_codegen_target tg, const dg_wave_speed_spec *sp) {
  dg_strbuf_appendf(b,
                    "/* dgrun generated step rate from the wave speed (generator version %d)\n"
                    " * target %s, state %s%s, dim %d, order %d, %d nodes; arithmetic in "
                    "double */\n",
                    dg_codegen_version(), tg == DG_CODEGEN_CUDA ? "cuda" : "c",
                    sp->state_float ? "float" : "double",
                    sp->bernstein ? " (Bernstein-Bezier coefficients)" : "", sp->dim, sp->N,
                    sp->Np);
  if (tg == DG_CODEGEN_C)
    dg_strbuf_append(b, "#include <math.h>\n#include <stdint.h>\n#define KERNEL\n");
  else /* the test emulator defines its own KERNEL */
    dg_strbuf_append(b, "#ifndef KERNEL\n#define KERNEL extern \"C\" __global__\n#endif\n");
  dg_strbuf_appendf(b, "typedef double real; /* the expression's type */\n"
                       "typedef %s sreal; /* the state's */\n",
                    sp->state_float ? "float" : "double");
  dg_strbuf_appendf(b,
                    "#define DIM %d\n#define NP %d\n#define NP_PAD %d\n#define NC %d\n"
                    "/* (N+1)^2: the O(N^-2) node spacing at element edges */\n"
                    "#define N1SQ %d.0\n\n",
                    sp->dim, sp->Np, sp->np_pad, sp->ph->ncomp, (sp->N + 1) * (sp->N + 1));
  if (sp->ph->ncoef > 0)
    dg_strbuf_appendf(b, "#define NCF %d\n#define CFV(c) cv[c]\n\n", sp->ph->ncoef);
  if (sp->layout == DG_LAYOUT_FIELD_MAJOR)
    dg_strbuf_append(b, "#define CSTRIDE(K) ((long long)(K) * NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NP_PAD + (i))\n\n");
  else
    dg_strbuf_append(b, "#define CSTRIDE(K) ((long long)NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NC * NP_PAD + (i))\n\n");
}

/* The state (and coefficients) at node i into u[] (cv[]). */
static void emit_node_values(dg_strbuf *b, const dg_wave_speed_spec *sp) {
  int ncf = sp->ph->ncoef;
  dg_strbuf_line(b, "real u[NC], X[DIM];");
  if (ncf > 0)
    dg_strbuf_line(b, "real cv[NCF];");
  if (!sp->bernstein) {
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = (double)q[BASE(k, i) + "
                      "(long long)c * CSTRIDE(K)];");
    if (ncf > 0)
      dg_strbuf_line(b, "for (int c = 0; c < NCF; ++c) cv[c] = "
                        "(double)cf[((long long)c * K + k) * NP_PAD + i];");
  } else {
    dg_strbuf_lines(b,
                    "/* the values at node i of the Bernstein-Bezier coefficients */\n"
                    "for (int c = 0; c < NC; ++c) u[c] = 0;\n"
                    "for (int j = 0; j < NP; ++j) {\n"
                    "  const double v = VB[i * NP + j];\n"
                    "  for (int c = 0; c < NC; ++c)\n"
                    "    u[c] += v * (double)q[BASE(k, j) + (long long)c * CSTRIDE(K)];\n"
                    "}\n");
    if (ncf > 0)
      dg_strbuf_lines(b,
                      "for (int c = 0; c < NCF; ++c) cv[c] = 0;\n"
                      "for (int j = 0; j < NP; ++j)\n"
                      "  for (int c = 0; c < NCF; ++c)\n"
                      "    cv[c] += VB[i * NP + j] * (double)cf[((long long)c * K + k) * "
                      "NP_PAD + j];\n");
  }
  if (ncf > 0)
    dg_strbuf_line(b, "(void)cv;");
  dg_strbuf_lines(b,
                  "for (int d = 0; d < DIM; ++d) X[d] = (double)vx[((long long)d * K + k) * "
                  "NP_PAD + i];\n"
                  "(void)u;\n"
                  "(void)X;\n");
}

/* The work of one element k: expects the kernel arguments and k. */
static void emit_element(dg_strbuf *b, dg_emit_ctx *ctx, const dg_wave_speed_spec *sp) {
  dg_strbuf_line(b, "double lmax = 0; /* max over the nodes of |wave_speed|, NaN kept */");
  dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
  b->indent += 2;
  emit_node_values(b, sp);
  dg_strbuf_indent(b);
  dg_strbuf_append(b, "const double l = fabs(");
  dg_emit_expr(ctx, b, sp->speed, 0);
  dg_strbuf_append(b, ");\n");
  dg_strbuf_line(b, "if (!isnan(lmax) && (isnan(l) || l > lmax)) lmax = l;");
  b->indent -= 2;
  dg_strbuf_lines(b,
                  "}\n"
                  "const double h = hk[k];\n"
                  "/* advective and diffusive rates added (dg/timestep.h) */\n"
                  "double r = N1SQ * lmax / h;\n"
                  "if (nu > 0) r += N1SQ * N1SQ * nu / (h * h);\n"
                  "out[k] = r;\n");
}

dg_error dg_gen_wave_speed(dg_codegen_target tg, const dg_wave_speed_spec *sp, char **source) {
  *source = NULL;
  DG_CHECK(sp && sp->ph && sp->speed && sp->dim >= 1 && sp->dim <= 3 && sp->Np > 0 &&
               sp->N >= 1 && sp->np_pad >= sp->Np && sp->speed->shape.rank == 0,
           DG_ERR_ARG, "bad wave-speed module description");
  dg_emit_ctx ctx;
  dg_gen_init_ctx(&ctx, sp->ph, sp->dim, 0); /* double arithmetic whatever the state */
  ctx.field = dg_gen_volume_field;           /* u[c]: the state at the node */
  if (sp->ph->ncoef > 0)
    ctx.coef = dg_gen_volume_coef; /* CFV(c): cv[c], the coefficients at the node */
  dg_strbuf b;
  dg_strbuf_init(&b);
  emit_prelude(&b, tg, sp);
  dg_strbuf_append(&b, "/* dg_wave_speed: per owned element, (N+1)^2 max|wave_speed| / h\n"
                       "   + (N+1)^4 nu / h^2 into out[k] */\n");
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_append(&b, "KERNEL void dg_wave_speed(const sreal *__restrict__ q,\n"
                         "    const sreal *__restrict__ vx, const double *__restrict__ hk,\n"
                         "    const double *__restrict__ VB, double t, double nu, long long K,\n"
                         "    long long K_owned, double *__restrict__ out,\n"
                         "    const sreal *__restrict__ cf) {\n");
    b.indent = 2;
    dg_strbuf_lines(&b, "const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "if (k >= K_owned) return;\n"
                        "(void)t;\n"
                        "(void)VB;\n"
                        "(void)cf;\n");
  } else {
    dg_strbuf_append(&b, "KERNEL void dg_wave_speed(void **args, int64_t first, int64_t count) {\n"
                         "  const sreal *restrict q = *(const sreal **)args[0];\n"
                         "  const sreal *restrict vx = *(const sreal **)args[1];\n"
                         "  const double *restrict hk = *(const double **)args[2];\n"
                         "  const double *restrict VB = *(const double **)args[3];\n"
                         "  const double t = *(const double *)args[4];\n"
                         "  const double nu = *(const double *)args[5];\n"
                         "  const long long K = *(const long long *)args[6];\n"
                         "  /* args[7], K_owned: the launch covers [0, K_owned) */\n"
                         "  double *restrict out = *(double **)args[8];\n"
                         "  const sreal *restrict cf = *(const sreal **)args[9];\n"
                         "  (void)t;\n"
                         "  (void)VB;\n"
                         "  (void)cf;\n"
                         "  for (long long k = first; k < first + count; ++k) {\n");
    b.indent = 4;
  }
  emit_element(&b, &ctx, sp);
  DG_CALL(dg_gen_finish_element_kernel(&b, tg, &ctx, source));
  return DG_OK;
}
