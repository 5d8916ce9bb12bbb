/* SPDX-License-Identifier: Apache-2.0 */
/* JNI functions that HotSpot implements by calling JNI functions itself,
 * through the caller's JNIEnv (jvm_calls.c lists them). */
#ifndef PW_JVM_CALLS_H
#define PW_JVM_CALLS_H

#include "jvm/jni_table.h"

/* pw_jvm_call_begin and pw_jvm_call_end (jvm/jni_table.h) put the JVM's
 * own table on the env for the length of each. */

/* Stores the wrappers of the functions that call back into the table
 * (after the pin and reference hooks: NewDirectByteBuffer is the reference
 * hooks' when refs_hooked, pw_ref_hooks_install having put them in). */
PW_HIDDEN void pw_jvm_calls_install(struct JNINativeInterface_ *table, bool refs_hooked);

#endif
