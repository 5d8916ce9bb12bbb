/* SPDX-License-Identifier: Apache-2.0 */
#include "intercept/jni_hooks.h"
#include "base/cpu.h"
#include "tracking/findings.h"
#include "intercept/hook.h"
#include "intercept/jni_guard.h"
#include "jvm/array_layout.h"
#include "jvm/jni_table.h"
#include "intercept/jvm_calls.h"
#include "intercept/native_entry.h"
#include "base/log.h"
#include "intercept/ref_hooks.h"
#include "tracking/tracker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* -Xcheck:jni is on: the checker would abort on a reference the
 * application has deleted (src/hotspot/share/prims/jniCheck.cpp validates
 * every handle and reports a bad one with ReportJNIFatalError), so identity
 * checks that use the Get's reference are skipped.  Written once by
 * pw_jni_hooks_start, before the JNI table swap. */
static bool checked_jni;

void
pw_jni_hooks_start(bool checked)
{
    checked_jni = checked;
}

/* jni_in_critical, found without a guard on every JNI call.  A JNI call
 * inside a critical region is a finding, and only the thread holding the
 * region can make one.  So the table installed in the JVM has the JVM's own
 * functions in every slot no wrapper owns, and a thread's JNIEnv is pointed
 * at region_table, where those slots have jni_guard's thunks, for as long as
 * it holds a region: from the Get that opens its first region to the
 * release that closes its last.  The common JNI call (JNA's dispatch makes
 * about fifty IsInstanceOf, IsAssignableFrom and IsSameObject calls per
 * call) pays nothing for the check; a critical pair pays a store each way.
 * The env is the thread's own and HotSpot never repoints it (jvm_calls.c
 * says why that holds); region_table has every slot the JVM's table has.
 * When that count is not known (a JNI version newer than pinwatch's), the
 * guards stay in the installed table instead, as before (by_region false).
 * What this cannot see: a function pointer read from the env before the
 * region opened and called inside it (README.md, Limits).
 * Written once by pw_jni_hooks_install, before the JNI table swap. */
static union {
    struct JNINativeInterface_ functions;
    void *slots[PW_JNI_SLOTS];
} region_table;
static bool by_region;

/* t->critical has just gone from 0 to 1 on the thread of env. */
static inline void
region_opened(JNIEnv *env, struct pw_thread *t)
{
    if (PW_LIKELY(by_region) && t->critical == 1) {
        t->region_env_was = *env;
        *env = &region_table.functions;
    }
}

/* t->critical has just gone down; at 0 the env gets its table back. */
static inline void
region_closed(JNIEnv *env, struct pw_thread *t)
{
    if (t->critical == 0 && t->region_env_was != NULL) {
        *env = t->region_env_was;
        t->region_env_was = NULL;
    }
}

/* Array lengths are asked for outside critical regions only: no JNI call is
 * allowed inside one, and -Xcheck:jni says so (src/hotspot/share/prims/
 * jniCheck.cpp functionEnter: "Calling other JNI functions in the scope of
 * Get/ReleasePrimitiveArrayCritical...").  A pin taken while the
 * thread already holds a critical is recorded with size 0.
 *
 * Asking costs a JVM transition (~10 ns, as much as the rest of a Get's
 * bookkeeping), so the last answer is kept per thread for the running
 * invocation.  Only for a reference into the thread's stack: HotSpot passes
 * a native method's arguments as handles in its wrapper frame, which keep
 * their object for the whole invocation, whereas a local reference made
 * inside it may be deleted and its slot reused for another array. */
#define STACK_HANDLE_SPAN (8u << 20)

static __attribute__((noinline)) uint64_t
array_bytes_asked(JNIEnv *env, struct pw_thread *t, jarray array, unsigned elem_size, uint32_t serial)
{
    jsize len = pw_jni.GetArrayLength(env, array);
    if (len < 0)
        len = 0;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (serial != 0 && (uintptr_t)array - here < STACK_HANDLE_SPAN) {
        t->length_cache.serial = serial;
        t->length_cache.array = array;
        t->length_cache.length = len;
    }
    return (uint64_t)len * elem_size;
}

static inline uint64_t
array_bytes(JNIEnv *env, struct pw_thread *t, jarray array, unsigned elem_size)
{
    if (t->critical != 0 || array == NULL)
        return 0;
    struct pw_frame *f = pw_thread_top(t);
    uint32_t serial = f != NULL ? f->serial : 0;
    if (PW_LIKELY(serial != 0 && t->length_cache.serial == serial && t->length_cache.array == array))
        return (uint64_t)t->length_cache.length * elem_size;
    return array_bytes_asked(env, t, array, elem_size, serial);
}

