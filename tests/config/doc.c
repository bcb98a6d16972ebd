/* core.config_schema_doc: the schema printed as documentation, exactly as a
 * user reads it in `dgrun --help-config` and in the README table. */
#include <stdlib.h>

#include "expect.h"

static const dg_config_key schema[] = {
    {"discretization", "order", DG_CONFIG_INT, NULL, "3", "polynomial order N"},
    {"discretization", "precision", DG_CONFIG_ENUM, "double|single", "double",
     "floating point type"},
    {"time", "final", DG_CONFIG_DOUBLE, NULL, NULL, "final time"},
    {"params", NULL, DG_CONFIG_STRING, NULL, NULL, "flux-file parameter overrides"},
};

static void expect_doc(dg_config_doc_format format, const char *want) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  dg_config_print_schema(f, schema, sizeof schema / sizeof *schema, format);
  fclose(f);
  if (strcmp(buf, want) != 0) {
    printf("format %d gave:\n%s\nwant:\n%s\n", (int)format, buf, want);
    failures++;
  }
  free(buf);
}

int main(void) {
  /* Columns: key width 9 ("precision"), type 13 ("double|single"),
   * default 10 ("(required)"), two spaces between. */
  expect_doc(DG_CONFIG_DOC_TEXT,
             "[discretization]\n"
             "  order      int            3           polynomial order N\n"
             "  precision  double|single  double      floating point type\n"
             "\n"
             "[time]\n"
             "  final      double         (required)  final time\n"
             "\n"
             "[params]\n"
             "  (any key)                             flux-file parameter overrides\n");
  expect_doc(DG_CONFIG_DOC_MARKDOWN,
             "| Section | Key | Type | Default | Description |\n"
             "|---|---|---|---|---|\n"
             "| `[discretization]` | `order` | int | `3` | polynomial order N |\n"
             "| `[discretization]` | `precision` | `double`, `single` | `double` | floating "
             "point type |\n"
             "| `[time]` | `final` | double | *required* | final time |\n"
             "| `[params]` | *any* | | | flux-file parameter overrides |\n");
  return expect_finish();
}
