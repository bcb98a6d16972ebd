#include "problems/driver/poisson_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/device.h"
#include "core/krylov.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/mmio.h"
#include "core/sparse.h"
#include "dg/connectivity.h"
#include "dg/sipg.h"
#include "meshes/partition.h"
#include "meshes/submesh.h"
#include "operators/flux_eval.h"
#include "problems/driver/parallel_options.h"
#include "problems/solver/parallel.h"
#include "problems/driver/problem.h"
#include "problems/io/snapshot.h"

/* Where the value of [sec] key was written: "file:line:col", or
 * "<command line>" for an override (core/config.h); needs a char loc[600]. */
#define AT(cfg, sec, key) dg_config_where((cfg), (sec), (key), loc, sizeof loc)

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int dg_poisson_is_kind(const char *cfg_path, const char *const *overrides, int noverrides) {
  dg_config *cfg = NULL;
  int kind = 0;
  dg_error err = dg_config_read_file(cfg_path, &cfg);
  for (int i = 0; i < noverrides && err == DG_OK; i++)
    err = dg_config_apply_override(cfg, overrides[i]);
  /* the kind's default and choices are the schema's; a cfg that does not
   * validate is left to the loader, whose message names the problem */
  size_t nschema;
  const dg_config_key *schema = dg_problem_schema(&nschema);
  if (err == DG_OK)
    err = dg_config_validate(cfg, schema, nschema);
  if (err == DG_OK)
    err = dg_config_get_enum(cfg, "problem", "kind", &kind);
  dg_config_destroy(&cfg);
  if (err != DG_OK) {
    dg_error_clear();
    return 0;
  }
  return kind == 1;
}

/* Expression callbacks for dg/sipg: the flux file's source, boundary
 * values and exact solution, evaluated by the host evaluator. */
typedef struct expr_ctx {
  const dg_problem *p;
} expr_ctx;

static dg_error eval_source(void *ctx, const double *x, double *out) {
  const expr_ctx *e = ctx;
  return dg_flux_eval_source(e->p->program, 0, x, 0.0, out);
}

static dg_error eval_exact(void *ctx, const double *x, double *out) {
  const expr_ctx *e = ctx;
  return dg_flux_eval_exact(e->p->program, 0, x, 0.0, out);
}

static dg_error eval_boundary(void *ctx, int tag, const double *x, const double *n,
                              double *out) {
  const expr_ctx *e = ctx;
  const dg_flux_boundary_info *b = dg_flux_boundary(e->p->program, e->p->tag_to_bc[tag]);
  dg_flux_point pt;
  memset(&pt, 0, sizeof pt);
  pt.x = x;
  pt.n = n;
  dg_error err = dg_flux_eval(e->p->program, b->exterior[0], &pt, out, 1);
  DG_CHECK(err == DG_OK, DG_ERR_INPUT,
           "boundary '%s': a Poisson boundary value may use x, n and params only (%s)",
           b->name, dg_error_message());
  return DG_OK;
}

/* [poisson] neumann: per mesh tag, Dirichlet or Neumann. */
static dg_error boundary_kinds(const dg_problem *p, dg_sipg_bc **out) {
  const char *list = NULL;
  DG_CALL(dg_config_get_string(p->cfg, "poisson", "neumann", &list));
  int nb = dg_flux_boundary_count(p->program);
  int *neumann = calloc((size_t)nb + 1, sizeof(int));
  DG_CHECK(neumann, DG_ERR_MEMORY, "out of memory");
  char loc[600];
  const char *c = list;
  while (*c) {
    c += strspn(c, " \t,");
    size_t len = strcspn(c, " \t,");
    if (len == 0)
      break;
    char name[128];
    if (len >= sizeof name) {
      free(neumann);
      DG_RAISE(DG_ERR_INPUT, "%s: [poisson] neumann: a name is too long",
               AT(p->cfg, "poisson", "neumann"));
    }
    memcpy(name, c, len);
    name[len] = '\0';
    int bc;
    if (dg_flux_boundary_find(p->program, name, &bc) != DG_OK) {
      free(neumann);
      DG_RAISE(DG_ERR_INPUT, "%s: [poisson] neumann = '%s': %s",
               AT(p->cfg, "poisson", "neumann"), list, dg_error_message());
    }
    neumann[bc] = 1;
    c += len;
  }
  dg_sipg_bc *kind = calloc((size_t)p->mesh->ntags + 1, sizeof *kind);
  if (!kind) {
    free(neumann);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int t = 0; t < p->mesh->ntags; t++)
    kind[t] = neumann[p->tag_to_bc[t]] ? DG_SIPG_NEUMANN : DG_SIPG_DIRICHLET;
  free(neumann);
  *out = kind;
  return DG_OK;
}

