/* The kernel tuning knobs as one table (operators/kernel_knobs.c): the
 * default configuration, its check, the [backend] keys of problem.cfg and
 * --help-config, the lines of a tuning-database entry, the one-line variant
 * descriptions of `dgrun tune` / `dgbench rhs` and the tuner's list of what
 * it searches are all made from it, so a new knob is one row there (plus
 * its struct member in codegen.h and its meaning in the generator). */
#ifndef DG_OPERATORS_KERNEL_KNOBS_H
#define DG_OPERATORS_KERNEL_KNOBS_H

#include <stddef.h>

#include "core/error.h"
#include "operators/codegen.h"

typedef enum { DG_KNOB_INT = 0, DG_KNOB_ENUM = 1, DG_KNOB_BOOL = 2 } dg_knob_kind;
/* Which modes of the tuner's space (tuning/tune_space.c) give the knob other values
 * than its default. */
enum { DG_KNOB_TUNED_AUTO = 1, DG_KNOB_TUNED_FULL = 2 };
enum { DG_KNOB_MAX_DEPS = 4, DG_KNOB_MAX_SET = 8 };

typedef struct dg_kernel_knob {
  const char *key;     /* [backend] key and tuning-database line name */
  const char *abbrev;  /* name in one-line descriptions */
  dg_knob_kind kind;
  const char *const *names; /* DG_KNOB_ENUM: value names, NULL-terminated */
  size_t offset;       /* of its int-sized field in dg_kernel_config */
  int def;             /* the value before tuning */
  /* legal values of an int knob: lo..hi (with multiple > 0 a multiple of
   * it), or, where set[0] != 0, the zero-terminated list set (bools are 0
   * or 1 and enums index names, without them) */
  int lo, hi, multiple;
  int set[DG_KNOB_MAX_SET];
  /* where it applies: a value other than def needs applies(c) (NULL:
   * everywhere); the check's message is "<key> [<value>] <needs>, not
   * <deps with their values>" */
  int (*applies)(const dg_kernel_config *c);
  const char *needs;
  const char *deps[DG_KNOB_MAX_DEPS];
  int tuned;           /* DG_KNOB_TUNED_* flags */
  const char *help;    /* one line, for the problem.cfg reference */
  int launch_only;     /* set at launch, not in the generated source (so the
                          variants it tells apart share one compiled module) */
} dg_kernel_knob;

extern const dg_kernel_knob dg_kernel_knobs[];
extern const int dg_kernel_nknobs;

/* The knob called key, or NULL. */
const dg_kernel_knob *dg_kernel_knob_find(const char *key);
int dg_kernel_knob_get(const dg_kernel_config *c, const dg_kernel_knob *k);
void dg_kernel_knob_put(dg_kernel_config *c, const dg_kernel_knob *k, int v);
/* Name number v of an enum knob ("?" when out of range), and all of them
 * '|'-separated (the problem.cfg schema's form). */
const char *dg_kernel_knob_choice(const dg_kernel_knob *k, int v);
void dg_kernel_knob_choices(const dg_kernel_knob *k, char *buf, size_t n);
/* Value text -> number: enum names, true/false/1/0 for bools, integers.
 * DG_ERR_INPUT naming the knob when the text is none of them. */
dg_error dg_kernel_knob_parse(const dg_kernel_knob *k, const char *text, int *v);
/* The value as text (enum name, 0/1, integer); as_cfg writes bools as
 * true/false (problem.cfg) rather than 0/1 (tuning database). */
void dg_kernel_knob_text(const dg_kernel_config *c, const dg_kernel_knob *k, int as_cfg,
                         char *buf, size_t n);
/* Every knob whose condition no longer holds (after the caller forced
 * fuse_surface or basis off, say) back to its default, so that the
 * configuration passes dg_kernel_config_check again. */
void dg_kernel_config_drop_inapplicable(dg_kernel_config *c);
/* "epb=8 ft=256 mat=global ..." over every knob; DG_KERNEL_CONFIG_TEXT
 * bytes hold it for any configuration (215 characters with every knob at
 * its longest value, 24 knobs).  Why a constant: the tuning table's 160
 * bytes had cut the knobs after basis off, strided_k among them. */
#define DG_KERNEL_CONFIG_TEXT 384
void dg_kernel_config_describe(const dg_kernel_config *c, char *buf, size_t n);
/* The same over the knobs that shape the generated source only (its header
 * comment: launch-only knobs there would split identical modules). */
void dg_kernel_config_describe_code(const dg_kernel_config *c, char *buf, size_t n);

#endif
