#include "meshes/gmsh_reader.h"

#ifndef DGRUN_HAVE_GMSH

int dg_gmsh_reader_available(void) { return 0; }

dg_error dg_mesh_read_gmsh_order(const char *path, double geo_size, int geo_order,
                                 dg_mesh **out) {
  (void)geo_order;
  DG_CALL(dg_mesh_read_gmsh(path, geo_size, out));
  return DG_OK;
}

dg_error dg_mesh_read_gmsh(const char *path, double geo_size, dg_mesh **out) {
  (void)geo_size;
  if (out)
    *out = NULL;
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot read mesh '%s': dgrun was built without the Gmsh SDK (libgmsh-dev), so "
           ".msh and .geo files cannot be read here; convert the mesh on a machine with "
           "Gmsh (`dgrun import %s mesh.h5 [--parts P]`) and use the .h5 file",
           path ? path : "(null)", path ? path : "mesh.msh");
}

#else

#include <errno.h>
#include <gmshc.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_validate.h"

int dg_gmsh_reader_available(void) { return 1; }

/* Gmsh type ids of the linear simplices (gmsh reference manual, "MSH file
 * format": 15 point, 1 line2, 2 tri3, 4 tet4), by dimension; the Gmsh
 * family names of the simplices, whose type at order k Gmsh gives
 * (gmshModelMeshGetElementType). */
static const int simplex_type[4] = {15, 1, 2, 4};
static const char *const simplex_family[4] = {"Point", "Line", "Triangle", "Tetrahedron"};

/* Relative tolerance for "planar" and "a translation": see mesh_validate.c. */
#define GEOM_RTOL 1e-8

/* A Gmsh element tag and the mesh element it became. */
typedef struct {
  size_t tag;
  int64_t k;
} element_of_tag;

typedef struct {
  const char *path;
  /* Node tags used by the top-dimensional elements, sorted; vertex i of the
   * mesh is node tag tags[i]. */
  size_t *tags;
  int64_t ntags;
  /* The top-dimensional elements' Gmsh tags, sorted (nelems = K). */
  element_of_tag *elems;
  int64_t nelems;
  /* Geometry order of the elements (1: linear simplices). */
  int order;
} reader;

/* Turn a failed Gmsh call (ierr != 0) into a dg_error naming the file and
 * Gmsh's own message. */
static dg_error gmsh_failed(const reader *r, const char *what, int line) {
  char *msg = NULL;
  int e2 = 0;
  gmshLoggerGetLastError(&msg, &e2);
  dg_error err = dg_error_raise(DG_ERR_INPUT, __FILE__, line, __func__,
                                "mesh file '%s': Gmsh failed to %s: %s", r->path, what,
                                !e2 && msg && msg[0] ? msg : "(no message)");
  if (!e2 && msg)
    gmshFree(msg);
  return err;
}

#define GMSH_CHECK(what)                                                                      \
  do {                                                                                        \
    if (ierr) {                                                                               \
      err = gmsh_failed(r, (what), __LINE__);                                                 \
      goto done;                                                                              \
    }                                                                                         \
  } while (0)

static void gfree(void *p) {
  if (p)
    gmshFree(p);
}

static int compare_size_t(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* Mesh vertex of a Gmsh node tag, or -1. */
static int64_t vertex_of(const reader *r, size_t tag) {
  const size_t *p = bsearch(&tag, r->tags, (size_t)r->ntags, sizeof tag, compare_size_t);
  return p ? (int64_t)(p - r->tags) : -1;
}

static int compare_element_of_tag(const void *a, const void *b) {
  size_t x = ((const element_of_tag *)a)->tag, y = ((const element_of_tag *)b)->tag;
  return (x > y) - (x < y);
}

/* Mesh element of a Gmsh element tag, or -1. */
static int64_t element_of(const reader *r, size_t tag) {
  element_of_tag key = {tag, -1};
  const element_of_tag *p =
      bsearch(&key, r->elems, (size_t)r->nelems, sizeof key, compare_element_of_tag);
  return p ? p->k : -1;
}

/* "Triangle 6" for a Gmsh element type. */
static void type_name(int type, char *buf, size_t size) {
  char *name = NULL;
  double *coord = NULL;
  size_t ncoord = 0;
  int dim, order, nnodes, nprimary, ierr = 0;
  gmshModelMeshGetElementProperties(type, &name, &dim, &order, &nnodes, &coord, &ncoord,
                                    &nprimary, &ierr);
  snprintf(buf, size, "%s", !ierr && name ? name : "unknown");
  if (!ierr) {
    gfree(name);
    gfree(coord);
  }
}

/* Gmsh type of the complete (Lagrange, not serendipity) simplex of
 * dimension gdim at the reader's order, and its nodes per element. */
static int facet_type(const reader *r, int gdim, size_t *stride) {
  *stride = gdim == 0 ? 1 : (size_t)dg_mesh_ho_count(gdim, r->order);
  if (r->order == 1 || gdim == 0)
    return simplex_type[gdim];
  int ierr = 0, t = gmshModelMeshGetElementType(simplex_family[gdim], r->order, 0, &ierr);
  return ierr ? -1 : t;
}

/* Solve the n x n system A x = b (n <= 3) by elimination with pivoting. */
static void solve_small(int n, double A[3][3], double *b) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(A[i][c]) > fabs(A[p][c]))
        p = i;
    for (int j = 0; j < n; j++) {
      double t = A[c][j];
      A[c][j] = A[p][j];
      A[p][j] = t;
    }
    double t = b[c];
    b[c] = b[p];
    b[p] = t;
    for (int i = c + 1; i < n; i++) {
      double f = A[i][c] / A[c][c];
      for (int j = c; j < n; j++)
        A[i][j] -= f * A[c][j];
      b[i] -= f * b[c];
    }
  }
  for (int c = n - 1; c >= 0; c--) {
    for (int j = c + 1; j < n; j++)
      b[c] -= A[c][j] * b[j];
    b[c] /= A[c][c];
  }
}

