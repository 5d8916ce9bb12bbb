/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points: parse the options, get a JVMTI environment, ask for the
 * NativeMethodBind events, and swap the JNI table in as soon as the JVM
 * allows it (VMStart at launch, at once when attached).  Three ways in:
 * -agentpath (Agent_OnLoad), a dynamic attach (Agent_OnAttach) and
 * System.load (JNI_OnLoad, which starts through the attach path). */
#include "tracking/backtrace.h"
#include "base/clock.h"
#include "tracking/events.h"
#include "tracking/findings.h"
#include "report/java_api.h"
#include "report/jfr.h"
#include "intercept/jni_hooks.h"
#include "jvm/array_layout.h"
#include "jvm/jni_table.h"
#include "base/log.h"
#include "report/metrics_server.h"
#include "state/methods.h"
#include "base/options.h"
#include "tracking/rebind.h"
#include "intercept/ref_hooks.h"
#include "tracking/refs.h"
#include "report/report.h"
#include "state/suppress.h"
#include "state/thread_state.h"
#include "tracking/tracker.h"
#include "intercept/native_entry.h"
#include "report/report_thread.h"
#include "report/snapshot.h"
#include "tracking/requests.h"
#include "tracking/returns.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jvmtiEnv *jvmti;
static JavaVM *java_vm;
static struct pw_options options;
static atomic_bool running;
static int exit_status_override;

/* System properties that tell Java code (AgentLibrary, the JUnit
 * extension) about the agent: the running library's path, set by every
 * start; the options JNI_OnLoad starts with; how JNI_OnLoad went. */
#define PROP_AGENT "pinwatch.agent"
#define PROP_OPTIONS "pinwatch.options"
#define PROP_STATUS "pinwatch.status"
/* pinwatch.agent is set (publish_agent). */
static bool agent_published;

/* The absolute path of this library as the JVM loaded it (an -agentpath
 * or System.load path is absolute already); "" when the loader cannot
 * say.  A static function's address: never a copy's through the GOT. */
static const char *
library_path(void)
{
    static char path[PATH_MAX];
    if (path[0] != '\0')
        return path;
    Dl_info info;
    if (dladdr((void *)library_path, &info) == 0 || info.dli_fname == NULL)
        return "";
    if (info.dli_fname[0] == '/')
        snprintf(path, sizeof(path), "%s", info.dli_fname);
    else if (realpath(info.dli_fname, path) == NULL)
        path[0] = '\0';
    return path;
}

/* The JNI table for the agent's own calls: the JVM's, saved before the
 * wrappers when this library has installed them, else the env's (the JVM's
 * own before any pinwatch starts; another copy's wrappers after, whose
 * books the few balanced locals below leave as they were). */
static const struct JNINativeInterface_ *
own_table(JNIEnv *env)
{
    return pw_jni.FindClass != NULL ? &pw_jni : *env;
}

/* System.getProperty(key) into buf (value NULL), or System.setProperty(key,
 * value); false when it threw, or the property is unset or not shorter
 * than size.  In a local frame of its own: at VMStart the thread holds the
 * JVM's start-up locals, past -Xcheck:jni's planned capacity (its first
 * call would warn), and every local goes at once.  GetStringUTFRegion
 * copies without a pin, so another copy's wrappers count nothing here. */
static bool
system_property(JNIEnv *env, const char *key, const char *value, char *buf, size_t size)
{
    const struct JNINativeInterface_ *f = own_table(env);
    if (f->PushLocalFrame(env, 8) != JNI_OK) {
        f->ExceptionClear(env);
        return false;
    }
    bool ok = false;
    jmethodID m = NULL;
    jclass system = f->FindClass(env, "java/lang/System");
    if (system != NULL && !f->ExceptionCheck(env))
        m = value == NULL
                ? f->GetStaticMethodID(env, system, "getProperty", "(Ljava/lang/String;)Ljava/lang/String;")
                : f->GetStaticMethodID(env, system, "setProperty",
                                       "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;");
    jstring k = m != NULL && !f->ExceptionCheck(env) ? f->NewStringUTF(env, key) : NULL;
    if (k != NULL && !f->ExceptionCheck(env) && value != NULL) {
        jstring v = f->NewStringUTF(env, value);
        if (v != NULL && !f->ExceptionCheck(env)) {
            (void)f->CallStaticObjectMethod(env, system, m, k, v);
            ok = !f->ExceptionCheck(env);
        }
    } else if (k != NULL && !f->ExceptionCheck(env)) {
        jstring got = (jstring)f->CallStaticObjectMethod(env, system, m, k);
        if (got != NULL && !f->ExceptionCheck(env)) {
            jsize len = f->GetStringUTFLength(env, got);
            if (len >= 0 && (size_t)len < size) {
                f->GetStringUTFRegion(env, got, 0, f->GetStringLength(env, got), buf);
                buf[len] = '\0';
                ok = !f->ExceptionCheck(env);
            }
        }
    }
    f->ExceptionClear(env);
    f->PopLocalFrame(env, NULL);
    return ok;
}

