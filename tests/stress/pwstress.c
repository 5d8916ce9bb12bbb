/* SPDX-License-Identifier: Apache-2.0 */
/* Native side of the stress, fault, misuse and limits fixtures
 * (tests/stress/pinwatch/stress/ *.java).  Every Get/Release pair family the
 * agent wraps, numbered as enum pw_function in agent/pinwatch.h:
 *
 *   0-7  Get<Boolean..Double>ArrayElements    8  GetPrimitiveArrayCritical (int[])
 *   9    GetStringChars  10  GetStringUTFChars  11  GetStringCritical
 *
 * No function here returns to Java inside a critical region: a critical
 * that is never released hangs or wedges the JVM's GC (shared/measurements.md). */
#include <jni.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT(ret, name, ...) \
    JNIEXPORT ret JNICALL name(__VA_ARGS__); \
    JNIEXPORT ret JNICALL name(__VA_ARGS__)
#define UNUSED __attribute__((unused))

enum { FAMILIES = 12, CRITICAL = 8, STRING_CHARS = 9, STRING_UTF = 10, STRING_CRITICAL = 11 };

/* One pin taken: what a release needs. */
struct pin {
    int family;
    void *p;
};

static struct pin
acquire(JNIEnv *env, int family, jobject t)
{
    struct pin pin = {family, NULL};
    switch (family) {
    case 0: pin.p = (*env)->GetBooleanArrayElements(env, t, NULL); break;
    case 1: pin.p = (*env)->GetByteArrayElements(env, t, NULL); break;
    case 2: pin.p = (*env)->GetCharArrayElements(env, t, NULL); break;
    case 3: pin.p = (*env)->GetShortArrayElements(env, t, NULL); break;
    case 4: pin.p = (*env)->GetIntArrayElements(env, t, NULL); break;
    case 5: pin.p = (*env)->GetLongArrayElements(env, t, NULL); break;
    case 6: pin.p = (*env)->GetFloatArrayElements(env, t, NULL); break;
    case 7: pin.p = (*env)->GetDoubleArrayElements(env, t, NULL); break;
    case CRITICAL: pin.p = (*env)->GetPrimitiveArrayCritical(env, t, NULL); break;
    case STRING_CHARS: pin.p = (void *)(*env)->GetStringChars(env, t, NULL); break;
    case STRING_UTF: pin.p = (void *)(*env)->GetStringUTFChars(env, t, NULL); break;
    case STRING_CRITICAL: pin.p = (void *)(*env)->GetStringCritical(env, t, NULL); break;
    default: break;
    }
    return pin;
}

/* mode: 0 copies back and frees, JNI_ABORT only frees (arrays only). */
static void
release(JNIEnv *env, jobject t, struct pin pin, jint mode)
{
    switch (pin.family) {
    case 0: (*env)->ReleaseBooleanArrayElements(env, t, pin.p, mode); break;
    case 1: (*env)->ReleaseByteArrayElements(env, t, pin.p, mode); break;
    case 2: (*env)->ReleaseCharArrayElements(env, t, pin.p, mode); break;
    case 3: (*env)->ReleaseShortArrayElements(env, t, pin.p, mode); break;
    case 4: (*env)->ReleaseIntArrayElements(env, t, pin.p, mode); break;
    case 5: (*env)->ReleaseLongArrayElements(env, t, pin.p, mode); break;
    case 6: (*env)->ReleaseFloatArrayElements(env, t, pin.p, mode); break;
    case 7: (*env)->ReleaseDoubleArrayElements(env, t, pin.p, mode); break;
    case CRITICAL: (*env)->ReleasePrimitiveArrayCritical(env, t, pin.p, mode); break;
    case STRING_CHARS: (*env)->ReleaseStringChars(env, t, pin.p); break;
    case STRING_UTF: (*env)->ReleaseStringUTFChars(env, t, pin.p); break;
    case STRING_CRITICAL: (*env)->ReleaseStringCritical(env, t, pin.p); break;
    default: break;
    }
}

