/* The HDF5 mesh format: bitwise round trips (built-in meshes with random
 * coordinates, Gmsh meshes with tags and periodic pairs, partitions), the
 * import path (.msh -> .h5 gives what reading the .msh and numbering its
 * elements along the Hilbert curve gives), per-rank reads
 * equal to partitioning in memory, and damaged files rejected: truncated,
 * bytes flipped anywhere (never a silently different mesh), not HDF5.
 * argv[1]: meshes/ directory; argv[2]: roundtrip | import | corrupt. */
#include <dirent.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "meshes/builtin.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_h5.h"
#include "meshes/mesh_order.h"
#include "meshes/mesh_validate.h"
#include "meshtest.h"

static void check_equal(const dg_mesh *a, const dg_mesh *b, const char *label) {
  char why[256];
  CHECK(mt_mesh_equal(a, b, why, sizeof why), "%s: %s", label, why);
}

static int partition_equal(const dg_partition *p, const dg_partition *q) {
  return p->nparts == q->nparts && p->K == q->K && p->edge_cut == q->edge_cut &&
         !memcmp(p->part, q->part, (size_t)p->K * sizeof *p->part) &&
         !memcmp(p->offsets, q->offsets, (size_t)(p->nparts + 1) * sizeof *p->offsets) &&
         !memcmp(p->elements, q->elements, (size_t)p->K * sizeof *p->elements) &&
         !memcmp(p->local, q->local, (size_t)p->K * sizeof *p->local);
}

static void check_local_equal(const dg_partition_local *a, const dg_partition_local *b, int r) {
  char label[64];
  snprintf(label, sizeof label, "part %d", r);
  check_equal(a->mesh, b->mesh, label);
  CHECK(!memcmp(a->global_element, b->global_element, (size_t)a->mesh->K * sizeof(int64_t)),
        "%s: global elements", label);
  CHECK(!memcmp(a->global_vertex, b->global_vertex, (size_t)a->mesh->Nv * sizeof(int64_t)),
        "%s: global vertices", label);
  CHECK(a->nhalo == b->nhalo && a->nneighbors == b->nneighbors, "%s: halo sizes", label);
  for (int64_t i = 0; i < a->nhalo; i++) {
    const dg_partition_halo_face *x = &a->halo[i], *y = &b->halo[i];
    CHECK(x->k == y->k && x->f == y->f && x->rank == y->rank && x->remote_k == y->remote_k &&
              x->remote_f == y->remote_f && x->global_k == y->global_k &&
              !memcmp(x->shift, y->shift, sizeof x->shift),
          "%s: halo face %ld differs", label, (long)i);
  }
}

/* Write, read back, compare bitwise; with P > 1 also the partition and every
 * rank's part against dg_partition_extract. */
static void roundtrip(const dg_mesh *m, int P, const char *label) {
  char *path = strdup(mt_path("rt.h5"));
  dg_partition *p = NULL, *q = NULL;
  if (P > 1)
    MUST(dg_partition_create(m, NULL, NULL, P, NULL, &p));
  MUST(dg_mesh_h5_write(path, m, p, NULL, NULL));
  dg_mesh *back;
  MUST(dg_mesh_h5_read(path, &back, &q));
  check_equal(m, back, label);
  int np;
  MUST(dg_mesh_h5_nparts(path, &np));
  CHECK(np == (P > 1 ? P : 0), "%s: nparts %d", label, np);
  if (P > 1) {
    CHECK(q && partition_equal(p, q), "%s: partition differs", label);
    for (int r = 0; r < P; r++) {
      dg_partition_local *a, *b;
      MUST(dg_partition_extract(m, NULL, NULL, p, r, &a));
      MUST(dg_mesh_h5_read_part(path, r, &b));
      check_local_equal(a, b, r);
      dg_partition_local_destroy(&a);
      dg_partition_local_destroy(&b);
    }
    dg_partition_local *none = NULL;
    EXPECT_ERROR(dg_mesh_h5_read_part(path, P, &none), DG_ERR_INPUT, "has", "parts", path);
  } else {
    CHECK(q == NULL, "%s: a partition appeared", label);
    dg_partition_local *none = NULL;
    EXPECT_ERROR(dg_mesh_h5_read_part(path, 0, &none), DG_ERR_INPUT, "not partitioned", path);
  }
  printf("%s (%d parts): round trip bitwise: ok\n", label, P);
  dg_mesh_destroy(&back);
  dg_partition_destroy(&p);
  dg_partition_destroy(&q);
  free(path);
}

static unsigned seed_rng(void) {
  unsigned s = (unsigned)time(NULL) ^ (unsigned)getpid() * 2654435761u;
  printf("seed %u\n", s);
  srand(s);
  return s;
}

static int only_file_in_dir(const char *dir, const char *name) {
  DIR *d = opendir(dir);
  int n = 0, ok = 1;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    n++;
    ok &= !strcmp(e->d_name, name);
  }
  closedir(d);
  return ok && n == 1;
}

