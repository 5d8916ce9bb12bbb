#include "jni_hooks.h"
#include "log.h"
#include "tracker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* The table as it was before us: HotSpot's functions, or its checked ones
 * under -Xcheck:jni.  Wrappers call through it and never through the env,
 * which would come back into the wrappers. */
static struct JNINativeInterface_ real;

static const char *const function_names[PW_FN_COUNT] = {
    [PW_FN_BOOLEAN_ELEMENTS] = "GetBooleanArrayElements",
    [PW_FN_BYTE_ELEMENTS] = "GetByteArrayElements",
    [PW_FN_CHAR_ELEMENTS] = "GetCharArrayElements",
    [PW_FN_SHORT_ELEMENTS] = "GetShortArrayElements",
    [PW_FN_INT_ELEMENTS] = "GetIntArrayElements",
    [PW_FN_LONG_ELEMENTS] = "GetLongArrayElements",
    [PW_FN_FLOAT_ELEMENTS] = "GetFloatArrayElements",
    [PW_FN_DOUBLE_ELEMENTS] = "GetDoubleArrayElements",
    [PW_FN_ARRAY_CRITICAL] = "GetPrimitiveArrayCritical",
    [PW_FN_STRING_CHARS] = "GetStringChars",
    [PW_FN_STRING_UTF_CHARS] = "GetStringUTFChars",
    [PW_FN_STRING_CRITICAL] = "GetStringCritical",
};

const char *
pw_function_name(enum pw_function fn)
{
    return (unsigned)fn < PW_FN_COUNT ? function_names[fn] : "?";
}

/* Array lengths are asked for outside critical regions only: no JNI call is
 * allowed inside one, and -Xcheck:jni says so.  A pin taken while the
 * thread already holds a critical is recorded with size 0. */
static uint64_t
array_bytes(JNIEnv *env, struct pw_thread *t, jarray array, unsigned elem_size)
{
    if (t->critical != 0 || array == NULL)
        return 0;
    jsize len = real.GetArrayLength(env, array);
    return len > 0 ? (uint64_t)len * elem_size : 0;
}

static void
acquired_elements(JNIEnv *env, enum pw_function fn, void *ret, const void *p, jarray array, unsigned elem_size)
{
    struct pw_thread *t = pw_thread_self();
    if (PW_UNLIKELY(t == NULL))
        return;
    uint32_t site = pw_track_site(env, t, fn, ret);
    pw_track_acquire(t, site, p, array_bytes(env, t, array, elem_size));
}

static void
released(const void *p, jint mode)
{
    struct pw_thread *t = pw_thread_self();
    if (PW_LIKELY(t != NULL))
        pw_track_release(t, p, mode);
}

#define ELEMENTS_HOOKS(Type, jtype, FN)                                                                \
    static jtype *JNICALL hook_Get##Type##ArrayElements(JNIEnv *env, jtype##Array array,             \
                                                         jboolean *is_copy)                            \
    {                                                                                                  \
        void *ret = __builtin_return_address(0);                                                       \
        jtype *p = real.Get##Type##ArrayElements(env, array, is_copy);                                 \
        if (p != NULL)                                                                                 \
            acquired_elements(env, FN, ret, p, array, sizeof(jtype));                                  \
        return p;                                                                                      \
    }                                                                                                  \
    static void JNICALL hook_Release##Type##ArrayElements(JNIEnv *env, jtype##Array array, jtype *elems, \
                                                          jint mode)                                   \
    {                                                                                                  \
        released(elems, mode);                                                                         \
        real.Release##Type##ArrayElements(env, array, elems, mode);                                    \
    }

ELEMENTS_HOOKS(Boolean, jboolean, PW_FN_BOOLEAN_ELEMENTS)
ELEMENTS_HOOKS(Byte, jbyte, PW_FN_BYTE_ELEMENTS)
ELEMENTS_HOOKS(Char, jchar, PW_FN_CHAR_ELEMENTS)
ELEMENTS_HOOKS(Short, jshort, PW_FN_SHORT_ELEMENTS)
ELEMENTS_HOOKS(Int, jint, PW_FN_INT_ELEMENTS)
ELEMENTS_HOOKS(Long, jlong, PW_FN_LONG_ELEMENTS)
ELEMENTS_HOOKS(Float, jfloat, PW_FN_FLOAT_ELEMENTS)
ELEMENTS_HOOKS(Double, jdouble, PW_FN_DOUBLE_ELEMENTS)

