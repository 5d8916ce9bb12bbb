/* SPDX-License-Identifier: Apache-2.0 */
/* The JVM's JNI function table: the functions as the JVM had them before
 * pinwatch's wrappers, the name of each slot, and how many slots the
 * running JVM's table has.  JDK 17's jni.h, which the agent is compiled
 * against, describes only the first 234; later JDKs append
 * (IsVirtualThread in JNI 21, GetStringUTFLengthAsLong in JNI 24). */
#ifndef PW_JNI_TABLE_H
#define PW_JNI_TABLE_H

/* Slots pinwatch can name and guard: the newest JNI version's table
 * (jni_function_names.h names them).  A plain number: the guard thunks'
 * assembler (jni_guard_<arch>.S) stamps one thunk per slot with it. */
#define PW_JNI_SLOTS 236

#ifndef __ASSEMBLER__
#include "base/pinwatch.h"

#include <stddef.h>

/* The slot of a JNI function in the table, by its member name. */
#define PW_JNI_SLOT(name) ((uint32_t)(offsetof(struct JNINativeInterface_, name) / sizeof(void *)))

/* The table as it was before us: HotSpot's functions, or its checked ones
 * under -Xcheck:jni.  The agent's own JNI calls go through it and never
 * through a JNIEnv, which would come back into the wrappers.  Filled once,
 * before the wrappers are installed; read-only afterwards. */
PW_HIDDEN extern struct JNINativeInterface_ pw_jni;

/* Keeps the first slots of the JVM's table (no more than it has, no more
 * than pw_jni holds).  whole says that slots is the JVM's own slot count,
 * not a guess: only then is pw_jni_whole set. */
PW_HIDDEN void pw_jni_table_save(const void *table, uint32_t slots, bool whole);

/* The same table with every slot the JVM's has (JDK 21's IsVirtualThread,
 * JDK 24's GetStringUTFLengthAsLong too, which pw_jni, of JDK 17's jni.h,
 * lacks): a table a JNIEnv may point at, since anything the thread runs
 * meanwhile may call any slot the JVM has through it.  NULL when the JVM's
 * slot count is not known (a JNI version newer than PW_JNI_SLOTS'). */
PW_HIDDEN extern const struct JNINativeInterface_ *pw_jni_whole;

/* For the length of a call into the JVM that calls JNI functions itself
 * through the caller's JNIEnv (intercept/jvm_calls.c lists the JNI ones;
 * JVMTI's AddToSystemClassLoaderSearch makes its path a String through
 * libjava's JNU_NewStringPlatform and frees the local without the table):
 * points this thread's JNIEnv at the JVM's own table, so that what the JVM
 * does inside reaches it directly and none of it is counted against the
 * application.  Returns the table to put back.  A JNIEnv belongs to one
 * thread and HotSpot reads env->functions only through the calls made with
 * it; SetJNIFunctionTable copies into the JVM's table and never repoints an
 * env.  Leaves the env alone when the JVM's table length is not known. */
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

/* "GetObjectClass" for a slot of the JNI function table, "?" past the
 * known ones. */
PW_HIDDEN const char *pw_jni_slot_name(uint32_t slot);

/* "ReleaseIntArrayElements" for a pin's acquire function (an enum
 * pw_function), the name of the family's release; "?" for any other. */
PW_HIDDEN const char *pw_release_name(uint32_t fn);

/* The newest JNI version the JVM implements, asked through GetEnv (which
 * accepts exactly those); 0 when the calling thread is not attached.
 * Makes no JNI call: under -Xcheck:jni even GetVersion, made at VMStart,
 * has the checker warn about the local references of JVM start-up. */
PW_HIDDEN jint pw_jni_version(JavaVM *vm);

/* Slots in the table of a JVM whose GetVersion returns version; 0 for a
 * version older than JNI 1.6.  A version newer than every known one gets
 * the newest known table, which its own can only extend; *newest_known,
 * when not NULL, says whether version is not past the newest known. */
PW_HIDDEN uint32_t pw_jni_table_slots(jint version, bool *newest_known);

#endif /* __ASSEMBLER__ */

#endif