static bool
property_get(JNIEnv *env, const char *key, char *buf, size_t size)
{
    return system_property(env, key, NULL, buf, size);
}

static bool
property_set(JNIEnv *env, const char *key, const char *value)
{
    return system_property(env, key, value, NULL, 0);
}

/* pinwatch.agent = this library, through System.setProperty and the JVM's
 * own table (the wrappers are in by then and must not count it).  Not by
 * JVMTI in the OnLoad phase: HotSpot's SetSystemProperty changes only the
 * properties the JVM has, and answers JVMTI_ERROR_NOT_AVAILABLE (98) for a
 * new one (JDK 17, 21, 25).  So -agentpath publishes at VMStart, when
 * System's properties exist (after initPhase1) and before any -javaagent's
 * premain (VMInit) could System.load a copy; again at VMInit if the JVM
 * refused then.  A live start publishes at once. */
static void
publish_agent(JNIEnv *jni, bool last_try)
{
    if (agent_published)
        return;
    agent_published = property_set(jni, PROP_AGENT, library_path());
    if (!agent_published && last_try)
        pw_log_warn("System.setProperty(\"%s\") failed: a System.load of pinwatch would start a second agent",
                    PROP_AGENT);
}

/* exitcode=: the JVM has finished its own exit work (the launcher's or
 * System.exit's call to exit() runs this late, as it was registered early);
 * only the status changes. */
static void
apply_exit_status(void)
{
    if (exit_status_override != 0)
        _exit(exit_status_override);
}

/* SetJNIFunctionTable is a start-phase function (src/hotspot/share/prims/
 * jvmti.xml, <function id="SetJNIFunctionTable" phase="start">): called from
 * Agent_OnLoad, in the OnLoad phase, it returns JVMTI_ERROR_WRONG_PHASE. */
static void JNICALL
on_vm_start(jvmtiEnv *env, JNIEnv *jni)
{
    /* First: the event's local frame is still nearly empty, where naming
     * the methods leaves the references JVMTI returned in it, past the
     * capacity -Xcheck:jni's JDK 11 checks each call against. */
    publish_agent(jni, false);
    pw_methods_name_all(env);
    if (!pw_jni_hooks_install(env, java_vm))
        pw_log_error("JNI functions not intercepted: pins will not be counted");
}

static void JNICALL
on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    pw_methods_name_all(env);
    publish_agent(jni, true);
    /* The first event with a JNIEnv after the wrappers went in (VMStart)
     * on a thread that may make arrays: the JVM is fully started.  Until
     * then critical Gets ask the JVM for lengths. */
    pw_array_layout_learn(jni);
    pw_jfr_start(env, jni);
}

static void JNICALL
on_vm_death(jvmtiEnv *env, JNIEnv *jni)
{
    pw_methods_name_all(env);
    pw_report_thread_flush_notes();
    struct pw_snap_totals totals;
    if (!pw_report_write("exit", &options, &totals))
        return;
    if (options.ref_exitcode != 0 &&
        (totals.ref_findings > 0 || (options.ref_threshold > 0 && totals.ref_live >= options.ref_threshold))) {
        pw_log_info("exit status %d: %" PRIu64 " reference finding%s, %" PRIu64 " live references",
                    options.ref_exitcode, totals.ref_findings, totals.ref_findings == 1 ? "" : "s",
                    totals.ref_live);
        exit_status_override = options.ref_exitcode;
    }
    if (options.exitcode == 0)
        return;
    if (totals.leaked_unsuppressed > 0) {
        pw_log_info("exit status %d: %" PRIu64 " leaked pin%s", options.exitcode, totals.leaked_unsuppressed,
                    totals.leaked_unsuppressed == 1 ? "" : "s");
        exit_status_override = options.exitcode;
    }
}

/* The Java API's class (java_api.h) is bound as it is prepared, before any
 * of its code runs.  Every class prepared passes here: one JVMTI call and
 * a compare each, at class loading, never on a JNI call. */
