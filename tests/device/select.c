/* core.device_select: backend names, device indices and $DGRUN_DEVICE are
 * checked; the cpu device describes itself; the listing names the cpu. */
#include <string.h>
#include <unistd.h>

#include "devtest.h"

static void expect_error(const char *backend, int index, dg_error code,
                         const char *needle) {
  dg_device *dev = (dg_device *)&dev;
  dg_error err = dg_device_create(backend, index, &dev);
  CHECK(err == code, "create(%s, %d) gave %d, expected %d (%s)",
        backend ? backend : "NULL", index, (int)err, (int)code,
        dg_error_message());
  CHECK(dev == NULL, "a failed create must leave *out NULL");
  CHECK(strstr(dg_error_message(), needle), "message '%s' lacks '%s'",
        dg_error_message(), needle);
  dg_error_clear();
}

int main(void) {
  expect_error("cpx", 0, DG_ERR_INPUT, "did you mean 'cpu'");
  expect_error("opencl", 0, DG_ERR_INPUT, "'opencl'");
  expect_error("cpu", 3, DG_ERR_DEVICE, "index 3");
  CHECK(setenv("DGRUN_DEVICE", "2", 1) == 0, "setenv");
  expect_error("cpu", -1, DG_ERR_DEVICE, "index 2");
  CHECK(setenv("DGRUN_DEVICE", "zero", 1) == 0, "setenv");
  expect_error("cpu", -1, DG_ERR_INPUT, "DGRUN_DEVICE='zero'");
  CHECK(setenv("DGRUN_DEVICE", "0", 1) == 0, "setenv");
  if (!dg_device_cuda_built())
    expect_error("cuda", 0, DG_ERR_UNSUPPORTED, "without the cuda backend");
  else if (!dg_device_cuda_available())
    expect_error("cuda", 0, DG_ERR_DEVICE, "not available");

  dg_device *dev;
  MUST(dg_device_create("cpu", -1, &dev));
  const dg_device_info *info = dg_device_get_info(dev);
  CHECK(info->backend == DG_BACKEND_CPU, "backend kind %d", info->backend);
  CHECK(strcmp(info->backend_name, "cpu") == 0, "backend name %s",
        info->backend_name);
  CHECK(info->index == 0 && info->name[0], "index %d name '%s'", info->index,
        info->name);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  CHECK(info->total_memory == (size_t)pages * (size_t)page,
        "memory %zu, sysconf says %ld pages of %ld", info->total_memory, pages,
        page);
  CHECK(info->multiprocessors >= 1, "threads %d", info->multiprocessors);
  CHECK(strstr(info->compiler_identity, "-march=native"),
        "compiler identity '%s' lacks the flags", info->compiler_identity);
  dg_device_destroy(&dev);

  /* auto: cuda when a GPU is usable, else cpu. */
  MUST(dg_device_create("auto", 0, &dev));
  const char *want = dg_device_cuda_available() ? "cuda" : "cpu";
  CHECK(strcmp(dg_device_get_info(dev)->backend_name, want) == 0,
        "auto picked %s, expected %s", dg_device_get_info(dev)->backend_name,
        want);
  dg_device_destroy(&dev);

  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK(f, "open_memstream");
  MUST(dg_device_list(f));
  fclose(f);
  CHECK(strstr(text, "cpu: 1 device") && strstr(text, "threads"),
        "listing lacks the cpu device:\n%s", text);
  char line[64];
  snprintf(line, sizeof line, "auto selects: %s", want);
  CHECK(strstr(text, line), "listing lacks '%s':\n%s", line, text);
  free(text);
  return 0;
}
