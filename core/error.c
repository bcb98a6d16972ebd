#include "core/error.h"

#include <stdarg.h>
#include <string.h>

#include "core/printable.h"

/* Fixed-size trace: deep enough for any call chain in dgrun; frames past
 * the limit are counted, not stored, so recording can never fail. */
enum { TRACE_MAX = 32, MESSAGE_MAX = 2048 };

typedef struct {
  const char *file;
  const char *func;
  int line;
} frame;

static _Thread_local struct {
  dg_error code;
  char message[MESSAGE_MAX];
  frame frames[TRACE_MAX];
  int nframes;
  int dropped;
} trace;

const char *dg_error_name(dg_error code) {
  switch (code) {
  case DG_OK: return "no error";
  case DG_ERR_ARG: return "invalid argument";
  case DG_ERR_INPUT: return "input error";
  case DG_ERR_IO: return "I/O error";
  case DG_ERR_MEMORY: return "out of memory";
  case DG_ERR_DEVICE: return "device error";
  case DG_ERR_COMPILE: return "compile error";
  case DG_ERR_UNSUPPORTED: return "unsupported";
  case DG_ERR_NUMERIC: return "numerical error";
  case DG_ERR_MPI: return "MPI error";
  case DG_ERR_INTERNAL: return "internal error";
  case DG_ERR_INTERRUPTED: return "interrupted";
  case DG_ERR_PEER: return "another rank failed";
  }
  return "unknown error";
}

static void add_frame(const char *file, int line, const char *func) {
  if (trace.nframes < TRACE_MAX) {
    trace.frames[trace.nframes].file = file;
    trace.frames[trace.nframes].line = line;
    trace.frames[trace.nframes].func = func;
    trace.nframes++;
  } else {
    trace.dropped++;
  }
}

dg_error dg_error_raise(dg_error code, const char *file, int line,
                        const char *func, const char *fmt, ...) {
  trace.code = code;
  trace.nframes = 0;
  trace.dropped = 0;
  va_list ap;
  va_start(ap, fmt);
  char raw[MESSAGE_MAX];
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  dg_printable(trace.message, sizeof trace.message, raw); /* names from input files */
  add_frame(file, line, func);
  return code;
}

dg_error dg_error_push(dg_error code, const char *file, int line,
                       const char *func) {
  if (trace.code == DG_OK) {
    /* A callee returned an error without raising it: record that much. */
    trace.code = code;
    snprintf(trace.message, sizeof trace.message, "%s (no message)",
             dg_error_name(code));
  }
  add_frame(file, line, func);
  return code;
}

/* Set once at start-up, before any thread that could raise exists. */
static int traces_on;

void dg_error_set_traces(int on) { traces_on = on; }

/* A message that carries its own "error:" (file:line:col: error: ...,
 * <command line>: error: ...) is not prefixed with the kind again. */
static int says_error(const char *m) { return strstr(m, ": error: ") != NULL; }

void dg_error_print(FILE *out) {
  if (trace.code == DG_OK)
    return;
  if (says_error(trace.message))
    fprintf(out, "dgrun: %s\n", trace.message);
  else
    fprintf(out, "dgrun: %s: %s\n", dg_error_name(trace.code), trace.message);
  if (!traces_on && trace.code != DG_ERR_INTERNAL)
    return;
  for (int i = 0; i < trace.nframes; i++)
    fprintf(out, "  %s %s (%s:%d)\n", i == 0 ? "raised in" : "from",
            trace.frames[i].func, trace.frames[i].file, trace.frames[i].line);
  if (trace.dropped > 0)
    fprintf(out, "  ... %d more frames\n", trace.dropped);
}

const char *dg_error_message(void) { return trace.message; }

void dg_error_clear(void) {
  trace.code = DG_OK;
  trace.message[0] = '\0';
  trace.nframes = 0;
  trace.dropped = 0;
}
