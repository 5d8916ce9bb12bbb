/* The JNI function table as the JVM had it before pinwatch's wrappers:
 * HotSpot's functions, or its checked ones under -Xcheck:jni (src/hotspot/
 * share/prims/jni.cpp jni_functions() returns jni_functions_check() when
 * CheckJNICalls is set), so the checker still sees the application's calls.  The agent's
 * own JNI calls go through it and never through a JNIEnv, which would come
 * back into the wrappers. */
#ifndef PW_JNI_TABLE_H
#define PW_JNI_TABLE_H

#include "pinwatch.h"

/* Filled once, before the wrappers are installed; read-only afterwards. */
PW_HIDDEN extern struct JNINativeInterface_ pw_jni;

PW_HIDDEN void pw_jni_table_save(const struct JNINativeInterface_ *table);

static inline const struct JNINativeInterface_ *
pw_jni_real(void)
{
    return &pw_jni;
}

#endif
