/* Helpers shared by the device and kernel-cache tests: a private cache
 * directory per test, a seeded random generator, and one reference kernel
 * checked against a plain host loop. */
#ifndef DG_TESTS_DEVTEST_H
#define DG_TESTS_DEVTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/device.h"
#include "tests/expect.h"

/* Make a fresh private cache directory (mkdtemp under $TMPDIR or /tmp) and
 * point $DGRUN_CACHE_DIR at it, so no test touches the user's cache.
 * Returns a static buffer. */
const char *dt_fresh_cache_dir(void);
/* Remove a directory made by dt_fresh_cache_dir. */
void dt_remove_dir(const char *dir);

/* Seed from the clock and pid (printed, so a failure can be replayed with
 * DT_SEED=...); uniform doubles in [-1, 1). */
uint64_t dt_seed(void);
double dt_uniform(uint64_t *state);

/* Source of a module with two kernels: axpby (z = a x + b y on doubles) and
 * mark (owner[i] = first, len[i] = count for the chunk that covered i). */
extern const char *const dt_kernel_source;

/* Run axpby over items of n elements with the given chunk and compare with
 * a host loop on fresh random data; z is poisoned with NaN first and the
 * elements past items must stay poisoned.  Exits on failure. */
void dt_check_axpby(dg_device *dev, dg_module *mod, int64_t n, int64_t items,
                    int64_t chunk, uint64_t *rng);

/* On a new cpu device: compile dt_kernel_source (through the cache),
 * check axpby on fresh data, destroy; returns the device's counters. */
dg_device_stats dt_compile_and_check(uint64_t *rng);
/* Exit unless the counters are (compilations, hits, rebuilds). */
void dt_expect_stats(dg_device_stats s, int64_t compilations, int64_t hits,
                     int64_t rebuilds, const char *when);

/* Count the files in dir: *entries ending in ".dgk", *others the rest. */
void dt_count_files(const char *dir, int *entries, int *others);
/* dg_device_precompile of src[0..n) (repeats and sources that do not
 * compile among them) on `threads` workers, then expect `distinct`
 * compilations on dev and as many entries in the cache folder dir. */
void dt_precompile_expect(dg_device *dev, const char *dir, char *const *src, int n, int threads,
                          int distinct);
/* A source that does not compile reports DG_ERR_COMPILE at its own
 * dg_device_compile (a precompile left it alone), and no module. */
void dt_expect_compile_error(dg_device *dev, const char *src);
/* Path of the single ".dgk" entry in dir (static buffer); exits if not one. */
const char *dt_single_entry(const char *dir);

#endif
