/* The expression checker of the flux language (operators/flux_check.c
 * checks the statements): one expression's syntax tree -> a typed, resolved
 * AST node, with what its place in the file allows (traces and n on faces
 * only, derivatives in volume terms only, ...).  operators/ internal. */
#ifndef DG_OPERATORS_FLUX_CHECK_EXPR_H
#define DG_OPERATORS_FLUX_CHECK_EXPR_H

#include <stdint.h>

#include "operators/flux_check.h"

/* Where an expression stands decides what it may use. */
typedef enum dg_flux_ctx {
  DG_FLUX_CTX_CONST, /* param default: numbers, pi, functions */
  DG_FLUX_CTX_LET,   /* let body: anything pointwise; what it uses is recorded */
  DG_FLUX_CTX_RHS,   /* volume term: fields, derivatives, x, t, params */
  DG_FLUX_CTX_FLUX,  /* numerical flux: traces, n, x, t, params */
  DG_FLUX_CTX_BC,    /* boundary condition: .int traces, n, x, t, params */
  DG_FLUX_CTX_POINT, /* initial, exact, source: x, t, params */
  DG_FLUX_CTX_INTEGRAL, /* integrand: fields, x, t, params; no derivatives, traces or n */
  DG_FLUX_CTX_VALUE    /* a problem.cfg value (flux_expr.h): x, params, numbers, functions */
} dg_flux_ctx;

typedef struct dg_flux_scope {
  dg_flux_ctx ctx;
  const char *what; /* "a numerical flux", for messages */
  int in_trace;     /* inside .int, .ext, avg(), jump() */
  int in_deriv;     /* inside a derivative's argument */
  /* DG_FLUX_CTX_LET: what the body uses (uses_coef_bare: a coefficient
   * outside a trace; uses_coef: one anywhere) */
  int uses_bare, uses_trace, uses_ext, uses_normal, uses_coef_bare, uses_coef;
  /* DG_FLUX_CTX_LET: lifted gradients (GRADQ) anywhere, and outside a trace */
  int uses_grad, uses_grad_bare;
} dg_flux_scope;

/* A boundary's `grad(NAME) = expr`, checked after every other expression
 * (operators/flux_check_grad.c): which NAME, and its syntax. */
typedef struct dg_flux_bc_grad {
  int boundary;
  const dg_flux_item *item;
} dg_flux_bc_grad;

typedef struct dg_flux_checker {
  dg_flux_source *src;
  dg_flux_program *prog;
  dg_flux_arena *a;
  int oom;
  int nlets_visible; /* a let body sees only the lets above it */
  int unknown_target; /* a statement named an unknown field (its own error) */
  int *let_height;
  int64_t *let_cost; /* cost of each let's body, memoised */
  int64_t file_cost; /* cost times components, summed over the sections */
  int file_cost_told; /* the file's total was reported */
  unsigned char *let_ext;  /* the let reads exterior traces */
  unsigned char *let_bare; /* the let reads side-NONE fields or coefficients */
  unsigned char *let_coef; /* the let reads coefficients (at the node or as traces) */
  unsigned char *let_broken; /* the let's body had an error (already reported) */
  unsigned char *let_grad;   /* the let reads lifted gradients (GRADQ), bare or traced */
  const dg_flux_node **let_impure; /* what keeps the let from being differentiated (x, t,
                                      a coefficient, a trace, n, a gradient), or NULL */
  int grad_cap;              /* capacity of prog->gradients */
  int nbc_grads, bc_grads_cap;
  dg_flux_bc_grad *bc_grads; /* the boundaries' grad(NAME) = ... items */
} dg_flux_checker;

/* Longest chain of operations an expression may have, let bodies counted
 * in: bounds the recursion of every tree walk (evaluator, generator). */
enum { MAX_HEIGHT = 512 };

/* Most operations one component of an expression may expand to when every
 * let it uses is written out in place (its cost), and most the whole file
 * may expand to.  Lets may share: 'let m1 = m0*m0', 'let m2 = m1*m1', ...
 * doubles at each line, so a file of 30 short lines would otherwise expand
 * to 2^30 operations in the generator (and in every other walk over the
 * expressions: the evaluator, the affine test, the derivative collector).
 * The shipped problems need at most 2,647 per component and 15,084 for a
 * file (euler3d_vortex); these bounds are over 30 times that, and keep the
 * generated source of any file to some MB (operators/FLUX_LANGUAGE.md). */
enum { MAX_COST = 100000, MAX_FILE_COST = 500000 };