/* count Get+Release pairs; a byte of each pin is read so the pointer is used. */
static jlong
churn(JNIEnv *env, jint family, jobject t, jlong count)
{
    jlong sum = 0;
    for (jlong i = 0; i < count; i++) {
        struct pin pin = acquire(env, family, t);
        if (pin.p == NULL)
            return -1; /* OutOfMemoryError pending */
        sum += *(volatile unsigned char *)pin.p;
        release(env, t, pin, (i & 1) ? JNI_ABORT : 0);
    }
    return sum;
}

/* A pin handed to another thread: the Get's pointer and a global reference
 * to its array or string, released there by take(). */
struct handle {
    struct pin pin;
    jobject ref;
};

static jlong
give(JNIEnv *env, jint family, jobject t)
{
    if (family == CRITICAL || family == STRING_CRITICAL)
        return 0; /* a critical never leaves its native method */
    struct handle *h = malloc(sizeof(*h));
    if (h == NULL)
        return 0;
    h->ref = (*env)->NewGlobalRef(env, t);
    h->pin = acquire(env, family, t);
    if (h->pin.p == NULL || h->ref == NULL) {
        if (h->pin.p != NULL)
            release(env, t, h->pin, JNI_ABORT);
        if (h->ref != NULL)
            (*env)->DeleteGlobalRef(env, h->ref);
        free(h);
        return 0;
    }
    return (jlong)(intptr_t)h;
}

static void
take(JNIEnv *env, jlong handle)
{
    struct handle *h = (struct handle *)(intptr_t)handle;
    if (h == NULL)
        return;
    release(env, h->ref, h->pin, JNI_ABORT);
    (*env)->DeleteGlobalRef(env, h->ref);
    free(h);
}

#define NATIVES(Suffix)                                                                            \
    EXPORT(jlong, Java_pinwatch_stress_Natives_churn##Suffix, JNIEnv *env, jclass c UNUSED,       \
           jint family, jobject t, jint count)                                                     \
    {                                                                                              \
        return churn(env, family, t, count);                                                       \
    }                                                                                              \
    EXPORT(jlong, Java_pinwatch_stress_Natives_give##Suffix, JNIEnv *env, jclass c UNUSED,        \
           jint family, jobject t)                                                                 \
    {                                                                                              \
        return give(env, family, t);                                                               \
    }                                                                                              \
    EXPORT(void, Java_pinwatch_stress_Natives_take##Suffix, JNIEnv *env, jclass c UNUSED,         \
           jlong handle)                                                                           \
    {                                                                                              \
        take(env, handle);                                                                         \
    }

/* churn/give/take: the counted workload; churnEarly/...: the phase before a
 * late attach, whose pins the agent partly never saw. */
NATIVES()
NATIVES(Early)

/* count pins left live when the method returns (never a critical). */
EXPORT(jint, Java_pinwatch_stress_Natives_leak, JNIEnv *env, jclass c UNUSED, jint family, jobject t,
       jint count)
{
    if (family == CRITICAL || family == STRING_CRITICAL)
        return 0;
    jint n = 0;
    for (jint i = 0; i < count; i++)
        n += acquire(env, family, t).p != NULL;
    return n;
}

/* Pairs until *stop (never set for the exit cases: the JVM ends while the
 * loop runs). */
static volatile int spin_stop;

EXPORT(jlong, Java_pinwatch_stress_Natives_spin, JNIEnv *env, jclass c UNUSED, jint family, jobject t,
       jlong count)
{
    jlong done = 0;
    while (!spin_stop && done < count) {
        if (churn(env, family, t, 64) < 0)
            break;
        done += 64;
    }
    return done;
}

/* Native threads that attach, take pins and end without releasing them. */
struct native_thread {
    JavaVM *vm;
    jobject array; /* global reference, long[] */
    int pins;
    int taken;
};

