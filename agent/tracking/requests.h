/* SPDX-License-Identifier: Apache-2.0 */
/* What application threads ask of the report thread (report_thread.c): a
 * report when the live-pin count crosses the threshold, and an UNRELEASED line
 * for a site's first leak.  The counting happens here, on the application
 * side; the report thread only waits for requests and serves them, so no
 * application thread ever formats, symbolises or writes.
 *
 * The live-pin count behind threshold= is kept per thread and published to
 * one shared counter in steps of PW_PUBLISH_STEP pins (and at every leaking
 * return), so a balanced Get/Release pair never touches shared memory. */
#ifndef PW_REQUESTS_H
#define PW_REQUESTS_H

#include "base/options.h"
#include "state/thread_state.h"

#include <time.h>

#define PW_PUBLISH_STEP 16

/* threshold= (live pins that ask for the first report, 0: never) and,
 * with refs=on, ref_threshold= from o.  Before the JNI table swap. */
PW_HIDDEN void pw_requests_start(const struct pw_options *o);

/* threshold= is not 0.  Read by pw_requests_count; written once by
 * pw_requests_start, before the JNI table swap. */
PW_HIDDEN extern bool pw_requests_threshold_on;

/* Adds the thread's unpublished count to the shared one. */
PW_HIDDEN void pw_requests_publish(struct pw_thread *t);

/* delta: +1 for a pin taken, -1 for one released (suppressed ones excluded). */
static inline void
pw_requests_count(struct pw_thread *t, int delta)
{
    if (!pw_requests_threshold_on)
        return;
    t->live_pending += delta;
    if (PW_UNLIKELY(t->live_pending >= PW_PUBLISH_STEP || t->live_pending <= -PW_PUBLISH_STEP))
        pw_requests_publish(t);
}

/* ref_threshold: live global and weak references, and live locals of
 * natively attached threads, that ask for a report (0: never); counted
 * like pins, on their own shared counter.  Read by pw_requests_ref_count;
 * written once by pw_requests_start, before the JNI table swap. */
PW_HIDDEN extern bool pw_requests_ref_threshold_on;
PW_HIDDEN void pw_requests_refs_publish(struct pw_thread *t);

static inline void
pw_requests_ref_count(struct pw_thread *t, int delta)
{
    if (!pw_requests_ref_threshold_on)
        return;
    t->refs_pending += delta;
    if (PW_UNLIKELY(t->refs_pending >= PW_PUBLISH_STEP || t->refs_pending <= -PW_PUBLISH_STEP))
        pw_requests_refs_publish(t);
}

/* The first leak at a site: queued for an UNRELEASED line (symbolising is too
 * heavy for the returning thread). */
PW_HIDDEN void pw_requests_leak_note(uint32_t site, uint64_t pins, uint64_t bytes);

#define PW_LEAK_NOTES 256
#define PW_DUMP_REASON_MAX 256

/* A report asked for by the application (io.pinwatch.Pinwatch.dump): the
 * report thread writes it with reason as its reason (cut to
 * PW_DUMP_REASON_MAX - 1 bytes) while the caller waits, at most timeout_ms.
 * True when the report was written.  One such request at a time; others
 * wait their turn. */
PW_HIDDEN bool pw_requests_dump(const char *reason, uint64_t timeout_ms);
/* The report thread, after serving the dump request of that ticket
 * (struct pw_requests): written or not. */
PW_HIDDEN void pw_requests_dump_done(uint64_t ticket, bool written);

struct pw_leak_note {
    uint32_t site;
    uint64_t pins, bytes;
};

/* What was asked for since the report thread last looked. */
struct pw_requests {
    struct pw_leak_note notes[PW_LEAK_NOTES];
    size_t nnotes;
    uint64_t notes_dropped; /* first leaks that found the queue full */
    bool threshold;         /* the live count crossed the threshold */
    bool dump;              /* a report for the application: pw_requests_dump */
    char dump_reason[PW_DUMP_REASON_MAX];
    uint64_t dump_ticket;
};

/* The report thread: waits until something is asked for or deadline
 * (CLOCK_MONOTONIC; NULL: none) passes, and takes what was asked. */
PW_HIDDEN void pw_requests_wait(const struct timespec *deadline, struct pw_requests *out);

/* The report thread has written the notes it took last. */
PW_HIDDEN void pw_requests_notes_written(void);

/* At exit: waits (at most wait_ms) until notes the report thread took are
 * written, then takes the notes nobody took yet (and only those), so that
 * a first leak just before the JVM ends still gets its line. */
PW_HIDDEN void pw_requests_take_notes(struct pw_requests *out, uint64_t wait_ms);

#endif