/* Everything one solve holds, freed by state_free. */
typedef struct pstate {
  dg_problem *prob;
  dg_discretization *disc;
  dg_partition *part;
  dg_sipg_bc *tag_kind;
  int64_t *row_of;          /* global element -> global block row */
  int64_t *gE;
  int *gF;
  double *gS;                /* the whole mesh's face connectivity */
  int64_t nsel, nown;
  int64_t *sel;              /* local element -> global element (owned first) */
  int64_t *own;              /* 0 .. nown-1 */
  int64_t *row_sub;          /* local element -> global block row */
  dg_mesh *sub;              /* owned elements + face neighbours */
  dg_csr *A;
  double *b, *x, *u_all, *coords;
  dg_device *dev;
  dg_sparse_dist *D;
  dg_krylov *krylov;
  dg_array *db, *dx;
  dg_snapshot_writer *writer;
} pstate;

static void state_free(pstate *s) {
  dg_snapshot_writer_destroy(&s->writer);
  dg_array_destroy(&s->db);
  dg_array_destroy(&s->dx);
  dg_krylov_destroy(&s->krylov);
  dg_sparse_dist_destroy(&s->D);
  dg_device_destroy(&s->dev);
  dg_sparse_csr_destroy(&s->A);
  free(s->b);
  free(s->x);
  free(s->u_all);
  free(s->row_of);
  free(s->tag_kind);
  free(s->gE);
  free(s->gF);
  free(s->gS);
  free(s->sel);
  free(s->own);
  free(s->row_sub);
  free(s->coords);
  dg_partition_destroy(&s->part);
  dg_discretization_destroy(&s->disc);
  dg_mesh_destroy(&s->sub);
  dg_problem_destroy(&s->prob);
}

/* The owned values of every rank (nf x nown x Np, logical order) into
 * global (nf x K x Np, global element order) on rank 0. */
static dg_error gather(dg_comm *comm, const pstate *s, int nf, int Np, const double *local,
                       double *global) {
  int size = dg_comm_size(comm);
  int64_t *counts = malloc(sizeof(int64_t) * (size_t)size);
  DG_CHECK(counts, DG_ERR_MEMORY, "out of memory");
  for (int r = 0; r < size; r++)
    counts[r] = s->part->offsets[r + 1] - s->part->offsets[r];
  dg_error err = dg_parallel_gather_ids(comm, counts, s->part->elements, s->prob->mesh->K, nf,
                                        Np, local, global);
  free(counts);
  DG_CALL(err);
  return DG_OK;
}

/* [poisson] matrix_file: the assembled matrix for other tools (spbench).
 * Its path (NULL: none) is checked before the assembly: one rank, and a
 * regular file or a new name (dg_fsutil_check_output); the snapshot names
 * of the output directory likewise. */
