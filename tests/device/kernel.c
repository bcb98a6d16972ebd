/* core.device_kernel: a generated module compiles on the cpu backend and its
 * kernels match a plain loop for many (items, chunk) pairs, including items
 * not a multiple of chunk, chunk > items, the backend's default chunk and
 * items = 0; the chunking itself is checked item by item. */
#include <string.h>

#include "devtest.h"

static void check_chunks(dg_device *dev, dg_module *mod, int64_t items,
                         int64_t chunk) {
  int64_t n = items + 3;
  size_t bytes = (size_t)n * sizeof(int64_t);
  int64_t *owner = malloc(bytes), *len = malloc(bytes);
  CHECK(owner && len, "out of memory");
  for (int64_t i = 0; i < n; i++)
    owner[i] = len[i] = -12345; /* poison */
  void *downer, *dlen;
  MUST(dg_device_malloc(dev, bytes, &downer));
  MUST(dg_device_malloc(dev, bytes, &dlen));
  MUST(dg_device_upload(dev, downer, owner, bytes));
  MUST(dg_device_upload(dev, dlen, len, bytes));
  dg_kernel *k;
  MUST(dg_module_get_kernel(mod, "mark", &k));
  void *args[] = {&downer, &dlen};
  dg_launch launch = {.items = items, .chunk = chunk};
  MUST(dg_kernel_launch(k, &launch, args, NULL));
  MUST(dg_device_download(dev, owner, downer, bytes));
  MUST(dg_device_download(dev, len, dlen, bytes));
  if (chunk > 0) {
    /* Chunk c covers [c*chunk, min((c+1)*chunk, items)). */
    for (int64_t i = 0; i < items; i++) {
      int64_t first = i / chunk * chunk;
      int64_t count = items - first < chunk ? items - first : chunk;
      CHECK(owner[i] == first && len[i] == count,
            "item %lld of %lld (chunk %lld): ran in chunk [%lld, +%lld), "
            "expected [%lld, +%lld)", (long long)i, (long long)items,
            (long long)chunk, (long long)owner[i], (long long)len[i],
            (long long)first, (long long)count);
    }
  } else {
    /* Backend-chosen chunks: still a partition of [0, items) into runs. */
    for (int64_t i = 0; i < items; i++)
      CHECK(owner[i] >= 0 && owner[i] <= i && i < owner[i] + len[i] &&
                owner[i] + len[i] <= items,
            "item %lld in chunk [%lld, +%lld) of %lld items", (long long)i,
            (long long)owner[i], (long long)len[i], (long long)items);
  }
  for (int64_t i = items; i < n; i++)
    CHECK(owner[i] == -12345 && len[i] == -12345,
          "item %lld past items = %lld was touched", (long long)i,
          (long long)items);
  MUST(dg_device_free(dev, downer));
  MUST(dg_device_free(dev, dlen));
  free(owner);
  free(len);
}

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  uint64_t rng = dt_seed();
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  dg_module *mod;
  MUST(dg_device_compile(dev, "test_kernels", dt_kernel_source, NULL, 0, &mod));
  dg_kernel *k1, *k2;
  MUST(dg_module_get_kernel(mod, "axpby", &k1));
  MUST(dg_module_get_kernel(mod, "axpby", &k2));
  CHECK(k1 == k2, "the module must hand out one kernel object per entry");

  const int64_t items[] = {0, 1, 7, 64, 1000, 1001, 4099};
  const int64_t chunks[] = {0, -5, 1, 3, 64, 100, 5000};
  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
      dt_check_axpby(dev, mod, items[i] + 5, items[i], chunks[c], &rng);
      check_chunks(dev, mod, items[i], chunks[c]);
    }

  /* An entry that is not in the module is an error naming it. */
  dg_kernel *missing = NULL;
  CHECK(dg_module_get_kernel(mod, "no_such_kernel", &missing) == DG_ERR_ARG,
        "lookup of a missing entry must fail");
  CHECK(strstr(dg_error_message(), "no_such_kernel"), "message: %s",
        dg_error_message());
  dg_error_clear();

  /* Extra compiler options are passed on: a -D constant changes the code. */
  const char *src = "#include <stdint.h>\n"
                    "void fill(void **args, int64_t first, int64_t count) {\n"
                    "  double *z = *(double **)args[0];\n"
                    "  for (int64_t i = first; i < first + count; i++)\n"
                    "    z[i] = VALUE;\n"
                    "}\n";
  const char *opts[] = {"-DVALUE=2.5"};
  dg_module *mod2;
  MUST(dg_device_compile(dev, "fill", src, opts, 1, &mod2));
  dg_kernel *fill;
  MUST(dg_module_get_kernel(mod2, "fill", &fill));
  double host[10];
  void *d;
  MUST(dg_device_malloc(dev, sizeof host, &d));
  void *args[] = {&d};
  dg_launch launch = {.items = 10, .chunk = 4};
  MUST(dg_kernel_launch(fill, &launch, args, NULL));
  MUST(dg_device_download(dev, host, d, sizeof host));
  for (int i = 0; i < 10; i++)
    CHECK(host[i] == 2.5, "fill[%d] = %g, expected 2.5 from -DVALUE=2.5", i,
          host[i]);
  MUST(dg_device_free(dev, d));

  dg_launch bad = {.items = -1};
  CHECK(dg_kernel_launch(fill, &bad, args, NULL) == DG_ERR_ARG,
        "negative items must be rejected");
  dg_error_clear();

  dg_module_destroy(&mod2);
  dg_module_destroy(&mod);
  CHECK(mod == NULL, "destroy must clear the handle");
  dg_device_destroy(&dev);
  CHECK(dev == NULL, "destroy must clear the handle");
  dt_remove_dir(cache);
  return 0;
}
