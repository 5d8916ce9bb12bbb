/* SPDX-License-Identifier: Apache-2.0 */
/* A long[4] GetLongArrayElements/ReleaseLongArrayElements loop through
 * pinwatch's hooks, without a JVM, for counting instructions per pair
 * (count_instructions.py runs it under callgrind).  Unlike the benchmark's
 * nanoseconds, an instruction count does not depend on what else the
 * machine is running, so it can tell a change of a few percent apart.
 *
 * The "JVM" is a JNI table whose Get hands out one static buffer and whose
 * Release does nothing, and a jvmtiEnv that only swaps tables; the thread
 * is made to look as if it were inside one invocation of a native method
 * whose array argument is a handle on the stack, as HotSpot's wrapper
 * passes it.  So the loop takes the hooks' common path: the site cache
 * hit, the remembered array length, the thread's own pin table.
 *
 * The same for the benchmark's other pairs: GetPrimitiveArrayCritical +
 * Release (the stand-in array's class answers every class question, so it
 * reads as a boolean[]), NewGlobalRef + DeleteGlobalRef and, inside the
 * method, NewLocalRef + DeleteLocalRef.
 *
 * And a JNA-shaped call ("jna"): one invocation of a native method per
 * iteration (its shadow frame pushed as the entry thunk pushes it, the
 * thunk's own instructions not counted) doing what JNA's dispatch does for
 * memcpy(byte[], byte[], long) through a Library interface, as pinwatch's
 * own report of that workload counts it (tests/bench/README.md): three
 * GetObjectArrayElement, two GetObjectClass, two CallObjectMethod (the
 * arrays' component types), the type tests callgrind counts per call of
 * JNA's dispatch (30 IsInstanceOf, 12 IsAssignableFrom, 12 IsSameObject:
 * JNI functions no wrapper owns), then GetByteArrayElements of the two
 * arrays fetched from the Object[] (not argument handles: the length cache
 * does not know them), their two releases, and the return.
 *
 * After the loop, outside what is counted (its cost does not grow with N,
 * and count_instructions.py subtracts a short run from a long one), the
 * hooked run checks that the agent's own books counted every pair: pins
 * acquired == released == N (2N for jna), references created == deleted ==
 * N, locals created == N (7N for jna) with the invocation's count back at
 * 0.  Hooks that pass calls straight through count nothing and fail here,
 * however few instructions they take.
 *
 *   pair_instructions N [bare|hooked] [long4|critical|global|local|jna]
 *       N pairs (long4 unless said); bare: the same loop without hooks */
#include "base/options.h"
#include "intercept/jni_hooks.h"
#include "intercept/ref_hooks.h"
#include "state/methods.h"
#include "tracking/refs.h"
#include "tracking/requests.h"
#include "tracking/tracker.h"
#include "state/thread_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jlong buffer[4];
static struct JNINativeInterface_ jvm_functions;
static struct JNINativeInterface_ hooked_functions;
static struct pw_method method;

static jlong *JNICALL
get_elements(JNIEnv *env, jlongArray array, jboolean *is_copy)
{
    (void)env;
    (void)array;
    if (is_copy != NULL)
        *is_copy = JNI_TRUE;
    return buffer;
}

static void JNICALL
release_elements(JNIEnv *env, jlongArray array, jlong *elems, jint mode)
{
    (void)env;
    (void)array;
    (void)elems;
    (void)mode;
}

/* Reference stand-ins: one handle, made and deleted again and again, as
 * HotSpot hands a freed handle out first. */
static jobject global_handle = (jobject)&buffer[1];
static jobject local_handle = (jobject)&buffer[2];

static jobject JNICALL
new_global(JNIEnv *env, jobject obj)
{
    (void)env;
    (void)obj;
    return global_handle;
}

static jobject JNICALL
new_local(JNIEnv *env, jobject obj)
{
    (void)env;
    (void)obj;
    return local_handle;
}

static void JNICALL
delete_ref(JNIEnv *env, jobject ref)
{
    (void)env;
    (void)ref;
}

static void *JNICALL
get_critical(JNIEnv *env, jarray array, jboolean *is_copy)
{
    (void)env;
    (void)array;
    if (is_copy != NULL)
        *is_copy = JNI_FALSE;
    return buffer;
}

static void JNICALL
release_critical(JNIEnv *env, jarray array, void *carray, jint mode)
{
    (void)env;
    (void)array;
    (void)carray;
    (void)mode;
}

static jclass JNICALL
object_class(JNIEnv *env, jobject obj)
{
    (void)env;
    (void)obj;
    return (jclass)global_handle;
}