static dg_error output_paths(dg_comm *comm, const dg_problem *p, const char **matrix) {
  const dg_config *cfg = p->cfg;
  const char *path = NULL;
  char loc[600];
  *matrix = NULL;
  if (p->output_enabled && dg_comm_rank(comm) == 0) {
    DG_CALL(dg_fsutil_check_outputs(p->output_dir, p->name, ".h5"));
    DG_CALL(dg_fsutil_check_outputs(p->output_dir, p->name, ".xdmf"));
    DG_CALL(dg_fsutil_check_outputs(p->output_dir, p->name, ".hdf"));
    DG_CALL(dg_fsutil_check_outputs(p->output_dir, p->name, ".hdf.series"));
  }
  DG_CALL(dg_config_get_string(cfg, "poisson", "matrix_file", &path));
  if (!path[0])
    return DG_OK;
  DG_CHECK(dg_comm_size(comm) == 1, DG_ERR_INPUT,
           "%s: [poisson] matrix_file needs a run on one rank (this one has %d)",
           AT(cfg, "poisson", "matrix_file"), dg_comm_size(comm));
  DG_CALL(dg_config_get_path(cfg, "poisson", "matrix_file", &path));
  DG_CALL(dg_fsutil_check_output(path, "[poisson] matrix_file"));
  *matrix = path;
  return DG_OK;
}

static dg_error write_matrix(const char *path, const dg_csr *A) {
  if (!path)
    return DG_OK;
  DG_CALL(dg_mmio_write(path, A, 1));
  dg_info("wrote the %lld x %lld matrix (%lld nonzeros) to %s", (long long)A->nrows,
          (long long)A->ncols, (long long)A->nnz, path);
  return DG_OK;
}

/* This rank's elements (global ids, increasing) followed by their face
 * neighbours on other ranks (increasing): the elements of the local
 * discretization. */
