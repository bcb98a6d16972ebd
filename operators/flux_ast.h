/* The checked, typed AST of the flux language (see FLUX_LANGUAGE.md).
 *
 * This is what the kernel generator consumes.  Every node has a shape
 * (scalar, vector of length k, or matrix = list of row vectors) and the
 * source location it came from.  No user text survives checking: names are
 * resolved to table indices (field, param, let), built-in functions to
 * dg_flux_fn ids, numbers to their parsed double.  A generator emits code
 * only from these indices and values, so nothing a user types can reach a
 * compiler.
 *
 * Nodes live in an arena owned by the program; subtrees may be shared (the
 * trees are DAGs, e.g. avg(e) and the surface form of div(matrix)), so never
 * mutate a node after it is built. */
#ifndef DG_OPERATORS_FLUX_AST_H
#define DG_OPERATORS_FLUX_AST_H

#include <stddef.h>

#include "core/error.h"

/* Source location: 1-based line and column (columns count Unicode code
 * points, a tab is one column) and the length of the token in columns. */
typedef struct dg_flux_loc {
  int line, col, len;
} dg_flux_loc;

/* Which trace a field (or a let binding of fields) is read from.  NONE is
 * the value at a volume node (rhs, and inside a trace operator before the
 * trace is applied); INT/EXT are the interior/exterior traces on a face. */
typedef enum dg_flux_side {
  DG_FLUX_SIDE_NONE = 0,
  DG_FLUX_SIDE_INT = 1,
  DG_FLUX_SIDE_EXT = 2
} dg_flux_side;

/* rank 0: scalar; rank 1: vector of `rows` components; rank 2: `rows` row
 * vectors of `cols` components each (only as a tensor flux for div, and as
 * a let value).  Flattened component i of a matrix is row i / cols, column
 * i % cols. */
typedef struct dg_flux_shape {
  int rank, rows, cols;
} dg_flux_shape;

/* Largest number of components of any value (vector or matrix). */
enum { DG_FLUX_MAX_COMPONENTS = 64 };

typedef enum dg_flux_op {
  /* leaves */
  DG_FLUX_NUM,    /* value */
  DG_FLUX_PARAM,  /* ref = param index (value from the program, run-time overridable) */
  DG_FLUX_FIELD,  /* ref = field index, comp = component or -1 (whole field), side */
  DG_FLUX_X,      /* position; comp = component or -1 (whole dim-vector) */
  DG_FLUX_T,      /* time */
  DG_FLUX_NORMAL, /* outward unit normal of the face; comp or -1 (whole dim-vector) */
  DG_FLUX_LET,    /* ref = let index, comp or -1, side: the let's body with every
                     side-NONE field read from `side` */
  DG_FLUX_COEF,   /* ref = coefficient index (`coefficients eps mu`), a scalar, side:
                     NONE the value at the volume node (or, inside a let, the let
                     node's side), INT / EXT the face traces (on a boundary face the
                     exterior trace is the interior one) */
  /* unary: args[0] */
  DG_FLUX_NEG, DG_FLUX_NOT,
  /* binary: args[0], args[1] */
  DG_FLUX_ADD, DG_FLUX_SUB, DG_FLUX_MUL, DG_FLUX_DIV, DG_FLUX_POW,
  DG_FLUX_LT, DG_FLUX_LE, DG_FLUX_GT, DG_FLUX_GE, DG_FLUX_EQ, DG_FLUX_NE,
  DG_FLUX_AND, DG_FLUX_OR,
  DG_FLUX_SELECT, /* args[0] ? args[1] : args[2]; args[0] scalar (nonzero = true) */
  DG_FLUX_CALL,   /* ref = dg_flux_fn, args */
  DG_FLUX_VEC,    /* [args...]: scalars -> vector, vectors -> matrix rows */
  DG_FLUX_INDEX,  /* args[0][ref]: component of a vector, row of a matrix */
  DG_FLUX_DERIV,  /* ref = dg_flux_deriv applied to args[0] (pointwise); rhs only */
  /* second-order terms (FLUX_LANGUAGE.md, "Second-order terms"): leaves */
  DG_FLUX_GRADQ,  /* ref = gradient index (dg_flux_gradient: a scalar field component or
                     let), comp = direction d or -1 (the whole dim-vector), side: NONE the
                     lifted gradient Q at the volume node (or, inside a let, the let node's
                     side), INT / EXT its face traces (on a boundary face the exterior is
                     the boundary's `grad(NAME) = ...`) */
  DG_FLUX_LDGB    /* a scalar, faces only: the LDG switch beta_n = ldg_beta * sign(w.n) of
                     the face (w a fixed direction, so beta_n changes sign across an interior
                     face); 0 on boundary faces (FLUX_LANGUAGE.md) */
} dg_flux_op;

