/* SPDX-License-Identifier: Apache-2.0 */
/* Which functions are wrapped, and why.
 *
 * Global and weak global references: NewGlobalRef, DeleteGlobalRef,
 * NewWeakGlobalRef, DeleteWeakGlobalRef: each made one is live until
 * deleted, on whatever thread.
 *
 * Local references: every JNIEnv function of JDK 17's table that returns a
 * new local reference, since any of them can pile locals up on a thread
 * that never returns to Java: DefineClass, FindClass, ToReflectedMethod,
 * GetSuperclass, ToReflectedField, ExceptionOccurred, NewLocalRef,
 * AllocObject, NewObject(V/A), GetObjectClass, Call(Nonvirtual/Static)
 * ObjectMethod(V/A), Get(Static)ObjectField, NewString(UTF),
 * NewObjectArray, GetObjectArrayElement, New<Type>Array, NewDirectByteBuffer,
 * GetModule and PopLocalFrame's result; DeleteLocalRef and PushLocalFrame /
 * PopLocalFrame for the lifetimes.  Not wrapped: the method and field id
 * getters (ids are not references), EnsureLocalCapacity (capacity only),
 * and functions returning primitives.
 *
 * The variadic functions cannot pass their arguments on from C: the
 * assembler of va_forward.h calls the JVM's variadic function itself, so
 * that -Xcheck:jni names the function the application called; where it
 * cannot, their C wrappers here (pw_va_fallback_) go to the JVM's va_list
 * variant, which is what HotSpot's own variadic entry points do with theirs.
 *
 * These slots lose jni_guard's thunk, so each wrapper checks for an open
 * critical region itself.  The JVM is called only through pw_jni.
 * NewDirectByteBuffer's wrapper gives the JVM its own table for the call
 * (jvm_calls.c). */
#include "intercept/ref_hooks.h"
#include "intercept/hook.h"
#include "base/cpu.h"
#include "jvm/jni_table.h"
#include "intercept/jvm_calls.h"
#include "tracking/refs.h"
#include "tracking/tracker.h"
#include "intercept/va_forward.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

/* refs=: written once by pw_ref_hooks_start, before the JNI table swap. */
static bool enabled;

void
pw_ref_hooks_start(const struct pw_options *o)
{
    enabled = o->refs;
}

/* Any local made but the common one (local_made), done in full.  Returns
 * r, so that local_made jumps here. */
static __attribute__((noinline)) jobject
local_made_other(JNIEnv *env, uint32_t slot, jobject r, void *ret)
{
    struct pw_thread *t = pw_hook_enter(slot, ret);
    if (r != NULL && PW_LIKELY(t != NULL))
        pw_refs_local_made(env, t, slot, r, ret);
    return r;
}

/* The common case tested first (a thread outside any critical region, so
 * no finding to make, and pw_refs_local_made_fast's), calling nothing:
 * anything else starts over in local_made_other. */
static inline __attribute__((always_inline)) jobject
local_made(JNIEnv *env, uint32_t slot, jobject r, void *ret)
{
    struct pw_thread *t = pw_tls_self;
    if (PW_LIKELY(r != NULL && t != NULL && t->critical == 0) && PW_LIKELY(pw_refs_local_made_fast(t, slot, ret)))
        return r;
    return local_made_other(env, slot, r, ret);
}

/* --- global and weak global references ------------------------------- */

static jobject JNICALL
hook_NewGlobalRef(JNIEnv *env, jobject obj)
{
    void *ret = PW_RETURN_ADDRESS();
    jobject r = pw_jni.NewGlobalRef(env, obj);
    struct pw_thread *t = pw_hook_enter(PW_JNI_SLOT(NewGlobalRef), ret);
    if (r != NULL && PW_LIKELY(t != NULL))
        pw_refs_global_made(env, t, PW_KIND_GLOBAL_REF, PW_JNI_SLOT(NewGlobalRef), r, ret);
    return r;
}

static jweak JNICALL
hook_NewWeakGlobalRef(JNIEnv *env, jobject obj)
{
    void *ret = PW_RETURN_ADDRESS();
    jweak r = pw_jni.NewWeakGlobalRef(env, obj);
    struct pw_thread *t = pw_hook_enter(PW_JNI_SLOT(NewWeakGlobalRef), ret);
    if (r != NULL && PW_LIKELY(t != NULL))
        pw_refs_global_made(env, t, PW_KIND_WEAK_REF, PW_JNI_SLOT(NewWeakGlobalRef), r, ret);
    return r;
}

