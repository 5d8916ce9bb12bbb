/* SPDX-License-Identifier: Apache-2.0 */
/* JNI functions that HotSpot implements by calling JNI functions itself,
 * through the caller's JNIEnv (jvm_calls.c lists them): for the length of
 * such a call the thread's JNIEnv points at the JVM's own table, so that
 * what the JVM does inside reaches the JVM directly and none of it is
 * counted against the application. */
#ifndef PW_JVM_CALLS_H
#define PW_JVM_CALLS_H

#include "jvm/jni_table.h"

/* Points this thread's JNIEnv at the JVM's table (the whole of it, every
 * slot the JVM has) and returns the table to put back.  A JNIEnv belongs
 * to one thread and HotSpot reads env->functions only through the calls
 * made with it; SetJNIFunctionTable copies into the JVM's table and never
 * repoints an env.  Leaves the env alone when the JVM's table length is
 * not known. */
static inline const struct JNINativeInterface_ *
pw_jvm_call_begin(JNIEnv *env)
{
    const struct JNINativeInterface_ *was = *env;
    const struct JNINativeInterface_ *own = pw_jni_whole;
    if (own != NULL)
        *env = own;
    return was;
}

static inline void
pw_jvm_call_end(JNIEnv *env, const struct JNINativeInterface_ *was)
{
    *env = was;
}

/* Stores the wrappers of the functions that call back into the table
 * (after the pin and reference hooks: NewDirectByteBuffer is the reference
 * hooks' when refs_hooked, pw_ref_hooks_install having put them in). */
PW_HIDDEN void pw_jvm_calls_install(struct JNINativeInterface_ *table, bool refs_hooked);

#endif