/* If Gmsh type `type` is a complete simplex of dimension dim, its order,
 * and gmsh_node[j]: the Gmsh local node at dgrun's lattice node j
 * (meshes/mesh_curved.h).  The match is by reference coordinates
 * (gmshModelMeshGetElementProperties): each local node's barycentric
 * coordinates in its element's primary nodes, times the order, are the
 * lattice node's integers.  0 when the type is something else. */
static int simplex_order(int dim, int type, int *order, int *gmsh_node) {
  char *name = NULL;
  double *coord = NULL;
  size_t ncoord = 0;
  int edim, k, nnodes, nprimary, ierr = 0, ok = 0;
  gmshModelMeshGetElementProperties(type, &name, &edim, &k, &nnodes, &coord, &ncoord, &nprimary,
                                    &ierr);
  if (ierr)
    return 0;
  int complete = k >= 1 && k <= DG_MESH_MAX_GEOM_ORDER && edim == dim && nprimary == dim + 1 &&
                 nnodes == dg_mesh_ho_count(dim, k) && ncoord == (size_t)(nnodes * dim);
  if (complete) {
    int e2 = 0;
    complete = gmshModelMeshGetElementType(simplex_family[dim], k, 0, &e2) == type && !e2;
  }
  if (complete) {
    for (int j = 0; j < nnodes; j++)
      gmsh_node[j] = -1;
    ok = 1;
    for (int i = 0; i < nnodes && ok; i++) {
      /* u_i - P_0 = sum_a lambda_{a+1} (P_{a+1} - P_0) */
      double A[3][3], lam[4];
      for (int c = 0; c < dim; c++) {
        for (int a = 0; a < dim; a++)
          A[c][a] = coord[(a + 1) * dim + c] - coord[c];
        lam[c + 1] = coord[i * dim + c] - coord[c];
      }
      solve_small(dim, A, lam + 1);
      lam[0] = 1;
      for (int a = 1; a <= dim; a++)
        lam[0] -= lam[a];
      int b[DG_MESH_MAX_VERTS] = {0, 0, 0, 0};
      for (int v = 0; v <= dim; v++) {
        b[v] = (int)lround(lam[v] * k);
        ok = ok && fabs(lam[v] * k - b[v]) < 1e-6;
      }
      int j = ok ? dg_mesh_ho_index(dim, k, b) : -1;
      ok = ok && j >= 0 && gmsh_node[j] < 0;
      if (ok)
        gmsh_node[j] = i;
    }
    *order = k;
  }
  gfree(name);
  gfree(coord);
  return ok;
}

typedef struct {
  size_t tag, at;
} node_at;

static int compare_node_at(const void *a, const void *b) {
  size_t x = ((const node_at *)a)->tag, y = ((const node_at *)b)->tag;
  return (x > y) - (x < y);
}

/* The high-order nodes of every element (en: nho Gmsh node tags per
 * element, in Gmsh's local order) into m->XH in dgrun's lattice order. */
