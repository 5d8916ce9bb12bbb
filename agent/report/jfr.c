#include "jfr.h"
#include "jni_table.h"
#include "log.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the jar is, relative to the directory of libpinwatch.so: the
 * build tree (agent/ and agent/java/api/), then the installed tree
 * (LIBDIR/pinwatch/ or LIBDIR/ARCH/pinwatch/, and DATADIR/java/). */
static const char *const jar_places[] = {
    "java/api/pinwatch-api.jar",
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

/* Set once by pw_jfr_start, read by the report thread. */
static JavaVM *jfr_vm;
static jclass recorder;      /* global reference */
static jmethodID report_mid; /* static void report(String, long[], long) */
static atomic_bool ready;

void
pw_jfr_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    char jar[PATH_MAX];
    if (!find_jar(jar, sizeof(jar))) {
        pw_log_warn("pinwatch-api.jar not found next to the agent: no Flight Recorder events");
        return;
    }
    jvmtiError e = (*jvmti)->AddToSystemClassLoaderSearch(jvmti, jar);
    if (e != JVMTI_ERROR_NONE) {
        pw_log_jvmti_error(jvmti, e, "AddToSystemClassLoaderSearch (no Flight Recorder events)");
        return;
    }
    /* With no Java frame on this thread, FindClass uses the system class
     * loader, the one the jar was just added to. */
    jclass cls = pw_jni.FindClass(jni, "io/pinwatch/jfr/Recorder");
    /* -Xcheck:jni holds us to an ExceptionCheck after every call that may
     * throw, before the next JNI call. */
    bool ok = !pw_jni.ExceptionCheck(jni) && cls != NULL;
    jmethodID start = ok ? pw_jni.GetStaticMethodID(jni, cls, "start", "()V") : NULL;
    ok = ok && !pw_jni.ExceptionCheck(jni) && start != NULL;
    jmethodID report = ok ? pw_jni.GetStaticMethodID(jni, cls, "report", "(Ljava/lang/String;[JJ)V") : NULL;
    ok = ok && !pw_jni.ExceptionCheck(jni) && report != NULL;
    if (ok) {
        pw_jni.CallStaticVoidMethod(jni, cls, start);
        ok = !pw_jni.ExceptionCheck(jni);
    }
    if (!ok) {
        pw_jni.ExceptionClear(jni);
        pw_log_warn("io.pinwatch.jfr.Recorder did not start (%s): no Flight Recorder events", jar);
    } else if (pw_jni.GetJavaVM(jni, &jfr_vm) == JNI_OK && (recorder = pw_jni.NewGlobalRef(jni, cls)) != NULL) {
        report_mid = report;
        atomic_store(&ready, true);
    }
    if (cls != NULL)
        pw_jni.DeleteLocalRef(jni, cls);
}

void
pw_jfr_report(const char *reason, const struct pw_snap_totals *totals, uint64_t threshold)
{
    if (!atomic_load(&ready))
        return;
    JNIEnv *jni = NULL;
    JavaVM *vm = jfr_vm;
    jint rc = (*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8);
    if (rc == JNI_EDETACHED) {
        JavaVMAttachArgs a = {JNI_VERSION_1_8, "pinwatch", NULL};
        rc = (*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&jni, &a);
    }
    if (rc != JNI_OK || jni == NULL)
        return;
    const jlong t[8] = {
        (jlong)totals->live,     (jlong)totals->live_bytes,
        (jlong)totals->leaked,   (jlong)(totals->live - totals->leaked),
        (jlong)totals->acquired, (jlong)totals->released,
        (jlong)totals->findings, (jlong)totals->ref_live,
    };
    if (pw_jni.PushLocalFrame(jni, 4) != JNI_OK) {
        pw_jni.ExceptionClear(jni);
        return;
    }
    jstring r = pw_jni.NewStringUTF(jni, reason);
    jlongArray v = !pw_jni.ExceptionCheck(jni) && r != NULL ? pw_jni.NewLongArray(jni, 8) : NULL;
    if (!pw_jni.ExceptionCheck(jni) && v != NULL) {
        pw_jni.SetLongArrayRegion(jni, v, 0, 8, t);
        if (!pw_jni.ExceptionCheck(jni))
            pw_jni.CallStaticVoidMethod(jni, recorder, report_mid, r, v, (jlong)threshold);
    }
    if (pw_jni.ExceptionCheck(jni))
        pw_jni.ExceptionClear(jni);
    pw_jni.PopLocalFrame(jni, NULL);
}