static const unsigned elements_size[] = {
    [PW_FN_BOOLEAN_ELEMENTS] = sizeof(jboolean), [PW_FN_BYTE_ELEMENTS] = sizeof(jbyte),
    [PW_FN_CHAR_ELEMENTS] = sizeof(jchar),       [PW_FN_SHORT_ELEMENTS] = sizeof(jshort),
    [PW_FN_INT_ELEMENTS] = sizeof(jint),         [PW_FN_LONG_ELEMENTS] = sizeof(jlong),
    [PW_FN_FLOAT_ELEMENTS] = sizeof(jfloat),     [PW_FN_DOUBLE_ELEMENTS] = sizeof(jdouble),
};

/* Any elements Get but the common one (acquired_elements), done in full:
 * on a thread without state yet, inside a critical region, outside any
 * native method, or anything pw_track_get_in leaves to pw_track_get.
 * Returns p, so that the hooks jump here. */
static __attribute__((noinline)) void *
acquired_elements_other(JNIEnv *env, enum pw_function fn, uint32_t slot, void *ret, void *p, jarray array)
{
    /* A Get of the elements or string families made inside a critical
     * region is itself a JNI call the specification forbids there. */
    struct pw_thread *t = pw_hook_enter(slot, ret);
    if (PW_LIKELY(t != NULL))
        pw_track_get(env, t, fn, ret, p, array_bytes(env, t, array, elements_size[fn]), array);
    return p;
}

/* One Get in PW_SAMPLE_PERIOD, once recorded.  Returns p, so that the
 * hooks jump here. */
static __attribute__((noinline)) void *
sampled(struct pw_thread *t, void *ret, void *p)
{
    pw_track_sample(t, ret);
    return p;
}

/* A Get whose array is not the one the length cache remembers, on a thread
 * inside a native method and outside any critical region: an array the
 * invocation made or fetched itself (JNA's dispatch takes every array
 * argument out of an Object[] with GetObjectArrayElement), or a second
 * array argument.  The length is asked (the JVM transition that cannot be
 * saved), then the pin is recorded as the common Get records it, site cache
 * and all: before, such a Get started over in acquired_elements_other and
 * took the general path (pw_track_get's site lookup and table insert), about
 * 140 instructions more than the common Get besides the transition.
 * Returns p, so that the hooks jump here. */
static __attribute__((noinline)) void *
acquired_fresh(JNIEnv *env, enum pw_function fn, void *ret, void *p, jarray array)
{
    struct pw_thread *t = pw_tls_self;
    struct pw_frame *f = &t->frames[t->depth - 1];
    uint64_t size = array_bytes_asked(env, t, array, elements_size[fn], f->serial);
    enum pw_get_done done = pw_track_get_in(t, f, fn, ret, p, size, array);
    if (PW_LIKELY(done == PW_GET_DONE))
        return p;
    if (done == PW_GET_SAMPLE)
        return sampled(t, ret, p);
    /* The general path with the length already asked: no critical region
     * is open (the caller tested it, and GetArrayLength opens none), so
     * acquired_elements_other's finding check has nothing to find. */
    pw_track_get(env, t, fn, ret, p, size, array);
    return p;
}

/* The common Get, inlined into each hook: a thread inside a native method
 * and outside any critical region (so no finding to make), whose array is
 * the one whose length it remembers.  The frame is found once, for the
 * length cache and the tracker both.  Anything else goes to
 * acquired_elements_other, which starts over: nothing here calls out, so
 * the hook keeps only what its JVM call needs in saved registers. */
static inline __attribute__((always_inline)) void *
acquired_elements(JNIEnv *env, enum pw_function fn, uint32_t slot, void *ret, void *p, jarray array)
{
    struct pw_thread *t = pw_tls_self;
    if (PW_UNLIKELY(t == NULL || t->critical != 0 || t->depth == 0))
        return acquired_elements_other(env, fn, slot, ret, p, array);
    struct pw_frame *f = &t->frames[t->depth - 1];
    /* The length cache's serial is 0 only before its first answer, when its
     * array is NULL: no Get's array (never NULL here: the JVM handed out
     * elements) matches it, so f->serial need not be tested against 0. */
    if (PW_UNLIKELY(t->length_cache.serial != f->serial || t->length_cache.array != array))
        return acquired_fresh(env, fn, ret, p, array);
    uint64_t size = (uint64_t)t->length_cache.length * elements_size[fn];
    enum pw_get_done done = pw_track_get_in(t, f, fn, ret, p, size, array);
    if (PW_LIKELY(done == PW_GET_DONE))
        return p;
    if (done == PW_GET_SAMPLE)
        return sampled(t, ret, p);
    return acquired_elements_other(env, fn, slot, ret, p, array);
}