static dg_error read_ho_nodes(const reader *r, dg_mesh *m, const size_t *en,
                              const int *gmsh_node, const size_t *node_tags, size_t nnode,
                              const double *coord) {
  const int dim = m->dim, nho = dg_mesh_ho_count(dim, r->order);
  DG_CALL(dg_mesh_ho_set_order(m, r->order));
  node_at *idx = malloc((nnode + 1) * sizeof *idx);
  DG_CHECK(idx != NULL, DG_ERR_MEMORY, "mesh '%s': out of memory", r->path);
  for (size_t i = 0; i < nnode; i++)
    idx[i] = (node_at){node_tags[i], i};
  qsort(idx, nnode, sizeof *idx, compare_node_at);
  for (int64_t e = 0; e < m->K; e++)
    for (int j = 0; j < nho; j++) {
      node_at key = {en[e * nho + gmsh_node[j]], 0};
      const node_at *p = bsearch(&key, idx, nnode, sizeof key, compare_node_at);
      if (!p) {
        free(idx);
        DG_RAISE(DG_ERR_INPUT,
                 "mesh file '%s': an element refers to node %zu, which the file does not "
                 "define",
                 r->path, key.tag);
      }
      for (int c = 0; c < dim; c++)
        m->XH[(e * nho + j) * dim + c] = coord[3 * p->at + c];
    }
  free(idx);
  return DG_OK;
}

/* The vertex coordinates (m->VX) from Gmsh's node list, in the vertex
 * numbering of r->tags; a 2D mesh must lie in z = 0, a 1D one on the x axis. */
static dg_error read_vertices(const reader *r, dg_mesh *m, const size_t *node_tags,
                              size_t nnode, const double *coord) {
  dg_error err = DG_OK;
  const int dim = m->dim;
  const int64_t Nv = r->ntags;
  int64_t *vsort = malloc((size_t)Nv * sizeof *vsort);
  DG_CHECK_GOTO(err, done, vsort != NULL, DG_ERR_MEMORY, "mesh '%s': out of memory", r->path);
  for (int64_t v = 0; v < Nv; v++)
    vsort[v] = -1;
  double extent = 0;
  for (size_t i = 0; i < nnode; i++) {
    int64_t v = vertex_of(r, node_tags[i]);
    if (v < 0)
      continue;
    vsort[v] = (int64_t)i;
    for (int a = 0; a < 3; a++)
      extent = fmax(extent, fabs(coord[3 * i + a]));
  }
  for (int64_t v = 0; v < Nv; v++) {
    DG_CHECK_GOTO(err, done, vsort[v] >= 0, DG_ERR_INPUT,
                  "mesh file '%s': an element refers to node %zu, which the file does not "
                  "define",
                  r->path, r->tags[v]);
    const double *x = coord + 3 * vsort[v];
    for (int a = 0; a < 3; a++) {
      if (a < dim) {
        m->VX[v * dim + a] = x[a];
        continue;
      }
      /* A 2D mesh is read in the xy plane, a 1D mesh on the x axis. */
      DG_CHECK_GOTO(err, done, fabs(x[a]) <= GEOM_RTOL * extent, DG_ERR_INPUT,
                    "mesh file '%s': node %zu of the %dD mesh is at (%g, %g, %g); a %dD mesh "
                    "must lie %s",
                    r->path, r->tags[v], dim, x[0], x[1], x[2], dim,
                    dim == 2 ? "in the plane z = 0" : "on the x axis");
    }
  }
done:
  free(vsort);
  return err;
}

/* The elements of the top dimension: check their types, collect and number
 * their nodes, build the mesh with coordinates and EToV. */
