/* INI configuration: the reader behind problem.cfg and `section.key=value`
 * command-line overrides (one options database, PETSc style).
 *
 * Syntax (UTF-8 text):
 *
 *   ; a comment            # also a comment
 *   [discretization]
 *   order = 3              ; trailing comments too
 *   title = "a ; and # inside quotes are kept"   (\" and \\ escape in quotes)
 *
 * Section and key names are identifiers made of ASCII letters, digits, '_',
 * '-' and '.'; they are case-sensitive.  A duplicate key in one section, a
 * duplicate section, a key before any section, a line that is neither
 * `[section]` nor `key = value`, a control character or invalid UTF-8 are
 * errors `name:line:col: error: ...` (columns count characters, from 1).  All
 * such errors of a file are reported together, one per line of the message.
 *
 * Values are stored as text and typed when read (dg_config_get_*) or checked
 * against a schema (dg_config_validate), so a bad number is reported where it
 * was written: `problem.cfg:7:9: error: [time] final: 'abc' is not a number`.
 *
 * Strings returned by this module are owned by the dg_config and valid until
 * dg_config_destroy. */
#ifndef DG_CORE_CONFIG_H
#define DG_CORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

typedef struct dg_config dg_config;

/* Read and parse the INI file at path.  A missing or unreadable file is
 * DG_ERR_IO naming the path; bad syntax is DG_ERR_INPUT. */
dg_error dg_config_read_file(const char *path, dg_config **out);

/* Parse NUL-terminated text.  name is used in messages and, like a file
 * path, gives dg_config_dir (its directory part, "." if it has none). */
dg_error dg_config_read_string(const char *text, const char *name,
                               dg_config **out);

/* Parse len bytes that may contain anything (NUL bytes are reported as an
 * error, not taken as the end). */
dg_error dg_config_read_buffer(const char *data, size_t len, const char *name,
                               dg_config **out);

void dg_config_destroy(dg_config **cfg);

/* Apply one command-line override "section.key=value" (e.g.
 * "discretization.order=5"); it wins over the file's value and over earlier
 * overrides of the same key, and may create the section.  Where both a
 * section and a key contain '.', the longest prefix naming an existing
 * section is the section; else the text before the last '.'.  The value is
 * trimmed and may be double-quoted.  Messages name "<command line>", and a
 * path given here is relative to the working directory, not the cfg's. */
dg_error dg_config_apply_override(dg_config *cfg, const char *arg);

/* The name given at read time (the file path). */
const char *dg_config_name(const dg_config *cfg);

/* Directory of the config file ("." when the name has no '/'). */
const char *dg_config_dir(const dg_config *cfg);

/* --- Schema ------------------------------------------------------------- */

typedef enum dg_config_type {
  DG_CONFIG_INT,    /* int64_t, decimal, overflow checked */
  DG_CONFIG_DOUBLE, /* strtod syntax, whole text, finite */
  DG_CONFIG_BOOL,   /* true/false, yes/no, on/off, 1/0 (any case) */
  DG_CONFIG_STRING, /* any text */
  DG_CONFIG_ENUM,   /* one of `choices`, e.g. "auto|cuda|cpu" */
  DG_CONFIG_PATH    /* non-empty; relative paths are relative to the cfg */
} dg_config_type;

/* One allowed key.  key == NULL declares `section` open: any key may appear
 * there (e.g. [params], flux-file parameter overrides); keys of an open
 * section may still be declared to give them a type and a default. */
typedef struct dg_config_key {
  const char *section;
  const char *key;
  dg_config_type type;
  const char *choices; /* DG_CONFIG_ENUM only: '|'-separated */
  const char *def;     /* default as cfg text; NULL = required */
  const char *help;    /* one line, for dg_config_print_schema */
} dg_config_key;

/* Check cfg against schema[0..n): unknown sections and keys (with a "did you
 * mean"), values that do not parse as their declared type, missing required
 * keys and sections.  Every problem found is reported in one DG_ERR_INPUT
 * message, one per line.  On success, absent keys that have a default are
 * added with that default, so the getters see it (dg_config_has still says
 * false for them).  A schema default that does not parse as its own type is
 * DG_ERR_INTERNAL. */
