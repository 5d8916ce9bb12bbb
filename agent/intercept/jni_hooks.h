/* SPDX-License-Identifier: Apache-2.0 */
/* The JNI function table swap: the twelve Get/Release pairs go through
 * pinwatch's wrappers, everything else is left as the JVM had it. */
#ifndef PW_JNI_HOOKS_H
#define PW_JNI_HOOKS_H

#include "base/pinwatch.h"

/* checked: the JVM runs with -Xcheck:jni.  Before the JNI table swap. */
PW_HIDDEN void pw_jni_hooks_start(bool checked);

/* Installs the wrappers once per process; a second call (the library loaded
 * again) returns true without wrapping the wrappers: GetJNIFunctionTable
 * returns the table as last set, "the modified (not the original)"
 * (src/hotspot/share/prims/jvmti.xml), so a second swap would make every
 * wrapper call itself.  The swap is seen by all threads at once: JvmtiEnv::
 * SetJNIFunctionTable (prims/jvmtiEnv.cpp) copies the table at a safepoint
 * (VM_JNIFunctionTableCopier), one pointer at a time (prims/jni.cpp
 * copy_jni_function_table).  The calling thread must be attached to vm,
 * which is asked its JNI version (and so the size of its table). */
PW_HIDDEN bool pw_jni_hooks_install(jvmtiEnv *jvmti, JavaVM *vm);

#endif
