#include "meshes/builtin.h"

#include <inttypes.h>

static const char *const side_names[6] = {"left", "right", "bottom", "top", "front", "back"};

/* Kuhn split: for each permutation p of the axes, the simplex walking from
 * the lowest cell corner along e_p[0], then e_p[1], ... to the highest.  Its
 * edge vectors are e_p[0], e_p[0]+e_p[1], ..., so its signed volume has the
 * sign of p; odd permutations get their last two vertices swapped. */
typedef struct {
  int axis[3];
  int sign;
} kuhn_path;

static const kuhn_path paths1[1] = {{{0}, 1}};
static const kuhn_path paths2[2] = {{{0, 1}, 1}, {{1, 0}, -1}};
static const kuhn_path paths3[6] = {{{0, 1, 2}, 1},  {{1, 2, 0}, 1},  {{2, 0, 1}, 1},
                                    {{0, 2, 1}, -1}, {{2, 1, 0}, -1}, {{1, 0, 2}, -1}};

/* Vertex id of grid point idx (x fastest). */
static int64_t grid_id(int dim, const int64_t *n, const int64_t *idx) {
  int64_t id = 0;
  for (int a = dim - 1; a >= 0; a--)
    id = id * (n[a] + 1) + idx[a];
  return id;
}

static void grid_index(int dim, const int64_t *n, int64_t id, int64_t *idx) {
  for (int a = 0; a < dim; a++) {
    idx[a] = id % (n[a] + 1);
    id /= n[a] + 1;
  }
}

/* Tag every face whose vertices all lie on one side of the box; the test is
 * on integer grid indices, so no floating-point tolerance is involved. */
static void tag_sides(dg_mesh *m, const int64_t *n, const int side_tag[6]) {
  const int dim = m->dim, nv = dim + 1;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < nv; f++) {
      int fv[DG_MESH_MAX_VERTS];
      dg_mesh_face_vertices(dim, f, fv);
      int64_t idx[DG_MESH_MAX_VERTS][3];
      for (int i = 0; i < dim; i++)
        grid_index(dim, n, m->EToV[k * nv + fv[i]], idx[i]);
      for (int a = 0; a < dim; a++)
        for (int hi = 0; hi < 2; hi++) {
          int on = 1;
          for (int i = 0; i < dim; i++)
            on &= idx[i][a] == (hi ? n[a] : 0);
          if (on)
            m->face_tag[k * nv + f] = side_tag[2 * a + hi];
        }
    }
}

dg_error dg_builtin_mesh(int dim, const double *lo, const double *hi, const int64_t *n,
                         const int *periodic, dg_mesh **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_builtin_mesh: out is NULL");
  *out = NULL;
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_INPUT, "built-in mesh dimension %d must be 1, 2 or 3",
           dim);
  int64_t ncells = 1, nverts = 1;
  for (int a = 0; a < dim; a++) {
    DG_CHECK(n[a] >= 1 && n[a] <= (int64_t)1 << 20, DG_ERR_INPUT,
             "built-in mesh: %" PRId64 " cells along axis %d (must be 1 .. 2^20)", n[a], a);
    DG_CHECK(hi[a] > lo[a], DG_ERR_INPUT,
             "built-in mesh: extent [%g, %g] along axis %d is empty", lo[a], hi[a], a);
    ncells *= n[a];
    nverts *= n[a] + 1;
  }
  const kuhn_path *paths = dim == 1 ? paths1 : dim == 2 ? paths2 : paths3;
  const int npaths = dim == 1 ? 1 : dim == 2 ? 2 : 6, nv = dim + 1;
  DG_CHECK(ncells <= INT64_MAX / 8, DG_ERR_INPUT, "built-in mesh: too many cells");

  dg_mesh *m;
  DG_CALL(dg_mesh_create(dim, nverts, ncells * npaths, &m));
  dg_error err = DG_OK;
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < nverts; v++) {
    int64_t idx[3];
    grid_index(dim, n, v, idx);
    for (int a = 0; a < dim; a++)
      /* The last grid line lands exactly on hi (periodic matching relies on
       * the period hi - lo being exact between the two sides). */
      m->VX[v * dim + a] =
          idx[a] == n[a] ? hi[a] : lo[a] + (hi[a] - lo[a]) * (double)idx[a] / (double)n[a];
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < ncells; c++) {
    int64_t cell[3];
    int64_t rest = c;
    for (int a = 0; a < dim; a++) {
      cell[a] = rest % n[a];
      rest /= n[a];
    }
    for (int p = 0; p < npaths; p++) {
      int64_t *ev = m->EToV + (c * npaths + p) * nv, idx[3];
      for (int a = 0; a < dim; a++)
        idx[a] = cell[a];
      ev[0] = grid_id(dim, n, idx);
      for (int j = 0; j < dim; j++) {
        idx[paths[p].axis[j]]++;
        ev[j + 1] = grid_id(dim, n, idx);
      }
      if (paths[p].sign < 0) {
        int64_t t = ev[nv - 1];
        ev[nv - 1] = ev[nv - 2];
        ev[nv - 2] = t;
      }
    }
  }
  int side_tag[6] = {-1, -1, -1, -1, -1, -1};
  for (int a = 0; a < dim; a++) {
    m->lo[a] = lo[a];
    m->hi[a] = hi[a];
    m->periodic[a] = periodic && periodic[a];
    if (m->periodic[a])
      continue;
    for (int s = 0; s < 2; s++)
      DG_CALL_GOTO(err, fail, dg_mesh_tag_add(m, side_names[2 * a + s], &side_tag[2 * a + s]));
  }
  tag_sides(m, n, side_tag);
  *out = m;
  return DG_OK;
fail:
  dg_mesh_destroy(&m);
  return err;
}

dg_error dg_builtin_interval(double a, double b, int64_t K, int periodic, dg_mesh **out) {
  DG_CALL(dg_builtin_mesh(1, &a, &b, &K, &periodic, out));
  return DG_OK;
}

dg_error dg_builtin_rectangle(double x0, double x1, double y0, double y1, int64_t nx,
                              int64_t ny, const int periodic[2], dg_mesh **out) {
  const double lo[2] = {x0, y0}, hi[2] = {x1, y1};
  const int64_t n[2] = {nx, ny};
  DG_CALL(dg_builtin_mesh(2, lo, hi, n, periodic, out));
  return DG_OK;
}

dg_error dg_builtin_box(const double lo[3], const double hi[3], const int64_t n[3],
                        const int periodic[3], dg_mesh **out) {
  DG_CALL(dg_builtin_mesh(3, lo, hi, n, periodic, out));
  return DG_OK;
}
