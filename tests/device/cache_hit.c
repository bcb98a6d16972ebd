/* core.cache_hit: the second compile of the same source compiles nothing,
 * in the same device and in a new device object; a change of source or of
 * options is a new entry.  The kernel loaded from the cache is correct. */
#include "devtest.h"

static void expect(const dg_device *dev, int64_t comp, int64_t hits,
                   const char *when) {
  dt_expect_stats(dg_device_get_stats(dev), comp, hits, 0, when);
}

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  uint64_t rng = dt_seed();
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  dg_module *m1, *m2, *m3;
  MUST(dg_device_compile(dev, "k", dt_kernel_source, NULL, 0, &m1));
  expect(dev, 1, 0, "first compile");
  (void)dt_single_entry(cache);
  MUST(dg_device_compile(dev, "k", dt_kernel_source, NULL, 0, &m2));
  expect(dev, 1, 1, "second compile, same device");
  /* The label is not part of the key: same code, same entry. */
  MUST(dg_device_compile(dev, "other label", dt_kernel_source, NULL, 0, &m3));
  expect(dev, 1, 2, "third compile under another name");
  dt_check_axpby(dev, m2, 1000, 997, 100, &rng);
  dg_module_destroy(&m3);
  /* Both modules stay usable independently (each its own dlopen). */
  dg_module_destroy(&m1);
  dt_check_axpby(dev, m2, 50, 50, 7, &rng);
  dg_module_destroy(&m2);

  dg_device *dev2;
  MUST(dg_device_create("cpu", 0, &dev2));
  MUST(dg_device_compile(dev2, "k", dt_kernel_source, NULL, 0, &m1));
  expect(dev2, 0, 1, "new device, same process");
  dt_check_axpby(dev2, m1, 333, 333, 0, &rng);
  dg_module_destroy(&m1);

  /* Options are part of the key. */
  const char *opts[] = {"-DUNUSED_CONSTANT=1"};
  MUST(dg_device_compile(dev2, "k", dt_kernel_source, opts, 1, &m1));
  expect(dev2, 1, 1, "same source, new option");
  dg_module_destroy(&m1);
  int entries, others;
  dt_count_files(cache, &entries, &others);
  CHECK(entries == 2 && others == 0, "%d entries, %d others; expected 2, 0",
        entries, others);

  dg_device_destroy(&dev2);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return 0;
}
