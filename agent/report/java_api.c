/* SPDX-License-Identifier: Apache-2.0 */
#include "report/java_api.h"
#include "report/where.h"
#include "jvm/jni_table.h"
#include "base/log.h"
#include "state/methods.h"
#include "tracking/requests.h"
#include "state/site_table.h"
#include "report/snapshot.h"
#include "jvm/symbols.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* sites0's layout, mirrored by io.pinwatch.Pinwatch: a header, then one
 * record of PW_API_STRIDE longs per site that acquired, released or holds
 * anything. */
#define PW_API_HEADER 3 /* stride, sites, uptime in ms */
#define PW_API_STRIDE 8 /* site id, live, live bytes, leaked, acquired, released, suppressed, leaked bytes */

/* A report asked for by the application waits at most this long for the
 * report thread (symbolising a large process's libraries takes seconds). */
#define PW_API_DUMP_TIMEOUT_MS 60000

static _Atomic(jvmtiEnv *) api_jvmti;

/* static native int protocol0(): the class compares it with its own. */
static jint JNICALL
api_protocol(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return PW_JAVA_PROTOCOL;
}

static void
throw_error(JNIEnv *env, const char *message)
{
    jclass c = pw_jni.FindClass(env, "java/lang/OutOfMemoryError");
    if (c != NULL)
        pw_jni.ThrowNew(env, c, message);
}

static jlongArray JNICALL
api_sites(JNIEnv *env, jclass cls)
{
    (void)cls;
    struct pw_snapshot snap;
    if (!pw_snapshot_take_sites(&snap)) {
        throw_error(env, "pinwatch: out of memory taking a snapshot");
        return NULL;
    }
    size_t nsites = snap.nsites + snap.nref_sites;
    size_t n = PW_API_HEADER + nsites * PW_API_STRIDE;
    jlongArray out = n <= INT32_MAX ? pw_jni.NewLongArray(env, (jsize)n) : NULL;
    jlong *v = out != NULL ? pw_jni.GetPrimitiveArrayCritical(env, out, NULL) : NULL;
    if (v != NULL) {
        v[0] = PW_API_STRIDE;
        v[1] = (jlong)nsites;
        v[2] = (jlong)snap.uptime_ms;
        for (size_t i = 0; i < snap.nsites; i++) {
            const struct pw_snap_site *s = &snap.sites[i];
            jlong *r = v + PW_API_HEADER + i * PW_API_STRIDE;
            r[0] = s->site;
            r[1] = (jlong)s->live;
            r[2] = (jlong)s->live_bytes;
            r[3] = (jlong)s->leaked;
            r[4] = (jlong)s->acquired;
            r[5] = (jlong)s->released;
            r[6] = (jlong)s->suppressed;
            r[7] = (jlong)s->leaked_bytes;
        }
        /* Reference sites after the pins: made, deleted and live; they
         * have no bytes and are never leaked or suppressed. */
        for (size_t i = 0; i < snap.nref_sites; i++) {
            const struct pw_snap_ref_site *s = &snap.ref_sites[i];
            jlong *r = v + PW_API_HEADER + (snap.nsites + i) * PW_API_STRIDE;
            r[0] = s->site;
            r[1] = (jlong)s->live;
            r[2] = r[3] = r[6] = r[7] = 0;
            r[4] = (jlong)s->created;
            r[5] = (jlong)s->deleted;
        }
        pw_jni.ReleasePrimitiveArrayCritical(env, out, v, 0);
    }
    pw_snapshot_free(&snap);
    return out;
}

/* {method, signature, function, kind} of a site; kind is "pin", "global",
 * "weak" or "local".  A site never changes, so the Java side asks once. */