/* Built-in functions.  min/max are binary here (the checker folds
 * min(a,b,c) into min(min(a,b),c)); pow(a,b) becomes DG_FLUX_POW. */
typedef enum dg_flux_fn {
  DG_FLUX_FN_SIN, DG_FLUX_FN_COS, DG_FLUX_FN_TAN, DG_FLUX_FN_EXP, DG_FLUX_FN_LOG,
  DG_FLUX_FN_SQRT, DG_FLUX_FN_ABS, DG_FLUX_FN_TANH, DG_FLUX_FN_FLOOR,
  DG_FLUX_FN_MIN, DG_FLUX_FN_MAX, DG_FLUX_FN_ATAN2,
  DG_FLUX_FN_DOT,   /* dot(a, b): vectors of equal length -> scalar */
  DG_FLUX_FN_CROSS, /* cross(a, b): see FLUX_LANGUAGE.md for the 2D rules */
  DG_FLUX_FN_NORM,  /* Euclidean norm of a vector */
  DG_FLUX_FN_COUNT
} dg_flux_fn;

/* The flux language's name of a built-in ("atan2"), "?" for an unknown id. */
const char *dg_flux_fn_name(int fn);

/* Derivative operators (in Cartesian coordinates x[0], x[1], x[2]). */
typedef enum dg_flux_deriv {
  DG_FLUX_D_GRAD, DG_FLUX_D_DIV, DG_FLUX_D_CURL,
  DG_FLUX_D_X, DG_FLUX_D_Y, DG_FLUX_D_Z /* partial d/dx[0], d/dx[1], d/dx[2] */
} dg_flux_deriv;

typedef struct dg_flux_node {
  dg_flux_op op;
  dg_flux_shape shape;
  dg_flux_loc loc;
  int ref;           /* see dg_flux_op */
  int comp;          /* FIELD, X, NORMAL, LET, GRADQ: component, -1 = whole value */
  dg_flux_side side; /* FIELD, LET, COEF, GRADQ */
  double value;      /* NUM */
  int nargs;
  struct dg_flux_node **args;
} dg_flux_node;

/* --- arena: all nodes and names of one program ------------------------- */
typedef struct dg_flux_arena dg_flux_arena;
dg_error dg_flux_arena_create(dg_flux_arena **out);
void dg_flux_arena_destroy(dg_flux_arena **arena);
/* Zeroed memory, or NULL when out of memory. */
void *dg_flux_arena_alloc(dg_flux_arena *arena, size_t size);
/* A NUL-terminated copy of text[0..len), or NULL. */
char *dg_flux_arena_strndup(dg_flux_arena *arena, const char *text, size_t len);

/* --- shapes -------------------------------------------------------------- */
dg_flux_shape dg_flux_shape_scalar(void);
dg_flux_shape dg_flux_shape_vector(int n);
dg_flux_shape dg_flux_shape_matrix(int rows, int cols);
int dg_flux_shape_equal(dg_flux_shape a, dg_flux_shape b);
/* Total number of components (1 for a scalar). */
int dg_flux_shape_size(dg_flux_shape s);
/* "scalar", "3-vector", "2x3 matrix". */
const char *dg_flux_shape_name(dg_flux_shape s, char *buf, size_t size);

