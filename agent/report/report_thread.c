/* SPDX-License-Identifier: Apache-2.0 */
#include "report/report_thread.h"
#include "base/clock.h"
#include "base/threads.h"
#include "tracking/requests.h"
#include "base/log.h"
#include "state/methods.h"
#include "state/frame_layout.h"
#include "report/report.h"
#include "state/site_table.h"
#include "jvm/symbols.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* A copy: written once by pw_report_thread_start, before the thread starts. */
static struct pw_options options;

static void
write_notes(const struct pw_leak_note *batch, size_t n)
{
    struct pw_symbols *symbols = pw_symbols_open();
    for (size_t i = 0; i < n; i++) {
        const struct pw_site *site = pw_site_get(batch[i].site);
        uintptr_t ret = pw_method_caller(site->method, (uintptr_t)site->ret, NULL);
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
        /* What is known at the return: the pins are not released yet.  A
         * later call may still release them legally (then they are counted
         * as carried, not leaked), so the line does not call them leaks. */
        pw_log_info("UNRELEASED %s returned holding %" PRIu64 " %s pin%s (%" PRIu64 " bytes) taken at %s%s",
                    pw_method_name(site->method), batch[i].pins, pw_function_name(site->fn),
                    batch[i].pins == 1 ? "" : "s", batch[i].bytes, at, site->suppressed ? " (suppressed)" : "");
    }
    pw_symbols_close(symbols);
}

static bool
passed(const struct timespec *ts)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

static void *
report_thread(void *arg)
{
    (void)arg;
    struct timespec next_interval;
    uint64_t interval = options.interval_ms;
    if (interval > 0)
        next_interval = pw_clock_deadline(CLOCK_MONOTONIC, interval);
    /* Static: a queue of notes is too big for a thread's stack to spare. */
    static struct pw_requests asked;
    for (;;) {
        pw_requests_wait(interval > 0 ? &next_interval : NULL, &asked);
        if (asked.nnotes > 0)
            write_notes(asked.notes, asked.nnotes);
        if (asked.notes_dropped > 0)
            pw_log_warn("%" PRIu64 " more first leaks came too fast to be noted; the reports count them",
                        asked.notes_dropped);
        if (asked.nnotes > 0 || asked.notes_dropped > 0)
            pw_requests_notes_written();
        if (asked.threshold)
            pw_report_write("threshold", &options, NULL);
        if (asked.dump)
            pw_requests_dump_done(asked.dump_ticket, pw_report_write(asked.dump_reason, &options, NULL));
        if (interval > 0 && passed(&next_interval)) {
            /* The next period starts now: a slow report does not cause a
             * burst of catch-up reports. */
            next_interval = pw_clock_deadline(CLOCK_MONOTONIC, interval);
            pw_report_write("interval", &options, NULL);
        }
    }
    return NULL;
}

void
pw_report_thread_flush_notes(void)
{
    static struct pw_requests left;
    /* A batch the thread is symbolising takes milliseconds; a thread stuck
     * for a second is not waited for longer. */
    pw_requests_take_notes(&left, 1000);
    if (left.nnotes > 0)
        write_notes(left.notes, left.nnotes);
    if (left.notes_dropped > 0)
        pw_log_warn("%" PRIu64 " more first leaks came too fast to be noted; the reports count them",
                    left.notes_dropped);
}

bool
pw_report_thread_start(const struct pw_options *o)
{
    options = *o;
    int rc = pw_daemon_spawn("pinwatch", 0, report_thread, NULL);
    if (rc != 0) {
        pw_log_error(
            "cannot start the report thread (error %d): no threshold or interval reports, no UNRELEASED lines",
            rc);
        return false;
    }
    return true;
}
