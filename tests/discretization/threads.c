/* dg.setup_threads_bitwise: the built-in mesh and its orientation
 * (meshes/builtin, meshes/mesh), the discretization (dg/discretization,
 * dg/connectivity), the operator data (dg/opdata) and the per-face geometry
 * (dg/face_geometry) are built by OpenMP loops over elements; each element
 * writes only its own entries, so every array must be bitwise the same
 * with 1 thread and with 2, 3 or 4.  Meshes: 1D, 2D and 3D, randomly
 * distorted, with periodic and tagged boundary sides together. */
#include "tests/discretization/disc_test.h"

#include "dg/face_geometry.h"
#include "dg/opdata.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAXBUF 64

/* Every array of one set-up, as (name, pointer, bytes). */
typedef struct {
  int n;
  const char *name[MAXBUF];
  const void *p[MAXBUF];
  size_t bytes[MAXBUF];
} arrays;

static void add(arrays *a, const char *name, const void *p, size_t bytes) {
  a->name[a->n] = name;
  a->p[a->n] = p;
  a->bytes[a->n++] = bytes;
}

typedef struct {
  dg_discretization *d;
  dg_opdata *o;
  void *pf;
  size_t pf_bytes;
  arrays a;
} setup;

static void set_threads(int n);

static void build(dg_mesh *m, int N, int nthreads, setup *s) {
  set_threads(nthreads);
  memset(s, 0, sizeof *s);
  MUST(dg_discretization_create(m, N, DG_DOUBLE, &s->d));
  const dg_discretization *d = s->d;
  int tag_to_bc[16];
  for (int t = 0; t < 16; t++)
    tag_to_bc[t] = t;
  MUST(dg_opdata_create(d, d->Np + 3, 1, 5, tag_to_bc, &s->o));
  MUST(dg_face_geometry_per_face(s->o, &s->pf, &s->pf_bytes));
  const size_t nv = (size_t)(d->K * d->Np), nf = (size_t)(d->K * d->Nfaces * d->Nfp);
  const size_t nk = (size_t)d->K * (size_t)d->Nfaces;
  static const char *xn[3] = {"x", "y", "z"}, *nn[3] = {"nx", "ny", "nz"};
  static const char *gn[3][3] = {{"rx", "ry", "rz"}, {"sx", "sy", "sz"}, {"tx", "ty", "tz"}};
  arrays *a = &s->a;
  for (int c = 0; c < d->dim; c++) {
    add(a, xn[c], d->X[c], nv * 8);
    add(a, nn[c], d->n[c], nf * 8);
    for (int b = 0; b < d->dim; b++)
      add(a, gn[c][b], d->G[c][b], nv * 8);
  }
  add(a, "J", d->J, nv * 8);
  add(a, "sJ", d->sJ, nf * 8);
  add(a, "Fscale", d->Fscale, nf * 8);
  add(a, "h", d->h, (size_t)d->K * 8);
  add(a, "h_min", &d->h_min, 8);
  add(a, "volume", &d->volume, 8);
  add(a, "EToE", d->EToE, nk * 8);
  add(a, "EToF", d->EToF, nk * sizeof(int));
  add(a, "face_shift", d->face_shift, nk * 3 * 8);
  add(a, "vmapM", d->vmapM, nf * 8);
  add(a, "vmapP", d->vmapP, nf * 8);
  add(a, "mapP", d->mapP, nf * 8);
  add(a, "mapB", d->mapB, (size_t)d->nmapB * 8);
  add(a, "vmapB", d->vmapB, (size_t)d->nmapB * 8);
  add(a, "tag_offset", d->tag_offset, (size_t)(d->ntags + 1) * 8);
  add(a, "tag_map", d->tag_map, (size_t)d->nmapB * 8);
  const dg_opdata *o = s->o;
  const size_t K = (size_t)o->K, rs = o->real_size, nfn = K * (size_t)o->nfnfp;
  add(a, "egeo", o->egeo, K * (size_t)o->ngeo * rs);
  add(a, "fgeo", o->fgeo, nfn * (size_t)(o->dim + 1) * rs);
  add(a, "fx", o->fx, nfn * (size_t)o->dim * rs);
  add(a, "vx", o->vx, (size_t)o->dim * K * (size_t)o->np_pad * rs);
  add(a, "mapM (opdata)", o->mapM, nfn * 4);
  add(a, "mapP (opdata)", o->mapP, nfn * 4);
  add(a, "fbc", o->fbc, K * (size_t)o->Nfaces * 4);
  add(a, "Jk", o->Jk, K * 8);
  add(a, "per-face geometry", s->pf, s->pf_bytes);
}

