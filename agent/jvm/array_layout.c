/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/array_layout.h"
#include "base/log.h"
#include "jvm/jni_table.h"

#include <stdbool.h>

_Atomic uint32_t pw_array_layout[9];
_Atomic uint32_t pw_array_class_at;
uint64_t pw_array_classes[8];
const uint8_t pw_array_class_elem[8] = {1, 1, 2, 2, 4, 8, 4, 8};

static atomic_bool learned_once;

/* A header of more is no HotSpot's (16 today; 24 for long[] without
 * compressed class pointers; 12 or 16 with compact headers): a pointer
 * difference past it is not a header, and nothing is read there. */
#define MAX_HEADER 32

/* Two lengths per element size, odd and far from anything a header word
 * holds by chance (a mark word's low bits, a narrow class pointer): the
 * length is the one header word that holds the first in one array and the
 * second in the other. */
static const struct {
    unsigned elem;
    jsize len[2];
} probes[] = {
    {1, {1237, 3001}},
    {2, {1249, 2999}},
    {4, {1259, 2993}},
    {8, {1277, 2971}},
};

/* An array of one primitive type (pw_array_class_elem's order) held in a
 * critical region of the JVM's own, for reading its header: between hold
 * and let_go, memory reads only. */
struct held {
    jarray array;
    void *elements; /* what the critical Get handed out */
    uintptr_t oop;  /* what the handle's slot holds */
    jboolean copy;
};

static jarray
new_of_type(JNIEnv *env, int type, jsize len)
{
    switch (type) {
    case 0: return pw_jni.NewBooleanArray(env, len);
    case 1: return pw_jni.NewByteArray(env, len);
    case 2: return pw_jni.NewCharArray(env, len);
    case 3: return pw_jni.NewShortArray(env, len);
    case 4: return pw_jni.NewIntArray(env, len);
    case 5: return pw_jni.NewLongArray(env, len);
    case 6: return pw_jni.NewFloatArray(env, len);
    default: return pw_jni.NewDoubleArray(env, len);
    }
}

/* Makes an array of type and length len and opens a critical region on it;
 * NULL, or why not (then nothing is held). */
static const char *
hold(JNIEnv *env, int type, jsize len, struct held *h)
{
    h->copy = JNI_FALSE;
    h->array = new_of_type(env, type, len);
    if (h->array == NULL) {
        pw_jni.ExceptionClear(env);
        return "no array could be made";
    }
    h->elements = pw_jni.GetPrimitiveArrayCritical(env, h->array, &h->copy);
    if (h->elements == NULL) {
        pw_jni.ExceptionClear(env);
        pw_jni.DeleteLocalRef(env, h->array);
        return "GetPrimitiveArrayCritical returned NULL";
    }
    /* The oop is compared before anything is read through it: under a
     * collector whose handles hold coloured pointers (generational ZGC) it
     * is no address, and under -Xcheck:jni the elements are a guarded copy
     * in the C heap. */
    h->oop = *(const volatile uintptr_t *)((uintptr_t)h->array & ~PW_JNI_HANDLE_TAGS);
    return NULL;
}

static void
let_go(JNIEnv *env, const struct held *h)
{
    pw_jni.ReleasePrimitiveArrayCritical(env, h->array, h->elements, JNI_ABORT);
    pw_jni.DeleteLocalRef(env, h->array);
}

/* One array of elem-sized elements (byte[], short[], int[] or long[]) and
 * length len: its elements' offset from the object the handle names, and
 * where in the header between them the length is.  NULL, or why not. */
static const char *
measure(JNIEnv *env, unsigned elem, jsize len, unsigned *base, unsigned *len_at)
{
    static const int type_of_elem[9] = {[1] = 1, [2] = 3, [4] = 4, [8] = 5};
    struct held h;
    const char *why = hold(env, type_of_elem[elem], len, &h);
    if (why != NULL)
        return why;
    uintptr_t d = (uintptr_t)h.elements - h.oop;
    unsigned found = 0;
    if (h.copy)
        why = "the critical Get handed out a copy";
    else if (h.oop == 0 || d < 8 || d > MAX_HEADER || d % elem != 0)
        why =
            "the elements are not in the object the handle names (a copy, as -Xcheck:jni hands out, or a "
            "collector's coloured pointers)";
    else
        for (unsigned at = 0; at + sizeof(int32_t) <= d; at += sizeof(int32_t))
            if (*(const volatile int32_t *)(h.oop + at) == len) {
                found++;
                *len_at = at;
            }
    let_go(env, &h);
    if (why == NULL && found != 1)
        why = found == 0 ? "no header word holds the array's length" : "two header words hold the array's length";
    *base = (unsigned)d;
    return why;
}

/* The layout every probe agrees on into words (by element size); NULL, or
 * why not. */