static void
bind_if_api(jvmtiEnv *env, JNIEnv *jni, jclass klass)
{
    char *sig = NULL;
    if ((*env)->GetClassSignature(env, klass, &sig, NULL) != JVMTI_ERROR_NONE || sig == NULL)
        return;
    bool api = strcmp(sig, PW_JAVA_API_CLASS) == 0;
    (*env)->Deallocate(env, (unsigned char *)sig);
    if (api)
        (void)pw_java_api_bind(env, jni, klass);
}

static void JNICALL
on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass)
{
    bind_if_api(env, jni, klass);
}

/* After a late attach: an io.pinwatch.Pinwatch loaded before it. */
static void
bind_loaded_api(jvmtiEnv *env, JNIEnv *jni)
{
    jint n = 0;
    jclass *classes = NULL;
    if ((*env)->GetLoadedClasses(env, &n, &classes) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++)
        bind_if_api(env, jni, classes[i]);
    (*env)->Deallocate(env, (unsigned char *)classes);
}

/* jcmd <pid> JVMTI.data_dump (Attach Listener thread: src/hotspot/share/
 * services/diagnosticCommand.cpp JVMTIDataDumpDCmd::execute posts it on the
 * thread running the command) or SIGQUIT (Signal Dispatcher thread: runtime/
 * os.cpp signal_thread_entry posts it after the thread dump).  No JNIEnv. */
static void JNICALL
on_data_dump(jvmtiEnv *env)
{
    pw_methods_name_all(env);
    pw_report_write("jcmd", &options, NULL);
}

/* Loaded again into a JVM where pinwatch runs: the option string is a
 * command.  jcmd prints the return code, so a refusal is visible there.
 * Every other key is refused by name rather than ignored: stack= or
 * threshold= cannot change a running agent, and silence would say they had. */
static jint
command(const struct pw_options *cmd, const char *text)
{
    static const char *const allowed[] = {"dump", "file", "format", NULL};
    const char *refused = pw_options_given_outside(cmd, allowed);
    if (refused != NULL || !cmd->dump) {
        char what[64];
        if (refused != NULL)
            snprintf(what, sizeof(what), "'%s' cannot change a running agent", refused);
        else
            snprintf(what, sizeof(what), "'dump' is missing");
        pw_log_error(
            "pinwatch already runs in this JVM: a second load takes only "
            "'dump[,file=PATH][,format=text|json|collapsed]'; %s (options '%.200s')",
            what, text != NULL ? text : "");
        return PINWATCH_BAD_OPTIONS;
    }
    struct pw_options once = options;
    if (pw_options_given(cmd, "file"))
        memcpy(once.file, cmd->file, sizeof(once.file));
    if (pw_options_given(cmd, "format"))
        once.format = cmd->format;
    pw_methods_name_all(jvmti);
    return pw_report_write("command", &once, NULL) ? PINWATCH_OK : PINWATCH_JVMTI_FAILED;
}

/* -Xcheck:jni, from the command line or the variables the launcher and
 * the JVM read options from. */
static bool
checked_jni_on(void)
{
    static const char *const vars[] = {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && strstr(v, "-Xcheck:jni") != NULL)
            return true;
    }
    char buf[65536];
    FILE *f = fopen("/proc/self/cmdline", "re");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
        buf[n] = '\0';
        if (strcmp(buf + i, "-Xcheck:jni") == 0)
            return true;
    }
    return false;
}

/* The options, read and acted on before anything else.  True for the
 * first load, which goes on to start the agent, with the log the options
 * name open (so that with log=none or log=PATH nothing of pinwatch's
 * reaches stderr after them); false with *status set when the load is
 * done here: help, a command to the agent already running, bad options. */
static bool
read_options(const char *text, struct pw_options *parsed, jint *status)
{
    char err[256];
    *status = PINWATCH_BAD_OPTIONS;
    if (!pw_options_parse(text, parsed, err, sizeof(err))) {
        pw_log_error("%s", err);
        return false;
    }
    if (parsed->help) {
        pw_options_print_help(stderr);
        fflush(stderr);
        *status = PINWATCH_HELP_SHOWN;
        return false;
    }
    if (atomic_exchange(&running, true)) {
        *status = command(parsed, text);
        return false;
    }
    if (parsed->dump) {
        pw_log_error("'dump' is a command for a JVM where pinwatch already runs (load the library again)");
    } else if (!pw_log_open(parsed->log, err, sizeof(err))) {
        pw_log_error("%s", err);
    } else if (parsed->suppress[0] != '\0' && !pw_suppress_load(parsed->suppress, err, sizeof(err))) {
        pw_log_error("%s", err);
    } else {
        return true;
    }
    atomic_store(&running, false);
    return false;
}