/* Report a mistake at loc into the source's diagnostics. */
void dg_flux_check_error(dg_flux_checker *ck, dg_flux_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int dg_flux_check_name_is(const char *name, int len, const char *word);
/* "; did you mean 'H'?" when near is not NULL, else "". */
const char *dg_flux_check_did_you_mean(const char *near, char *buf, size_t size);
/* "a scalar", "a 3-vector", "a 2x2 matrix" (buf of 40). */
const char *dg_flux_check_a_shape(dg_flux_shape s, char *buf);
/* Index of the field named (name, len), or -1. */
int dg_flux_check_find_field(const dg_flux_checker *ck, const char *name, int len);
/* The field name closest to word, if one is plausibly meant. */
const char *dg_flux_check_closest_field(const dg_flux_checker *ck, const char *word);
/* Longest chain of operations of n, lets counted in. */
int dg_flux_check_height(const dg_flux_checker *ck, const dg_flux_node *n);
/* Bound on the operations emitted for one component of n (lets expanded). */
int64_t dg_flux_check_cost(const dg_flux_checker *ck, const dg_flux_node *n);
/* Refuse n when its cost passes MAX_COST (or the file's passes
 * MAX_FILE_COST), naming it by what; else count it in the file. */
int dg_flux_check_too_costly(dg_flux_checker *ck, const dg_flux_node *n, dg_flux_loc loc,
                             const char *what);
/* Index of the param / let named (name, len), or -1. */
int dg_flux_check_find_param(const dg_flux_checker *ck, const char *name, int len);
int dg_flux_check_find_let(const dg_flux_checker *ck, const char *name, int len);
/* Index of the coefficient named (name, len), or -1. */
int dg_flux_check_find_coef(const dg_flux_checker *ck, const char *name, int len);
/* A new name for a field, param, coefficient, let or integral: not built
 * in, not taken. */
int dg_flux_check_new_name(dg_flux_checker *ck, const char *name, int len, dg_flux_loc loc);
/* A volume term is linear in its derivatives with field-free factors (or
 * field factors of derivatives of field-free arguments); 0 after reporting
 * the first violation. */
int dg_flux_check_linear_in_derivs(dg_flux_checker *ck, const dg_flux_node *n);
/* The derivative `name` (a dg_flux_deriv id) applied to s->args[0], where
 * sc says it stands (operators/flux_check_deriv.c); NULL after reporting. */
dg_flux_node *dg_flux_check_deriv(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s,
                                  const char *name, int id);
/* Second-order terms (operators/flux_check_grad.c).  The derivative `name`
 * (id) of s->args[0] where it is a lifted gradient: nested in an rhs
 * derivative's argument, or in a let, a numerical flux or a boundary
 * condition; NULL after reporting. */
dg_flux_node *dg_flux_check_gradient(dg_flux_checker *ck, dg_flux_scope *sc,
                                     const dg_flux_syn *s, const char *name, int id);
/* Record what keeps let `index` (whose body is checked) from being
 * differentiated. */
void dg_flux_check_let_purity(dg_flux_checker *ck, int index);
/* ldg(e) from its traces: avg(e) - beta_n*jump(e); NULL when out of memory. */
dg_flux_node *dg_flux_check_ldg(dg_flux_checker *ck, dg_flux_node *e_int, dg_flux_node *e_ext,
                                dg_flux_loc loc);
/* transpose(M) (which 0), trace(M) (1), dot(M, v) (2) lowered to VEC, INDEX,
 * ADD and dot; NULL after reporting. */
dg_flux_node *dg_flux_check_matrix_fn(dg_flux_checker *ck, int which, dg_flux_node *const *args,
                                      dg_flux_loc loc);
/* The boundaries' grad(NAME) = ... items, after every other expression:
 * each boundary's grad_exterior, and what is missing or unused. */
void dg_flux_check_bc_gradients(dg_flux_checker *ck, int complete);
/* The shape a gradient of a value of shape s has (dim-vector, or k x dim
 * for a k-vector); 0 when s cannot be differentiated (a matrix). */
int dg_flux_check_grad_shape(int dim, dg_flux_shape s, dg_flux_shape *out);

/* Whether n reads fields (directly or through a let) on any side. */
int dg_flux_check_reads_fields(const dg_flux_checker *ck, const dg_flux_node *n);
/* Check expression s where sc says it stands; NULL after reporting. */
dg_flux_node *dg_flux_check_expr(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s);
/* Check an expression of a section (ctx, what: "a numerical flux") and its
 * shape against the target field's; label names it in messages. */
dg_flux_node *dg_flux_check_section(dg_flux_checker *ck, dg_flux_ctx ctx, const char *what,
                                    const dg_flux_syn *e, const dg_flux_field_info *target,
                                    const char *label);
/* The same for a value of shape `shape`, `whose` naming what has it in the
 * message ("field 'E'", "grad(T)"). */
dg_flux_node *dg_flux_check_shaped(dg_flux_checker *ck, dg_flux_ctx ctx, const char *what,
                                   const dg_flux_syn *e, dg_flux_shape shape, const char *whose,
                                   const char *label);

#endif