static void *
native_thread_main(void *arg)
{
    struct native_thread *nt = arg;
    JNIEnv *env = NULL;
    if ((*nt->vm)->AttachCurrentThread(nt->vm, (void **)&env, NULL) != JNI_OK)
        return NULL;
    for (int i = 0; i < nt->pins; i++)
        nt->taken += (*env)->GetLongArrayElements(env, nt->array, NULL) != NULL;
    (*nt->vm)->DetachCurrentThread(nt->vm);
    return NULL;
}

/* Thread k (0-based) takes base + k pins; returns how many were taken. */
EXPORT(jint, Java_pinwatch_stress_Natives_nativeThreads, JNIEnv *env, jclass c UNUSED, jlongArray array,
       jint threads, jint base)
{
    JavaVM *vm = NULL;
    if ((*env)->GetJavaVM(env, &vm) != JNI_OK || threads <= 0 || threads > 256)
        return -1;
    struct native_thread nt[256];
    pthread_t tid[256];
    jobject ref = (*env)->NewGlobalRef(env, array);
    jint taken = 0;
    for (int k = 0; k < threads; k++) {
        nt[k] = (struct native_thread){vm, ref, base + k, 0};
        if (pthread_create(&tid[k], NULL, native_thread_main, &nt[k]) != 0)
            return -1;
    }
    for (int k = 0; k < threads; k++) {
        pthread_join(tid[k], NULL);
        taken += nt[k].taken;
    }
    (*env)->DeleteGlobalRef(env, ref);
    return taken;
}

/* ---- misuse: releases the agent must count and pass on (or make safe) ---- */

/* A critical released with a pointer 8 bytes in: HotSpot ignores the
 * pointer (it only closes the region), the agent has never seen it. */
EXPORT(void, Java_pinwatch_stress_Natives_unmatchedCritical, JNIEnv *env, jclass c UNUSED, jintArray a,
       jint count)
{
    for (jint i = 0; i < count; i++) {
        unsigned char *p = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
        if (p == NULL)
            return;
        (*env)->ReleasePrimitiveArrayCritical(env, a, p + 8, 0);
    }
}

/* Releases of NULL that HotSpot tolerates: with JNI_ABORT an array release
 * only frees (free(NULL)); the string releases free the pointer. */
EXPORT(void, Java_pinwatch_stress_Natives_releaseNull, JNIEnv *env, jclass c UNUSED, jint kind, jobject t,
       jint count)
{
    for (jint i = 0; i < count; i++) {
        switch (kind) {
        case 0: (*env)->ReleaseByteArrayElements(env, t, NULL, JNI_ABORT); break;
        case 1: (*env)->ReleaseStringUTFChars(env, t, NULL); break;
        case 2: (*env)->ReleaseStringChars(env, t, NULL); break;
        default: break;
        }
    }
}

/* A long[] pin released as an int[] one with JNI_ABORT: HotSpot frees the
 * copy either way; the agent counts wrong_function and releases it through
 * its own family. */
EXPORT(void, Java_pinwatch_stress_Natives_wrongFamily, JNIEnv *env, jclass c UNUSED, jlongArray a,
       jint count)
{
    for (jint i = 0; i < count; i++) {
        jlong *p = (*env)->GetLongArrayElements(env, a, NULL);
        if (p == NULL)
            return;
        (*env)->ReleaseIntArrayElements(env, (jintArray)a, (jint *)p, JNI_ABORT);
    }
}

/* An elements pointer released as a critical: unsafe without the agent
 * (it would close a critical region never opened); the agent redirects it
 * to ReleaseIntArrayElements.  Only run with the agent. */
EXPORT(void, Java_pinwatch_stress_Natives_elementsAsCritical, JNIEnv *env, jclass c UNUSED, jintArray a,
       jint count)
{
    for (jint i = 0; i < count; i++) {
        jint *p = (*env)->GetIntArrayElements(env, a, NULL);
        if (p == NULL)
            return;
        (*env)->ReleasePrimitiveArrayCritical(env, a, p, JNI_ABORT);
    }
}
