/* Helpers shared by the output tests: expectations, scratch directories,
 * and a minimal XDMF checker that resolves every HDF5 DataItem. */
#ifndef DG_TESTS_OUTPUT_TESTUTIL_H
#define DG_TESTS_OUTPUT_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

#include "problems/io/snapshot.h"
#include "tests/expect.h"

/* A fresh scratch directory (under $TMPDIR or /tmp) in buf. */
void tu_mkdtemp(char *buf, size_t cap);
/* rm -r path (only what the tests made); kept when $DGRUN_TEST_KEEP is set. */
void tu_rmtree(const char *path);
/* End of a test that counted nfailed failures: expect no ".tmp." file in
 * dir, remove dir, print "ok" when nothing failed; the exit code. */
int tu_finish(const char *dir, int nfailed);
/* Number of entries in dir whose name contains needle (0 if dir is missing). */
int tu_count(const char *dir, const char *needle);
int tu_exists(const char *path);
/* Read a whole file (malloc'd, NUL-terminated) or NULL. */
char *tu_slurp(const char *path, size_t *len);
void tu_write(const char *path, const void *data, size_t len);
/* Fresh pseudo-random 64-bit words (seeded from time and pid). */
uint64_t tu_rand(void);

/* XDMF facts gathered by tu_xdmf_check. */
typedef struct tu_xdmf {
  int grids;            /* Uniform grids */
  int collections;      /* temporal collections */
  int data_items;       /* HDF DataItems, each resolved */
  double times[64];     /* <Time Value> in order */
  char topology[32];    /* the last TopologyType */
} tu_xdmf;

/* Check the XDMF file at path: tags balanced (well-formed in the small
 * subset written), every HDF DataItem names an existing dataset (relative to
 * the XDMF file's directory) whose dimensions and number type match the
 * declared ones.  Failures are counted through EXPECT.  Returns facts. */
tu_xdmf tu_xdmf_check(const char *path);

/* Snapshots of the one field "u" (values u) at the given steps, time
 * 0.1 * step each; the first failure's code (its message in dg_error). */
dg_error tu_snapshot_steps(dg_snapshot_writer *w, double *u, const long long *steps, int n);

#endif
