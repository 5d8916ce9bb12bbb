#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* The line is formatted first and written with one write(2): lines from
 * several threads (and the JVM's own output) then never interleave. */
static void __attribute__((format(printf, 2, 0))) log_line(const char *level, const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "[pinwatch] %s", level);
    if (n < 0)
        return;
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w; /* nowhere left to report a failing stderr */
}

void
pw_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("ERROR ", fmt, ap);
    va_end(ap);
}

void
pw_log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("WARN ", fmt, ap);
    va_end(ap);
}

void
pw_log_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("", fmt, ap);
    va_end(ap);
}

void
pw_log_jvmti_error(jvmtiEnv *jvmti, jvmtiError err, const char *what)
{
    char *name = NULL;
    if (jvmti != NULL && (*jvmti)->GetErrorName(jvmti, err, &name) == JVMTI_ERROR_NONE && name != NULL) {
        pw_log_error("%s failed: %s (%d)", what, name, (int)err);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    } else {
        pw_log_error("%s failed: JVMTI error %d", what, (int)err);
    }
}
