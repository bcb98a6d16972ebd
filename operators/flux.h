/* A checked flux program: the public face of the flux language
 * (FLUX_LANGUAGE.md).  Parse a .flux file for a mesh dimension, read its
 * fields, params, let bindings and boundary conditions, and hand the typed
 * expressions (flux_ast.h) to the kernel generator or to the host
 * evaluator (flux_eval.h).
 *
 *   dg_flux_program *prog;
 *   DG_CALL(dg_flux_parse_file("maxwell.flux", 3, &prog));
 *   DG_CALL(dg_flux_set_param(prog, "eps", 2.0));
 *   const dg_flux_field_info *E = dg_flux_field(prog, 0);   // E->rhs, E->flux, ...
 *   dg_flux_program_destroy(&prog);
 */
#ifndef DG_OPERATORS_FLUX_H
#define DG_OPERATORS_FLUX_H

#include <stddef.h>

#include "operators/flux_ast.h"
#include "operators/flux_diag.h"

typedef struct dg_flux_program dg_flux_program;

/* One field (unknown).  The state vector of a node holds all fields'
 * components in declaration order: component c of field f is
 * u[offset + c]. */
typedef struct dg_flux_field_info {
  const char *name;
  dg_flux_shape shape;   /* scalar, or a vector of ncomp components */
  int ncomp;             /* 1 for a scalar */
  int offset;
  dg_flux_loc loc;
  const dg_flux_node *rhs;     /* volume term V(u) (side NONE fields, derivatives) */
  const dg_flux_node *surface; /* surface form of rhs on the interior trace */
  const dg_flux_node *flux;    /* numerical flux: the face value of `surface` */
  const dg_flux_node *initial; /* of x, t, params */
  const dg_flux_node *exact;   /* of x, t, params; NULL if not given */
  const dg_flux_node *source;  /* of x, t, params; NULL if not given */
} dg_flux_field_info;

typedef struct dg_flux_param_info {
  const char *name;
  double value;         /* current value (default unless overridden) */
  double default_value;
  dg_flux_loc loc;
} dg_flux_param_info;

/* coefficients eps > 0, mu > 0: material data, a scalar per node whose
 * values problem.cfg gives per mesh region or as an expression of x
 * (FLUX_LANGUAGE.md); the optional bounds are checked on every value
 * before a run starts. */
typedef struct dg_flux_coef_info {
  const char *name;
  dg_flux_loc loc;
  int has_min, min_strict; /* coefficient > min (strict) or >= min */
  double min;
  int has_max, max_strict; /* coefficient < max (strict) or <= max */
  double max;
} dg_flux_coef_info;

/* Most coefficients a file may declare (each is an array on the device). */
enum { DG_FLUX_MAX_COEFS = 64 };

/* let NAME = body.  A LET node (ref = index, side s) stands for the body
 * with its side-NONE fields read from side s; the generator emits each
 * (let, side) pair it meets once, as a local, in index order (a let only
 * refers to lets of smaller index). */
typedef struct dg_flux_let_info {
  const char *name;
  const dg_flux_node *body;
  dg_flux_loc loc;
  int reads_fields; /* the body reads side-NONE fields (so a LET node's side matters) */
  int reads_traces; /* the body reads .int/.ext traces itself (faces only) */
  int reads_normal; /* the body uses n (faces only) */
  int reads_coefs;  /* the body reads coefficients (at the node, or as traces) */
} dg_flux_let_info;

/* boundary NAME { field = exterior value; ... }: exterior[f] for every
 * field f (expressions of .int traces, n, x, t, params).  In a program with
 * second-order terms also grad_exterior[j] for every gradient j: the
 * exterior trace of its lifted gradient (a dim-vector of .int traces,
 * gradient traces grad(T).int, n, x, t, params), from the block's
 * `grad(NAME) = ...` (every boundary gives every gradient's NAME); NULL
 * when the program has no gradients. */
typedef struct dg_flux_boundary_info {
  const char *name;
  dg_flux_loc loc;
  const dg_flux_node *const *exterior;
  const dg_flux_node *const *grad_exterior;
} dg_flux_boundary_info;

/* A gradient of the second-order terms: derivatives nested inside a
 * derivative's argument (`div(nu*grad(u))`, `dx(dx(u))`), and derivatives in
 * lets, numerical fluxes and boundary conditions, are derivatives of a
 * field or let NAME, lifted in a first pass (LDG, FLUX_LANGUAGE.md).  One
 * entry per scalar component: grad(u) of a 3-vector field u is gradients
 * u[0], u[1], u[2]; the GRADQ leaves refer to these indices. */
typedef struct dg_flux_gradient_info {
  const char *name;          /* "T", or "u[1]" for a component */
  int is_let;                /* NAME is a let (else a field) */
  int ref;                   /* its field or let index */
  int comp;                  /* component of NAME (0 for a scalar) */
  const dg_flux_node *arg;   /* the scalar differentiated: of side-NONE fields and params
                                (a FIELD or LET node with comp set) */
  dg_flux_loc loc;           /* its first use */
} dg_flux_gradient_info;

/* Most gradients (scalars whose gradient is lifted) a file may have. */
enum { DG_FLUX_MAX_GRADIENTS = 64 };

