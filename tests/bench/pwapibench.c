/* SPDX-License-Identifier: Apache-2.0 */
/* The Java API benchmark's natives (api_bench.py): one function bound to
 * the generated class's many native methods, so that each method is rows
 * of its own, and a long[4] pair loop for the hot path with and without
 * the API's jar. */
#include <jni.h>
#include <stdio.h>

#define EXPORT(ret, name, ...) \
    JNIEXPORT ret JNICALL name(__VA_ARGS__); \
    JNIEXPORT ret JNICALL name(__VA_ARGS__)

/* Four pins, never released: four rows for the method it is bound to. */
static void JNICALL
leak4(JNIEnv *env, jclass cls, jlongArray l, jintArray i, jbyteArray b, jfloatArray f)
{
    (void)cls;
    (void)(*env)->GetLongArrayElements(env, l, NULL);
    (void)(*env)->GetIntArrayElements(env, i, NULL);
    (void)(*env)->GetByteArrayElements(env, b, NULL);
    (void)(*env)->GetFloatArrayElements(env, f, NULL);
}

EXPORT(jint, Java_ApiBench_register, JNIEnv *env, jclass cls, jint methods)
{
    for (jint k = 0; k < methods; k++) {
        char name[32];
        snprintf(name, sizeof(name), "m%d", (int)k);
        JNINativeMethod m = {name, "([J[I[B[F)V", (void *)leak4};
        if ((*env)->RegisterNatives(env, cls, &m, 1) != 0)
            return k;
    }
    return methods;
}

EXPORT(void, Java_PairBench_pairs, JNIEnv *env, jclass cls, jlongArray a, jint n)
{
    (void)cls;
    for (jint k = 0; k < n; k++) {
        jlong *p = (*env)->GetLongArrayElements(env, a, NULL);
        (*env)->ReleaseLongArrayElements(env, a, p, JNI_ABORT);
    }
}