/* GetPrimitiveArrayCritical does not say what type the array is.  The
 * element size is learned once per site from the array's class, before the
 * critical region opens. */
static pthread_mutex_t classes_lock = PTHREAD_MUTEX_INITIALIZER;
static jclass array_classes[8];
static const char *const array_class_names[8] = {"[Z", "[B", "[C", "[S", "[I", "[J", "[F", "[D"};
static const unsigned array_elem_sizes[8] = {1, 1, 2, 2, 4, 8, 4, 8};

static unsigned
learn_elem_size(JNIEnv *env, jarray array)
{
    unsigned size = 0;
    jclass klass = real.GetObjectClass(env, array);
    if (klass == NULL)
        return 0;
    pthread_mutex_lock(&classes_lock);
    for (int i = 0; i < 8 && size == 0; i++) {
        if (array_classes[i] == NULL) {
            jclass local = real.FindClass(env, array_class_names[i]);
            if (local == NULL) {
                real.ExceptionClear(env);
                continue;
            }
            array_classes[i] = real.NewGlobalRef(env, local);
            real.DeleteLocalRef(env, local);
        }
        if (array_classes[i] != NULL && real.IsSameObject(env, klass, array_classes[i]))
            size = array_elem_sizes[i];
    }
    pthread_mutex_unlock(&classes_lock);
    real.DeleteLocalRef(env, klass);
    return size;
}

static void *JNICALL
hook_GetPrimitiveArrayCritical(JNIEnv *env, jarray array, jboolean *is_copy)
{
    void *ret = __builtin_return_address(0);
    struct pw_thread *t = pw_thread_self();
    if (PW_UNLIKELY(t == NULL))
        return real.GetPrimitiveArrayCritical(env, array, is_copy);
    uint32_t site = pw_track_site(env, t, PW_FN_ARRAY_CRITICAL, ret);
    uint64_t size = 0;
    if (t->critical == 0 && array != NULL) {
        struct pw_site *s = pw_site_get(site);
        unsigned elem = atomic_load_explicit(&s->elem_size, memory_order_relaxed);
        if (PW_UNLIKELY(elem == 0)) {
            elem = learn_elem_size(env, array);
            atomic_store_explicit(&s->elem_size, elem, memory_order_relaxed);
        }
        size = array_bytes(env, t, array, elem);
    }
    void *p = real.GetPrimitiveArrayCritical(env, array, is_copy);
    if (p != NULL) {
        t->critical++;
        pw_track_acquire(t, site, p, size);
    }
    return p;
}

static void JNICALL
hook_ReleasePrimitiveArrayCritical(JNIEnv *env, jarray array, void *carray, jint mode)
{
    struct pw_thread *t = pw_thread_self();
    if (PW_LIKELY(t != NULL)) {
        pw_track_release(t, carray, mode);
        if (mode != JNI_COMMIT && t->critical > 0)
            t->critical--;
    }
    real.ReleasePrimitiveArrayCritical(env, array, carray, mode);
}

static const jchar *JNICALL
hook_GetStringChars(JNIEnv *env, jstring string, jboolean *is_copy)
{
    void *ret = __builtin_return_address(0);
    const jchar *p = real.GetStringChars(env, string, is_copy);
    struct pw_thread *t;
    if (p != NULL && (t = pw_thread_self()) != NULL) {
        uint32_t site = pw_track_site(env, t, PW_FN_STRING_CHARS, ret);
        uint64_t size = t->critical == 0 ? (uint64_t)real.GetStringLength(env, string) * 2 : 0;
        pw_track_acquire(t, site, p, size);
    }
    return p;
}

static void JNICALL
hook_ReleaseStringChars(JNIEnv *env, jstring string, const jchar *chars)
{
    released(chars, 0);
    real.ReleaseStringChars(env, string, chars);
}