/* The primitive array classes, in the elements families' order
 * (PW_FN_BOOLEAN_ELEMENTS ... PW_FN_DOUBLE_ELEMENTS), looked up once.
 * GetPrimitiveArrayCritical does not say what type its array is: the
 * element size is learned once per site from the array's class, before the
 * critical region opens; and a release through another family whose pin's
 * object is gone asks what type the array it names is. */
static pthread_mutex_t classes_lock = PTHREAD_MUTEX_INITIALIZER;
static jclass array_classes[8];
static const char *const array_class_names[8] = {"[Z", "[B", "[C", "[S", "[I", "[J", "[F", "[D"};

/* The elements family of a primitive array (its element type), or -1 for
 * any other object.  Outside critical regions only, with no exception
 * pending. */
static int
array_family(JNIEnv *env, jobject obj)
{
    int family = -1;
    jclass klass = pw_jni.GetObjectClass(env, obj);
    if (klass == NULL)
        return -1;
    pthread_mutex_lock(&classes_lock);
    for (int i = 0; i < 8 && family < 0; i++) {
        if (array_classes[i] == NULL) {
            jclass local = pw_jni.FindClass(env, array_class_names[i]);
            if (local == NULL) {
                pw_jni.ExceptionClear(env);
                continue;
            }
            array_classes[i] = pw_jni.NewGlobalRef(env, local);
            pw_jni.DeleteLocalRef(env, local);
        }
        if (array_classes[i] != NULL && pw_jni.IsSameObject(env, klass, array_classes[i]))
            family = i;
    }
    pthread_mutex_unlock(&classes_lock);
    pw_jni.DeleteLocalRef(env, klass);
    return family;
}

static unsigned
learn_elem_size(JNIEnv *env, jarray array)
{
    int family = array_family(env, array);
    return family >= 0 ? elements_size[family] : 0;
}

/* The JVM's release for a family.  A pin released through the wrong family
 * goes to its own: HotSpot would copy the wrong number of bytes, free a
 * heap address or unbalance the GC locker otherwise. */
static inline void
release_as(JNIEnv *env, struct pw_thread *t, uint32_t fn, jobject obj, void *p, jint mode)
{
    switch (fn) {
    case PW_FN_BOOLEAN_ELEMENTS: pw_jni.ReleaseBooleanArrayElements(env, obj, p, mode); break;
    case PW_FN_BYTE_ELEMENTS: pw_jni.ReleaseByteArrayElements(env, obj, p, mode); break;
    case PW_FN_CHAR_ELEMENTS: pw_jni.ReleaseCharArrayElements(env, obj, p, mode); break;
    case PW_FN_SHORT_ELEMENTS: pw_jni.ReleaseShortArrayElements(env, obj, p, mode); break;
    case PW_FN_INT_ELEMENTS: pw_jni.ReleaseIntArrayElements(env, obj, p, mode); break;
    case PW_FN_LONG_ELEMENTS: pw_jni.ReleaseLongArrayElements(env, obj, p, mode); break;
    case PW_FN_FLOAT_ELEMENTS: pw_jni.ReleaseFloatArrayElements(env, obj, p, mode); break;
    case PW_FN_DOUBLE_ELEMENTS: pw_jni.ReleaseDoubleArrayElements(env, obj, p, mode); break;
    /* The region is closed in the books first, so that the JVM's release
     * is the wrapper's last act: a tail call, which leaves no frame of
     * pinwatch's in a stack the JVM prints.  Nothing of pinwatch's runs on
     * this thread in between. */
    case PW_FN_ARRAY_CRITICAL:
        if (t != NULL && mode != JNI_COMMIT && t->critical > 0) {
            t->critical--;
            region_closed(env, t);
        }
        pw_jni.ReleasePrimitiveArrayCritical(env, obj, p, mode);
        break;
    case PW_FN_STRING_CHARS: pw_jni.ReleaseStringChars(env, obj, p); break;
    case PW_FN_STRING_UTF_CHARS: pw_jni.ReleaseStringUTFChars(env, obj, p); break;
    case PW_FN_STRING_CRITICAL:
        if (t != NULL && t->critical > 0) {
            t->critical--;
            region_closed(env, t);
        }
        pw_jni.ReleaseStringCritical(env, obj, p);
        break;
    }
}

/* Bytes the object passed to a release would have given for the pin's
 * function; 0 when it cannot be said. */
static uint64_t
object_bytes(JNIEnv *env, uint32_t fn, jobject obj)
{
    if (obj == NULL)
        return 0;
    if (fn < PW_FN_ARRAY_CRITICAL)
        return (uint64_t)pw_jni.GetArrayLength(env, obj) * elements_size[fn];
    if (fn == PW_FN_STRING_CHARS)
        return (uint64_t)pw_jni.GetStringLength(env, obj) * 2;
    return 0;
}