/* integral NAME = expr: a scalar of the state (side-NONE fields), x, t,
 * params and lets, integrated over the domain by quadrature
 * (problems/solver/quantities.h). */
typedef struct dg_flux_integral_info {
  const char *name;
  dg_flux_loc loc;
  const dg_flux_node *integrand;
} dg_flux_integral_info;

/* Parse and check text for a mesh of dimension dim (1, 2 or 3; 0 = take it
 * from the file's 'dim' statement).  On a mistake in the text: DG_ERR_INPUT
 * with the formatted errors as the error message (as many as fit); pass
 * `diags` (may be NULL) to receive all of them.  data need not be
 * NUL-terminated and may hold any bytes. */
dg_error dg_flux_parse_buffer(const char *data, size_t size, const char *name, int dim,
                              dg_flux_program **out, dg_flux_diags *diags);
dg_error dg_flux_parse_string(const char *text, const char *name, int dim,
                              dg_flux_program **out);
dg_error dg_flux_parse_file(const char *path, int dim, dg_flux_program **out);
/* The text of the flux file at path (a regular file of at most 4 MiB), as
 * dg_flux_parse_file reads it: *text malloc'd (the caller frees it), *len
 * bytes with a NUL after them. */
dg_error dg_flux_read_file(const char *path, char **text, size_t *len);
void dg_flux_program_destroy(dg_flux_program **prog);

int dg_flux_program_dim(const dg_flux_program *prog);
/* The arena of the program's nodes, for transforms (dg_flux_ast_*). */
dg_flux_arena *dg_flux_program_arena(dg_flux_program *prog);

int dg_flux_field_count(const dg_flux_program *prog);
const dg_flux_field_info *dg_flux_field(const dg_flux_program *prog, int index);
/* Total components of all fields (the length of a node's state). */
int dg_flux_state_size(const dg_flux_program *prog);
/* DG_ERR_INPUT naming the closest field when `name` is not one. */
dg_error dg_flux_field_find(const dg_flux_program *prog, const char *name, int *index);

int dg_flux_param_count(const dg_flux_program *prog);
const dg_flux_param_info *dg_flux_param(const dg_flux_program *prog, int index);
dg_error dg_flux_param_find(const dg_flux_program *prog, const char *name, int *index);
/* Override a param (e.g. from problem.cfg); DG_ERR_INPUT with a suggestion
 * for an unknown name, or for a value that is not finite. */
dg_error dg_flux_set_param(dg_flux_program *prog, const char *name, double value);

/* The coefficients, in declaration order (DG_FLUX_COEF's ref). */
int dg_flux_coef_count(const dg_flux_program *prog);
const dg_flux_coef_info *dg_flux_coef(const dg_flux_program *prog, int index);
/* DG_ERR_INPUT naming the closest coefficient when `name` is not one. */
dg_error dg_flux_coef_find(const dg_flux_program *prog, const char *name, int *index);

int dg_flux_let_count(const dg_flux_program *prog);
const dg_flux_let_info *dg_flux_let(const dg_flux_program *prog, int index);

/* lets_bare[let] = the let reads side-NONE fields, coefficients or lifted
 * gradients (the side of a LET node matters): the `lets_bare` argument of
 * dg_flux_ast_trace and dg_flux_ast_surface for this program's trees. */
const unsigned char *dg_flux_program_lets_bare(const dg_flux_program *prog);

int dg_flux_boundary_count(const dg_flux_program *prog);
const dg_flux_boundary_info *dg_flux_boundary(const dg_flux_program *prog, int index);
dg_error dg_flux_boundary_find(const dg_flux_program *prog, const char *name, int *index);

/* The gradients of the second-order terms, in order of first use (none:
 * a first-order program, whose kernels are those of before them). */
int dg_flux_gradient_count(const dg_flux_program *prog);
const dg_flux_gradient_info *dg_flux_gradient(const dg_flux_program *prog, int index);

/* The LDG switch's magnitude beta (DG_FLUX_LDGB, FLUX_LANGUAGE.md): 0.5 by
 * default; set_ldg_beta takes values in [-0.5, 0.5] (DG_ERR_INPUT else). */
double dg_flux_ldg_beta(const dg_flux_program *prog);
dg_error dg_flux_set_ldg_beta(dg_flux_program *prog, double beta);

/* The integrals, in declaration order. */
int dg_flux_integral_count(const dg_flux_program *prog);
const dg_flux_integral_info *dg_flux_integral(const dg_flux_program *prog, int index);

/* `wave_speed = expr` (FLUX_LANGUAGE.md): the largest signal speed at a
 * volume node, a scalar of the state, coefficients, x, t, params and lets;
 * NULL when the file declares none.  *loc (may be NULL) gets the keyword's
 * place. */
const dg_flux_node *dg_flux_wave_speed(const dg_flux_program *prog, dg_flux_loc *loc);
/* A let named `lam` of the file (a Rusanov-style face speed), for the
 * message when no wave_speed is declared: its index, or -1. */
int dg_flux_rusanov_let(const dg_flux_program *prog);

/* The expression as text in the flux language (fully parenthesised, names
 * from the program's tables), for messages, debugging and tests.  Always
 * NUL-terminates; returns the length it needed. */
size_t dg_flux_print(const dg_flux_program *prog, const dg_flux_node *node, char *buf,
                     size_t size);

#endif