static void
global_deleted(JNIEnv *env, enum pw_kind kind, jobject ref, void *ret, uint32_t slot)
{
    struct pw_thread *t = pw_hook_enter(slot, ret);
    enum pw_ref_delete d = ref != NULL && PW_LIKELY(t != NULL) ? pw_refs_global_deleting(t, kind, ref, ret, slot)
                                                               : PW_REF_DELETE_PASS;
    if (d == PW_REF_DELETE_PASS)
        d = kind == PW_KIND_WEAK_REF ? PW_REF_DELETE_AS_WEAK : PW_REF_DELETE_AS_GLOBAL;
    if (d == PW_REF_DELETE_AS_WEAK)
        pw_jni.DeleteWeakGlobalRef(env, ref);
    else if (d == PW_REF_DELETE_AS_GLOBAL)
        pw_jni.DeleteGlobalRef(env, ref);
}

static void JNICALL
hook_DeleteGlobalRef(JNIEnv *env, jobject ref)
{
    global_deleted(env, PW_KIND_GLOBAL_REF, ref, PW_RETURN_ADDRESS(), PW_JNI_SLOT(DeleteGlobalRef));
}

static void JNICALL
hook_DeleteWeakGlobalRef(JNIEnv *env, jweak ref)
{
    global_deleted(env, PW_KIND_WEAK_REF, ref, PW_RETURN_ADDRESS(), PW_JNI_SLOT(DeleteWeakGlobalRef));
}

/* --- local reference lifetimes --------------------------------------- */

/* Any DeleteLocalRef but the common one, done in full. */
static __attribute__((noinline)) void
local_deleted_other(JNIEnv *env, jobject ref, void *ret)
{
    struct pw_thread *t = pw_hook_enter(PW_JNI_SLOT(DeleteLocalRef), ret);
    if (ref != NULL && PW_LIKELY(t != NULL) && !pw_refs_local_deleted_fast(t) &&
        !pw_refs_local_deleting(t, ref, ret))
        return;
    pw_jni.DeleteLocalRef(env, ref);
}

/* The common delete (inside a native method, outside any critical region)
 * calls nothing before its tail call to the JVM; anything else starts over
 * in local_deleted_other. */
static void JNICALL
hook_DeleteLocalRef(JNIEnv *env, jobject ref)
{
    struct pw_thread *t = pw_tls_self;
    if (PW_LIKELY(ref != NULL && t != NULL && t->critical == 0) && PW_LIKELY(pw_refs_local_deleted_fast(t))) {
        pw_jni.DeleteLocalRef(env, ref);
        return;
    }
    local_deleted_other(env, ref, PW_RETURN_ADDRESS());
}

static jint JNICALL
hook_PushLocalFrame(JNIEnv *env, jint capacity)
{
    void *ret = PW_RETURN_ADDRESS();
    jint rc = pw_jni.PushLocalFrame(env, capacity);
    struct pw_thread *t = pw_hook_enter(PW_JNI_SLOT(PushLocalFrame), ret);
    if (rc == JNI_OK && PW_LIKELY(t != NULL))
        pw_refs_frame_pushed(t);
    return rc;
}

static jobject JNICALL
hook_PopLocalFrame(JNIEnv *env, jobject result)
{
    void *ret = PW_RETURN_ADDRESS();
    struct pw_thread *t = pw_hook_enter(PW_JNI_SLOT(PopLocalFrame), ret);
    /* Before the JVM frees the frame's handles: one of them may come back
     * at once as the result's. */
    if (PW_LIKELY(t != NULL))
        pw_refs_frame_popping(t);
    jobject r = pw_jni.PopLocalFrame(env, result);
    if (r != NULL && PW_LIKELY(t != NULL))
        pw_refs_local_made(env, t, PW_JNI_SLOT(PopLocalFrame), r, ret);
    return r;
}

/* --- functions that return a new local reference --------------------- */

#define RET PW_RETURN_ADDRESS()

_Static_assert(PW_JNI_SLOT(NewObject) == PW_SLOT_NEW_OBJECT, "va_forward.h");
_Static_assert(PW_JNI_SLOT(CallObjectMethod) == PW_SLOT_CALL_OBJECT_METHOD, "va_forward.h");
_Static_assert(PW_JNI_SLOT(CallNonvirtualObjectMethod) == PW_SLOT_CALL_NONVIRTUAL_OBJECT_METHOD, "va_forward.h");
_Static_assert(PW_JNI_SLOT(CallStaticObjectMethod) == PW_SLOT_CALL_STATIC_OBJECT_METHOD, "va_forward.h");

