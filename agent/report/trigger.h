/* Reports that pinwatch decides to write by itself, and the one-line LEAK
 * notes: all of it done by one thread of the agent's own, never on the
 * application thread that crossed a threshold or leaked.
 *
 * The live-pin count behind threshold= is kept per thread and published to
 * one shared counter in steps of PW_PUBLISH_STEP pins (and at every leaking
 * return), so a balanced Get/Release pair never touches shared memory. */
#ifndef PW_TRIGGER_H
#define PW_TRIGGER_H

#include "options.h"
#include "thread_state.h"

#define PW_PUBLISH_STEP 16

/* Starts the agent thread; reports use opts (kept by the caller). */
PW_HIDDEN bool pw_trigger_start(const struct pw_options *opts);

PW_HIDDEN extern bool pw_trigger_threshold_on;

PW_HIDDEN void pw_trigger_publish(struct pw_thread *t);

/* delta: +1 for a pin taken, -1 for one released (suppressed ones excluded). */
static inline void
pw_trigger_count(struct pw_thread *t, int delta)
{
    if (!pw_trigger_threshold_on)
        return;
    t->live_pending += delta;
    if (PW_UNLIKELY(t->live_pending >= PW_PUBLISH_STEP || t->live_pending <= -PW_PUBLISH_STEP))
        pw_trigger_publish(t);
}

/* The first leak at a site: queued for a LEAK line written by the agent's
 * thread (symbolising is too heavy for the returning thread). */
PW_HIDDEN void pw_trigger_leak_note(uint32_t site, uint64_t pins, uint64_t bytes);

#endif
