/* SPDX-License-Identifier: Apache-2.0 */
#include "report/jfr.h"
#include "base/log.h"
#include "jvm/jni_table.h"
#include "report/where.h"
#include "tracking/events.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the jar is, relative to the directory of libpinwatch.so: the
 * build tree (agent/ and agent/java/api/), a release archive (both in
 * lib/), then the installed tree (LIBDIR/pinwatch/ or
 * LIBDIR/ARCH/pinwatch/, and DATADIR/java/). */
static const char *const jar_places[] = {
    "java/api/pinwatch-api.jar",
    "pinwatch-api.jar",
    "../../share/java/pinwatch-api.jar",
    "../../../share/java/pinwatch-api.jar",
};

static bool
find_jar(char *out, size_t size)
{
    Dl_info info;
    if (dladdr((void *)pw_jfr_start, &info) == 0 || info.dli_fname == NULL)
        return false;
    char dir[PATH_MAX];
    if (realpath(info.dli_fname, dir) == NULL)
        return false;
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    for (size_t i = 0; i < sizeof(jar_places) / sizeof(jar_places[0]); i++) {
        char path[PATH_MAX];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, jar_places[i]) >= sizeof(path))
            continue;
        if (access(path, R_OK) == 0 && realpath(path, out) != NULL && strlen(out) < size)
            return true;
    }
    return false;
}

/* The order of a Report event's figures in the queue and in next0's
 * numbers (Recorder.java reads them by these positions). */
enum { FIG_LIVE, FIG_BYTES, FIG_LEAKED, FIG_HELD, FIG_ACQUIRED, FIG_RELEASED, FIG_FINDINGS, FIG_REF_LIVE };

void
pw_jfr_report(const char *reason, const struct pw_snap_totals *t, uint64_t threshold)
{
    const uint64_t figures[PW_EVENT_FIGURES] = {
        [FIG_LIVE] = t->live,         [FIG_BYTES] = t->live_bytes,
        [FIG_LEAKED] = t->leaked,     [FIG_HELD] = t->live - t->leaked,
        [FIG_ACQUIRED] = t->acquired, [FIG_RELEASED] = t->released,
        [FIG_FINDINGS] = t->findings, [FIG_REF_LIVE] = t->ref_live,
    };
    pw_events_report(reason, figures, threshold);
}

/* The Java frames as text, one "pkg.Cls.method(File line)" per line,
 * innermost first, as a Java stack trace reads. */
static char *
stack_text(const struct pw_java_stack *s)
{
    if (s == NULL)
        return NULL;
    size_t size = 1;
    for (int i = 0; i < s->n; i++)
        size += strlen(s->frames[i].method) + 24;
    char *text = malloc(size);
    if (text == NULL)
        return NULL;
    size_t n = 0;
    text[0] = '\0';
    for (int i = 0; i < s->n && n < size; i++) {
        const struct pw_java_frame *f = &s->frames[i];
        const char *sep = i > 0 ? "\n" : "";
        if (f->line >= 0)
            n += (size_t)snprintf(text + n, size - n, "%s%s:%d", sep, f->method, f->line);
        else
            n += (size_t)snprintf(text + n, size - n, "%s%s", sep, f->method);
    }
    return text;
}

/* Sets strings[i] to text (NULL stays null); false on a pending exception. */
static bool
set_string(JNIEnv *env, jobjectArray strings, int i, const char *text)
{
    if (text == NULL)
        return true;
    jstring s = pw_jni.NewStringUTF(env, text);
    if (s == NULL || pw_jni.ExceptionCheck(env))
        return false;
    pw_jni.SetObjectArrayElement(env, strings, i, s);
    pw_jni.DeleteLocalRef(env, s);
    return !pw_jni.ExceptionCheck(env);
}

/* Strings of a finding: type, kind, method, signature, function, call
 * function, call site, Java stack, thread.  Numbers: time, occurrences so far,
 * events dropped so far. */