static jclass JNICALL
find_class(JNIEnv *env, const char *name)
{
    (void)env;
    (void)name;
    return (jclass)local_handle;
}

static jboolean JNICALL
same_object(JNIEnv *env, jobject a, jobject b)
{
    (void)env;
    (void)a;
    (void)b;
    return JNI_TRUE;
}

static jsize JNICALL
array_length(JNIEnv *env, jarray array)
{
    (void)env;
    (void)array;
    return 4;
}

/* JNA's Object[] of arguments: GetObjectArrayElement hands out a local
 * handle of its own per element, in a handle block away from the stack,
 * as HotSpot's are. */
static jobject element_handles[3];

static jobject JNICALL
array_element(JNIEnv *env, jobjectArray array, jsize index)
{
    (void)env;
    (void)array;
    return (jobject)&element_handles[index % 3];
}

static jboolean JNICALL
instance_of(JNIEnv *env, jobject obj, jclass cls)
{
    (void)env;
    return obj == (jobject)cls;
}

static jboolean JNICALL
assignable(JNIEnv *env, jclass sub, jclass sup)
{
    (void)env;
    return sub == sup;
}

static jbyte byte_buffers[2][64];

static jbyte *JNICALL
get_bytes(JNIEnv *env, jbyteArray array, jboolean *is_copy)
{
    (void)env;
    if (is_copy != NULL)
        *is_copy = JNI_TRUE;
    return byte_buffers[(jobject *)array == &element_handles[1]];
}

static void JNICALL
release_bytes(JNIEnv *env, jbyteArray array, jbyte *elems, jint mode)
{
    (void)env;
    (void)array;
    (void)elems;
    (void)mode;
}

static jobject JNICALL
call_object(JNIEnv *env, jobject obj, jmethodID id, ...)
{
    (void)env;
    (void)obj;
    (void)id;
    return local_handle;
}

