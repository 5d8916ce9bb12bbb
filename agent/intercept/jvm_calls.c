/* SPDX-License-Identifier: Apache-2.0 */
/* The JNI functions HotSpot implements through the JNI function table.
 *
 * HotSpot's JNIEnv is the thread's own struct, whose `functions` points at
 * the JVM's one table, the table pinwatch filled with its wrappers.  A JNI
 * function that the JVM implements in C++ with `env->X(...)` therefore
 * comes back into pinwatch's wrapper of X, and what the JVM did inside the
 * application's call used to be counted as the application's own calls.
 * Read in src/hotspot/share/prims/jni.cpp of jdk17u (299a1436),
 * jdk21u-dev (6de8efe8) and a jdk25u tree (3e584f11); the three agree:
 *
 *   jni_NewDirectByteBuffer        env->NewObject (NewObjectV in the
 *                                  table: one local reference per call)
 *   jni_GetDirectBufferAddress     env->IsInstanceOf, env->GetLongField
 *   jni_GetDirectBufferCapacity    env->IsInstanceOf, env->GetIntField
 *   initializeDirectBufferSupport  on the first call of any of the three:
 *                                  env->NewGlobalRef three times (global
 *                                  references kept for the JVM's life),
 *                                  env->GetMethodID, env->GetFieldID twice,
 *                                  env->ExceptionCheck three times and
 *                                  env->ExceptionClear on failure
 *   (lookupDirectBufferClasses finds its classes with
 *   find_class_from_class_loader, not through the table.)
 *
 * No other function of jni.cpp calls through the env: the pin and string
 * functions (Get/Release<Type>ArrayElements, Get/ReleasePrimitiveArray-
 * Critical, GetString(UTF)Chars, GetStringCritical and their releases,
 * GetString(UTF)Region, GetString(UTF)Length, JDK 24's
 * GetStringUTFLengthAsLong), the reference functions, GetObjectRefType,
 * IsVirtualThread, GetModule and the Call and field functions work on
 * handles and oops directly.  The calls into Java they make (constructors,
 * class loading) can run Java native methods, whose JNI calls are their
 * own and counted as theirs.
 *
 * Each wrapper points the thread's JNIEnv at the JVM's own table for the
 * length of the real call (jvm_calls.h), so the JVM's inner calls bypass
 * every wrapper and guard; the wrappers of all other functions are left as
 * they were, so nothing is added to them.  Sound because: the env is the
 * calling thread's alone (JavaThread::_jni_environment), and HotSpot
 * changes a thread's env->functions only when the thread is made;
 * JVMTI SetJNIFunctionTable and -Xcheck:jni's table stay in the JVM's table
 * (copy_jni_function_table stores into jni_functions() slot by slot, at a
 * safepoint), which the env is pointed back at afterwards; the table the
 * env points at meanwhile has every slot of the JVM's (pw_jni_whole), and
 * under -Xcheck:jni it is the checked one, as the env had before pinwatch
 * came; a JNI function returns normally (a pending exception is a flag on
 * the thread, not an unwind), so the table is always put back.  What runs
 * on the thread inside such a call (the DirectByteBuffer constructor, a
 * JVMTI callback of another agent) also sees the JVM's table: it is the
 * JVM's doing, not the application's. */
#include "intercept/jvm_calls.h"
#include "intercept/hook.h"
#include "base/cpu.h"
#include "state/thread_state.h"

#include <stddef.h>

/* These slots lose jni_guard's thunk: the check that they are not called
 * inside a critical region is made here.  A thread without state of
 * pinwatch's holds no region, and none is made for it here. */
static inline void
entered(uint32_t slot, void *ret)
{
    pw_hook_check(pw_tls_self, slot, ret);
}

static void *JNICALL
hook_GetDirectBufferAddress(JNIEnv *env, jobject buf)
{
    entered(PW_JNI_SLOT(GetDirectBufferAddress), PW_RETURN_ADDRESS());
    const struct JNINativeInterface_ *was = pw_jvm_call_begin(env);
    void *p = pw_jni.GetDirectBufferAddress(env, buf);
    pw_jvm_call_end(env, was);
    return p;
}

static jlong JNICALL
hook_GetDirectBufferCapacity(JNIEnv *env, jobject buf)
{
    entered(PW_JNI_SLOT(GetDirectBufferCapacity), PW_RETURN_ADDRESS());
    const struct JNINativeInterface_ *was = pw_jvm_call_begin(env);
    jlong n = pw_jni.GetDirectBufferCapacity(env, buf);
    pw_jvm_call_end(env, was);
    return n;
}

/* With refs=off; otherwise ref_hooks.c's, which also counts the local. */
static jobject JNICALL
hook_NewDirectByteBuffer(JNIEnv *env, void *address, jlong capacity)
{
    entered(PW_JNI_SLOT(NewDirectByteBuffer), PW_RETURN_ADDRESS());
    const struct JNINativeInterface_ *was = pw_jvm_call_begin(env);
    jobject r = pw_jni.NewDirectByteBuffer(env, address, capacity);
    pw_jvm_call_end(env, was);
    return r;
}

void
pw_jvm_calls_install(struct JNINativeInterface_ *table, bool refs_hooked)
{
    table->GetDirectBufferAddress = hook_GetDirectBufferAddress;
    table->GetDirectBufferCapacity = hook_GetDirectBufferCapacity;
    if (!refs_hooked)
        table->NewDirectByteBuffer = hook_NewDirectByteBuffer;
}