/* A variadic call forwarded by va_forward.S has returned: the return
 * address it kept leaves the shadow frame (the frames are where they were
 * before the call: whatever Java ran in between has returned) and the
 * local reference made is counted, as the C wrappers do. */
struct pw_va_done
pw_va_returned(jobject result, uint32_t slot)
{
    struct pw_thread *t = pw_tls_self;
    void **cell = &t->va_ret[t->depth - 1];
    void *ret = *cell;
    *cell = NULL;
    (void)local_made(t->va_env, slot, result, ret);
    return (struct pw_va_done){result, ret};
}

static jclass JNICALL
hook_DefineClass(JNIEnv *env, const char *name, jobject loader, const jbyte *buf, jsize len)
{
    return local_made(env, PW_JNI_SLOT(DefineClass), pw_jni.DefineClass(env, name, loader, buf, len), RET);
}

static jclass JNICALL
hook_FindClass(JNIEnv *env, const char *name)
{
    return local_made(env, PW_JNI_SLOT(FindClass), pw_jni.FindClass(env, name), RET);
}

static jobject JNICALL
hook_ToReflectedMethod(JNIEnv *env, jclass cls, jmethodID id, jboolean is_static)
{
    return local_made(env, PW_JNI_SLOT(ToReflectedMethod), pw_jni.ToReflectedMethod(env, cls, id, is_static),
                      RET);
}

static jclass JNICALL
hook_GetSuperclass(JNIEnv *env, jclass sub)
{
    return local_made(env, PW_JNI_SLOT(GetSuperclass), pw_jni.GetSuperclass(env, sub), RET);
}

static jobject JNICALL
hook_ToReflectedField(JNIEnv *env, jclass cls, jfieldID id, jboolean is_static)
{
    return local_made(env, PW_JNI_SLOT(ToReflectedField), pw_jni.ToReflectedField(env, cls, id, is_static), RET);
}

static jthrowable JNICALL
hook_ExceptionOccurred(JNIEnv *env)
{
    return local_made(env, PW_JNI_SLOT(ExceptionOccurred), pw_jni.ExceptionOccurred(env), RET);
}

static jobject JNICALL
hook_NewLocalRef(JNIEnv *env, jobject ref)
{
    return local_made(env, PW_JNI_SLOT(NewLocalRef), pw_jni.NewLocalRef(env, ref), RET);
}

static jobject JNICALL
hook_AllocObject(JNIEnv *env, jclass cls)
{
    return local_made(env, PW_JNI_SLOT(AllocObject), pw_jni.AllocObject(env, cls), RET);
}

static jobject JNICALL
hook_NewObjectV(JNIEnv *env, jclass cls, jmethodID id, va_list args)
{
    return local_made(env, PW_JNI_SLOT(NewObjectV), pw_jni.NewObjectV(env, cls, id, args), RET);
}

static jobject JNICALL
hook_NewObjectA(JNIEnv *env, jclass cls, jmethodID id, const jvalue *args)
{
    return local_made(env, PW_JNI_SLOT(NewObjectA), pw_jni.NewObjectA(env, cls, id, args), RET);
}

jobject JNICALL
pw_va_fallback_NewObject(JNIEnv *env, jclass cls, jmethodID id, ...)
{
    va_list ap;
    va_start(ap, id);
    jobject r = pw_jni.NewObjectV(env, cls, id, ap);
    va_end(ap);
    return local_made(env, PW_JNI_SLOT(NewObject), r, RET);
}

static jclass JNICALL
hook_GetObjectClass(JNIEnv *env, jobject obj)
{
    return local_made(env, PW_JNI_SLOT(GetObjectClass), pw_jni.GetObjectClass(env, obj), RET);
}

static jobject JNICALL
hook_CallObjectMethodV(JNIEnv *env, jobject obj, jmethodID id, va_list args)
{
    return local_made(env, PW_JNI_SLOT(CallObjectMethodV), pw_jni.CallObjectMethodV(env, obj, id, args), RET);
}

static jobject JNICALL
hook_CallObjectMethodA(JNIEnv *env, jobject obj, jmethodID id, const jvalue *args)
{
    return local_made(env, PW_JNI_SLOT(CallObjectMethodA), pw_jni.CallObjectMethodA(env, obj, id, args), RET);
}