static dg_error local_elements(pstate *s, int rank, const int64_t *EToE) {
  const dg_mesh *m = s->prob->mesh;
  int nf = m->dim + 1;
  int64_t first = s->part->offsets[rank], nown = s->part->offsets[rank + 1] - first;
  unsigned char *mark = calloc((size_t)m->K, 1);
  DG_CHECK(mark, DG_ERR_MEMORY, "out of memory");
  for (int64_t e = 0; e < nown; e++)
    mark[s->part->elements[first + e]] = 1;
  int64_t nhalo = 0;
  for (int64_t e = 0; e < nown; e++)
    for (int f = 0; f < nf; f++) {
      int64_t k2 = EToE[s->part->elements[first + e] * nf + f];
      if (!mark[k2]) {
        mark[k2] = 2;
        nhalo++;
      }
    }
  s->sel = malloc(sizeof(int64_t) * (size_t)(nown + nhalo));
  s->own = malloc(sizeof(int64_t) * (size_t)nown + 1);
  s->row_sub = malloc(sizeof(int64_t) * (size_t)(nown + nhalo));
  if (!s->sel || !s->own || !s->row_sub) {
    free(mark);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  memcpy(s->sel, s->part->elements + first, sizeof(int64_t) * (size_t)nown);
  int64_t n = nown;
  for (int64_t k = 0; k < m->K; k++)
    if (mark[k] == 2)
      s->sel[n++] = k;
  free(mark);
  s->nsel = n;
  s->nown = nown;
  for (int64_t e = 0; e < nown; e++)
    s->own[e] = e;
  for (int64_t i = 0; i < n; i++)
    s->row_sub[i] = s->row_of[s->sel[i]];
  return DG_OK;
}

static dg_error setup(dg_comm *comm, const dg_run_options *opt, pstate *s) {
  int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  DG_CALL(dg_problem_load(opt->cfg_path, opt->overrides, opt->noverrides, &s->prob));
  dg_problem *p = s->prob;
  char loc[600];
  DG_CHECK(p->kind == 1, DG_ERR_INPUT, "%s: not a Poisson problem ([problem] kind = poisson)",
           AT(p->cfg, "problem", "kind"));
  const dg_flux_field_info *fi = dg_flux_field(p->program, 0);
  DG_CHECK(dg_flux_field_count(p->program) == 1 && fi->ncomp == 1, DG_ERR_INPUT,
           "%s: a Poisson problem has one scalar field (the flux file declares %d fields, "
           "the first with %d components)",
           dg_config_name(p->cfg), dg_flux_field_count(p->program), fi->ncomp);
  DG_CALL(boundary_kinds(p, &s->tag_kind));
  const dg_mesh *m = p->mesh;
  DG_CHECK(size <= m->K, DG_ERR_INPUT, "%d ranks for %lld elements: use at most one "
           "rank per element", size, (long long)m->K);
  /* Face connectivity of the whole mesh (cheap: no nodes), for the
   * partition and the halo layer. */
  int64_t nfaces = m->K * (m->dim + 1);
  s->gE = malloc(sizeof(int64_t) * (size_t)nfaces);
  s->gF = malloc(sizeof(int) * (size_t)nfaces);
  s->gS = malloc(sizeof(double) * 3 * (size_t)nfaces);
  DG_CHECK(s->gE && s->gF && s->gS, DG_ERR_MEMORY, "out of memory for %lld faces",
           (long long)nfaces);
  DG_CALL(dg_connectivity_build(m, s->gE, s->gF, s->gS));
  DG_CALL(dg_partition_create(m, s->gE, s->gF, size, NULL, &s->part));
  /* Rows: rank r's elements, consecutively in rank order. */
  s->row_of = malloc(sizeof(int64_t) * (size_t)m->K);
  DG_CHECK(s->row_of, DG_ERR_MEMORY, "out of memory");
  for (int r = 0; r < size; r++)
    for (int64_t e = s->part->offsets[r]; e < s->part->offsets[r + 1]; e++)
      s->row_of[s->part->elements[e]] = e;
  DG_CALL(local_elements(s, rank, s->gE));
  /* The discretization of the local elements and their neighbours only. */
  DG_CALL(dg_mesh_submesh(m, s->gE, s->gF, s->gS, s->nsel, s->sel, "(halo)", &s->sub));
  DG_CALL(dg_discretization_create(s->sub, p->order, p->precision, &s->disc));
  /* (curved elements: their own quadrature in dg/sipg_curved.h; the halo
   * sub-mesh carries their high-order nodes) */
  DG_CALL(dg_parallel_device_for_problem(comm, p, &s->dev)); /* one rank per GPU, as dgrun runs */
  return DG_OK;
}

/* [poisson] penalty: the SIPG options. */
static dg_error sipg_options(const dg_config *cfg, const pstate *s, dg_sipg_options *so) {
  *so = dg_sipg_defaults();
  so->tag_kind = s->tag_kind;
  DG_CALL(dg_config_get_double(cfg, "poisson", "penalty", &so->penalty));
  char loc[600];
  DG_CHECK(so->penalty > 0, DG_ERR_INPUT, "%s: [poisson] penalty = %g must be positive",
           AT(cfg, "poisson", "penalty"), so->penalty);
  return DG_OK;
}

/* [poisson] preconditioner, format, tolerances, iterations: the Krylov
 * solver's options (blocks of Np: one element) and the matrix format. */
static dg_error krylov_options(const dg_config *cfg, int Np, dg_krylov_options *ko,
                               dg_sparse_format *format) {
  *ko = dg_krylov_defaults();
  int pc = 2, fmt = 0;
  int64_t maxit = 10000, logev = 0;
  DG_CALL(dg_config_get_enum(cfg, "poisson", "preconditioner", &pc));
  DG_CALL(dg_config_get_enum(cfg, "poisson", "format", &fmt));
  DG_CALL(dg_config_get_double(cfg, "poisson", "rtol", &ko->rtol));
  DG_CALL(dg_config_get_double(cfg, "poisson", "atol", &ko->atol));
  DG_CALL(dg_config_get_int(cfg, "poisson", "max_iterations", &maxit));
  DG_CALL(dg_config_get_int(cfg, "poisson", "log_every", &logev));
  char loc[600];
  /* (named where the negative one, else rtol, was written: atol defaults to 0) */
  DG_CHECK(ko->rtol >= 0 && ko->atol >= 0 && ko->rtol + ko->atol > 0, DG_ERR_INPUT,
           "%s: [poisson] rtol = %g, atol = %g: not negative, and not both zero",
           AT(cfg, "poisson", ko->rtol >= 0 && ko->atol < 0 ? "atol" : "rtol"), ko->rtol,
           ko->atol);
  DG_CHECK(maxit >= 1 && maxit <= 1000000000, DG_ERR_INPUT,
           "%s: [poisson] max_iterations = %lld must be in 1..1e9",
           AT(cfg, "poisson", "max_iterations"), (long long)maxit);
  ko->max_iterations = (int)maxit;
  ko->log_every = (int)(logev > 0 && logev < 1000000000 ? logev : 0);
  ko->pc = (dg_krylov_pc)pc;
  ko->block = Np;
  *format = fmt == 0 ? DG_SPARSE_AUTO : (dg_sparse_format)(fmt - 1); /* order of the enum */
  return DG_OK;
}

/* The owned rows of the SIPG matrix and the right-hand side. */
static dg_error assemble(dg_comm *comm, pstate *s, const dg_sipg_options *so, expr_ctx *ec,
                         const char *matrix_path, dg_poisson_result *res) {
  dg_discretization *d = s->disc;
  int64_t nown = s->nown;
  int Np = d->Np;
  double t0 = now_seconds();
  dg_sipg_data data = {ec, eval_source, eval_boundary};
  s->b = calloc((size_t)(nown * Np) + 1, sizeof(double));
  s->x = calloc((size_t)(nown * Np) + 1, sizeof(double));
  dg_error err = s->b && s->x ? DG_OK : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__,
                                                       __func__, "out of memory");
  if (err == DG_OK)
    err = dg_sipg_assemble(d, so, nown, s->own, s->row_sub, s->prob->mesh->K, &s->A);
  if (err == DG_OK)
    err = dg_sipg_rhs(d, so, nown, s->own, &data, s->b);
  DG_CALL(dg_comm_agree(comm, err));
  res->assemble_seconds = now_seconds() - t0;
  DG_CALL(write_matrix(matrix_path, s->A));
  return DG_OK;
}