/* Was the pin released against the object it came from?  Decided only when
 * it is certain: the sizes differ, or (unless -Xcheck:jni, which aborts on
 * a reference the application deleted meanwhile) the JVM says the objects
 * differ.  Returns the original object when the release should go there. */
static bool
wrong_object(JNIEnv *env, const struct pw_release *r, jobject obj, jobject *original)
{
    *original = NULL;
    if (!r->found || !r->same_call || r->ref == NULL || r->ref == obj || obj == NULL)
        return false;
    uint64_t bytes = r->size > 0 ? object_bytes(env, r->fn, obj) : 0;
    if (pw_jni.ExceptionCheck(env))
        return false;
    bool differ = bytes != 0 && bytes != r->size;
    if (!checked_jni) {
        if (pw_jni.IsSameObject(env, r->ref, NULL))
            return differ; /* the Get's reference was deleted: no way back to it */
        differ = differ || !pw_jni.IsSameObject(env, r->ref, obj);
        if (differ)
            *original = r->ref;
    }
    return differ;
}

static bool
is_string_fn(uint32_t fn)
{
    return fn >= PW_FN_STRING_CHARS;
}

/* The object a pin came from, while it can be used: the Get's reference
 * is one of the taking invocation's handles, valid while that invocation
 * runs, unless the application deleted it.  Without checked JNI a deleted
 * reference can be seen, outside a critical region; with it, asking would
 * abort (the checker validates every handle), so it is used as it is. */
static jobject
pin_object(JNIEnv *env, const struct pw_thread *t, const struct pw_release *r)
{
    if (!r->same_call || r->ref == NULL)
        return NULL;
    if (!checked_jni && t->critical == 0 && pw_jni.IsSameObject(env, r->ref, NULL))
        return NULL;
    return r->ref;
}

/* Can obj, named in a release through family fn, be the object the pin r
 * (elements or string chars) came from?  An array for an array's pin, a
 * string for a string's; for an array, asked of the JVM where asking is
 * allowed (outside critical regions, no exception pending): one of the
 * pin's element type and, when the pin's size is known, of its length.
 * Where it is not, only an array named in the critical release, which
 * takes any array: a program that calls ReleaseIntArrayElements names an
 * int[]. */
static bool
can_be_pins(JNIEnv *env, const struct pw_thread *t, const struct pw_release *r, uint32_t fn, jobject obj)
{
    uint32_t use = r->fn;
    if (obj == NULL || is_string_fn(use) != is_string_fn(fn))
        return false;
    if (is_string_fn(use))
        return true;
    if (t->critical != 0 || pw_jni.ExceptionCheck(env))
        return pw_fn_is_critical(fn); /* an array family here: the array critical */
    return array_family(env, obj) == (int)use && (r->size == 0 || object_bytes(env, use, obj) == r->size);
}

/* A release through another family than the pin's (its wrong_function
 * finding is made): the JVM gets the pin's own family's release against the
 * object the pin was taken from.  The object the application named goes
 * with the function it called (an int[] for ReleaseIntArrayElements, a
 * String for ReleaseStringChars), so it is neither judged nor passed on:
 * HotSpot would copy the pin's bytes into an array of another type or free
 * a heap address, and -Xcheck:jni aborts ("Array element type mismatch in
 * JNI", "Non-array passed to JNI array operations", "JNI string operation
 * received a non-string"): its release of a guarded copy checks the array
 * against the function's element type and copies back to the array it is
 * given (src/hotspot/share/prims/jniCheck.cpp, check_primitive_array_type).
 *
 * When the pin's object is gone (a pin carried in from another call, a
 * reference the application deleted), the named object is used only if it
 * can be the pin's; otherwise the release is withheld and the JVM's copy
 * leaks rather than being freed against a guessed object.  A critical
 * cannot be withheld (the GC would stay locked): it goes to the JVM with
 * the object named. */
static void
released_other_family(JNIEnv *env, struct pw_thread *t, uint32_t fn, jobject obj, void *p, jint mode,
                      const struct pw_release *r)
{
    uint32_t use = r->fn;
    /* A commit only copies back: a string pin has nothing to copy, and the
     * string families' releases (no mode) would free it. */
    if (mode == JNI_COMMIT && is_string_fn(use))
        return;
    jobject own = pin_object(env, t, r);
    if (own != NULL)
        release_as(env, t, use, own, p, mode);
    else if (pw_fn_is_critical(use) || can_be_pins(env, t, r, fn, obj))
        release_as(env, t, use, obj, p, mode);
}

/* The release of a pin that needs more than passing on: dropped (a double
 * release), made through another family than its Get's, or made against
 * another object than its Get's. */
