/* SPDX-License-Identifier: Apache-2.0 */
/* Native half of the pinwatch benchmark (tests/bench/run_bench.py).
 *
 * Each pair loop does k Get/Release pairs inside one native call, so the
 * Java->native transition is paid once per k pairs and the figure is the
 * cost of the pair itself.  Every loop reads or writes the pinned memory so
 * that the compiler keeps the calls and their order. */
#include <jni.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Not exported through a header: the JVM finds these by name. */
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_longElements(JNIEnv *env, jclass cls, jlongArray arr, jint k);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_byteElements(JNIEnv *env, jclass cls, jbyteArray arr, jint k);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_critical(JNIEnv *env, jclass cls, jbyteArray arr, jint k);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_stringUtf(JNIEnv *env, jclass cls, jstring str, jint k);
JNIEXPORT jint JNICALL Java_pinwatch_bench_Natives_nop(JNIEnv *env, jclass cls, jint x);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_globalRefs(JNIEnv *env, jclass cls, jobject o, jint k);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_localRefs(JNIEnv *env, jclass cls, jobject o, jint k);
JNIEXPORT jint JNICALL Java_pinwatch_bench_Natives_leakLong(JNIEnv *env, jclass cls, jlongArray arr, jint n);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_holdLong(JNIEnv *env, jclass cls, jlongArray arr, jint n);
JNIEXPORT jlong JNICALL Java_pinwatch_bench_Natives_rss(JNIEnv *env, jclass cls);

/* Release mode 0 (copy back and free) for the element copies: what most
 * code that writes through the pointer uses, and the mode pinwatch sees
 * most.  The loop writes one element so that the copy-back is real. */
JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_longElements(JNIEnv *env, jclass cls, jlongArray arr, jint k)
{
    jlong sum = 0;
    for (jint i = 0; i < k; i++) {
        jlong *p = (*env)->GetLongArrayElements(env, arr, NULL);
        if (p == NULL)
            return -1;
        sum += p[i & 3];
        p[0] = (jlong)i;
        (*env)->ReleaseLongArrayElements(env, arr, p, 0);
    }
    return sum;
}

JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_byteElements(JNIEnv *env, jclass cls, jbyteArray arr, jint k)
{
    jlong sum = 0;
    for (jint i = 0; i < k; i++) {
        jbyte *p = (*env)->GetByteArrayElements(env, arr, NULL);
        if (p == NULL)
            return -1;
        sum += p[(i * 4099) & 0xffff];
        p[0] = (jbyte)i;
        (*env)->ReleaseByteArrayElements(env, arr, p, 0);
    }
    return sum;
}

/* No JNI call between Get and Release: the JNI rules for a critical region. */
JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_critical(JNIEnv *env, jclass cls, jbyteArray arr, jint k)
{
    jlong sum = 0;
    for (jint i = 0; i < k; i++) {
        jbyte *p = (*env)->GetPrimitiveArrayCritical(env, arr, NULL);
        if (p == NULL)
            return -1;
        sum += p[(i * 4099) & 0xffff];
        (*env)->ReleasePrimitiveArrayCritical(env, arr, p, 0);
    }
    return sum;
}

JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_stringUtf(JNIEnv *env, jclass cls, jstring str, jint k)
{
    jlong sum = 0;
    for (jint i = 0; i < k; i++) {
        const char *p = (*env)->GetStringUTFChars(env, str, NULL);
        if (p == NULL)
            return -1;
        sum += p[i & 31];
        (*env)->ReleaseStringUTFChars(env, str, p);
    }
    return sum;
}

/* Pins nothing: what remains is the cost of entering a native method,
 * which pinwatch's entry thunk adds to. */
JNIEXPORT jint JNICALL
Java_pinwatch_bench_Natives_nop(JNIEnv *env, jclass cls, jint x)
{
    return x + 1;
}

/* n pins that are never released.  Each Get of a non-empty array returns a
 * fresh malloc'd copy on HotSpot, so every pin has its own address. */
JNIEXPORT jint JNICALL
Java_pinwatch_bench_Natives_leakLong(JNIEnv *env, jclass cls, jlongArray arr, jint n)
{
    jint got = 0;
    for (jint i = 0; i < n; i++)
        got += (*env)->GetLongArrayElements(env, arr, NULL) != NULL;
    return got;
}

static long
rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = -1;
    if (f == NULL)
        return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_rss(JNIEnv *env, jclass cls)
{
    return (jlong)rss_bytes();
}

/* n pins held at once inside this one invocation: returns the growth of
 * RSS while they are all live, then releases every one of them.  The
 * pointer array is allocated and touched before the first reading so that
 * it is not counted. */
JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_holdLong(JNIEnv *env, jclass cls, jlongArray arr, jint n)
{
    jlong **held = malloc((size_t)n * sizeof(*held));
    if (held == NULL)
        return -1;
    memset(held, 0, (size_t)n * sizeof(*held));
    long before = rss_bytes();
    jint got = 0;
    for (; got < n; got++) {
        held[got] = (*env)->GetLongArrayElements(env, arr, NULL);
        if (held[got] == NULL)
            break;
    }
    long during = rss_bytes();
    for (jint i = 0; i < got; i++)
        (*env)->ReleaseLongArrayElements(env, arr, held[i], JNI_ABORT);
    free(held);
    if (got < n || before < 0 || during < 0)
        return -1;
    return (jlong)(during - before);
}

/* Reference pairs: the make and the delete back to back, as a cache miss
 * path or a helper that wraps every object it is handed does. */
JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_globalRefs(JNIEnv *env, jclass cls, jobject o, jint k)
{
    jlong made = 0;
    for (jint i = 0; i < k; i++) {
        jobject g = (*env)->NewGlobalRef(env, o);
        made += g != NULL;
        (*env)->DeleteGlobalRef(env, g);
    }
    return made;
}

JNIEXPORT jlong JNICALL
Java_pinwatch_bench_Natives_localRefs(JNIEnv *env, jclass cls, jobject o, jint k)
{
    jlong made = 0;
    for (jint i = 0; i < k; i++) {
        jobject l = (*env)->NewLocalRef(env, o);
        made += l != NULL;
        (*env)->DeleteLocalRef(env, l);
    }
    return made;
}