/* A JVMTI environment with the one capability pinwatch needs (and line
 * numbers if the JVM gives them) and its event callbacks; NULL, said why,
 * when the JVM refuses. */
static jvmtiEnv *
open_jvmti(JavaVM *vm)
{
    jvmtiEnv *env = NULL;
    jint rc = (*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_1_2);
    if (rc != JNI_OK || env == NULL) {
        pw_log_error("the JVM gave no JVMTI environment (GetEnv returned %d)", (int)rc);
        return NULL;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_native_method_bind_events = 1;
    jvmtiError e = (*env)->AddCapabilities(env, &caps);
    if (e != JVMTI_ERROR_NONE) {
        pw_log_jvmti_error(env, e, "AddCapabilities(can_generate_native_method_bind_events)");
        (*env)->DisposeEnvironment(env);
        return NULL;
    }
    /* Line numbers only make Java stacks nicer: go on without them. */
    memset(&caps, 0, sizeof(caps));
    caps.can_get_line_numbers = 1;
    (void)(*env)->AddCapabilities(env, &caps);
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.VMStart = on_vm_start;
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    callbacks.DataDumpRequest = on_data_dump;
    callbacks.NativeMethodBind = pw_on_native_method_bind;
    callbacks.ClassPrepare = on_class_prepare;
    e = (*env)->SetEventCallbacks(env, &callbacks, sizeof(callbacks));
    if (e != JVMTI_ERROR_NONE) {
        pw_log_jvmti_error(env, e, "SetEventCallbacks");
        (*env)->DisposeEnvironment(env);
        return NULL;
    }
    return env;
}

/* Each module copies the settings it needs, before the JNI table swap
 * (below when attached, at VMStart otherwise) lets any wrapper run. */
static void
start_modules(jvmtiEnv *env, bool attached)
{
    pw_tracker_start(&options, env, attached);
    pw_findings_start(&options);
    pw_events_start(env, java_vm);
    pw_refs_start(&options, env);
    pw_requests_start(&options);
    pw_snapshot_start(&options);
    pw_ref_hooks_start(&options);
    pw_jni_hooks_start(checked_jni_on());
}

static bool
enable_events(jvmtiEnv *env, bool attached)
{
    static const jvmtiEvent events[] = {JVMTI_EVENT_NATIVE_METHOD_BIND,
                                        JVMTI_EVENT_VM_START,
                                        JVMTI_EVENT_VM_INIT,
                                        JVMTI_EVENT_VM_DEATH,
                                        JVMTI_EVENT_DATA_DUMP_REQUEST,
                                        JVMTI_EVENT_CLASS_PREPARE};
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
        /* VMStart and VMInit have passed when attaching. */
        if (attached && (events[i] == JVMTI_EVENT_VM_START || events[i] == JVMTI_EVENT_VM_INIT))
            continue;
        jvmtiError e = (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, events[i], NULL);
        if (e != JVMTI_ERROR_NONE) {
            pw_log_jvmti_error(env, e, "SetEventNotificationMode");
            return false;
        }
    }
    return true;
}

/* After a late attach.  Methods bound before we came get no
 * NativeMethodBind: HotSpot posts it only from Method::set_native_function
 * (src/hotspot/share/oops/method.cpp), when a method is bound, and
 * GenerateEvents cannot replay it (jvmti.xml: CompiledMethodLoad and
 * DynamicCodeGenerated only). */
static void
bind_loaded(JavaVM *vm, jvmtiEnv *env)
{
    JNIEnv *jni = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) == JNI_OK) {
        pw_rebind_loaded(env, jni);
        bind_loaded_api(env, jni);
        pw_jfr_start(env, jni);
    }
}

/* Last, when nothing can fail any more: a thread started before a failure
 * would outlive the agent that gave up.  A clock that did not start (pin
 * ages then read 0), a report thread or a metrics endpoint that could not
 * (a port already taken) is no reason to stop a JVM that is otherwise
 * watched: each says so in its own line. */
static void
start_threads(JavaVM *vm, bool attached)
{
    (void)pw_clock_start(attached);
    (void)pw_report_thread_start(&options);
    pw_ref_hooks_install_vm(vm);
    (void)pw_metrics_server_start(&options);
    if (options.exitcode != 0 || options.ref_exitcode != 0)
        atexit(apply_exit_status);
}

