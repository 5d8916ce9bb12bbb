#include "trigger.h"
#include "log.h"
#include "methods.h"
#include "native_entry.h"
#include "report.h"
#include "site_table.h"
#include "symbols.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

bool pw_trigger_threshold_on;

static const struct pw_options *options;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static bool started;

static _Atomic int64_t live_published;
static _Atomic uint64_t next_threshold;
static bool threshold_due; /* guarded by lock */

#define NOTES 256
struct leak_note {
    uint32_t site;
    uint64_t pins, bytes;
};
static struct leak_note notes[NOTES]; /* guarded by lock */
static size_t nnotes;
static uint64_t notes_dropped;

void
pw_trigger_publish(struct pw_thread *t)
{
    int64_t delta = t->live_pending;
    t->live_pending = 0;
    if (delta == 0)
        return;
    int64_t live = atomic_fetch_add_explicit(&live_published, delta, memory_order_relaxed) + delta;
    uint64_t next = atomic_load_explicit(&next_threshold, memory_order_relaxed);
    if (live <= 0 || (uint64_t)live < next)
        return;
    /* One report per crossing: the thread that moves the mark on asks for
     * it, and the mark goes past the count however far it jumped. */
    uint64_t after = next;
    while (after <= (uint64_t)live)
        after *= 2;
    if (!atomic_compare_exchange_strong(&next_threshold, &next, after))
        return;
    pthread_mutex_lock(&lock);
    threshold_due = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

void
pw_trigger_leak_note(uint32_t site, uint64_t pins, uint64_t bytes)
{
    pthread_mutex_lock(&lock);
    if (nnotes < NOTES)
        notes[nnotes++] = (struct leak_note){.site = site, .pins = pins, .bytes = bytes};
    else
        notes_dropped++;
    if (started)
        pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

static void
write_notes(const struct leak_note *batch, size_t n)
{
    struct pw_symbols *symbols = pw_symbols_open();
    for (size_t i = 0; i < n; i++) {
        const struct pw_site *site = pw_site_get(batch[i].site);
        uintptr_t ret = (uintptr_t)site->ret;
        if (site->method != NULL && pw_is_native_return(ret))
            ret = (uintptr_t)site->method->orig + 1;
        struct pw_location where;
        pw_symbols_lookup(symbols, ret, &where);
        char at[512];
        if (where.file != NULL) {
            const char *base = strrchr(where.file, '/');
            snprintf(at, sizeof(at), "%s:%d", base != NULL ? base + 1 : where.file, where.line);
        } else if (where.symbol != NULL) {
            snprintf(at, sizeof(at), "%s+0x%" PRIx64, where.symbol, where.offset);
        } else {
            snprintf(at, sizeof(at), "0x%" PRIxPTR, ret);
        }
        pw_log_info("LEAK %s returned holding %" PRIu64 " %s pin%s (%" PRIu64 " bytes) taken at %s%s",
                    pw_method_name(site->method), batch[i].pins, pw_function_name(site->fn),
                    batch[i].pins == 1 ? "" : "s", batch[i].bytes, at, site->suppressed ? " (suppressed)" : "");
    }
    pw_symbols_close(symbols);
}

static void
deadline_after(struct timespec *ts, uint64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static bool
passed(const struct timespec *ts)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

static void *
agent_thread(void *arg)
{
    (void)arg;
    struct timespec next_interval;
    uint64_t interval = options->interval_ms;
    if (interval > 0)
        deadline_after(&next_interval, interval);
    for (;;) {
        struct leak_note batch[NOTES];
        size_t n;
        bool threshold, periodic = false;
        uint64_t dropped;
        pthread_mutex_lock(&lock);
        while (nnotes == 0 && !threshold_due && !(interval > 0 && passed(&next_interval))) {
            if (interval > 0)
                pthread_cond_timedwait(&wake, &lock, &next_interval);
            else
                pthread_cond_wait(&wake, &lock);
        }
        n = nnotes;
        memcpy(batch, notes, n * sizeof(*batch));
        nnotes = 0;
        dropped = notes_dropped;
        notes_dropped = 0;
        threshold = threshold_due;
        threshold_due = false;
        pthread_mutex_unlock(&lock);

        if (n > 0)
            write_notes(batch, n);
        if (dropped > 0)
            pw_log_warn("%" PRIu64 " more first leaks came too fast to be noted; the reports count them",
                        dropped);
        if (threshold)
            pw_report_write("threshold", options, NULL);
        if (interval > 0 && passed(&next_interval)) {
            periodic = true;
            /* The next period starts now: a slow report does not cause a
             * burst of catch-up reports. */
            deadline_after(&next_interval, interval);
        }
        if (periodic)
            pw_report_write("interval", options, NULL);
    }
    return NULL;
}

bool
pw_trigger_start(const struct pw_options *opts)
{
    options = opts;
    pw_trigger_threshold_on = opts->threshold > 0;
    atomic_store(&next_threshold, opts->threshold > 0 ? opts->threshold : UINT64_MAX);

    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &cattr);
    pthread_condattr_destroy(&cattr);

    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, old;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&thread, &attr, agent_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pw_log_error("cannot start the agent thread (error %d): no threshold or interval reports, no LEAK lines",
                     rc);
        return false;
    }
    pthread_setname_np(thread, "pinwatch");
    pthread_mutex_lock(&lock);
    started = true;
    if (nnotes > 0)
        pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    return true;
}