static dg_error read_elements(reader *r, int dim, dg_mesh **out) {
  dg_error err = DG_OK;
  int ierr = 0, *types = NULL;
  size_t ntypes = 0, **etags = NULL, *etags_n = NULL, etags_nn = 0, **ntags = NULL,
         *ntags_n = NULL, ntags_nn = 0;
  size_t *node_tags = NULL, nnode = 0, ncoord = 0, npar = 0;
  double *coord = NULL, *par = NULL;
  dg_mesh *m = NULL;

  gmshModelMeshGetElements(&types, &ntypes, &etags, &etags_n, &etags_nn, &ntags, &ntags_n,
                           &ntags_nn, dim, -1, &ierr);
  GMSH_CHECK("list the elements");
  size_t it = ntypes;
  int gmsh_node[84]; /* dg_mesh_ho_count(3, DG_MESH_MAX_GEOM_ORDER) */
  for (size_t t = 0; t < ntypes; t++) {
    int order = 0;
    if (simplex_order(dim, types[t], &order, gmsh_node) && it == ntypes) {
      it = t;
      r->order = order;
      continue;
    }
    char got[64], want[64];
    type_name(types[t], got, sizeof got);
    type_name(simplex_type[dim], want, sizeof want);
    DG_CHECK_GOTO(err, done, 0, DG_ERR_INPUT,
                  "mesh file '%s': %zu elements of type '%s' (Gmsh type %d) in its %dD "
                  "mesh; dgrun reads only simplices ('%s' in %dD, or complete high-order "
                  "ones of orders up to %d, all of one order): remesh with "
                  "triangles/tetrahedra of one Mesh.ElementOrder",
                  r->path, etags_n[t], got, types[t], dim, want, dim, DG_MESH_MAX_GEOM_ORDER);
  }
  DG_CHECK_GOTO(err, done, it < ntypes && etags_n[it] > 0, DG_ERR_INPUT,
                "mesh file '%s' holds no %dD elements (a .msh file written by Gmsh holds only "
                "the elements of physical groups when there are any: add a Physical %s, or "
                "save with Mesh.SaveAll = 1)",
                r->path, dim, dim == 3 ? "Volume" : dim == 2 ? "Surface" : "Curve");
  const int nv = dim + 1, nho = dg_mesh_ho_count(dim, r->order);
  const int64_t K = (int64_t)etags_n[it];
  const size_t *en = ntags[it];
  DG_CHECK_GOTO(err, done, ntags_n[it] == (size_t)K * (size_t)nho, DG_ERR_INPUT,
                "mesh file '%s': %" PRId64 " elements but %zu element node tags", r->path, K,
                ntags_n[it]);

  /* The nodes used by the elements, in increasing tag order. */
  /* (The vertices: the primary nodes, first in each element's list.) */
  r->tags = malloc((size_t)K * nv * sizeof *r->tags);
  DG_CHECK_GOTO(err, done, r->tags != NULL, DG_ERR_MEMORY, "mesh '%s': out of memory", r->path);
  for (int64_t e = 0; e < K; e++)
    memcpy(r->tags + e * nv, en + e * nho, (size_t)nv * sizeof *r->tags);
  qsort(r->tags, (size_t)K * nv, sizeof *r->tags, compare_size_t);
  int64_t Nv = 0;
  for (int64_t i = 0; i < K * nv; i++)
    if (i == 0 || r->tags[i] != r->tags[Nv - 1])
      r->tags[Nv++] = r->tags[i];
  r->ntags = Nv;

  DG_CALL_GOTO(err, done, dg_mesh_create(dim, Nv, K, &m));
  for (int64_t i = 0; i < K * nv; i++)
    m->EToV[i] = vertex_of(r, en[i / nv * nho + i % nv]);
  /* Element tags, for the regions (read_regions). */
  r->elems = malloc((size_t)K * sizeof *r->elems);
  DG_CHECK_GOTO(err, done, r->elems != NULL, DG_ERR_MEMORY, "mesh '%s': out of memory", r->path);
  for (int64_t k = 0; k < K; k++)
    r->elems[k] = (element_of_tag){etags[it][k], k};
  qsort(r->elems, (size_t)K, sizeof *r->elems, compare_element_of_tag);
  r->nelems = K;

  gmshModelMeshGetNodes(&node_tags, &nnode, &coord, &ncoord, &par, &npar, -1, -1, 0, 0, &ierr);
  GMSH_CHECK("read the nodes");
  DG_CHECK_GOTO(err, done, ncoord == 3 * nnode, DG_ERR_INPUT,
                "mesh file '%s': %zu nodes but %zu coordinates", r->path, nnode, ncoord);
  DG_CALL_GOTO(err, done, read_vertices(r, m, node_tags, nnode, coord));
  if (r->order > 1)
    DG_CALL_GOTO(err, done, read_ho_nodes(r, m, en, gmsh_node, node_tags, nnode, coord));
  *out = m;
  m = NULL;
done:
  dg_mesh_destroy(&m);
  gfree(types);
  for (size_t t = 0; t < etags_nn; t++)
    gfree(etags[t]);
  for (size_t t = 0; t < ntags_nn; t++)
    gfree(ntags[t]);
  gfree(etags);
  gfree(etags_n);
  gfree(ntags);
  gfree(ntags_n);
  gfree(node_tags);
  gfree(coord);
  gfree(par);
  return err;
}

/* Face key of a (dim-1)-element given by Gmsh node tags; 0 if one of its
 * nodes is not a mesh vertex. */
static int facet_key(const reader *r, int dim, const size_t *nodes, int64_t key[3]) {
  int64_t v[3] = {0, 0, 0};
  for (int i = 0; i < dim; i++)
    if ((v[i] = vertex_of(r, nodes[i])) < 0)
      return 0;
  dg_mesh_validate_face_key(v, dim, key);
  return 1;
}

static const char *physical_kind(int gdim) {
  return gdim == 3 ? "Physical Volume"
         : gdim == 2 ? "Physical Surface"
         : gdim == 1 ? "Physical Curve"
                     : "Physical Point";
}

/* The n elements of one entity of a physical group: Gmsh element tags and
 * their nodes (stride per element; the primary ones first). */
