/* SPDX-License-Identifier: Apache-2.0 */
/* What happened, for the Flight Recorder (report/jfr.c reads it on the API
 * jar's event thread): each finding as it happens, with the Java stack of
 * the thread that made it, and each report written.  A bounded queue: the
 * threads that put events in never wait for the reader, and what does not
 * fit is counted, not kept.  Nothing is queued until the reader says a
 * recording wants it, so a JVM with no recording pays nothing here. */
#ifndef PW_EVENTS_H
#define PW_EVENTS_H

#include "base/pinwatch.h"
#include "jvm/java_stack.h"
#include "tracking/findings.h"

enum pw_event_type { PW_EVENT_FINDING, PW_EVENT_REPORT };

#define PW_EVENT_FIGURES 8

struct pw_event {
    enum pw_event_type type;
    uint64_t time_ms; /* pw_clock_epoch_ms when it happened */
    /* PW_EVENT_FINDING: as pw_finding's arguments; count is the finding's
     * occurrences so far (the report's count for it); stack, the Java
     * frames of the thread (NULL inside a critical region, where no JVMTI
     * stack query may be made, or on a thread with no Java caller). */
    enum pw_finding_kind kind;
    uint32_t site;
    uintptr_t call;
    bool tail_call;
    uint32_t detail;
    uint64_t count;
    struct pw_java_stack *stack; /* owned by the event: pw_event_free */
    char thread[64];             /* the Java thread's name, "" when there is no stack */
    /* PW_EVENT_REPORT */
    char reason[40];
    uint64_t figures[PW_EVENT_FIGURES]; /* report/jfr.c says which */
    uint64_t threshold;
};

/* jvmti for the stack queries, vm for the thread's JNIEnv. */
PW_HIDDEN void pw_events_start(jvmtiEnv *jvmti, JavaVM *vm);

/* The reader says what recordings want now (and that it is there). */
PW_HIDDEN void pw_events_want(bool findings, bool reports);

/* A finding, from pw_finding, on the thread that made it. */
PW_HIDDEN void pw_events_finding(enum pw_finding_kind kind, uint32_t site, uintptr_t call, bool tail_call,
                                 uint32_t detail, uint64_t count);

/* A report was written (by the report thread, or the thread a dump ran on). */
PW_HIDDEN void pw_events_report(const char *reason, const uint64_t figures[PW_EVENT_FIGURES], uint64_t threshold);

/* Waits up to timeout_ms for an event to be queued; true when one is.
 * Takes nothing. */
PW_HIDDEN bool pw_events_wait(uint64_t timeout_ms);

/* Takes the oldest event; false when there is none. */
PW_HIDDEN bool pw_events_take(struct pw_event *out);
PW_HIDDEN void pw_event_free(struct pw_event *e);

/* Events that found the queue full, since the start. */
PW_HIDDEN uint64_t pw_events_dropped(void);

#endif
