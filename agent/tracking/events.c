/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/events.h"
#include "base/clock.h"
#include "jvm/jni_table.h"
#include "state/thread_state.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A misuse in a loop makes findings as fast as it runs; the reader commits
 * a few hundred thousand events a second at best.  What does not fit waits
 * for no one: it is counted (pw_events_dropped), and the findings table
 * still counts every occurrence for the reports. */
#define QUEUE_SIZE 1024
/* Java frames kept with a finding. */
#define FINDING_JAVA_FRAMES 32

static struct pw_event queue[QUEUE_SIZE];
static size_t head, used;     /* under lock */
static _Atomic size_t queued; /* used, readable without the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready; /* on CLOCK_MONOTONIC: pw_events_start */
static _Atomic uint64_t dropped;
static atomic_bool want_findings, want_reports;

/* Written once by pw_events_start, before the JNI table swap. */
static jvmtiEnv *jvmti;
static JavaVM *java_vm;

void
pw_events_start(jvmtiEnv *env, JavaVM *vm)
{
    jvmti = env;
    java_vm = vm;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&ready, &attr);
    pthread_condattr_destroy(&attr);
}

void
pw_events_want(bool findings, bool reports)
{
    atomic_store_explicit(&want_findings, findings, memory_order_relaxed);
    atomic_store_explicit(&want_reports, reports, memory_order_relaxed);
}

/* Takes e (and its stack) or frees it. */
static void
put(struct pw_event *e)
{
    pthread_mutex_lock(&lock);
    if (used == QUEUE_SIZE) {
        pthread_mutex_unlock(&lock);
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        pw_event_free(e);
        return;
    }
    queue[(head + used) % QUEUE_SIZE] = *e;
    used++;
    atomic_store_explicit(&queued, used, memory_order_relaxed);
    pthread_cond_signal(&ready);
    pthread_mutex_unlock(&lock);
}

/* The calling thread's Java name.  GetThreadInfo's references live in
 * the native method's own local frame: given back at once. */
static void
thread_name(JNIEnv *env, char *out, size_t size)
{
    jvmtiThreadInfo info;
    if ((*jvmti)->GetThreadInfo(jvmti, NULL, &info) != JVMTI_ERROR_NONE)
        return;
    if (info.name != NULL) {
        snprintf(out, size, "%s", info.name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    }
    if (info.thread_group != NULL)
        pw_jni.DeleteLocalRef(env, info.thread_group);
    if (info.context_class_loader != NULL)
        pw_jni.DeleteLocalRef(env, info.context_class_loader);
}

void
pw_events_finding(enum pw_finding_kind kind, uint32_t site, uintptr_t call, bool tail_call, uint32_t detail,
                  uint64_t count)
{
    if (!atomic_load_explicit(&want_findings, memory_order_relaxed))
        return;
    /* Full: no stack query for an event that would be thrown away. */
    if (atomic_load_explicit(&queued, memory_order_relaxed) >= QUEUE_SIZE) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    struct pw_event e = {
        .type = PW_EVENT_FINDING,
        .time_ms = pw_clock_epoch_ms(),
        .kind = kind,
        .site = site,
        .call = call,
        .tail_call = tail_call,
        .detail = detail,
        .count = count,
    };
    /* Inside a native method (frame 0 of the stack query) and outside any
     * critical region, where a JVMTI stack query may not be made. */
    struct pw_thread *t = pw_tls_self;
    JNIEnv *env = NULL;
    if (t != NULL && t->depth > 0 && t->critical == 0 && java_vm != NULL &&
        (*java_vm)->GetEnv(java_vm, (void **)&env, JNI_VERSION_1_8) == JNI_OK) {
        e.stack = pw_java_stack_capture(jvmti, env, FINDING_JAVA_FRAMES);
        thread_name(env, e.thread, sizeof(e.thread));
    }
    put(&e);
}

void
pw_events_report(const char *reason, const uint64_t figures[PW_EVENT_FIGURES], uint64_t threshold)
{
    if (!atomic_load_explicit(&want_reports, memory_order_relaxed))
        return;
    struct pw_event e = {.type = PW_EVENT_REPORT, .time_ms = pw_clock_epoch_ms(), .threshold = threshold};
    snprintf(e.reason, sizeof(e.reason), "%s", reason);
    memcpy(e.figures, figures, sizeof(e.figures));
    put(&e);
}

bool
pw_events_wait(uint64_t timeout_ms)
{
    struct timespec until = pw_clock_deadline(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&lock);
    while (used == 0 && pthread_cond_timedwait(&ready, &lock, &until) == 0)
        ;
    bool queued_now = used > 0;
    pthread_mutex_unlock(&lock);
    return queued_now;
}

bool
pw_events_take(struct pw_event *out)
{
    pthread_mutex_lock(&lock);
    bool any = used > 0;
    if (any) {
        *out = queue[head];
        head = (head + 1) % QUEUE_SIZE;
        used--;
        atomic_store_explicit(&queued, used, memory_order_relaxed);
    }
    pthread_mutex_unlock(&lock);
    return any;
}

void
pw_event_free(struct pw_event *e)
{
    pw_java_stack_free(e->stack);
    e->stack = NULL;
}

uint64_t
pw_events_dropped(void)
{
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}