/* The distributed matrix, the Krylov solver and the device vectors (x = 0);
 * the sizes into res, and the run's line. */
static dg_error create_solver(dg_comm *comm, const dg_run_options *opt, pstate *s,
                              const dg_krylov_options *ko, dg_sparse_format format,
                              dg_poisson_result *res) {
  const dg_problem *p = s->prob;
  const dg_discretization *d = s->disc;
  int rank = dg_comm_rank(comm), Np = d->Np;
  int64_t nown = s->nown, K = p->mesh->K;
  dg_dtype dt = p->precision;
  int64_t row_start = s->part->offsets[rank] * Np;
  DG_CALL(dg_sparse_dist_create(comm, s->dev, s->A, row_start, format, Np, dt, &s->D));
  DG_CALL(dg_krylov_create(s->D, s->A, ko, &s->krylov));
  dg_error err = dg_array_create(s->dev, dt, nown * Np, &s->db);
  if (err == DG_OK)
    err = dg_array_create(s->dev, dt, nown * Np, &s->dx);
  if (err == DG_OK)
    err = dg_array_upload_double(s->db, s->b);
  if (err == DG_OK)
    err = dg_array_fill(s->dx, 0.0);
  DG_CALL(dg_comm_agree(comm, err));
  double nnz = (double)s->A->nnz;
  DG_CALL(dg_comm_allreduce_sum(comm, &nnz, 1));
  res->nnz = (int64_t)nnz;
  res->dofs = K * Np;
  res->nranks = dg_comm_size(comm);
  res->format = dg_sparse_format_name(dg_sparse_get_format(dg_sparse_dist_local(s->D)));
  if (!opt->quiet && rank == 0)
    dg_info("%s: Poisson %dD, order %d, %lld elements, %lld DOFs, %lld nonzeros, %d rank%s, "
            "%s, pc %s", p->name, d->dim, d->N, (long long)K, (long long)res->dofs,
            (long long)res->nnz, res->nranks, res->nranks > 1 ? "s" : "", res->format,
            dg_krylov_pc_name(ko->pc));
  return DG_OK;
}