typedef dg_error (*group_visit)(reader *r, void *ctx, const char *name, const size_t *etags,
                                size_t n, const size_t *nodes, size_t stride);

/* Name physical group `group` of dimension gdim (named(); an unnamed group
 * is an error saying that dgrun uses the names of `kind` groups as `use`),
 * and visit the linear simplices of each of its entities. */
static dg_error visit_group(reader *r, int gdim, int group, const char *kind, const char *use,
                            const char *example, dg_error (*named)(reader *, void *, const char *),
                            group_visit visit, void *ctx) {
  dg_error err = DG_OK;
  int ierr = 0, *ents = NULL;
  size_t nents = 0, *etags = NULL, netags = 0, *nodes = NULL, nnodes = 0;
  char *name = NULL;

  gmshModelGetPhysicalName(gdim, group, &name, &ierr);
  GMSH_CHECK("read a physical group name");
  DG_CHECK_GOTO(err, done, name && name[0], DG_ERR_INPUT,
                "mesh file '%s': physical group %d (dimension %d) has no name; dgrun uses "
                "the names of %s groups as %s: name it (%s(\"%s\") = {...}; in the .geo, or "
                "a $PhysicalNames entry)",
                r->path, group, gdim, kind, use, physical_kind(gdim), example);
  DG_CALL_GOTO(err, done, named(r, ctx, name));
  gmshModelGetEntitiesForPhysicalGroup(gdim, group, &ents, &nents, &ierr);
  GMSH_CHECK("read a physical group");
  for (size_t e = 0; e < nents; e++) {
    gfree(etags);
    gfree(nodes);
    etags = nodes = NULL;
    size_t stride;
    int type = facet_type(r, gdim, &stride);
    gmshModelMeshGetElementsByType(type, &etags, &netags, &nodes, &nnodes, ents[e], 0, 1, &ierr);
    GMSH_CHECK("read the elements of a physical group");
    DG_CALL_GOTO(err, done, visit(r, ctx, name, etags, netags, nodes, stride));
  }
done:
  gfree(name);
  gfree(ents);
  gfree(etags);
  gfree(nodes);
  return err;
}

/* Tagging the faces of one boundary group. */
typedef struct {
  dg_mesh *m;
  const dg_mesh_face_key *faces;
  int64_t nfaces;
  int id, ninterior;
} tag_ctx;

static dg_error tag_named(reader *r, void *ctx, const char *name) {
  (void)r;
  tag_ctx *c = ctx;
  if (dg_mesh_tag_find(c->m, name, &c->id) != DG_OK) {
    dg_error_clear();
    DG_CALL(dg_mesh_tag_add(c->m, name, &c->id));
  }
  return DG_OK;
}

static dg_error tag_faces(reader *r, void *ctx, const char *name, const size_t *etags, size_t n,
                          const size_t *nodes, size_t stride) {
  tag_ctx *c = ctx;
  dg_mesh *m = c->m;
  const int nf = m->dim + 1;
  for (size_t i = 0; i < n; i++) {
    int64_t key[3];
    int64_t at = facet_key(r, m->dim, nodes + i * stride, key)
                     ? dg_mesh_validate_face_find(c->faces, c->nfaces, key)
                     : -1;
    DG_CHECK(at >= 0, DG_ERR_INPUT,
             "mesh file '%s': element %zu of physical group '%s' is not a face of any %dD "
             "element",
             r->path, etags[i], name, m->dim);
    if (at + 1 < c->nfaces && memcmp(c->faces[at + 1].v, key, sizeof key) == 0) {
      c->ninterior++; /* an interior face: not a boundary, no tag */
      continue;
    }
    int *tag = &m->face_tag[c->faces[at].k * nf + c->faces[at].f];
    DG_CHECK(*tag < 0 || *tag == c->id, DG_ERR_INPUT,
             "mesh file '%s': a face of element %" PRId64 " is in both physical groups '%s' "
             "and '%s'; a boundary face has one tag",
             r->path, c->faces[at].k, m->tag_names[*tag], name);
    *tag = c->id;
  }
  return DG_OK;
}

static dg_error read_tags(reader *r, dg_mesh *m, const dg_mesh_face_key *faces,
                          int64_t nfaces) {
  dg_error err = DG_OK;
  int ierr = 0, *groups = NULL;
  size_t ngroups = 0;
  tag_ctx c = {m, faces, nfaces, -1, 0};
  gmshModelGetPhysicalGroups(&groups, &ngroups, m->dim - 1, &ierr);
  GMSH_CHECK("list the physical groups");
  for (size_t g = 0; g < ngroups / 2; g++)
    DG_CALL_GOTO(err, done, visit_group(r, m->dim - 1, groups[2 * g + 1], "boundary",
                                        "boundary tags", "inflow", tag_named, tag_faces, &c));
  if (c.ninterior)
    dg_warn("mesh file '%s': %d faces of boundary physical groups are interior faces and "
            "get no tag",
            r->path, c.ninterior);
done:
  gfree(groups);
  return err;
}