static void release(setup *s) {
  free(s->pf);
  dg_opdata_destroy(&s->o);
  dg_discretization_destroy(&s->d);
}

static void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/* The mesh as built and oriented with n threads, every third element
 * inverted before orientation (so that it flips them back). */
static dg_mesh *oriented_mesh(const mesh_case *c, int n, int64_t *nflipped) {
  set_threads(n);
  dg_mesh *m = NULL;
  MUST(dg_builtin_mesh(c->dim, c->lo, c->hi, c->n, c->periodic, &m));
  const int nv = c->dim + 1;
  for (int64_t k = 0; k < m->K; k += 3) {
    int64_t t = m->EToV[k * nv + nv - 1];
    m->EToV[k * nv + nv - 1] = m->EToV[k * nv + nv - 2];
    m->EToV[k * nv + nv - 2] = t;
  }
  MUST(dg_mesh_orient(m, nflipped));
  return m;
}

static void check_mesh(const mesh_case *c, const char *name) {
  int64_t f1 = 0;
  dg_mesh *one = oriented_mesh(c, 1, &f1);
  EXPECT(f1 == (one->K + 2) / 3, "%s: %lld of %lld elements flipped back", name, (long long)f1,
         (long long)one->K);
  for (int t = 2; t <= 4; t++) {
    int64_t ft = 0;
    dg_mesh *many = oriented_mesh(c, t, &ft);
    const size_t nv = (size_t)(c->dim + 1), K = (size_t)one->K;
    EXPECT(ft == f1 && many->K == one->K && many->Nv == one->Nv &&
               memcmp(one->VX, many->VX, (size_t)one->Nv * (size_t)c->dim * 8) == 0 &&
               memcmp(one->EToV, many->EToV, K * nv * 8) == 0 &&
               memcmp(one->face_tag, many->face_tag, K * nv * sizeof(int)) == 0,
           "%s: the oriented mesh differs between 1 and %d threads", name, t);
    dg_mesh_destroy(&many);
  }
  dg_mesh_destroy(&one);
}

static void check(const mesh_case *c, int N) {
  char name[160];
  test_case_label(c, N, "distorted", name, sizeof name);
  check_mesh(c, name);
  set_threads(1);
  dg_mesh *m = test_make_mesh(c, 0.1);
  setup one, many;
  build(m, N, 1, &one);
  EXPECT(one.d->nmapB > 0, "%s: the case needs boundary faces", name);
  for (int t = 2; t <= 4; t++) {
    build(m, N, t, &many);
    EXPECT(many.a.n == one.a.n, "%s: %d arrays with %d threads, %d with 1", name, many.a.n, t,
           one.a.n);
    for (int i = 0; i < one.a.n && i < many.a.n; i++)
      EXPECT(one.a.bytes[i] == many.a.bytes[i] &&
                 memcmp(one.a.p[i], many.a.p[i], one.a.bytes[i]) == 0,
             "%s: %s differs between 1 and %d threads", name, one.a.name[i], t);
    release(&many);
  }
  release(&one);
  dg_mesh_destroy(&m);
}

int main(void) {
#ifndef _OPENMP
  printf("built without OpenMP: nothing to compare\n");
  return 77;
#endif
  rng_seed();
  /* Large enough that every thread gets many elements and several
   * geometric-factor stretches (16384 elements) are crossed in 3D. */
  mesh_case cases[3];
  memset(cases, 0, sizeof cases);
  const double lo[3] = {-1.0, 0.5, 2.0}, hi[3] = {2.0, 1.25, 2.5};
  const int64_t n[3][3] = {{301}, {40, 31}, {17, 15, 14}};
  const int per[3][3] = {{0}, {0, 1}, {1, 0, 0}};
  for (int i = 0; i < 3; i++) {
    cases[i].dim = i + 1;
    for (int a = 0; a <= i; a++) {
      cases[i].lo[a] = lo[a];
      cases[i].hi[a] = hi[a];
      cases[i].n[a] = n[i][a];
      cases[i].periodic[a] = per[i][a];
    }
  }
  check(&cases[0], 5);
  check(&cases[1], 4);
  check(&cases[2], 3);
  return expect_finish();
}