/* Preconditioned CG to the tolerance; the solution into s->x.  A matrix
 * found not positive definite is blamed on the penalty, with the remedy. */
static dg_error run_cg(const dg_run_options *opt, int rank, pstate *s, double penalty,
                       dg_poisson_result *res) {
  double t0 = now_seconds();
  dg_krylov_result kr;
  memset(&kr, 0, sizeof kr);
  dg_error err = dg_krylov_solve(s->krylov, s->db, s->dx, &kr);
  res->iterations = kr.iterations;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", dg_error_message()); /* the raise below reuses its buffer */
  if (err == DG_ERR_NUMERIC && strstr(msg, "positive definite"))
    DG_RAISE(err, "%s\n  SIPG is positive definite only when the penalty is large enough for "
             "the mesh: raise [poisson] penalty (now %g; 1 has a margin of about 1.6 on the "
             "built-in meshes, distorted elements may need more)", msg, penalty);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  res->solve_seconds = now_seconds() - t0;
  DG_CALL(dg_array_download_double(s->dx, s->x));
  if (!opt->quiet && rank == 0)
    dg_info("CG converged in %d iterations (%d restarts): ||r|| = %.3e <= %.3e, %.3f s "
            "(%.4f ms per iteration, set-up and kernel compilation included)",
            kr.iterations, kr.restarts, kr.residual, kr.target, res->solve_seconds,
            1e3 * res->solve_seconds / (kr.iterations > 0 ? kr.iterations : 1));
  return DG_OK;
}

/* Error norms vs the exact solution, when the flux file has one. */
static dg_error error_norms(dg_comm *comm, const pstate *s, expr_ctx *ec,
                            dg_poisson_result *res) {
  res->have_exact = dg_flux_field(s->prob->program, 0)->exact != NULL;
  if (!res->have_exact)
    return DG_OK;
  double e[2] = {0, 0};
  dg_error err = dg_sipg_error(s->disc, s->nown, s->own, s->x, eval_exact, ec, &e[0], &e[1]);
  DG_CALL(dg_comm_agree(comm, err));
  DG_CALL(dg_comm_allreduce_sum(comm, &e[0], 1));
  DG_CALL(dg_comm_allreduce_max(comm, &e[1], 1));
  res->l2 = sqrt(e[0]);
  res->maxerr = e[1];
  return DG_OK;
}

/* The whole solution in global element order (output, tests), and the
 * node coordinates for the snapshot: gathered on rank 0, which writes
 * the snapshot (serial); the owned elements come first in d. */
