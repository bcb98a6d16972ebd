/* Helpers shared by the mesh input, validation, partition and HDF5 tests:
 * checks that print where they failed, measures of faces and elements
 * computed here (not by the code under test), and a scratch directory. */
#ifndef DG_TESTS_MESHTEST_H
#define DG_TESTS_MESHTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "meshes/mesh.h"
#include "tests/expect.h"

/* expr must fail with code and a message containing each of the given
 * substrings (NULL-terminated list). */
void mt_expect_error(dg_error got, dg_error code, const char *what, ...);
#define EXPECT_ERROR(expr, code, ...) mt_expect_error((expr), (code), #expr, __VA_ARGS__, NULL)

/* Measure (length/area/volume, unsigned) of element k, by a plain formula. */
double mt_element_measure(const dg_mesh *m, int64_t k);
/* Measure of face f of element k (1 for a point), and its centroid. */
double mt_face_measure(const dg_mesh *m, int64_t k, int f, double centroid[3]);
/* Vertex ids of face f of element k, sorted (unused entries -1). */
void mt_face_vertices(const dg_mesh *m, int64_t k, int f, int64_t v[3]);
/* Number of elements sharing face f of element k (brute force). */
int mt_face_count(const dg_mesh *m, int64_t k, int f);
/* Sum of measures of boundary faces carrying tag `name` (-1 if no tag). */
double mt_tag_measure(const dg_mesh *m, const char *name, int64_t *nfaces);

/* A private scratch directory (removed by mt_cleanup) and a path in it. */
const char *mt_tmpdir(void);
char *mt_path(const char *name); /* static buffer, one at a time */
void mt_cleanup(void);
void mt_write(const char *path, const char *text);

/* Read dir/name through Gmsh (.geo meshed at size, if > 0), validate it,
 * and check every element is positive afterwards; exits on failure. */
dg_mesh *mt_load(const char *dir, const char *name, double size);

/* Bitwise equality of two meshes (all arrays, tags, pairs, regions). */
int mt_mesh_equal(const dg_mesh *a, const dg_mesh *b, char *why, size_t n);

#endif
