/* SPDX-License-Identifier: Apache-2.0 */
#include "base/log.h"

#include "base/io.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The descriptor the lines go to; -1: none.  Set once at start, before any
 * thread of the agent's runs; read by any thread. */
static atomic_int log_fd = STDERR_FILENO;

/* PINWATCH_DEBUG was set at start. */
static atomic_bool debug_on;

bool
pw_log_open(const char *where, char *err, size_t errlen)
{
    const char *debug = getenv("PINWATCH_DEBUG");
    atomic_store(&debug_on, debug != NULL && debug[0] != '\0');
    if (where[0] == '\0')
        return true;
    if (strcmp(where, "none") == 0) {
        atomic_store(&log_fd, -1);
        return true;
    }
    char path[4096];
    if (!pw_expand_path(where, path, sizeof(path))) {
        snprintf(err, errlen, "log file name too long after expanding %%p: %.80s", where);
        return false;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open log file %.200s: %s", path, strerror(errno));
        return false;
    }
    /* Never closed: a line may be on its way from another thread. */
    atomic_store(&log_fd, fd);
    return true;
}

/* pw_log_capture's buffer, its thread and whether a line was taken: set
 * and read only by that thread (an error line of another thread compares
 * the owner first, under the lock, so it never writes there). */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
static char *capture_buf;
static size_t capture_size;
static pthread_t capture_thread;
static atomic_bool capturing;

void
pw_log_capture(char *buf, size_t size)
{
    pthread_mutex_lock(&capture_lock);
    capture_buf = size > 0 ? buf : NULL;
    capture_size = size;
    capture_thread = pthread_self();
    if (capture_buf != NULL)
        capture_buf[0] = '\0';
    atomic_store(&capturing, capture_buf != NULL);
    pthread_mutex_unlock(&capture_lock);
}

/* Only while a capture is on (one JNI_OnLoad at a time, at start) does an
 * error line take the lock; otherwise it costs one load. */
static void
capture(const char *text)
{
    if (!atomic_load_explicit(&capturing, memory_order_relaxed))
        return;
    pthread_mutex_lock(&capture_lock);
    if (capture_buf != NULL && capture_buf[0] == '\0' && pthread_equal(capture_thread, pthread_self()))
        snprintf(capture_buf, capture_size, "%s", text);
    pthread_mutex_unlock(&capture_lock);
}

/* The line is formatted first and written with one write(2): lines from
 * several threads (and the JVM's own output) then never interleave; O_APPEND
 * keeps them whole in a log file that several JVMs share. */
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
    if (strcmp(level, "ERROR ") == 0) {
        line[len] = '\0';
        capture(line + n);
    }
    line[len++] = '\n';
    int fd = atomic_load_explicit(&log_fd, memory_order_relaxed);
    if (fd < 0)
        return;
    ssize_t w = write(fd, line, len);
    (void)w; /* nowhere left to report a failing log */
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
pw_log_debug(const char *fmt, ...)
{
    if (!atomic_load_explicit(&debug_on, memory_order_relaxed))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line("DEBUG ", fmt, ap);
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
