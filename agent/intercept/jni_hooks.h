/* The JNI function table swap: the twelve Get/Release pairs go through
 * pinwatch's wrappers, everything else is left as the JVM had it. */
#ifndef PW_JNI_HOOKS_H
#define PW_JNI_HOOKS_H

#include "pinwatch.h"

/* Installs the wrappers once per process; a second call (the library loaded
 * again) returns true without wrapping the wrappers. */
PW_HIDDEN bool pw_jni_hooks_install(jvmtiEnv *jvmti);

#endif