static jvmtiError JNICALL
get_table(jvmtiEnv *jvmti, jniNativeInterface **table)
{
    (void)jvmti;
    *table = malloc(sizeof(**table));
    if (*table == NULL)
        return JVMTI_ERROR_OUT_OF_MEMORY;
    **table = jvm_functions;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL
set_table(jvmtiEnv *jvmti, const jniNativeInterface *table)
{
    (void)jvmti;
    hooked_functions = *table;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL
deallocate(jvmtiEnv *jvmti, unsigned char *mem)
{
    (void)jvmti;
    free(mem);
    return JVMTI_ERROR_NONE;
}

/* The JNI version the hooks size the JVM's table from: JDK 17's. */
static jint JNICALL
get_env(JavaVM *vm, void **penv, jint version)
{
    (void)vm;
    *penv = NULL;
    return version <= JNI_VERSION_10 ? JNI_OK : JNI_EVERSION;
}

static void
thread_ending(struct pw_thread *t)
{
    (void)t;
}

/* The benchmark's loop (pwbench.c), kept out of line so that the pair's
 * cost is the same whatever main does. */
static __attribute__((noinline)) jlong
pairs(JNIEnv *env, jlongArray array, long n)
{
    jlong sum = 0;
    for (long i = 0; i < n; i++) {
        jlong *p = (*env)->GetLongArrayElements(env, array, NULL);
        if (p == NULL)
            return -1;
        sum += p[i & 3];
        p[0] = (jlong)i;
        (*env)->ReleaseLongArrayElements(env, array, p, 0);
    }
    return sum;
}

static __attribute__((noinline)) jlong
critical_pairs(JNIEnv *env, jarray array, long n)
{
    jlong sum = 0;
    for (long i = 0; i < n; i++) {
        jlong *p = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
        if (p == NULL)
            return -1;
        sum += p[i & 3];
        (*env)->ReleasePrimitiveArrayCritical(env, array, p, 0);
    }
    return sum;
}

static __attribute__((noinline)) jlong
global_pairs(JNIEnv *env, jobject obj, long n)
{
    jlong sum = 0;
    for (long i = 0; i < n; i++) {
        jobject g = (*env)->NewGlobalRef(env, obj);
        if (g == NULL)
            return -1;
        sum += (jlong)(i & 3);
        (*env)->DeleteGlobalRef(env, g);
    }
    return sum;
}

static __attribute__((noinline)) jlong
local_pairs(JNIEnv *env, jobject obj, long n)
{
    jlong sum = 0;
    for (long i = 0; i < n; i++) {
        jobject l = (*env)->NewLocalRef(env, obj);
        if (l == NULL)
            return -1;
        sum += (jlong)(i & 3);
        (*env)->DeleteLocalRef(env, l);
    }
    return sum;
}

/* One JNA call's JNI traffic (see the top of the file); t is NULL when bare. */
static __attribute__((noinline)) jlong
jna_calls(JNIEnv *env, struct pw_thread *t, jobjectArray args, long n)
{
    jlong sum = 0;
    for (long i = 0; i < n; i++) {
        if (t != NULL) {
            /* The entry thunk's push (native_entry_<arch>.S). */
            t->frames[0].serial = ++t->serial;
            t->frames[0].live = 0;
            pw_frame_set_locals(&t->frames[0], 0);
        }
        jobject dst = (*env)->GetObjectArrayElement(env, args, 0);
        jobject src = (*env)->GetObjectArrayElement(env, args, 1);
        jobject len = (*env)->GetObjectArrayElement(env, args, 2);
        jclass dc = (*env)->GetObjectClass(env, dst);
        jobject dt = (*env)->CallObjectMethod(env, dc, NULL);
        jclass sc = (*env)->GetObjectClass(env, src);
        jobject st = (*env)->CallObjectMethod(env, sc, NULL);
        if (len == NULL || dt == NULL || st == NULL)
            return -1;
        /* JNA's type tests of the arguments and the return type. */
        for (int k = 0; k < 30; k++)
            sum += (*env)->IsInstanceOf(env, dst, (jclass)src);
        for (int k = 0; k < 12; k++) {
            sum += (*env)->IsAssignableFrom(env, dc, sc);
            sum += (*env)->IsSameObject(env, dt, st);
        }
        jbyte *d = (*env)->GetByteArrayElements(env, (jbyteArray)dst, NULL);
        jbyte *s = (*env)->GetByteArrayElements(env, (jbyteArray)src, NULL);
        if (d == NULL || s == NULL)
            return -1;
        d[i & 63] = s[i & 63];
        sum += d[0];
        (*env)->ReleaseByteArrayElements(env, (jbyteArray)src, s, JNI_ABORT);
        (*env)->ReleaseByteArrayElements(env, (jbyteArray)dst, d, 0);
        /* The exit stub's test: pins still live go to the leak table. */
        if (t != NULL && t->frames[0].live != 0)
            return -1;
    }
    return sum;
}

/* The agent's own books after n pairs of kind pair: what every counted
 * run must show (see the top of the file).  Prints what it read; false
 * when a figure is not what n pairs make. */
static bool
books_hold(struct pw_thread *t, const char *pair, long n)
{
    uint32_t nsites = pw_site_count();
    struct pw_counts *sums = calloc(nsites + 1, sizeof(*sums));
    if (sums == NULL)
        return false;
    pw_thread_counts_add_to(&t->sites.counts, sums, nsites);
    uint64_t got[PW_KIND_COUNT][2] = {{0}};
    for (uint32_t i = 1; i < nsites; i++) {
        const struct pw_site *site = pw_site_get(i);
        got[site->kind][0] += sums[i].acquired;
        got[site->kind][1] += sums[i].released;
    }
    free(sums);
    uint64_t un = (uint64_t)n;
    uint64_t pins_want = strcmp(pair, "jna") == 0 ? 2 * un : strcmp(pair, "long4") == 0 || strcmp(pair, "critical") == 0 ? un : 0;
    uint64_t globals_want = strcmp(pair, "global") == 0 ? un : 0;
    uint64_t locals_want = strcmp(pair, "jna") == 0 ? 7 * un : strcmp(pair, "local") == 0 ? un : 0;
    uint32_t locals_left = pw_frame_locals(&t->frames[0]) & PW_LOCALS_COUNT_MASK;
    /* Locals inside a native method are counted per invocation, not
     * deleted one by one: the local pair's deletes show as the
     * invocation's count back at 0 (jna's locals die at its return). */
    uint32_t locals_left_want = 0;
    if (strcmp(pair, "jna") == 0)
        locals_left_want = 7;
    fprintf(stderr,
            "pair_instructions: books after %ld %s pairs: pins acquired %llu released %llu live %u, "
            "globals created %llu deleted %llu, locals created %llu (invocation's count %u)\n",
            n, pair, (unsigned long long)got[PW_KIND_PIN][0], (unsigned long long)got[PW_KIND_PIN][1],
            t->frames[0].live, (unsigned long long)got[PW_KIND_GLOBAL_REF][0],
            (unsigned long long)got[PW_KIND_GLOBAL_REF][1], (unsigned long long)got[PW_KIND_LOCAL_REF][0],
            locals_left);
    return got[PW_KIND_PIN][0] == pins_want && got[PW_KIND_PIN][1] == pins_want && t->frames[0].live == 0 &&
           got[PW_KIND_GLOBAL_REF][0] == globals_want && got[PW_KIND_GLOBAL_REF][1] == globals_want &&
           got[PW_KIND_LOCAL_REF][0] == locals_want && locals_left == locals_left_want;
}

int
main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    bool bare = argc > 2 && strcmp(argv[2], "bare") == 0;
    const char *pair = argc > 3 ? argv[3] : "long4";
    jvm_functions.GetLongArrayElements = get_elements;
    jvm_functions.ReleaseLongArrayElements = release_elements;
    jvm_functions.NewGlobalRef = new_global;
    jvm_functions.DeleteGlobalRef = delete_ref;
    jvm_functions.NewLocalRef = new_local;
    jvm_functions.DeleteLocalRef = delete_ref;
    jvm_functions.GetPrimitiveArrayCritical = get_critical;
    jvm_functions.ReleasePrimitiveArrayCritical = release_critical;
    jvm_functions.GetObjectClass = object_class;
    jvm_functions.FindClass = find_class;
    jvm_functions.IsSameObject = same_object;
    jvm_functions.GetArrayLength = array_length;
    jvm_functions.GetObjectArrayElement = array_element;
    jvm_functions.GetByteArrayElements = get_bytes;
    jvm_functions.ReleaseByteArrayElements = release_bytes;
    jvm_functions.CallObjectMethod = call_object;
    jvm_functions.IsInstanceOf = instance_of;
    jvm_functions.IsAssignableFrom = assignable;
    struct jvmtiInterface_1_ jvmti_functions;
    memset(&jvmti_functions, 0, sizeof(jvmti_functions));
    jvmti_functions.GetJNIFunctionTable = get_table;
    jvmti_functions.SetJNIFunctionTable = set_table;
    jvmti_functions.Deallocate = deallocate;
    const struct jvmtiInterface_1_ *jvmti_table = &jvmti_functions;
    jvmtiEnv *jvmti = (jvmtiEnv *)&jvmti_table;

    struct JNIInvokeInterface_ vm_functions;
    memset(&vm_functions, 0, sizeof(vm_functions));
    vm_functions.GetEnv = get_env;
    JavaVM vm_table = &vm_functions;

    JNIEnv table = &jvm_functions;
    struct pw_thread *t = NULL;
    if (!bare) {
        /* The defaults, as the agent starts them: threshold=, refs= and
         * stack= (a stack when the site is first seen, the sampling
         * countdown on every Get).  Only javastack= is left out: the
         * stand-in JVMTI cannot answer it, and it is asked once per site,
         * never on the pair. */
        struct pw_options defaults;
        pw_options_defaults(&defaults);
        defaults.javastack = 0;
        pw_tracker_start(&defaults, jvmti, false);
        pw_requests_start(&defaults);
        pw_ref_hooks_start(&defaults);
        pw_refs_start(&defaults, jvmti);
        if (!pw_threads_init(thread_ending) || !pw_jni_hooks_install(jvmti, &vm_table) ||
            (t = pw_thread_self()) == NULL) {
            fprintf(stderr, "pair_instructions: the hooks could not be set up\n");
            return 1;
        }
        table = &hooked_functions;
        /* Inside one invocation, as native_entry.S would have it. */
        t->serial = 1;
        t->frames[0].method = &method;
        t->frames[0].serial = 1;
        t->frames[0].live = 0;
        pw_frame_set_locals(&t->frames[0], 0);
        t->depth = 1;
    }
    JNIEnv *env = &table;
    jobject handle = NULL;
    jlong sum;
    if (strcmp(pair, "critical") == 0)
        sum = critical_pairs(env, (jarray)&handle, n);
    else if (strcmp(pair, "global") == 0)
        sum = global_pairs(env, (jobject)&handle, n);
    else if (strcmp(pair, "local") == 0)
        sum = local_pairs(env, (jobject)&handle, n);
    else if (strcmp(pair, "jna") == 0)
        sum = jna_calls(env, t, (jobjectArray)&handle, n);
    else
        sum = pairs(env, (jlongArray)&handle, n);
    printf("%lld\n", (long long)sum);
    if (sum < 0) {
        fprintf(stderr, "pair_instructions: a call failed\n");
        return 1;
    }
    if (t != NULL && !books_hold(t, pair, n)) {
        fprintf(stderr, "pair_instructions: FAIL: the agent's books did not count the %ld pairs\n", n);
        return 2;
    }
    return 0;
}
