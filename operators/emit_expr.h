/* Emission of checked flux-language expressions as C / CUDA C source.
 *
 * Code is produced only from the typed AST: numbers are re-printed from
 * their parsed value ("%.17g"), parameters are baked in as their numeric
 * values, and every name in the output (variables, math functions) comes
 * from this file's own tables or from the caller's naming callbacks.  No
 * user text can reach a compiler this way.
 *
 * Vector and matrix values are scalarised: emit_expr writes one flattened
 * component of a node as a C expression, each use of a let written out in
 * place; identical subexpressions are left to the compiler's common-
 * subexpression elimination (all emitted math is pure).  An expression
 * whose text would pass DG_EMIT_INLINE_MAX bytes that way (lets that use
 * lets several times; the checker bounds how far, operators/flux_check_expr.h)
 * is written with each shared let once, as a temporary (emit_expr.c). */
#ifndef DG_OPERATORS_EMIT_EXPR_H
#define DG_OPERATORS_EMIT_EXPR_H

#include "core/error.h"
#include "core/strbuf.h"
#include "operators/flux_ast.h"

typedef enum { DG_EMIT_DOUBLE = 0, DG_EMIT_FLOAT = 1 } dg_emit_real;

typedef struct dg_emit_ctx dg_emit_ctx;

/* Caller-supplied names for the leaves that depend on where the expression
 * is evaluated (volume node, face node, boundary). */
struct dg_emit_ctx {
  dg_emit_real real;
  int dim;
  /* let bodies by let index, and parameter values by param index */
  const dg_flux_node *const *lets;
  int nlets;
  const double *params;
  int nparams;
  /* flattened offset of each field's first component in the state vector */
  const int *field_offset;
  int nfields;
  /* Write the variable holding state component `comp` (flattened over all
   * fields) read at `side` (NONE: the volume node). */
  void (*field)(const dg_emit_ctx *ctx, dg_strbuf *b, int comp, dg_flux_side side);
  /* Coefficient `coef` read at `side` (NONE: the volume node; INT / EXT:
   * the face traces).  NULL where no coefficient can appear. */
  void (*coef)(const dg_emit_ctx *ctx, dg_strbuf *b, int coef, dg_flux_side side);
  /* Component d of gradient j's lifted gradient (DG_FLUX_GRADQ) read at
   * `side`; NULL where none can be read. */
  void (*gradq)(const dg_emit_ctx *ctx, dg_strbuf *b, int grad, int d, dg_flux_side side);
  /* The face's LDG switch beta_n (DG_FLUX_LDGB); NULL off faces. */
  void (*ldgb)(const dg_emit_ctx *ctx, dg_strbuf *b);
  /* x[d], n[d], t. */
  void (*position)(const dg_emit_ctx *ctx, dg_strbuf *b, int d);
  void (*normal)(const dg_emit_ctx *ctx, dg_strbuf *b, int d);
  void (*time)(const dg_emit_ctx *ctx, dg_strbuf *b);
  /* Component `comp` of derivative node `deriv` (volume kernels only; NULL
   * elsewhere, where the checker forbids derivatives). */
  void (*derivative)(const dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *deriv,
                     int comp);
  void *user;
  /* Trace side applied to side-NONE fields while a let body is emitted
   * (the let node's own side); start with DG_FLUX_SIDE_NONE. */
  dg_flux_side let_side;
  /* Set when an unsupported construct was met (a generator bug or a node
   * the checker should have rejected); emit functions then write "0". */
  int failed;
  char failure[256];
  /* Set by emit_expr while it writes one top-level expression (start with
   * zero, as dg_gen_init_ctx's memset does). */
  struct dg_emit_temps *temps;
  int depth;
};

/* Longest text of one expression written with its lets in place.  The
 * longest line (one expression) of a shipped problem's generated source is
 * 1,703 bytes (euler3d_vortex), so their expressions never reach it and are
 * emitted byte for byte as before; past it a compiler spends long on the
 * repeated text (NVRTC: minutes for 100 kB expressions). */
enum { DG_EMIT_INLINE_MAX = 16 * 1024 };

/* Append component `comp` of node as a C expression (in parentheses). */
void dg_emit_expr(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *node, int comp);

/* A floating-point literal in the context's precision, exactly
 * representing v ("%.17g"; float literals get an 'f' suffix). */
void dg_emit_number(const dg_emit_ctx *ctx, dg_strbuf *b, double v);

/* Name of a math function for the precision ("sin" / "sinf"). */
const char *dg_emit_math(const dg_emit_ctx *ctx, const char *double_name);

/* DG_ERR_INTERNAL with the recorded failure, if any. */
dg_error dg_emit_status(const dg_emit_ctx *ctx);

#endif