/* The elements of one named physical group of the mesh's dimension become
 * region `name` (groups of one name are one region). */
typedef struct {
  dg_mesh *m;
  int id;
} region_ctx;

static dg_error region_named(reader *r, void *ctx, const char *name) {
  (void)r;
  region_ctx *c = ctx;
  if (dg_mesh_region_find(c->m, name, &c->id) != DG_OK) {
    dg_error_clear();
    DG_CALL(dg_mesh_region_add(c->m, name, &c->id));
  }
  return DG_OK;
}

static dg_error region_elements(reader *r, void *ctx, const char *name, const size_t *etags,
                                size_t n, const size_t *nodes, size_t stride) {
  (void)nodes;
  (void)stride;
  region_ctx *c = ctx;
  dg_mesh *m = c->m;
  for (size_t i = 0; i < n; i++) {
    int64_t k = element_of(r, etags[i]);
    DG_CHECK(k >= 0, DG_ERR_INPUT,
             "mesh file '%s': element %zu of physical group '%s' is not one of the mesh's %dD "
             "elements",
             r->path, etags[i], name, m->dim);
    DG_CHECK(m->region[k] < 0 || m->region[k] == c->id, DG_ERR_INPUT,
             "mesh file '%s': element %zu (Gmsh tag; dgrun element %" PRId64
             ") is in both physical groups '%s' and '%s'; an element belongs to one region: "
             "remove it from one of them",
             r->path, etags[i], k, m->region_names[m->region[k]], name);
    m->region[k] = c->id;
  }
  return DG_OK;
}

/* Regions from the physical groups of the mesh's dimension; elements in
 * none get -1, and a mesh without such groups has no regions. */
static dg_error read_regions(reader *r, dg_mesh *m) {
  dg_error err = DG_OK;
  int ierr = 0, *groups = NULL;
  size_t ngroups = 0;
  region_ctx c = {m, -1};
  char kind[8];
  snprintf(kind, sizeof kind, "%dD", m->dim);
  gmshModelGetPhysicalGroups(&groups, &ngroups, m->dim, &ierr);
  GMSH_CHECK("list the physical groups");
  for (size_t g = 0; g < ngroups / 2; g++)
    DG_CALL_GOTO(err, done, visit_group(r, m->dim, groups[2 * g + 1], kind, "element regions",
                                        "glass", region_named, region_elements, &c));
done:
  gfree(groups);
  return err;
}

/* (slave vertex, master vertex) of one periodic entity, sorted by slave. */
typedef struct {
  int64_t s, m;
} vpair;

static int compare_vpair(const void *a, const void *b) {
  int64_t x = ((const vpair *)a)->s, y = ((const vpair *)b)->s;
  return (x > y) - (x < y);
}

/* Pair the boundary faces of one periodic (slave) entity with their images
 * on its master. */
