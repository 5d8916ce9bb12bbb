/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/requests.h"
#include "base/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct pw_crossing pw_pin_crossing = {.next = UINT64_MAX}, pw_ref_crossing = {.next = UINT64_MAX};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

static struct pw_requests pending; /* guarded by lock */
static bool notes_in_flight;       /* guarded by lock: taken, not yet written */
static pthread_cond_t notes_done = PTHREAD_COND_INITIALIZER;

void
pw_crossing_start(struct pw_crossing *c, uint64_t threshold)
{
    atomic_store(&c->published, 0);
    atomic_store(&c->next, threshold > 0 ? threshold : UINT64_MAX);
    c->on = threshold > 0;
}

bool
pw_crossing_publish(struct pw_crossing *c, int32_t *pending_count)
{
    int64_t delta = *pending_count;
    *pending_count = 0;
    if (delta == 0)
        return false;
    int64_t live = atomic_fetch_add_explicit(&c->published, delta, memory_order_relaxed) + delta;
    uint64_t next = atomic_load_explicit(&c->next, memory_order_relaxed);
    if (live <= 0 || (uint64_t)live < next)
        return false;
    /* One report per crossing: the thread that moves the mark on asks for
     * it, and the mark goes past the count however far it jumped. */
    uint64_t after = next;
    while (after <= (uint64_t)live)
        after *= 2;
    if (!atomic_compare_exchange_strong(&c->next, &next, after))
        return false;
    pthread_mutex_lock(&lock);
    pending.threshold = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    return true;
}

void
pw_crossing_step(struct pw_crossing *c, int32_t *pending_count)
{
    if (c->on)
        pw_crossing_publish(c, pending_count);
    else
        *pending_count = 0;
}

void
pw_requests_start(const struct pw_options *o)
{
    pw_crossing_start(&pw_pin_crossing, o->threshold);
    pw_crossing_start(&pw_ref_crossing, o->refs ? o->ref_threshold : 0);
    /* Deadlines are monotonic: a clock set back must not stall interval
     * reports. */
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &cattr);
    pthread_cond_init(&notes_done, &cattr);
    pthread_condattr_destroy(&cattr);
}

void
pw_requests_leak_note(uint32_t site, uint64_t pins, uint64_t bytes)
{
    pthread_mutex_lock(&lock);
    if (pending.nnotes < PW_LEAK_NOTES)
        pending.notes[pending.nnotes++] = (struct pw_leak_note){.site = site, .pins = pins, .bytes = bytes};
    else
        pending.notes_dropped++;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

/* Dump requests: one at a time (dump_lock), each with a ticket that the
 * report thread's answer must match, so a caller that gave up waiting can
 * never take a later caller's answer as its own. */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dump_served = PTHREAD_COND_INITIALIZER;
static uint64_t dump_ticket, dump_answered; /* guarded by lock */
static bool dump_written;                   /* guarded by lock */

bool
pw_requests_dump(const char *reason, uint64_t timeout_ms)
{
    struct timespec deadline = pw_clock_deadline(CLOCK_REALTIME, timeout_ms);
    if (pthread_mutex_timedlock(&dump_lock, &deadline) != 0)
        return false;
    pthread_mutex_lock(&lock);
    uint64_t ticket = ++dump_ticket;
    pending.dump = true;
    snprintf(pending.dump_reason, sizeof(pending.dump_reason), "%s", reason);
    pthread_cond_signal(&wake);
    int rc = 0;
    while (dump_answered < ticket && rc == 0)
        rc = pthread_cond_timedwait(&dump_served, &lock, &deadline);
    bool written = dump_answered == ticket && dump_written;
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&dump_lock);
    return written;
}

void
pw_requests_dump_done(uint64_t ticket, bool written)
{
    pthread_mutex_lock(&lock);
    dump_answered = ticket;
    dump_written = written;
    pthread_cond_broadcast(&dump_served);
    pthread_mutex_unlock(&lock);
}

static bool
anything(void)
{
    return pending.nnotes > 0 || pending.notes_dropped > 0 || pending.threshold || pending.dump;
}

void
pw_requests_wait(const struct timespec *deadline, struct pw_requests *out)
{
    pthread_mutex_lock(&lock);
    int rc = 0;
    while (!anything() && rc == 0) {
        if (deadline != NULL)
            rc = pthread_cond_timedwait(&wake, &lock, deadline);
        else
            pthread_cond_wait(&wake, &lock);
    }
    out->nnotes = pending.nnotes;
    memcpy(out->notes, pending.notes, pending.nnotes * sizeof(pending.notes[0]));
    out->notes_dropped = pending.notes_dropped;
    out->threshold = pending.threshold;
    notes_in_flight = pending.nnotes > 0 || pending.notes_dropped > 0;
    out->dump = pending.dump;
    if (pending.dump) {
        memcpy(out->dump_reason, pending.dump_reason, sizeof(out->dump_reason));
        out->dump_ticket = dump_ticket;
    }
    pending.dump = false;
    pending.nnotes = 0;
    pending.notes_dropped = 0;
    pending.threshold = false;
    pthread_mutex_unlock(&lock);
}

void
pw_requests_notes_written(void)
{
    pthread_mutex_lock(&lock);
    notes_in_flight = false;
    pthread_cond_broadcast(&notes_done);
    pthread_mutex_unlock(&lock);
}

void
pw_requests_take_notes(struct pw_requests *out, uint64_t wait_ms)
{
    struct timespec deadline = pw_clock_deadline(CLOCK_MONOTONIC, wait_ms);
    pthread_mutex_lock(&lock);
    int rc = 0;
    while (notes_in_flight && rc == 0)
        rc = pthread_cond_timedwait(&notes_done, &lock, &deadline);
    out->nnotes = pending.nnotes;
    memcpy(out->notes, pending.notes, pending.nnotes * sizeof(pending.notes[0]));
    out->notes_dropped = pending.notes_dropped;
    out->threshold = false;
    pending.nnotes = 0;
    pending.notes_dropped = 0;
    pthread_mutex_unlock(&lock);
}