int main(int argc, char **argv) {
  if (!dg_mesh_h5_available()) {
    printf("skipped: built without HDF5\n");
    return 77;
  }
  CHECK(argc == 3, "usage: %s MESHES_DIR roundtrip|import|corrupt", argv[0]);
  const char *dir = argv[1], *what = argv[2];
  int gmsh = dg_gmsh_reader_available();
  seed_rng();
  if (!strcmp(what, "roundtrip")) {
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 2};
    const int64_t n[3] = {3, 4, 2};
    const int per[3] = {1, 0, 1};
    for (int dim = 1; dim <= 3; dim++) {
      dg_mesh *m;
      MUST(dg_builtin_mesh(dim, lo, hi, n, per, &m));
      /* Fresh random coordinates: any double must come back bitwise. */
      for (int64_t i = 0; i < m->Nv * dim; i++)
        m->VX[i] += 1e-3 * ((double)rand() / RAND_MAX - 0.5);
      char label[64];
      snprintf(label, sizeof label, "builtin %dD", dim);
      roundtrip(m, 1, label);
      roundtrip(m, 3, label);
      dg_mesh_destroy(&m);
    }
    if (gmsh) {
      const char *files[3] = {"square_hole.msh", "box.msh", "periodic_square.msh"};
      for (int f = 0; f < 3; f++) {
        dg_mesh *m = mt_load(dir, files[f], 0);
        roundtrip(m, 1, files[f]);
        roundtrip(m, 4, files[f]);
        dg_mesh_destroy(&m);
      }
    }
    /* Overwriting is atomic and leaves no temporary file behind. */
    CHECK(only_file_in_dir(mt_tmpdir(), "rt.h5"), "stray files next to rt.h5");
  } else if (!strcmp(what, "import")) {
    if (!gmsh) {
      printf("skipped: built without Gmsh\n");
      mt_cleanup();
      return 77;
    }
    const char *files[3] = {"box.msh", "periodic_square.msh", "square_hole.geo"};
    for (int f = 0; f < 3; f++) {
      char in[4096];
      snprintf(in, sizeof in, "%s/%s", dir, files[f]);
      char *out = strdup(mt_path("imported.h5"));
      MUST(dg_mesh_import(in, out, 4));
      dg_mesh *m = mt_load(dir, files[f], 0), *back;
      MUST(dg_mesh_order_hilbert(m, NULL)); /* what dgrun would number them as */
      dg_partition *p, *q;
      MUST(dg_partition_create(m, NULL, NULL, 4, NULL, &p));
      MUST(dg_mesh_h5_read(out, &back, &q));
      check_equal(m, back, files[f]);
      CHECK(q && partition_equal(p, q), "%s: imported partition differs", files[f]);
      printf("import %s --parts 4: same mesh and partition: ok\n", files[f]);
      dg_mesh_destroy(&m);
      dg_mesh_destroy(&back);
      dg_partition_destroy(&p);
      dg_partition_destroy(&q);
      free(out);
    }
    EXPECT_ERROR(dg_mesh_import("/nonexistent/x.msh", mt_path("x.h5"), 1), DG_ERR_IO,
                 "/nonexistent/x.msh");
  } else {
    /* A valid partitioned file, then damaged copies of it. */
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    const int64_t n[3] = {3, 3, 3};
    dg_mesh *m;
    MUST(dg_builtin_mesh(3, lo, hi, n, NULL, &m));
    dg_partition *p;
    MUST(dg_partition_create(m, NULL, NULL, 3, NULL, &p));
    char *good = strdup(mt_path("good.h5"));
    MUST(dg_mesh_h5_write(good, m, p, NULL, NULL));
    void *data;
    size_t size;
    MUST(dg_fsutil_read_file(good, &data, &size));
    char *bad = strdup(mt_path("bad.h5"));
    dg_mesh *back = NULL;
    dg_partition *q = NULL;
    /* Truncated at several lengths. */
    for (int i = 1; i <= 7; i++) {
      MUST(dg_fsutil_write_file(bad, data, size * i / 8, 0600));
      dg_error e = dg_mesh_h5_read(bad, &back, &q);
      CHECK(e == DG_ERR_INPUT && back == NULL && q == NULL, "truncated to %zu of %zu: %s",
            size * i / 8, size, dg_error_name(e));
      CHECK(strstr(dg_error_message(), bad) != NULL, "message lacks the file name: %s",
            dg_error_message());
      dg_error_clear();
    }
    printf("truncated files rejected: ok\n");
    /* Flipped bytes: either an input error, or (padding, unused space) the
     * very same mesh; never anything else. */
    int rejected = 0, harmless = 0;
    for (int t = 0; t < 300; t++) {
      unsigned char *copy = malloc(size);
      memcpy(copy, data, size);
      size_t at = (size_t)rand() % size;
      copy[at] ^= (unsigned char)(1 + rand() % 255);
      MUST(dg_fsutil_write_file(bad, copy, size, 0600));
      free(copy);
      dg_error e = dg_mesh_h5_read(bad, &back, &q);
      if (e == DG_OK) {
        char why[256];
        CHECK(mt_mesh_equal(m, back, why, sizeof why) && partition_equal(p, q),
              "byte %zu flipped: a different mesh was accepted (%s)", at, why);
        harmless++;
        dg_mesh_destroy(&back);
        dg_partition_destroy(&q);
      } else {
        CHECK(e == DG_ERR_INPUT && back == NULL, "byte %zu flipped: %s", at, dg_error_name(e));
        CHECK(strstr(dg_error_message(), bad) != NULL, "message lacks the file name: %s",
              dg_error_message());
        dg_error_clear();
        rejected++;
      }
    }
    printf("flipped bytes: %d rejected, %d harmless (same mesh): ok\n", rejected, harmless);
    CHECK(rejected > 0, "no flipped byte was noticed");
    mt_write(bad, "this is not an HDF5 file\n");
    EXPECT_ERROR(dg_mesh_h5_read(bad, &back, &q), DG_ERR_INPUT, "not a dgrun HDF5 mesh file", bad);
    EXPECT_ERROR(dg_mesh_h5_read("/nonexistent/mesh.h5", &back, &q), DG_ERR_IO,
                 "/nonexistent/mesh.h5");
    free(data);
    free(good);
    free(bad);
    dg_mesh_destroy(&m);
    dg_partition_destroy(&p);
  }
  mt_cleanup();
  return 0;
}
