/* Logging: one process-wide level (the only global besides the backend
 * registry).  Messages go to stderr so stdout stays for results. */
#ifndef DG_CORE_LOG_H
#define DG_CORE_LOG_H

typedef enum { DG_LOG_QUIET = 0, DG_LOG_WARN, DG_LOG_INFO, DG_LOG_DEBUG } dg_log_level;

void dg_log_set_level(dg_log_level level);
dg_log_level dg_log_get_level(void);

void dg_log(dg_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define dg_warn(...) dg_log(DG_LOG_WARN, __VA_ARGS__)
#define dg_info(...) dg_log(DG_LOG_INFO, __VA_ARGS__)
#define dg_debug(...) dg_log(DG_LOG_DEBUG, __VA_ARGS__)

#endif
