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
 *   pair_instructions N [bare|hooked] [long4|critical|global|local]
 *       N pairs (long4 unless said); bare: the same loop without hooks */
#include "base/options.h"
#include "intercept/jni_hooks.h"
#include "intercept/ref_hooks.h"
#include "state/methods.h"
#include "tracking/refs.h"
#include "tracking/requests.h"
#include "tracking/tracker.h"
#include "state/thread_state.h"

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
        struct pw_thread *t;
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
    else
        sum = pairs(env, (jlongArray)&handle, n);
    printf("%lld\n", (long long)sum);
    return 0;
}