static jobjectArray JNICALL
api_site(JNIEnv *env, jclass cls, jint id)
{
    (void)cls;
    if (id < 0 || (uint32_t)id >= pw_site_count())
        return NULL;
    const struct pw_site *site = pw_site_get((uint32_t)id);
    jvmtiEnv *jvmti = atomic_load(&api_jvmti);
    /* A method bound in the primordial phase gets its name later. */
    if (site->method != NULL && strcmp(pw_method_name(site->method), "<unnamed native method>") == 0 &&
        jvmti != NULL)
        pw_methods_name_all(jvmti);
    uint8_t kind = site->kind;
    const char *text[4] = {
        pw_method_name(site->method),
        pw_method_signature(site->method),
        pw_snap_site_function(site),
        kind != PW_KIND_PIN ? pw_snap_ref_kind(kind) : "pin",
    };
    jclass string = pw_jni.FindClass(env, "java/lang/String");
    if (string == NULL)
        return NULL;
    jobjectArray out = pw_jni.NewObjectArray(env, 4, string, NULL);
    for (int i = 0; out != NULL && i < 4; i++) {
        jstring s = pw_jni.NewStringUTF(env, text[i]);
        if (s == NULL)
            return NULL;
        pw_jni.SetObjectArrayElement(env, out, i, s);
        pw_jni.DeleteLocalRef(env, s);
    }
    return out;
}

/* The site's call site as the text report's leak table prints it:
 * "symbol+0xOFFSET (library) file:line".  Symbolises, so only when asked
 * (a failing test's message), never for a snapshot. */
static jstring JNICALL
api_where(JNIEnv *env, jclass cls, jint id)
{
    (void)cls;
    if (id < 0 || (uint32_t)id >= pw_site_count())
        return NULL;
    const struct pw_site *site = pw_site_get((uint32_t)id);
    bool tail_call;
    uintptr_t ret = pw_method_caller(site->method, (uintptr_t)site->ret, &tail_call);
    char text[1024];
    if (ret == 0)
        snprintf(text, sizeof(text), "0x%" PRIxPTR, (uintptr_t)site->ret);
    else
        pw_where_text(ret, tail_call, text, sizeof(text));
    return pw_jni.NewStringUTF(env, text);
}

/* Whether the site's call lies in the JDK's own code (pw_snap_site_jdk). */
static jboolean JNICALL
api_jdk(JNIEnv *env, jclass cls, jint id)
{
    (void)env;
    (void)cls;
    if (id < 0 || (uint32_t)id >= pw_site_count())
        return JNI_FALSE;
    return pw_snap_site_jdk(pw_site_get((uint32_t)id)) ? JNI_TRUE : JNI_FALSE;
}

static jboolean JNICALL
api_dump(JNIEnv *env, jclass cls, jstring reason)
{
    (void)cls;
    char text[PW_DUMP_REASON_MAX] = "api";
    if (reason != NULL) {
        const char *utf = pw_jni.GetStringUTFChars(env, reason, NULL);
        if (utf == NULL)
            return JNI_FALSE;
        snprintf(text, sizeof(text), "%s", utf);
        pw_jni.ReleaseStringUTFChars(env, reason, utf);
    }
    return pw_requests_dump(text, PW_API_DUMP_TIMEOUT_MS) ? JNI_TRUE : JNI_FALSE;
}

bool
pw_java_api_bind(jvmtiEnv *jvmti, JNIEnv *jni, jclass cls)
{
    /* protocol0 first: a jar without it (one from before the protocol)
     * then gets none of the natives bound, rather than all but it. */
    static const JNINativeMethod natives[] = {
        {"protocol0", "()I", (void *)api_protocol},
        {"sites0", "()[J", (void *)api_sites},
        {"site0", "(I)[Ljava/lang/String;", (void *)api_site},
        {"where0", "(I)Ljava/lang/String;", (void *)api_where},
        {"jdk0", "(I)Z", (void *)api_jdk},
        {"dump0", "(Ljava/lang/String;)Z", (void *)api_dump},
    };
    /* The natives make their JNI calls through the saved table: without
     * it (the JNI table could not be intercepted) they stay unbound. */
    if (pw_jni.RegisterNatives == NULL) {
        pw_log_error("the Java API (io.pinwatch.Pinwatch) is not bound: the JNI table was not saved");
        return false;
    }
    atomic_store(&api_jvmti, jvmti);
    if (pw_jni.RegisterNatives(jni, cls, natives, (jint)(sizeof(natives) / sizeof(natives[0]))) == JNI_OK)
        return true;
    /* An io.pinwatch.Pinwatch of another version: say so, and leave its
     * natives unbound (it then answers as if no agent were loaded). */
    if (pw_jni.ExceptionCheck(jni))
        pw_jni.ExceptionClear(jni);
    pw_log_error(
        "cannot bind the natives of io.pinwatch.Pinwatch (a jar of another version?): "
        "the Java API answers as if pinwatch were not loaded");
    return false;
}
