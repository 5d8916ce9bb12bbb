/* The JNI function table swap: the twelve Get/Release pairs go through
 * pinwatch's wrappers, everything else is left as the JVM had it. */
#ifndef PW_JNI_HOOKS_H
#define PW_JNI_HOOKS_H

#include "pinwatch.h"

/* Installs the wrappers once per process; a second call (the library loaded
 * again) returns true without wrapping the wrappers.  The calling thread
 * must be attached to vm, which is asked its JNI version (and so the size
 * of its table). */
PW_HIDDEN bool pw_jni_hooks_install(jvmtiEnv *jvmti, JavaVM *vm);

/* The functions as the JVM had them, for the agent's own JNI calls: they
 * never come back into the wrappers.  Valid once installed. */
PW_HIDDEN const struct JNINativeInterface_ *pw_jni_real(void);

#endif
