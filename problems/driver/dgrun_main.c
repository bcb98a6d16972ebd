/* dgrun: the driver.  (Grows with the solver issue; for now it lists the
 * devices this build can use.) */
#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"

static void usage(FILE *out) {
  fprintf(out, "usage: dgrun problem.cfg [section.key=value ...]\n"
               "       dgrun --devices\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--devices") == 0) {
    if (dg_device_list(stdout) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    return 0;
  }
  fprintf(stderr, "dgrun: unknown argument '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
