/* SPDX-License-Identifier: Apache-2.0 */
/* What application threads ask of the report thread (report_thread.c): a
 * report when a live count crosses its threshold, and an UNRELEASED line
 * for a site's first leak.  The counting happens here, on the application
 * side; the report thread only waits for requests and serves them, so no
 * application thread ever formats, symbolises or writes.
 *
 * A live count behind a threshold (struct pw_crossing) is kept per thread
 * and published to one shared counter in steps of PW_PUBLISH_STEP (and at
 * every leaking return), so a balanced Get/Release pair never touches
 * shared memory. */
#ifndef PW_REQUESTS_H
#define PW_REQUESTS_H

#include "base/options.h"
#include "state/thread_state.h"

#include <time.h>

#define PW_PUBLISH_STEP 16

/* A threshold crossing: a live count kept per thread (in the kind's part
 * of struct pw_thread), published to one shared count in steps of
 * PW_PUBLISH_STEP, which asks for one report each time it reaches the next
 * mark; the mark then doubles past it.  One for pins (threshold=), one for
 * references (ref_threshold=); a new kind adds its own. */
struct pw_crossing {
    /* Read by every count; written once by pw_requests_start (through
     * pw_crossing_start), before the JNI table swap.  Kept off the line
     * threads publish to. */
    bool on;
    _Alignas(64) _Atomic int64_t published; /* the sum of what threads published */
    _Atomic uint64_t next;                  /* the mark that asks for the next report */
};

PW_HIDDEN extern struct pw_crossing pw_pin_crossing, pw_ref_crossing;

/* threshold: the first mark (0: never). */
PW_HIDDEN void pw_crossing_start(struct pw_crossing *c, uint64_t threshold);

/* Adds *pending (the calling thread's unpublished count) to the shared
 * count and zeroes it; asks for a report and returns true when this moved
 * the count onto or past the mark. */
PW_HIDDEN bool pw_crossing_publish(struct pw_crossing *c, int32_t *pending);

/* A pending count reached a step: published when the crossing is on,
 * dropped when it is off. */
PW_HIDDEN void pw_crossing_step(struct pw_crossing *c, int32_t *pending);

/* delta: +1 for one more live, -1 for one fewer (a constant at every call,
 * so that the compiler keeps one side of the test).  Whether the crossing
 * is on is asked only at a step, once in PW_PUBLISH_STEP counts: every
 * count then costs one add and one compare, on or off. */
static inline void
pw_crossing_count(struct pw_crossing *c, int32_t *pending, int delta)
{
    *pending += delta;
    if (PW_UNLIKELY(delta > 0 ? *pending >= PW_PUBLISH_STEP : *pending <= -PW_PUBLISH_STEP))
        pw_crossing_step(c, pending);
}

/* threshold= (live pins that ask for the first report, 0: never) and,
 * with refs=on, ref_threshold= from o: pw_pin_crossing and
 * pw_ref_crossing.  Before the JNI table swap. */
PW_HIDDEN void pw_requests_start(const struct pw_options *o);

/* A pin taken (+1) or released (-1), suppressed ones excluded. */
static inline void
pw_requests_count(struct pw_thread *t, int delta)
{
    pw_crossing_count(&pw_pin_crossing, &t->pins.pending, delta);
}

/* For a fast path that tests everything before it changes anything: whether
 * a pin count of delta would stay short of a step (pw_requests_count would
 * then only add), and that count, made once the path is committed. */
static inline bool
pw_requests_count_is_quiet(const struct pw_thread *t, int delta)
{
    return delta > 0 ? t->pins.pending < PW_PUBLISH_STEP - 1 : t->pins.pending > -(PW_PUBLISH_STEP - 1);
}

static inline void
pw_requests_count_quiet(struct pw_thread *t, int delta)
{
    t->pins.pending += delta;
}

/* A reference made (+1) or deleted or freed (-1): ref_threshold= counts
 * live global and weak references, and live locals of natively attached
 * threads, on pw_ref_crossing. */
static inline void
pw_requests_ref_count(struct pw_thread *t, int delta)
{
    /* ref_threshold= is off by default (pins' threshold= is on): one test
     * then skips the count. */
    if (pw_ref_crossing.on)
        pw_crossing_count(&pw_ref_crossing, &t->refs.pending, delta);
}

/* The thread's unpublished counts, published now (a leaking return, the
 * thread's end). */
static inline void
pw_requests_publish(struct pw_thread *t)
{
    if (pw_pin_crossing.on)
        pw_crossing_publish(&pw_pin_crossing, &t->pins.pending);
}

static inline void
pw_requests_refs_publish(struct pw_thread *t)
{
    if (pw_ref_crossing.on)
        pw_crossing_publish(&pw_ref_crossing, &t->refs.pending);
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