static dg_error pair_entity(reader *r, dg_mesh *m, const dg_mesh_face_key *faces,
                            int64_t nfaces, int ent, double extent) {
  dg_error err = DG_OK;
  int ierr = 0, master = ent;
  size_t *snodes = NULL, ns = 0, *mnodes = NULL, nm = 0, naff = 0;
  double *aff = NULL;
  vpair *map = NULL;
  const int fdim = m->dim - 1, dim = m->dim, nf = dim + 1;

  gmshModelMeshGetPeriodicNodes(fdim, ent, &master, &snodes, &ns, &mnodes, &nm, &aff, &naff, 0,
                                &ierr);
  GMSH_CHECK("read periodic nodes");
  if (master == ent || ns == 0)
    goto done;
  DG_CHECK_GOTO(err, done, ns == nm, DG_ERR_INPUT,
                "mesh file '%s': periodic entity %d has %zu nodes but %zu master nodes", r->path,
                ent, ns, nm);
  map = malloc(ns * sizeof *map);
  DG_CHECK_GOTO(err, done, map != NULL, DG_ERR_MEMORY, "periodic map: out of memory");
  size_t n = 0;
  double shift[3] = {0, 0, 0};
  for (size_t i = 0; i < ns; i++) {
    int64_t s = vertex_of(r, snodes[i]), t = vertex_of(r, mnodes[i]);
    if (s < 0 || t < 0)
      continue; /* a node of no element (e.g. a geometry point) */
    /* Slave-to-master translation: the same for every node pair, else the
     * periodicity is a rotation, which DG faces here cannot follow. */
    double d[3] = {0, 0, 0}, dev = 0;
    for (int a = 0; a < dim; a++) {
      d[a] = m->VX[t * dim + a] - m->VX[s * dim + a];
      if (n == 0)
        shift[a] = d[a];
      dev = fmax(dev, fabs(d[a] - shift[a]));
    }
    DG_CHECK_GOTO(err, done, dev <= GEOM_RTOL * extent, DG_ERR_INPUT,
                  "mesh file '%s': periodic entity %d (master %d) is not a translation (node "
                  "%zu moves by (%g, %g, %g), node %zu by (%g, %g, %g)); dgrun supports only "
                  "translational periodicity",
                  r->path, ent, master, snodes[i], d[0], d[1], d[2], snodes[0], shift[0],
                  shift[1], shift[2]);
    map[n].s = s;
    map[n].m = t;
    n++;
  }
  qsort(map, n, sizeof *map, compare_vpair);
  /* Each boundary face with all vertices on this slave entity. */
  for (int64_t i = 0; i < nfaces; i++) {
    int single = (i == 0 || memcmp(faces[i - 1].v, faces[i].v, sizeof faces[i].v) != 0) &&
                 (i + 1 == nfaces || memcmp(faces[i + 1].v, faces[i].v, sizeof faces[i].v) != 0);
    if (!single)
      continue;
    int64_t img[3] = {0, 0, 0};
    int all = 1;
    for (int j = 0; j < dim && all; j++) {
      vpair key = {faces[i].v[j], 0};
      const vpair *p = bsearch(&key, map, n, sizeof *map, compare_vpair);
      all = p != NULL;
      if (p)
        img[j] = p->m;
    }
    if (!all)
      continue;
    int64_t key[3];
    dg_mesh_validate_face_key(img, dim, key);
    int64_t at = dg_mesh_validate_face_find(faces, nfaces, key);
    DG_CHECK_GOTO(err, done, at >= 0, DG_ERR_INPUT,
                  "mesh file '%s': face %d of element %" PRId64 " on periodic entity %d has no "
                  "counterpart on its master entity %d (the two sides' meshes do not match)",
                  r->path, faces[i].f, faces[i].k, ent, master);
    DG_CALL_GOTO(err, done,
                 dg_mesh_face_pair_add(m, faces[i].k, faces[i].f, faces[at].k, faces[at].f, shift));
    m->face_tag[faces[i].k * nf + faces[i].f] = -1;
    m->face_tag[faces[at].k * nf + faces[at].f] = -1;
  }
done:
  free(map);
  gfree(snodes);
  gfree(mnodes);
  gfree(aff);
  return err;
}

static dg_error read_periodic(reader *r, dg_mesh *m, const dg_mesh_face_key *faces,
                              int64_t nfaces) {
  dg_error err = DG_OK;
  int ierr = 0, *ents = NULL;
  size_t nents = 0;
  double extent = 0;
  for (int64_t i = 0; i < m->Nv * m->dim; i++)
    extent = fmax(extent, fabs(m->VX[i]));
  gmshModelGetEntities(&ents, &nents, m->dim - 1, &ierr);
  GMSH_CHECK("list the entities");
  for (size_t e = 0; e < nents / 2; e++)
    DG_CALL_GOTO(err, done, pair_entity(r, m, faces, nfaces, ents[2 * e + 1], extent));
done:
  gfree(ents);
  return err;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Gmsh sizes its arrays from the counts a .msh file declares before it
 * reads the entries, so a damaged or hostile count makes it allocate (and
 * touch) absurd amounts of memory.  In an ASCII .msh every declared node,
 * element or entity block takes at least two bytes of the file, and tags
 * are dense enough that their range stays within 64 per byte: larger
 * counts are refused here, before Gmsh sees the file. */
static dg_error check_msh_counts(const char *path, FILE *f) {
  if (fseek(f, 0, SEEK_END) != 0)
    return DG_OK;
  double size = (double)ftell(f);
  rewind(f);
  char line[512];
  int binary = 0, in_counts = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "$MeshFormat", 11) == 0 && fgets(line, sizeof line, f)) {
      double version;
      sscanf(line, "%lf %d", &version, &binary);
      if (binary)
        return DG_OK; /* binary counts are not text; Gmsh checks those */
      continue;
    }
    if (strncmp(line, "$Nodes", 6) == 0 || strncmp(line, "$Elements", 9) == 0) {
      in_counts = 1;
      continue;
    }
    if (!in_counts)
      continue;
    in_counts = 0;
    double c[4] = {0, 0, 0, 0};
    int n = sscanf(line, "%lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3]);
    int ok = 1;
    for (int i = 0; i < n && i < 2; i++)
      ok = ok && c[i] >= 0 && 2 * c[i] <= size + 2;
    if (n == 4)
      ok = ok && c[3] - c[2] <= 64 * size;
    DG_CHECK(ok, DG_ERR_INPUT,
             "mesh file '%s' is corrupt: it declares %.0f entries (tags up to %.0f) in %.0f "
             "bytes",
             path, n > 1 ? c[1] : c[0], n == 4 ? c[3] : c[0], size);
  }
  return DG_OK;
}