/* --- building nodes (NULL when out of memory) --------------------------- */
dg_flux_node *dg_flux_node_new(dg_flux_arena *a, dg_flux_op op, dg_flux_shape shape,
                               dg_flux_loc loc, int nargs);
dg_flux_node *dg_flux_node_num(dg_flux_arena *a, double value, dg_flux_loc loc);
/* Zero of the given shape (a NUM or a VEC of NUMs). */
dg_flux_node *dg_flux_node_zero(dg_flux_arena *a, dg_flux_shape shape, dg_flux_loc loc);
dg_flux_node *dg_flux_node_unary(dg_flux_arena *a, dg_flux_op op, dg_flux_shape shape,
                                 dg_flux_loc loc, dg_flux_node *x);
dg_flux_node *dg_flux_node_binary(dg_flux_arena *a, dg_flux_op op, dg_flux_shape shape,
                                  dg_flux_loc loc, dg_flux_node *x, dg_flux_node *y);
/* A node like n (op, shape, ref, comp, side, value) with room for its
 * nargs arguments, unset. */
dg_flux_node *dg_flux_node_copy(dg_flux_arena *a, const dg_flux_node *n);
dg_flux_node *dg_flux_node_call2(dg_flux_arena *a, dg_flux_fn fn, dg_flux_shape shape,
                                 dg_flux_loc loc, dg_flux_node *x, dg_flux_node *y);

/* Shape of cross(a, b) in dimension dim (see FLUX_LANGUAGE.md); 0 and *out
 * set when legal, else -1. */
int dg_flux_cross_shape(int dim, dg_flux_shape a, dg_flux_shape b, dg_flux_shape *out);

/* --- queries -------------------------------------------------------------- */
int dg_flux_node_is_zero(const dg_flux_node *n); /* a NUM 0 or VEC of zeros */
int dg_flux_node_has_deriv(const dg_flux_node *n);
/* Whether the node reads a field, coefficient or lifted gradient value at
 * side `side` directly (FIELD, COEF, GRADQ) or through a LET node of that
 * side; pass lets_bare[let] = 1 for lets whose bodies read side-NONE
 * fields, coefficients or gradients (NULL: treat LETs as field-free). */
int dg_flux_node_reads_side(const dg_flux_node *n, dg_flux_side side,
                            const unsigned char *lets_bare);
int dg_flux_node_equal(const dg_flux_node *a, const dg_flux_node *b);

/* --- transforms ----------------------------------------------------------- */
/* Copy of n with every side-NONE FIELD, COEF and GRADQ, and every
 * side-NONE LET whose let reads them (lets_bare[let] != 0; NULL: all
 * lets), set to `side`: the trace operator (E.int, and both halves of
 * avg/jump/ldg). */
dg_error dg_flux_ast_trace(dg_flux_arena *a, const dg_flux_node *n, dg_flux_side side,
                           const unsigned char *lets_bare, dg_flux_node **out);

/* The surface form of a checked volume term (rhs): every derivative D(g)
 * replaced by its normal form on the interior trace, factors that read
 * fields or coefficients taken on the interior trace (curl(H)/eps ->
 * cross(n, H.int)/eps.int), pointwise terms dropped (they have no surface
 * contribution in the strong form).  Lifted gradients are traced as fields
 * are: div(F(u, Q)) -> dot(n, F(u.int, Q.int)).
 *   grad(g) -> n*g.int     div(g) -> dot(n, g.int) (row-wise for a matrix)
 *   curl(g) -> cross(n, g.int)      d/dx[j](g) -> n[j]*g.int
 * The DG right-hand side is V(u) + LIFT*Fscale*(flux - surface(u.int))
 * (the strong form of Hesthaven & Warburton 2008, Sec. 2.2, written for
 * du/dt = V(u)).
 * The rhs must be linear in its derivatives with field-free factors (the
 * checker guarantees this). */
dg_error dg_flux_ast_surface(dg_flux_arena *a, const dg_flux_node *rhs, int dim,
                             const unsigned char *lets_bare, dg_flux_node **out);

#endif