static bool
finding_fields(JNIEnv *env, const struct pw_event *e, jobjectArray strings, jlong *numbers)
{
    struct pw_snap_finding names;
    pw_snap_finding_names(e->kind, e->site, e->detail, &names);
    char where[1024] = "";
    if (e->call != 0) {
        /* A tail call's call is its function's start + 1 (findings.h). */
        pw_where_text(e->call, e->tail_call, where, sizeof(where));
    }
    char *stack = stack_text(e->stack);
    bool ok = set_string(env, strings, 0, "finding") && set_string(env, strings, 1, names.kind) &&
              set_string(env, strings, 2, names.method) && set_string(env, strings, 3, names.signature) &&
              set_string(env, strings, 4, names.function) && set_string(env, strings, 5, names.call_function) &&
              set_string(env, strings, 6, where[0] != '\0' ? where : NULL) &&
              set_string(env, strings, 7, stack) &&
              set_string(env, strings, 8, e->thread[0] != '\0' ? e->thread : NULL);
    free(stack);
    numbers[0] = (jlong)e->time_ms;
    numbers[1] = (jlong)e->count;
    numbers[2] = (jlong)pw_events_dropped();
    return ok;
}

/* Strings: type, reason.  Numbers: time, the PW_EVENT_FIGURES figures,
 * threshold, events dropped so far. */
static bool
report_fields(JNIEnv *env, const struct pw_event *e, jobjectArray strings, jlong *numbers)
{
    numbers[0] = (jlong)e->time_ms;
    for (int i = 0; i < PW_EVENT_FIGURES; i++)
        numbers[1 + i] = (jlong)e->figures[i];
    numbers[1 + PW_EVENT_FIGURES] = (jlong)e->threshold;
    numbers[2 + PW_EVENT_FIGURES] = (jlong)pw_events_dropped();
    return set_string(env, strings, 0, "report") && set_string(env, strings, 1, e->reason);
}

#define NEXT_STRINGS 9
#define NEXT_NUMBERS 12
#define AWAIT_MAX_MS 10000

/* java.lang.String, for next0's arrays: a global reference made by
 * pw_jfr_start before the natives can be called. */
static jclass string_class;

/* static native void want0(boolean findings, boolean reports) */
static void JNICALL
jfr_want(JNIEnv *env, jclass cls, jboolean findings, jboolean reports)
{
    (void)env;
    (void)cls;
    pw_events_want(findings == JNI_TRUE, reports == JNI_TRUE);
}

/* static native boolean await0(long waitMs): in native code, where no
 * safepoint waits for the recorder's thread. */
static jboolean JNICALL
jfr_await(JNIEnv *env, jclass cls, jlong wait_ms)
{
    (void)env;
    (void)cls;
    uint64_t ms = wait_ms < 0 ? 0 : wait_ms > AWAIT_MAX_MS ? AWAIT_MAX_MS : (uint64_t)wait_ms;
    return pw_events_wait(ms) ? JNI_TRUE : JNI_FALSE;
}

/* static native String[] next0(long[] numbers): the oldest queued event,
 * taken, or null. */
static jobjectArray JNICALL
jfr_next(JNIEnv *env, jclass cls, jlongArray numbers)
{
    (void)cls;
    if (numbers == NULL || pw_jni.GetArrayLength(env, numbers) < NEXT_NUMBERS)
        return NULL;
    struct pw_event e;
    if (!pw_events_take(&e))
        return NULL;
    jobjectArray strings = pw_jni.NewObjectArray(env, NEXT_STRINGS, string_class, NULL);
    jlong values[NEXT_NUMBERS] = {0};
    bool ok = strings != NULL && !pw_jni.ExceptionCheck(env) &&
              (e.type == PW_EVENT_FINDING ? finding_fields(env, &e, strings, values)
                                          : report_fields(env, &e, strings, values));
    pw_event_free(&e);
    if (ok) {
        pw_jni.SetLongArrayRegion(env, numbers, 0, NEXT_NUMBERS, values);
        ok = !pw_jni.ExceptionCheck(env);
    }
    /* An exception (out of memory) goes up to Recorder, which stops. */
    return ok ? strings : NULL;
}