dg_error dg_mesh_read_gmsh(const char *path, double geo_size, dg_mesh **out) {
  DG_CALL(dg_mesh_read_gmsh_order(path, geo_size, 1, out));
  return DG_OK;
}

dg_error dg_mesh_read_gmsh_order(const char *path, double geo_size, int geo_order,
                                 dg_mesh **out) {
  DG_CHECK(path && out, DG_ERR_ARG, "dg_mesh_read_gmsh: NULL argument");
  *out = NULL;
  DG_CHECK(geo_order >= 1 && geo_order <= DG_MESH_MAX_GEOM_ORDER, DG_ERR_INPUT,
           "mesh '%s': geometry order %d must be 1 to %d", path, geo_order,
           DG_MESH_MAX_GEOM_ORDER);
  FILE *f; /* a FIFO or device is refused here: Gmsh would block on it or read forever */
  DG_CALL(dg_fsutil_fopen_input(path, "mesh file", &f));
  dg_error cerr = ends_with(path, ".msh") ? check_msh_counts(path, f) : DG_OK;
  fclose(f);
  DG_CALL(cerr);

  reader rd = {path, NULL, 0, NULL, 0, 1}, *r = &rd;
  dg_error err = DG_OK;
  int ierr = 0;
  dg_mesh *m = NULL;
  dg_mesh_face_key *faces = NULL;
  int64_t nfaces = 0;

  gmshInitialize(0, NULL, 0, &ierr);
  DG_CHECK(!ierr, DG_ERR_INTERNAL, "mesh file '%s': the Gmsh library failed to initialize",
           path);
  /* Quiet (dgrun reports errors itself) and one thread: the same input gives
   * the same mesh. */
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  GMSH_CHECK("set General.Terminal");
  gmshOptionSetNumber("General.NumThreads", 1, &ierr);
  GMSH_CHECK("set General.NumThreads");
  gmshOpen(path, &ierr);
  GMSH_CHECK("read it");
  int dim = gmshModelGetDimension(&ierr);
  GMSH_CHECK("get the model dimension");
  DG_CHECK_GOTO(err, done, dim >= 1 && dim <= 3, DG_ERR_INPUT,
                "mesh file '%s' holds no curves, surfaces or volumes (model dimension %d)", path,
                dim);
  if (ends_with(path, ".geo")) {
    if (geo_size > 0) {
      gmshOptionSetNumber("Mesh.MeshSizeMax", geo_size, &ierr);
      GMSH_CHECK("set the mesh size");
    }
    if (geo_order > 1) {
      /* Gmsh places the high-order nodes on the curved entities and, with
       * HighOrderOptimize = 2 (elastic analogy then optimisation), untangles
       * the elements that curving the boundary inverted. */
      gmshOptionSetNumber("Mesh.ElementOrder", geo_order, &ierr);
      GMSH_CHECK("set the element order");
      gmshOptionSetNumber("Mesh.HighOrderOptimize", dim > 1 ? 2 : 0, &ierr);
      GMSH_CHECK("set the high-order optimisation");
    }
    gmshModelMeshGenerate(dim, &ierr);
    GMSH_CHECK("mesh the geometry");
  }
  DG_CALL_GOTO(err, done, read_elements(r, dim, &m));
  DG_CALL_GOTO(err, done, read_regions(r, m));
  DG_CALL_GOTO(err, done, dg_mesh_validate_face_table(m, &faces, &nfaces));
  DG_CALL_GOTO(err, done, read_tags(r, m, faces, nfaces));
  DG_CALL_GOTO(err, done, read_periodic(r, m, faces, nfaces));
  dg_info("mesh '%s': %dD, %" PRId64 " elements, %" PRId64 " vertices, %d boundary tags, %" PRId64
          " periodic face pairs, %d regions, geometry order %d",
          path, dim, m->K, m->Nv, m->ntags, m->nface_pairs, m->nregions, m->geom_order);
  *out = m;
  m = NULL;
done:
  free(faces);
  free(r->tags);
  free(r->elems);
  dg_mesh_destroy(&m);
  gmshFinalize(&ierr);
  return err;
}

#endif