static dg_error gather_and_write(dg_comm *comm, const dg_run_options *opt, pstate *s,
                                 const dg_poisson_result *res) {
  const dg_problem *p = s->prob;
  const dg_discretization *d = s->disc;
  int rank = dg_comm_rank(comm), Np = d->Np;
  int64_t K = p->mesh->K, n = K * Np;
  int gather_x = p->output_enabled;
  if (rank == 0) {
    s->u_all = malloc(sizeof(double) * (size_t)n);
    s->coords = gather_x ? malloc(sizeof(double) * (size_t)n * d->dim) : NULL;
  }
  DG_CHECK(dg_comm_agree(comm, rank > 0 || (s->u_all && (s->coords || !gather_x))
                                   ? DG_OK
                                   : DG_ERR_MEMORY) == DG_OK,
           DG_ERR_MEMORY, "out of memory for the gathered solution (%lld values)", (long long)n);
  DG_CALL(gather(comm, s, 1, Np, s->x, s->u_all));
  for (int c = 0; c < d->dim && gather_x; c++)
    DG_CALL(gather(comm, s, 1, Np, d->X[c], s->coords ? s->coords + c * n : NULL));

  if (p->output_enabled && rank == 0) {
    dg_snapshot_mesh sm = {d->dim, d->N, d->Np, K, s->coords,
                           d->dim > 1 ? s->coords + n : NULL,
                           d->dim > 2 ? s->coords + 2 * n : NULL};
    DG_CALL(dg_snapshot_writer_create(p->output_dir, p->name, &sm, &s->writer));
    /* (gathered to rank 0: the VTKHDF "rank" array reads 0) */
    DG_CALL(dg_snapshot_writer_set_formats(s->writer, p->output_formats, NULL));
    dg_snapshot_field f = {dg_flux_field(p->program, 0)->name, 1, 8, {s->u_all, NULL, NULL}};
    dg_snapshot_norm nm = {f.name, res->l2, res->maxerr};
    DG_CALL(dg_snapshot_writer_write(s->writer, 0.0, 0, &f, 1, &nm, res->have_exact ? 1 : 0));
    if (!opt->quiet)
      dg_info("wrote %s", dg_snapshot_writer_last_path(s->writer));
  }
  return DG_OK;
}

static dg_error solve(dg_comm *comm, const dg_run_options *opt, pstate *s,
                      dg_poisson_result *res) {
  dg_error err = setup(comm, opt, s);
  DG_CALL(dg_comm_agree(comm, err));
  const dg_config *cfg = s->prob->cfg;
  dg_sipg_options so;
  DG_CALL(sipg_options(cfg, s, &so));
  const char *matrix_path;
  DG_CALL(dg_comm_agree(comm, output_paths(comm, s->prob, &matrix_path)));
  dg_krylov_options ko;
  dg_sparse_format format = DG_SPARSE_AUTO;
  DG_CALL(krylov_options(cfg, s->disc->Np, &ko, &format));
  expr_ctx ec = {s->prob};
  DG_CALL(assemble(comm, s, &so, &ec, matrix_path, res));
  DG_CALL(create_solver(comm, opt, s, &ko, format, res));
  DG_CALL(run_cg(opt, dg_comm_rank(comm), s, so.penalty, res));
  DG_CALL(error_norms(comm, s, &ec, res));
  DG_CALL(gather_and_write(comm, opt, s, res));
  return DG_OK;
}

dg_error dg_poisson_solve(dg_comm *comm, const dg_run_options *opt, dg_poisson_result *res,
                          double **u_global) {
  pstate s;
  memset(&s, 0, sizeof s);
  dg_poisson_result r;
  memset(&r, 0, sizeof r);
  dg_error err = solve(comm, opt, &s, &r);
  if (err == DG_OK && r.have_exact && !opt->quiet && dg_comm_rank(comm) == 0)
    dg_info("%s: L2 error %.6e  max error %.6e", dg_flux_field(s.prob->program, 0)->name, r.l2,
            r.maxerr);
  if (err == DG_OK && u_global) {
    *u_global = s.u_all;
    s.u_all = NULL;
  }
  state_free(&s);
  if (res)
    *res = r;
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_poisson_run(const dg_run_options *opt, dg_poisson_result *res) {
  dg_comm *world = NULL;
  DG_CALL(dg_comm_create_world(&world));
  dg_error err = dg_poisson_solve(world, opt, res, NULL);
  if (err != DG_OK && dg_comm_size(world) > 1) {
    dg_error_print(stderr);
    dg_comm_abort(world, 1);
  }
  dg_comm_destroy(&world);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