/* The global reference to java.lang.String; false, with the exception
 * cleared by the caller, when it cannot be had. */
static bool
resolve_string_class(JNIEnv *jni)
{
    jclass local = pw_jni.FindClass(jni, "java/lang/String");
    if (local == NULL || pw_jni.ExceptionCheck(jni))
        return false;
    string_class = pw_jni.NewGlobalRef(jni, local);
    pw_jni.DeleteLocalRef(jni, local);
    return string_class != NULL;
}

/* io.pinwatch.jfr.Recorder where the class path has it already: pinwatch-api
 * is a dependency of the application (the JUnit extension's, which loaded
 * the agent by System.load from a directory that holds no jar).  FindClass
 * asks the system class loader (no Java frame: VMInit, an attach) or that
 * of the class calling System.load (JNI_OnLoad).  NULL, with nothing
 * pending, when it is not there. */
static jclass
recorder_on_class_path(JNIEnv *jni)
{
    jclass cls = pw_jni.FindClass(jni, "io/pinwatch/jfr/Recorder");
    if (pw_jni.ExceptionCheck(jni)) {
        pw_jni.ExceptionClear(jni);
        return NULL;
    }
    return cls;
}

void
pw_jfr_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    char jar[PATH_MAX] = "the class path";
    jclass cls = recorder_on_class_path(jni);
    if (cls == NULL && !find_jar(jar, sizeof(jar))) {
        pw_log_warn("pinwatch-api.jar not found next to the agent: no Flight Recorder events");
        return;
    }
    if (cls == NULL) {
        /* HotSpot makes the path a String through libjava, whose JNI calls
         * come through the table, and frees that local itself: the JVM's
         * table on the env meanwhile keeps it out of the counts
         * (jni_table.h). */
        const struct JNINativeInterface_ *was = pw_jvm_call_begin(jni);
        jvmtiError e = (*jvmti)->AddToSystemClassLoaderSearch(jvmti, jar);
        pw_jvm_call_end(jni, was);
        if (e != JVMTI_ERROR_NONE) {
            pw_log_jvmti_error(jvmti, e, "AddToSystemClassLoaderSearch (no Flight Recorder events)");
            return;
        }
        /* With no Java frame on this thread, FindClass uses the system
         * class loader, the one the jar was just added to.  -Xcheck:jni
         * holds us to an ExceptionCheck after every call that may throw. */
        cls = pw_jni.FindClass(jni, "io/pinwatch/jfr/Recorder");
        if (pw_jni.ExceptionCheck(jni))
            cls = NULL;
    }
    static const JNINativeMethod natives[] = {
        {"next0", "([J)[Ljava/lang/String;", (void *)jfr_next},
        {"want0", "(ZZ)V", (void *)jfr_want},
        {"await0", "(J)Z", (void *)jfr_await},
    };
    bool ok = cls != NULL && (string_class != NULL || resolve_string_class(jni));
    ok = ok &&
         pw_jni.RegisterNatives(jni, cls, natives, (jint)(sizeof(natives) / sizeof(natives[0]))) == JNI_OK &&
         !pw_jni.ExceptionCheck(jni);
    jmethodID start = ok ? pw_jni.GetStaticMethodID(jni, cls, "start", "()V") : NULL;
    ok = ok && !pw_jni.ExceptionCheck(jni) && start != NULL;
    if (ok) {
        pw_jni.CallStaticVoidMethod(jni, cls, start);
        ok = !pw_jni.ExceptionCheck(jni);
    }
    if (!ok) {
        pw_jni.ExceptionClear(jni);
        pw_log_warn("io.pinwatch.jfr.Recorder did not start (%s): no Flight Recorder events", jar);
    }
    if (cls != NULL)
        pw_jni.DeleteLocalRef(jni, cls);
}