static const char *
probe_all(JNIEnv *env, uint32_t words[9])
{
    unsigned len_at = 0;
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        unsigned elem = probes[i].elem;
        unsigned base[2], at[2];
        for (int k = 0; k < 2; k++) {
            const char *why = measure(env, elem, probes[i].len[k], &base[k], &at[k]);
            if (why != NULL)
                return why;
        }
        if (base[0] != base[1] || at[0] != at[1])
            return "two arrays of one element type disagree";
        if (i > 0 && at[0] != len_at)
            return "arrays of two element types keep their length in different places";
        if (base[0] < at[0] + sizeof(int32_t))
            return "the length overlaps the elements";
        len_at = at[0];
        words[elem] = (uint32_t)base[0] | (uint32_t)at[0] << 8;
    }
    return NULL;
}

/* The class word of an array of each primitive type (boolean, byte, char,
 * short, int, long, float, double: pw_array_class_elem's order), where the
 * header keeps one of its own between the mark word and the length (not
 * with compact headers, which keep the class in the mark word among bits
 * that change): width bytes at 8.  Two arrays of each type must agree and
 * the eight types differ.  NULL, or why not. */
static const char *
probe_classes(JNIEnv *env, const uint32_t words[9], unsigned width, uint64_t classes[8])
{
    for (int type = 0; type < 8; type++) {
        uint32_t lw = words[pw_array_class_elem[type]];
        for (int k = 0; k < 2; k++) {
            struct held h;
            const char *why = hold(env, type, 3, &h);
            if (why != NULL)
                return why;
            bool here = h.oop + (lw & 0xff) == (uintptr_t)h.elements;
            uint64_t word = !here        ? 0
                            : width == 4 ? *(const volatile uint32_t *)(h.oop + 8)
                                         : *(const volatile uint64_t *)(h.oop + 8);
            let_go(env, &h);
            if (!here)
                return "an array's elements were not where the layout puts them";
            if (word == 0 || (k == 1 && word != classes[type]))
                return "two arrays of one type have different class words";
            classes[type] = word;
        }
        for (int other = 0; other < type; other++)
            if (classes[other] == classes[type])
                return "two types have one class word";
    }
    return NULL;
}

void
pw_array_layout_learn(JNIEnv *env)
{
    if (atomic_exchange(&learned_once, true))
        return;
    if (pw_jni.GetPrimitiveArrayCritical == NULL || env == NULL)
        return; /* no JVM table saved: nothing is intercepted either */
    if (pw_jni.ExceptionCheck(env) || pw_jni.PushLocalFrame(env, 4) != JNI_OK) {
        pw_log_debug(
            "array layout not learned: the thread cannot make arrays now; critical Gets ask the JVM "
            "for lengths");
        return;
    }
    uint32_t words[9] = {0};
    uint64_t classes[8] = {0};
    const char *why = probe_all(env, words);
    unsigned width = why == NULL ? (words[1] >> 8) - 8 : 0;
    const char *why_classes = "the header has no class word of its own (compact headers)";
    if (why == NULL && (width == 4 || width == 8))
        why_classes = probe_classes(env, words, width, classes);
    pw_jni.PopLocalFrame(env, NULL);
    if (why != NULL) {
        pw_log_debug("array layout not learned: %s; critical Gets ask the JVM for lengths", why);
        return;
    }
    for (unsigned e = 1; e <= 8; e *= 2)
        atomic_store_explicit(&pw_array_layout[e], words[e], memory_order_release);
    if (why_classes == NULL) {
        for (int type = 0; type < 8; type++)
            pw_array_classes[type] = classes[type];
        atomic_store_explicit(&pw_array_class_at, 8u | width << 8, memory_order_release);
    }
    pw_log_debug("array layout: length at %u; elements at %u (1-byte), %u (2-byte), %u (4-byte), %u (8-byte)",
                 words[1] >> 8, words[1] & 0xff, words[2] & 0xff, words[4] & 0xff, words[8] & 0xff);
    if (why_classes == NULL)
        pw_log_debug("array element types: the class word at 8 (%u bytes)", width);
    else
        pw_log_debug(
            "array element types not told by the header: %s; a critical Get made inside another "
            "critical region records size 0 where its site's element size is not known",
            why_classes);
}

void
pw_array_layout_forget(void)
{
    static atomic_bool said;
    for (unsigned e = 1; e <= 8; e *= 2)
        atomic_store_explicit(&pw_array_layout[e], 0, memory_order_relaxed);
    atomic_store_explicit(&pw_array_class_at, 0, memory_order_relaxed);
    if (!atomic_exchange(&said, true))
        pw_log_warn(
            "a critical Get's array did not have the array layout learned at start: critical Gets ask "
            "the JVM for lengths from now on");
}
