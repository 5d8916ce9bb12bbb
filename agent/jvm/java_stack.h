/* SPDX-License-Identifier: Apache-2.0 */
/* The Java frames above a native method (who called evalStep), captured
 * through JVMTI once per site: a stack query costs about a microsecond, so
 * it is never made for an acquisition at a known site. */
#ifndef PW_JAVA_STACK_H
#define PW_JAVA_STACK_H

#include "base/pinwatch.h"

struct pw_java_frame {
    char *method;    /* "pkg.Cls.name" */
    char *signature; /* "(J[J)[J" */
    int line;        /* -1 when unknown (no line table, native) */
};

struct pw_java_stack {
    int n;
    struct pw_java_frame frames[]; /* innermost (the native method's caller) first */
};

/* Java frames of the calling thread, skipping the native method itself;
 * NULL when there are none or the JVM cannot say. */
PW_HIDDEN struct pw_java_stack *pw_java_stack_capture(jvmtiEnv *jvmti, JNIEnv *env, int max);
PW_HIDDEN void pw_java_stack_free(struct pw_java_stack *s);

#endif