static __attribute__((noinline, cold)) void
released_slow(JNIEnv *env, struct pw_thread *t, uint32_t fn, jobject obj, void *p, jint mode, void *call,
              const struct pw_release *r)
{
    if (r->action == PW_RELEASE_DROP)
        return;
    if (r->action == PW_RELEASE_REDIRECT) {
        released_other_family(env, t, fn, obj, p, mode, r);
        return;
    }
    jobject original = NULL;
    if (r->found && r->ref != obj && r->same_call) {
        /* Outside a critical region the objects can be compared before the
         * release, and the release sent to the right one; inside, only
         * afterwards, to report it. */
        if (!pw_fn_is_critical(fn) && t->critical == 0) {
            if (wrong_object(env, r, obj, &original)) {
                pw_finding(PW_FINDING_WRONG_OBJECT, r->site, call, fn);
                if (original != NULL)
                    obj = original;
            }
            release_as(env, t, fn, obj, p, mode);
            return;
        }
        release_as(env, t, fn, obj, p, mode);
        if (t->critical == 0 && wrong_object(env, r, obj, &original))
            pw_finding(PW_FINDING_WRONG_OBJECT, r->site, call, fn);
        return;
    }
    release_as(env, t, fn, obj, p, mode);
}

/* Any release but the common one (pw_track_release_own).  Six arguments
 * (the thread's state is looked up again) so that the hooks jump here. */
static __attribute__((noinline)) void
released_other(JNIEnv *env, uint32_t fn, jobject obj, void *p, jint mode, void *call)
{
    struct pw_thread *t = pw_thread_self();
    if (PW_UNLIKELY(t == NULL)) {
        release_as(env, NULL, fn, obj, p, mode);
        return;
    }
    struct pw_release r = pw_track_release(t, fn, p, mode, call);
    if (PW_LIKELY(r.action == PW_RELEASE_PASS && (!r.found || r.ref == obj || !r.same_call)))
        release_as(env, t, fn, obj, p, mode);
    else
        released_slow(env, t, fn, obj, p, mode, call, &r);
}

static inline __attribute__((always_inline)) void
released(JNIEnv *env, uint32_t fn, jobject obj, void *p, jint mode, void *call)
{
    struct pw_thread *t = pw_tls_self;
    if (PW_LIKELY(t != NULL) && PW_LIKELY(pw_track_release_own(t, fn, p, mode, obj, call)))
        release_as(env, t, fn, obj, p, mode);
    else
        released_other(env, fn, obj, p, mode, call);
}