static jint
start(JavaVM *vm, const char *text, bool attached)
{
    struct pw_options parsed;
    jint status;
    JNIEnv *jni = NULL;
    if (!read_options(text, &parsed, &status))
        return status;
    options = parsed;
    jvmtiEnv *env = open_jvmti(vm);
    if (env == NULL)
        goto failed;
    if (!pw_threads_init(pw_thread_ending))
        goto failed;
    pw_native_entry_init();
    pw_backtrace_init();
    jvmti = env;
    java_vm = vm;
    start_modules(env, attached);
    if (!enable_events(env, attached))
        goto failed;
    if (attached) {
        if (!pw_jni_hooks_install(env, vm))
            goto failed;
        bind_loaded(vm, env);
        if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK)
            jni = NULL;
        /* Agent_OnAttach's thread (the Attach Listener) or JNI_OnLoad's
         * (inside System.load): a Java thread, after the wrappers. */
        pw_array_layout_learn(jni);
    }
    start_threads(vm, attached);
    if (jni != NULL)
        publish_agent(jni, true);
    return PINWATCH_OK;

failed:
    /* Nothing was intercepted: the JVM runs on as if we had not come. */
    if (env != NULL)
        (*env)->DisposeEnvironment(env);
    jvmti = NULL;
    atomic_store(&running, false);
    return PINWATCH_JVMTI_FAILED;
}

JNIEXPORT jint JNICALL
Agent_OnLoad(JavaVM *vm, char *options_text, void *reserved)
{
    return start(vm, options_text, false);
}

JNIEXPORT jint JNICALL
Agent_OnAttach(JavaVM *vm, char *options_text, void *reserved)
{
    return start(vm, options_text, true);
}

/* HotSpot's MaxJNILocalCapacity, the largest frame PushLocalFrame takes. */
#define START_LOCALS 65536

/* System.load of this library: pinwatch starts from here, through the
 * attach path, with the options in the system property pinwatch.options,
 * unless a pinwatch runs already (pinwatch.agent set: this library loaded
 * by -agentpath or attach, or another copy of it).  pinwatch.status says
 * how it went.  The thread is inside the JDK's native that loads libraries
 * (NativeLibraries.load, NativeLibrary.load0 on JDK 11), bound before the
 * wrappers: its JNI calls after this return are counted as any invocation
 * running at an attach is (tracking/late_frame.c), none of ours are (the
 * saved table), and the methods bound before are bound again to thunks.
 * Always JNI_VERSION_1_8: a refusal would surface as an
 * UnsatisfiedLinkError that names no cause. */
JNIEXPORT jint JNICALL
JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK || env == NULL)
        return JNI_VERSION_1_8;
    char running_path[PATH_MAX];
    char status[PATH_MAX + 16];
    if (property_get(env, PROP_AGENT, running_path, sizeof(running_path))) {
        snprintf(status, sizeof(status), "running %s", running_path);
        (void)property_set(env, PROP_STATUS, status);
        return JNI_VERSION_1_8;
    }
    char text[8192];
    bool given = property_get(env, PROP_OPTIONS, text, sizeof(text));
    char failure[1024];
    /* The late attach's GetLoadedClasses returns a local reference per
     * class, which would land in the frame of the JDK's native that called
     * us: a frame of our own takes them, planned that large (a capacity
     * allocates nothing) so that -Xcheck:jni has nothing to warn about.
     * The JVM's own table: no pinwatch runs yet. */
    bool framed = (*env)->PushLocalFrame(env, START_LOCALS) == JNI_OK;
    if (!framed)
        (*env)->ExceptionClear(env);
    pw_log_capture(failure, sizeof(failure));
    jint rc = start(vm, given ? text : NULL, true);
    pw_log_capture(NULL, 0);
    if (framed)
        own_table(env)->PopLocalFrame(env, NULL);
    if (rc == PINWATCH_OK)
        snprintf(status, sizeof(status), "started");
    else if (rc == PINWATCH_HELP_SHOWN)
        snprintf(status, sizeof(status), "failed: help shown, pinwatch not started");
    else if (failure[0] != '\0')
        snprintf(status, sizeof(status), "failed: %s", failure);
    else
        snprintf(status, sizeof(status), "failed: pinwatch did not start (status %d)", (int)rc);
    (void)property_set(env, PROP_STATUS, status);
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL
Agent_OnUnload(JavaVM *vm)
{
    /* The final report was written at VMDeath; the wrappers and thunks stay
     * in place until the process ends, so nothing may be unmapped. */
}