jobject JNICALL
pw_va_fallback_CallObjectMethod(JNIEnv *env, jobject obj, jmethodID id, ...)
{
    va_list ap;
    va_start(ap, id);
    jobject r = pw_jni.CallObjectMethodV(env, obj, id, ap);
    va_end(ap);
    return local_made(env, PW_JNI_SLOT(CallObjectMethod), r, RET);
}

static jobject JNICALL
hook_CallNonvirtualObjectMethodV(JNIEnv *env, jobject obj, jclass cls, jmethodID id, va_list args)
{
    return local_made(env, PW_JNI_SLOT(CallNonvirtualObjectMethodV),
                      pw_jni.CallNonvirtualObjectMethodV(env, obj, cls, id, args), RET);
}

static jobject JNICALL
hook_CallNonvirtualObjectMethodA(JNIEnv *env, jobject obj, jclass cls, jmethodID id, const jvalue *args)
{
    return local_made(env, PW_JNI_SLOT(CallNonvirtualObjectMethodA),
                      pw_jni.CallNonvirtualObjectMethodA(env, obj, cls, id, args), RET);
}

jobject JNICALL
pw_va_fallback_CallNonvirtualObjectMethod(JNIEnv *env, jobject obj, jclass cls, jmethodID id, ...)
{
    va_list ap;
    va_start(ap, id);
    jobject r = pw_jni.CallNonvirtualObjectMethodV(env, obj, cls, id, ap);
    va_end(ap);
    return local_made(env, PW_JNI_SLOT(CallNonvirtualObjectMethod), r, RET);
}

static jobject JNICALL
hook_GetObjectField(JNIEnv *env, jobject obj, jfieldID id)
{
    return local_made(env, PW_JNI_SLOT(GetObjectField), pw_jni.GetObjectField(env, obj, id), RET);
}

static jobject JNICALL
hook_CallStaticObjectMethodV(JNIEnv *env, jclass cls, jmethodID id, va_list args)
{
    return local_made(env, PW_JNI_SLOT(CallStaticObjectMethodV),
                      pw_jni.CallStaticObjectMethodV(env, cls, id, args), RET);
}

static jobject JNICALL
hook_CallStaticObjectMethodA(JNIEnv *env, jclass cls, jmethodID id, const jvalue *args)
{
    return local_made(env, PW_JNI_SLOT(CallStaticObjectMethodA),
                      pw_jni.CallStaticObjectMethodA(env, cls, id, args), RET);
}

jobject JNICALL
pw_va_fallback_CallStaticObjectMethod(JNIEnv *env, jclass cls, jmethodID id, ...)
{
    va_list ap;
    va_start(ap, id);
    jobject r = pw_jni.CallStaticObjectMethodV(env, cls, id, ap);
    va_end(ap);
    return local_made(env, PW_JNI_SLOT(CallStaticObjectMethod), r, RET);
}

static jobject JNICALL
hook_GetStaticObjectField(JNIEnv *env, jclass cls, jfieldID id)
{
    return local_made(env, PW_JNI_SLOT(GetStaticObjectField), pw_jni.GetStaticObjectField(env, cls, id), RET);
}

static jstring JNICALL
hook_NewString(JNIEnv *env, const jchar *chars, jsize len)
{
    return local_made(env, PW_JNI_SLOT(NewString), pw_jni.NewString(env, chars, len), RET);
}

static jstring JNICALL
hook_NewStringUTF(JNIEnv *env, const char *utf)
{
    return local_made(env, PW_JNI_SLOT(NewStringUTF), pw_jni.NewStringUTF(env, utf), RET);
}

static jobjectArray JNICALL
hook_NewObjectArray(JNIEnv *env, jsize len, jclass cls, jobject init)
{
    return local_made(env, PW_JNI_SLOT(NewObjectArray), pw_jni.NewObjectArray(env, len, cls, init), RET);
}

static jobject JNICALL
hook_GetObjectArrayElement(JNIEnv *env, jobjectArray array, jsize index)
{
    return local_made(env, PW_JNI_SLOT(GetObjectArrayElement), pw_jni.GetObjectArrayElement(env, array, index),
                      RET);
}