dg_error dg_config_validate(dg_config *cfg, const dg_config_key *schema,
                            size_t n);

typedef enum { DG_CONFIG_DOC_TEXT, DG_CONFIG_DOC_MARKDOWN } dg_config_doc_format;

/* Print schema[0..n) as documentation: section, key, type, default, help
 * (plain text for --help-config, or a Markdown table for README/doc).
 * List the keys of one section next to each other in the schema. */
void dg_config_print_schema(FILE *out, const dg_config_key *schema, size_t n,
                            dg_config_doc_format format);

/* --- Reading values -----------------------------------------------------
 * Usual order: read the file, apply the command-line overrides, validate
 * against the schema (which also checks the overrides), then get values. */

/* 1 if section.key was set by the file or an override, else 0. */
int dg_config_has(const dg_config *cfg, const char *section, const char *key);

/* Typed getters: the value of section.key.  The schema of the last
 * dg_config_validate call (which must outlive the reads) is the one place a key's
 * default and an enum's choices are stated: a reader never restates them.
 * An absent key reads as its schema default (validation has filled it in
 * already); a key the schema does not declare (outside an open section), an
 * absent one without a schema default, or an enum without a schema is
 * DG_ERR_INTERNAL (a bug in the reader).  Before any validation, the values
 * present in the text read the same, without defaults.  A value that does
 * not parse is DG_ERR_INPUT naming name:line:col, section, key and the bad
 * text. */
dg_error dg_config_get_int(const dg_config *cfg, const char *section,
                           const char *key, int64_t *out);
dg_error dg_config_get_double(const dg_config *cfg, const char *section,
                              const char *key, double *out);
dg_error dg_config_get_bool(const dg_config *cfg, const char *section,
                            const char *key, int *out);
dg_error dg_config_get_string(const dg_config *cfg, const char *section,
                              const char *key, const char **out);
/* *out = index of the value in the schema's choices ("auto|cuda|cpu" -> 0,
 * 1, 2). */
dg_error dg_config_get_enum(const dg_config *cfg, const char *section,
                            const char *key, int *out);
/* A path value resolved against dg_config_dir (absolute paths unchanged;
 * override values against the working directory; a schema default as a
 * value of the file). */
dg_error dg_config_get_path(const dg_config *cfg, const char *section,
                            const char *key, const char **out);

/* Iteration, in file order (overrides and defaults appended):
 * the i-th section name, or NULL when i is past the end ... */
const char *dg_config_section_at(const dg_config *cfg, size_t i);
/* ... and the i-th key of a section, or NULL past the end or if the section
 * is absent.  Typical use for an open section:
 *   for (size_t i = 0; (k = dg_config_key_at(cfg, "params", i)); i++) ... */
const char *dg_config_key_at(const dg_config *cfg, const char *section,
                             size_t i);

/* Where the value of section.key was written, for a message about it:
 * "name:line:col" for a value of the text, "<command line>" for an
 * override, and the config's name for a default or an absent key.  Written
 * into buf (n bytes), which is returned. */
const char *dg_config_where(const dg_config *cfg, const char *section, const char *key,
                            char *buf, size_t n);

/* Write the effective configuration (file + overrides + defaults) as INI
 * text that reads back to the same values; where a value came from is noted
 * in a trailing comment (line of the file, command line, default). */
void dg_config_print(const dg_config *cfg, FILE *out);

/* A value that dg_config_write_text writes in place of the config's own
 * (e.g. a path resolved to an absolute one, or a name that was derived). */
typedef struct dg_config_pin {
  const char *section, *key, *value;
} dg_config_pin;

/* The canonical text of what was set (by the file or an override; defaults
 * are left out, pinned keys are written whatever their origin): `[section]`
 * lines and `key = value` lines in the config's order (pins of absent keys
 * after the keys of their section, pins of absent sections last), no
 * comments, values quoted where needed.  Reads back to the same values.
 * *out is malloc'd (the caller frees it). */
dg_error dg_config_write_text(const dg_config *cfg, const dg_config_pin *pins, size_t npins,
                              char **out);

#endif