#define ELEMENTS_HOOKS(Type, jtype, FN) \
    static jtype *JNICALL hook_Get##Type##ArrayElements(JNIEnv *env, jtype##Array array, jboolean *is_copy) \
    { \
        void *ret = PW_RETURN_ADDRESS(); \
        jtype *p = pw_jni.Get##Type##ArrayElements(env, array, is_copy); \
        if (PW_UNLIKELY(!PW_KEY_IS_PIN((uintptr_t)p))) /* NULL, or a table's marker no JVM hands out */ \
            return p; \
        return acquired_elements(env, FN, PW_JNI_SLOT(Get##Type##ArrayElements), ret, p, array); \
    } \
    static void JNICALL hook_Release##Type##ArrayElements(JNIEnv *env, jtype##Array array, jtype *elems, \
                                                          jint mode) \
    { \
        released(env, FN, array, elems, mode, PW_RETURN_ADDRESS()); \
    }

ELEMENTS_HOOKS(Boolean, jboolean, PW_FN_BOOLEAN_ELEMENTS)
ELEMENTS_HOOKS(Byte, jbyte, PW_FN_BYTE_ELEMENTS)
ELEMENTS_HOOKS(Char, jchar, PW_FN_CHAR_ELEMENTS)
ELEMENTS_HOOKS(Short, jshort, PW_FN_SHORT_ELEMENTS)
ELEMENTS_HOOKS(Int, jint, PW_FN_INT_ELEMENTS)
ELEMENTS_HOOKS(Long, jlong, PW_FN_LONG_ELEMENTS)
ELEMENTS_HOOKS(Float, jfloat, PW_FN_FLOAT_ELEMENTS)
ELEMENTS_HOOKS(Double, jdouble, PW_FN_DOUBLE_ELEMENTS)

/* A critical Get's array whose elements were not where the learned layout
 * puts them (the layout held for the arrays it was learned from, so this
 * should not happen): the region is open, so the JVM cannot be asked, and
 * the header just proved not to be this array's.  The pin is recorded with
 * size 0 (its count, site and release stay exact: only its bytes are
 * missing, as they were for every pin taken inside another region before
 * the layout), and the layout is forgotten, so that every later Get asks
 * the JVM before its region opens instead. */
static __attribute__((noinline, cold)) int32_t
critical_unsized(void)
{
    pw_array_layout_forget();
    return 0;
}

/* A critical Get recorded from the array's own header, with no JVM call
 * but the Get itself (none is allowed inside the region, and the array
 * cannot move there): its type and length come from the header once the
 * JVM has handed out its elements.  Two callers:
 *
 * - the common critical of an array the length cache does not hold (one
 *   the invocation fetched itself, as lz4-java, snappy-java and JNA do), at
 *   a site whose element size elem is known, with the layout word for it
 *   (layout): the array's class word, where the header has one, gives its
 *   type, so that a site taking arrays of several types (a helper called
 *   with any jarray) is sized right; the layout and elem otherwise;
 * - a Get made while the thread holds another region (lz4-java's and
 *   snappy-java's second array), at a site the thread's cache knows, with
 *   the class words learned (elem and layout 0): the class word alone, as
 *   the site's element size is one a nested Get could never ask for; size
 *   0 when the header does not tell, as critical_other records it.
 *
 * Out of line, so that the hook's cached case keeps no more than before
 * across its JVM call.  Returns p, so that its callers jump here. */
static __attribute__((noinline)) void *
critical_from_header(JNIEnv *env, jarray array, jboolean *is_copy, const struct pw_site_ref *at, unsigned elem,
                     uint32_t layout)
{
    struct pw_thread *t = pw_tls_self;
    struct pw_frame *f = &t->frames[t->depth - 1];
    void *p = pw_jni.GetPrimitiveArrayCritical(env, array, is_copy);
    if (PW_LIKELY(p != NULL)) {
        t->critical++;
        region_opened(env, t);
        t->critical_site = at->site;
        if (PW_LIKELY(PW_KEY_IS_PIN((uintptr_t)p))) {
            int32_t len = 0;
            unsigned type_elem = pw_array_elem_at(array, p, &len);
            if (type_elem != 0)
                elem = type_elem;
            else if (layout != 0 && PW_UNLIKELY((len = pw_array_length_at(array, p, layout)) < 0))
                len = critical_unsized();
            pw_track_critical_commit(t, f, at, p, (uint64_t)len * elem, array);
        }
    }
    return p;
}

/* Any GetPrimitiveArrayCritical but the common one, done in full; a
 * nested one first tries critical_from_header.  The hook leaves every
 * nested Get here, so that its own common case tests one word for both. */
static __attribute__((noinline)) void *
critical_other(JNIEnv *env, jarray array, jboolean *is_copy, void *ret)
{
    struct pw_thread *t = pw_thread_self();
    if (PW_UNLIKELY(t == NULL))
        return pw_jni.GetPrimitiveArrayCritical(env, array, is_copy);
    if (t->critical != 0 && t->depth != 0 && array != NULL &&
        atomic_load_explicit(&pw_array_class_at, memory_order_relaxed) != 0) {
        const struct pw_site_ref *ready =
            pw_track_critical_ready(t, &t->frames[t->depth - 1], PW_FN_ARRAY_CRITICAL, ret);
        if (ready != NULL)
            return critical_from_header(env, array, is_copy, ready, 0, 0);
    }
    const struct pw_site_ref at = *pw_track_site_ref(env, t, PW_KIND_PIN, PW_FN_ARRAY_CRITICAL, ret);
    uint32_t site = at.site;
    uint64_t size = 0;
    if (t->critical == 0 && array != NULL) {
        struct pw_site *s = pw_site_get(site);
        unsigned elem = atomic_load_explicit(&s->elem_size, memory_order_relaxed);
        if (PW_UNLIKELY(elem == 0)) {
            elem = learn_elem_size(env, array);
            atomic_store_explicit(&s->elem_size, elem, memory_order_relaxed);
        }
        /* The hook reads the element size from this thread's cache entry,
         * which may have been filled before anyone learned it. */
        struct pw_site_cache_entry *e = pw_site_cache_slot(t, ret);
        if (elem != 0 && e->ret == ret && e->at.site == site)
            e->at.elem = (uint8_t)elem;
        size = array_bytes(env, t, array, elem);
    }
    bool nested = t->critical != 0;
    void *p = pw_jni.GetPrimitiveArrayCritical(env, array, is_copy);
    if (p != NULL) {
        /* Inside another region the JVM could not be asked: the header
         * tells the type and length where the layout allows it. */
        int32_t len;
        unsigned elem_here;
        if (nested && array != NULL && (elem_here = pw_array_elem_at(array, p, &len)) != 0)
            size = (uint64_t)len * elem_here;
        t->critical++;
        region_opened(env, t);
        t->critical_site = site;
        pw_track_acquire_at(t, &at, PW_FN_ARRAY_CRITICAL, p, size, array);
    }
    return p;
}

/* The common critical, as the elements Get does it: inside a native method,
 * outside any other critical region, at a site whose element size is known
 * and whose array's length the thread remembers (critical_from_header
 * when it does not but the layout is known).  Every test is made before the region
 * opens, and nothing but the JVM's call comes between them and the record,
 * which makes no JNI call (none is allowed inside). */
static void *JNICALL
hook_GetPrimitiveArrayCritical(JNIEnv *env, jarray array, jboolean *is_copy)
{
    void *ret = PW_RETURN_ADDRESS();
    struct pw_thread *t = pw_tls_self;
    if (PW_UNLIKELY(t == NULL || t->critical != 0 || t->depth == 0))
        return critical_other(env, array, is_copy, ret);
    struct pw_frame *f = &t->frames[t->depth - 1];
    const struct pw_site_ref *at = pw_track_critical_ready(t, f, PW_FN_ARRAY_CRITICAL, ret);
    if (PW_UNLIKELY(at == NULL))
        return critical_other(env, array, is_copy, ret);
    unsigned elem = at->elem;
    if (PW_UNLIKELY(elem == 0))
        return critical_other(env, array, is_copy, ret);
    if (PW_UNLIKELY(t->length_cache.serial != f->serial || t->length_cache.array != array)) {
        /* elem is 1, 2, 4 or 8 here. */
        uint32_t layout = atomic_load_explicit(&pw_array_layout[elem], memory_order_relaxed);
        if (PW_LIKELY(layout != 0))
            return critical_from_header(env, array, is_copy, at, elem, layout);
        return critical_other(env, array, is_copy, ret);
    }
    uint64_t size = (uint64_t)t->length_cache.length * elem;
    void *p = pw_jni.GetPrimitiveArrayCritical(env, array, is_copy);
    if (PW_LIKELY(p != NULL)) {
        t->critical++;
        region_opened(env, t);
        t->critical_site = at->site;
        if (PW_LIKELY(PW_KEY_IS_PIN((uintptr_t)p)))
            pw_track_critical_commit(t, f, at, p, size, array);
    }
    return p;
}

static void JNICALL
hook_ReleasePrimitiveArrayCritical(JNIEnv *env, jarray array, void *carray, jint mode)
{
    released(env, PW_FN_ARRAY_CRITICAL, array, carray, mode, PW_RETURN_ADDRESS());
}

static const jchar *JNICALL
hook_GetStringChars(JNIEnv *env, jstring string, jboolean *is_copy)
{
    void *ret = PW_RETURN_ADDRESS();
    const jchar *p = pw_jni.GetStringChars(env, string, is_copy);
    struct pw_thread *t;
    if (p != NULL && (t = pw_hook_enter(PW_JNI_SLOT(GetStringChars), ret)) != NULL) {
        const struct pw_site_ref at = *pw_track_site_ref(env, t, PW_KIND_PIN, PW_FN_STRING_CHARS, ret);
        uint64_t size = t->critical == 0 ? (uint64_t)pw_jni.GetStringLength(env, string) * 2 : 0;
        pw_track_acquire_at(t, &at, PW_FN_STRING_CHARS, p, size, string);
    }
    return p;
}

static void JNICALL
hook_ReleaseStringChars(JNIEnv *env, jstring string, const jchar *chars)
{
    released(env, PW_FN_STRING_CHARS, string, (void *)chars, 0, PW_RETURN_ADDRESS());
}

static const char *JNICALL
hook_GetStringUTFChars(JNIEnv *env, jstring string, jboolean *is_copy)
{
    void *ret = PW_RETURN_ADDRESS();
    const char *p = pw_jni.GetStringUTFChars(env, string, is_copy);
    struct pw_thread *t;
    if (p != NULL && (t = pw_hook_enter(PW_JNI_SLOT(GetStringUTFChars), ret)) != NULL) {
        const struct pw_site_ref *at = pw_track_site_ref(env, t, PW_KIND_PIN, PW_FN_STRING_UTF_CHARS, ret);
        pw_track_acquire_at(t, at, PW_FN_STRING_UTF_CHARS, p, strlen(p) + 1, string);
    }
    return p;
}

static void JNICALL
hook_ReleaseStringUTFChars(JNIEnv *env, jstring string, const char *utf)
{
    released(env, PW_FN_STRING_UTF_CHARS, string, (void *)utf, 0, PW_RETURN_ADDRESS());
}

static const jchar *JNICALL
hook_GetStringCritical(JNIEnv *env, jstring string, jboolean *is_copy)
{
    void *ret = PW_RETURN_ADDRESS();
    struct pw_thread *t = pw_thread_self();
    if (PW_UNLIKELY(t == NULL))
        return pw_jni.GetStringCritical(env, string, is_copy);
    const struct pw_site_ref at = *pw_track_site_ref(env, t, PW_KIND_PIN, PW_FN_STRING_CRITICAL, ret);
    uint64_t size = t->critical == 0 && string != NULL ? (uint64_t)pw_jni.GetStringLength(env, string) * 2 : 0;
    const jchar *p = pw_jni.GetStringCritical(env, string, is_copy);
    if (p != NULL) {
        t->critical++;
        region_opened(env, t);
        t->critical_site = at.site;
        pw_track_acquire_at(t, &at, PW_FN_STRING_CRITICAL, p, size, string);
    }
    return p;
}

static void JNICALL
hook_ReleaseStringCritical(JNIEnv *env, jstring string, const jchar *chars)
{
    released(env, PW_FN_STRING_CRITICAL, string, (void *)chars, 0, PW_RETURN_ADDRESS());
}

static atomic_bool installed;

/* The JVM's table is the JVM's struct JNINativeInterface_, not the one of
 * the jni.h pinwatch was compiled against: HotSpot's GetJNIFunctionTable
 * (prims/jvmtiEnv.cpp) hands back a jvmtiMalloc'd copy of
 * sizeof(jniNativeInterface) of its own build, and SetJNIFunctionTable has
 * copy_jni_function_table (prims/jni.cpp) store that many slots back, one
 * pointer at a time.  How many that is follows from the JNI version the
 * JVM implements; nothing past it is read or written. */
static uint32_t
jvm_table_slots(JavaVM *vm, bool *exact)
{
    jint version = pw_jni_version(vm);
    *exact = false;
    if (version == 0) {
        uint32_t slots = pw_jni_table_slots(JNI_VERSION_9, NULL);
        pw_log_warn(
            "the JVM did not say its JNI version: JNI functions past the first %u are not "
            "checked for calls inside critical regions",
            slots);
        return slots;
    }
    bool known = true;
    uint32_t slots = pw_jni_table_slots(version, &known);
    if (slots == 0)
        pw_log_error("JNI version 0x%08x is older than 1.6: not supported", (unsigned)version);
    else if (!known)
        pw_log_warn(
            "JNI version 0x%08x is newer than pinwatch knows: JNI functions past the first %u "
            "are not checked for calls inside critical regions",
            (unsigned)version, slots);
    *exact = slots != 0 && known;
    return slots;
}

bool
pw_jni_hooks_install(jvmtiEnv *jvmti, JavaVM *vm)
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
    bool exact;
    uint32_t slots = jvm_table_slots(vm, &exact);
    if (slots == 0) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
        atomic_store(&installed, false);
        return false;
    }
    pw_jni_table_save(table, slots, exact);
    /* region_table can stand for the JVM's table only with all its slots. */
    by_region = pw_jni_whole != NULL && slots <= PW_JNI_SLOTS;
    if (by_region) {
        memcpy(region_table.slots, table, slots * sizeof(void *));
        pw_jni_guard_install(region_table.slots, slots);
    } else {
        pw_jni_guard_install((void **)table, slots);
    }
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
    pw_jvm_calls_install(table, pw_ref_hooks_install(table));
    if (by_region) {
        /* The wrappers in region_table too: a slot the installed table no
         * longer has as the JVM had it (pw_jni_guard_next: a guarded slot's
         * JVM function; pw_jni: a critical slot's) is a wrapper's. */
        void **installed_slots = (void **)table;
        const void *const *jvm = (const void *const *)&pw_jni;
        for (uint32_t i = 0; i < slots && i < sizeof(pw_jni) / sizeof(void *); i++) {
            void *jvm_fn = pw_jni_guard_next[i] != NULL ? pw_jni_guard_next[i] : (void *)jvm[i];
            if (installed_slots[i] != jvm_fn)
                region_table.slots[i] = installed_slots[i];
        }
        /* The slots newer than the jni.h pinwatch is built with (JDK 21's
         * IsVirtualThread, JDK 24's GetStringUTFLengthAsLong) keep their
         * guard in the installed table too: code built against older
         * headers must read them from the table by index, and may read
         * them before its region opens.  They are not on any hot path. */
        for (uint32_t i = sizeof(pw_jni) / sizeof(void *); i < slots; i++)
            installed_slots[i] = region_table.slots[i];
    }
    /* pw_jni and the guards' onward table (pw_jni_guard_next), and every
     * setting the start calls wrote, are read without a lock by any
     * thread that finds a wrapper in the JVM's table: they must be visible
     * before the first slot is.  x86 keeps stores in order by itself; on
     * aarch64 the JVM's own copy of the table is not known to fence. */
    atomic_thread_fence(memory_order_seq_cst);
    err = (*jvmti)->SetJNIFunctionTable(jvmti, table);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
    if (err != JVMTI_ERROR_NONE) {
        pw_log_jvmti_error(jvmti, err, "SetJNIFunctionTable");
        atomic_store(&installed, false);
        return false;
    }
    return true;
}