#define NEW_ARRAY(Type, jtype) \
    static jtype##Array JNICALL hook_New##Type##Array(JNIEnv *env, jsize len) \
    { \
        return local_made(env, PW_JNI_SLOT(New##Type##Array), pw_jni.New##Type##Array(env, len), RET); \
    }

NEW_ARRAY(Boolean, jboolean)
NEW_ARRAY(Byte, jbyte)
NEW_ARRAY(Char, jchar)
NEW_ARRAY(Short, jshort)
NEW_ARRAY(Int, jint)
NEW_ARRAY(Long, jlong)
NEW_ARRAY(Float, jfloat)
NEW_ARRAY(Double, jdouble)

/* HotSpot makes the buffer with env->NewObject: the JVM's table for the
 * call (jvm_calls.c), or its local would be counted twice and its first
 * call's global references as the application's. */
static jobject JNICALL
hook_NewDirectByteBuffer(JNIEnv *env, void *address, jlong capacity)
{
    const struct JNINativeInterface_ *was = pw_jvm_call_begin(env);
    jobject r = pw_jni.NewDirectByteBuffer(env, address, capacity);
    pw_jvm_call_end(env, was);
    return local_made(env, PW_JNI_SLOT(NewDirectByteBuffer), r, RET);
}

static jobject JNICALL
hook_GetModule(JNIEnv *env, jclass cls)
{
    return local_made(env, PW_JNI_SLOT(GetModule), pw_jni.GetModule(env, cls), RET);
}

bool
pw_ref_hooks_install(struct JNINativeInterface_ *table)
{
    if (!enabled)
        return false;
#define HOOK(name) table->name = hook_##name
    HOOK(NewGlobalRef);
    HOOK(DeleteGlobalRef);
    HOOK(NewWeakGlobalRef);
    HOOK(DeleteWeakGlobalRef);
    HOOK(DeleteLocalRef);
    HOOK(PushLocalFrame);
    HOOK(PopLocalFrame);
    HOOK(DefineClass);
    HOOK(FindClass);
    HOOK(ToReflectedMethod);
    HOOK(GetSuperclass);
    HOOK(ToReflectedField);
    HOOK(ExceptionOccurred);
    HOOK(NewLocalRef);
    HOOK(AllocObject);
    table->NewObject = pw_va_NewObject;
    HOOK(NewObjectV);
    HOOK(NewObjectA);
    HOOK(GetObjectClass);
    table->CallObjectMethod = pw_va_CallObjectMethod;
    HOOK(CallObjectMethodV);
    HOOK(CallObjectMethodA);
    table->CallNonvirtualObjectMethod = pw_va_CallNonvirtualObjectMethod;
    HOOK(CallNonvirtualObjectMethodV);
    HOOK(CallNonvirtualObjectMethodA);
    HOOK(GetObjectField);
    table->CallStaticObjectMethod = pw_va_CallStaticObjectMethod;
    HOOK(CallStaticObjectMethodV);
    HOOK(CallStaticObjectMethodA);
    HOOK(GetStaticObjectField);
    HOOK(NewString);
    HOOK(NewStringUTF);
    HOOK(NewObjectArray);
    HOOK(GetObjectArrayElement);
    HOOK(NewBooleanArray);
    HOOK(NewByteArray);
    HOOK(NewCharArray);
    HOOK(NewShortArray);
    HOOK(NewIntArray);
    HOOK(NewLongArray);
    HOOK(NewFloatArray);
    HOOK(NewDoubleArray);
    HOOK(NewDirectByteBuffer);
    HOOK(GetModule);
#undef HOOK
    return true;
}

/* DetachCurrentThread is in the JavaVM's invoke interface, which HotSpot
 * keeps in read-only memory behind one writable pointer (the JavaVM every
 * caller gets): pinwatch points it at a copy with its own detach. */
static struct JNIInvokeInterface_ invoke_copy;
static jint(JNICALL *real_detach)(JavaVM *vm);
static atomic_bool vm_wrapped;

/* After the JVM's detach, and only when it did detach: HotSpot refuses a
 * thread that still has Java frames, whose locals then live on.  The
 * thread's locals table is its own, so no handle freed meanwhile can be
 * met in it by another thread. */
static jint JNICALL
hook_DetachCurrentThread(JavaVM *vm)
{
    jint rc = real_detach(vm);
    struct pw_thread *t = pw_tls_self;
    if (rc == JNI_OK && t != NULL)
        pw_refs_thread_detached(t);
    return rc;
}

void
pw_ref_hooks_install_vm(JavaVM *vm)
{
    if (!enabled || vm == NULL || *vm == NULL || atomic_exchange(&vm_wrapped, true))
        return;
    invoke_copy = **vm;
    real_detach = invoke_copy.DetachCurrentThread;
    invoke_copy.DetachCurrentThread = hook_DetachCurrentThread;
    __atomic_store_n(vm, (const struct JNIInvokeInterface_ *)&invoke_copy, __ATOMIC_RELEASE);
}
