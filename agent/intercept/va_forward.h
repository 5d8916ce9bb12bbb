/* SPDX-License-Identifier: Apache-2.0 */
/* The variadic JNI functions pinwatch wraps (NewObject and the three
 * Call...ObjectMethod) passed on to the JVM's variadic function of the same
 * name, not to its va_list variant: -Xcheck:jni names the function a
 * warning is about ("... when required to from CallStaticObjectMethod"),
 * and C cannot pass "..." on.  va_forward_<arch>.S keeps the caller's
 * return address in the thread's state (va_ret of the invocation's shadow
 * frame), calls the JVM's function with the arguments untouched, and then
 * has pw_va_returned count the local reference it made.  Where that cannot
 * be done (no shadow frame: a natively attached thread; the frame's slot
 * already in use: a method bound before a late attach, nested) the
 * pw_va_fallback_ wrapper in C goes through the va_list variant as before. */
#ifndef PW_VA_FORWARD_H
#define PW_VA_FORWARD_H

#include "state/frame_layout.h"

/* Slots of the JNI function table (checked against jni.h in ref_hooks.c). */
#define PW_SLOT_NEW_OBJECT 28
#define PW_SLOT_CALL_OBJECT_METHOD 34
#define PW_SLOT_CALL_NONVIRTUAL_OBJECT_METHOD 64
#define PW_SLOT_CALL_STATIC_OBJECT_METHOD 114

#ifndef __ASSEMBLER__
#include "base/pinwatch.h"

/* Returned in rax:rdx to the assembler: the JVM's result, and where to
 * return. */
struct pw_va_done {
    jobject result;
    void *ret;
};
PW_HIDDEN struct pw_va_done pw_va_returned(jobject result, uint32_t slot);

PW_HIDDEN jobject JNICALL pw_va_NewObject(JNIEnv *env, jclass cls, jmethodID id, ...);
PW_HIDDEN jobject JNICALL pw_va_CallObjectMethod(JNIEnv *env, jobject obj, jmethodID id, ...);
PW_HIDDEN jobject JNICALL pw_va_CallNonvirtualObjectMethod(JNIEnv *env, jobject obj, jclass cls, jmethodID id,
                                                           ...);
PW_HIDDEN jobject JNICALL pw_va_CallStaticObjectMethod(JNIEnv *env, jclass cls, jmethodID id, ...);

PW_HIDDEN jobject JNICALL pw_va_fallback_NewObject(JNIEnv *env, jclass cls, jmethodID id, ...);
PW_HIDDEN jobject JNICALL pw_va_fallback_CallObjectMethod(JNIEnv *env, jobject obj, jmethodID id, ...);
PW_HIDDEN jobject JNICALL pw_va_fallback_CallNonvirtualObjectMethod(JNIEnv *env, jobject obj, jclass cls,
                                                                    jmethodID id, ...);
PW_HIDDEN jobject JNICALL pw_va_fallback_CallStaticObjectMethod(JNIEnv *env, jclass cls, jmethodID id, ...);
#endif

#endif
