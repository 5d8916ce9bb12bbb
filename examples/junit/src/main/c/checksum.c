/* SPDX-License-Identifier: Apache-2.0 */
/* The native side of com.example.Checksum: sumLeaky forgets to release the
 * array it summed; sumFixed is the same code with the release. */
#include <jni.h>

#define EXPORT(ret, name, ...) \
    JNIEXPORT ret JNICALL name(__VA_ARGS__); \
    JNIEXPORT ret JNICALL name(__VA_ARGS__)

static jlong
sum(const jlong *v, jsize n)
{
    jlong s = 0;
    for (jsize i = 0; i < n; i++)
        s += v[i];
    return s;
}

EXPORT(jlong, Java_com_example_Checksum_sumLeaky, JNIEnv *env, jclass cls, jlongArray a)
{
    (void)cls;
    jlong *v = (*env)->GetLongArrayElements(env, a, NULL);
    if (v == NULL)
        return 0;
    return sum(v, (*env)->GetArrayLength(env, a)); /* the bug: no Release */
}

EXPORT(jlong, Java_com_example_Checksum_sumFixed, JNIEnv *env, jclass cls, jlongArray a)
{
    (void)cls;
    jsize n = (*env)->GetArrayLength(env, a);
    jlong *v = (*env)->GetLongArrayElements(env, a, NULL);
    if (v == NULL)
        return 0;
    jlong s = sum(v, n);
    (*env)->ReleaseLongArrayElements(env, a, v, JNI_ABORT);
    return s;
}

EXPORT(jlong, Java_com_example_Checksum_sumWhile, JNIEnv *env, jclass cls, jlongArray a, jobject run)
{
    (void)cls;
    jsize n = (*env)->GetArrayLength(env, a);
    jlong *v = (*env)->GetLongArrayElements(env, a, NULL);
    if (v == NULL)
        return 0;
    jclass runnable = (*env)->GetObjectClass(env, run);
    jmethodID method = (*env)->GetMethodID(env, runnable, "run", "()V");
    if (method != NULL)
        (*env)->CallVoidMethod(env, run, method);
    jlong s = sum(v, n);
    (*env)->ReleaseLongArrayElements(env, a, v, JNI_ABORT);
    return s;
}

/* The last reference kept, so that NewGlobalRef is not a tail call:
 * volatile, or the compiler drops the store of a static nobody reads and
 * the call becomes a jump (keepGlobal below is that case). */
static jobject volatile remembered;

EXPORT(void, Java_com_example_Checksum_remember, JNIEnv *env, jclass cls, jobject o)
{
    (void)cls;
    remembered = (*env)->NewGlobalRef(env, o); /* never deleted */
}

/* The same leak written as a tail call: at -O2 the NewGlobalRef is a jump,
 * so it returns straight to the method's caller (reported as a tail call). */
EXPORT(jobject, Java_com_example_Checksum_keepGlobal, JNIEnv *env, jclass cls, jobject o)
{
    (void)cls;
    return (*env)->NewGlobalRef(env, o); /* never deleted */
}
