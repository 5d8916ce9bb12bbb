/* SPDX-License-Identifier: Apache-2.0 */
/* One prefix for every line pinwatch prints on the JVM's stderr, so that a
 * user can grep it out of application output. */
#ifndef PW_LOG_H
#define PW_LOG_H

#include "base/pinwatch.h"

/* Where the lines go from now on (log=): "" for stderr, "none" for
 * nowhere, else a file appended to (created 0600, %p expanded).  Returns
 * false, with a reason in err, when the file cannot be opened; the lines
 * then still go to stderr. */
PW_HIDDEN bool pw_log_open(const char *where, char *err, size_t errlen);

PW_HIDDEN void pw_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PW_HIDDEN void pw_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PW_HIDDEN void pw_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "[pinwatch] DEBUG ..." lines, of what pinwatch learned about the JVM at
 * start; written only when the environment variable PINWATCH_DEBUG is set
 * and not empty (read once, by pw_log_open). */
PW_HIDDEN void pw_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* While buf is not NULL, the first ERROR line the calling thread logs
 * after this call is also copied into buf (without the "[pinwatch] ERROR "
 * prefix, even under log=none): a start from JNI_OnLoad hands it back to
 * Java as pinwatch.status.  pw_log_capture(NULL, 0) ends it.  One capture
 * at a time; other threads' lines are never taken. */
PW_HIDDEN void pw_log_capture(char *buf, size_t size);
/* Reports a failed JVMTI call by the name the JVM gives its error. */
PW_HIDDEN void pw_log_jvmti_error(jvmtiEnv *jvmti, jvmtiError err, const char *what);

#endif