static const char *JNICALL
hook_GetStringUTFChars(JNIEnv *env, jstring string, jboolean *is_copy)
{
    void *ret = __builtin_return_address(0);
    const char *p = real.GetStringUTFChars(env, string, is_copy);
    struct pw_thread *t;
    if (p != NULL && (t = pw_thread_self()) != NULL) {
        uint32_t site = pw_track_site(env, t, PW_FN_STRING_UTF_CHARS, ret);
        pw_track_acquire(t, site, p, strlen(p) + 1);
    }
    return p;
}

static void JNICALL
hook_ReleaseStringUTFChars(JNIEnv *env, jstring string, const char *utf)
{
    released(utf, 0);
    real.ReleaseStringUTFChars(env, string, utf);
}

static const jchar *JNICALL
hook_GetStringCritical(JNIEnv *env, jstring string, jboolean *is_copy)
{
    void *ret = __builtin_return_address(0);
    struct pw_thread *t = pw_thread_self();
    if (PW_UNLIKELY(t == NULL))
        return real.GetStringCritical(env, string, is_copy);
    uint32_t site = pw_track_site(env, t, PW_FN_STRING_CRITICAL, ret);
    uint64_t size = t->critical == 0 && string != NULL ? (uint64_t)real.GetStringLength(env, string) * 2 : 0;
    const jchar *p = real.GetStringCritical(env, string, is_copy);
    if (p != NULL) {
        t->critical++;
        pw_track_acquire(t, site, p, size);
    }
    return p;
}

static void JNICALL
hook_ReleaseStringCritical(JNIEnv *env, jstring string, const jchar *chars)
{
    struct pw_thread *t = pw_thread_self();
    if (PW_LIKELY(t != NULL)) {
        pw_track_release(t, chars, 0);
        if (t->critical > 0)
            t->critical--;
    }
    real.ReleaseStringCritical(env, string, chars);
}

static atomic_bool installed;

const struct JNINativeInterface_ *
pw_jni_real(void)
{
    return &real;
}

bool
pw_jni_hooks_install(jvmtiEnv *jvmti)
{
    if (atomic_exchange(&installed, true))
        return true;
    jniNativeInterface *table = NULL;
    jvmtiError err = (*jvmti)->GetJNIFunctionTable(jvmti, &table);
    if (err != JVMTI_ERROR_NONE) {
        pw_log_jvmti_error(jvmti, err, "GetJNIFunctionTable");
        atomic_store(&installed, false);
        return false;
    }
    memcpy(&real, table, sizeof(real));
#define HOOK(name) table->name = hook_##name
    HOOK(GetBooleanArrayElements);
    HOOK(ReleaseBooleanArrayElements);
    HOOK(GetByteArrayElements);
    HOOK(ReleaseByteArrayElements);
    HOOK(GetCharArrayElements);
    HOOK(ReleaseCharArrayElements);
    HOOK(GetShortArrayElements);
    HOOK(ReleaseShortArrayElements);
    HOOK(GetIntArrayElements);
    HOOK(ReleaseIntArrayElements);
    HOOK(GetLongArrayElements);
    HOOK(ReleaseLongArrayElements);
    HOOK(GetFloatArrayElements);
    HOOK(ReleaseFloatArrayElements);
    HOOK(GetDoubleArrayElements);
    HOOK(ReleaseDoubleArrayElements);
    HOOK(GetPrimitiveArrayCritical);
    HOOK(ReleasePrimitiveArrayCritical);
    HOOK(GetStringChars);
    HOOK(ReleaseStringChars);
    HOOK(GetStringUTFChars);
    HOOK(ReleaseStringUTFChars);
    HOOK(GetStringCritical);
    HOOK(ReleaseStringCritical);
#undef HOOK
    err = (*jvmti)->SetJNIFunctionTable(jvmti, table);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
    if (err != JVMTI_ERROR_NONE) {
        pw_log_jvmti_error(jvmti, err, "SetJNIFunctionTable");
        atomic_store(&installed, false);
        return false;
    }
    return true;
}
