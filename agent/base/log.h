/* One prefix for every line pinwatch prints on the JVM's stderr, so that a
 * user can grep it out of application output. */
#ifndef PW_LOG_H
#define PW_LOG_H

#include "pinwatch.h"

PW_HIDDEN void pw_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PW_HIDDEN void pw_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PW_HIDDEN void pw_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reports a failed JVMTI call by the name the JVM gives its error. */
PW_HIDDEN void pw_log_jvmti_error(jvmtiEnv *jvmti, jvmtiError err, const char *what);

#endif
