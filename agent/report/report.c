/* SPDX-License-Identifier: Apache-2.0 */
#include "report/report.h"
#include "report/jfr.h"
#include "base/io.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set by the exit report: nothing is written after it, so it is the last
 * line of a file whatever the agent's thread was about to do. */
static bool closed;

/* What the previous report said of each row, pin or reference, for the
 * change since then (guarded by report_lock).  Method names are owned by
 * method records, which live as long as the process. */
struct seen_row {
    const char *method, *signature;
    uint8_t kind; /* enum pw_kind */
    uint32_t fn;
    uint64_t live, made; /* made: acquired, or created */
};
static struct seen_row *seen;
static size_t nseen;
static uint64_t seen_uptime_ms;
static bool seen_any;

static int
seen_cmp(const struct seen_row *x, const struct seen_row *y)
{
    int c = strcmp(x->method, y->method);
    if (c == 0)
        c = strcmp(x->signature, y->signature);
    if (c == 0)
        c = (int)x->kind - (int)y->kind;
    if (c == 0)
        c = (int)x->fn - (int)y->fn;
    return c;
}

static int
seen_order(const void *a, const void *b)
{
    return seen_cmp(a, b);
}

static const struct seen_row *
seen_find(const struct seen_row *key)
{
    size_t lo = 0, hi = nseen;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = seen_cmp(key, &seen[mid]);
        if (c == 0)
            return &seen[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

struct delta {
    int64_t live;
    uint64_t made;
    double made_per_s;
};

/* One row's change since the previous report (key: the row as it is now). */
static struct delta
row_delta(const struct seen_row *key, uint64_t since_ms)
{
    const struct seen_row *before = seen_find(key);
    uint64_t live0 = before != NULL ? before->live : 0, made0 = before != NULL ? before->made : 0;
    struct delta d = {.live = (int64_t)key->live - (int64_t)live0,
                      .made = key->made >= made0 ? key->made - made0 : 0};
    d.made_per_s = since_ms > 0 ? (double)d.made * 1000.0 / (double)since_ms : 0.0;
    return d;
}

/* Fills each row's change since the previous report, then remembers this
 * one for the next. */
static void
apply_deltas(struct pw_snapshot *snap)
{
    snap->since_ms = seen_any ? snap->uptime_ms - seen_uptime_ms : 0;
    snap->after_report = seen_any;
    size_t n = snap->nrows + snap->nrefs;
    struct seen_row *next = malloc((n ? n : 1) * sizeof(*next));
    for (size_t i = 0; i < snap->nrows; i++) {
        struct pw_snap_row *r = &snap->rows[i];
        struct seen_row now = {r->method, r->signature, PW_KIND_PIN, r->fn, r->live, r->acquired};
        struct delta d = row_delta(&now, snap->since_ms);
        r->live_delta = d.live;
        r->acquired_delta = d.made;
        r->acquired_per_s = d.made_per_s;
        if (next != NULL)
            next[i] = now;
    }
    for (size_t i = 0; i < snap->nrefs; i++) {
        struct pw_snap_ref_row *r = &snap->refs[i];
        struct seen_row now = {r->method, r->signature, r->kind, r->fn, r->live, r->created};
        struct delta d = row_delta(&now, snap->since_ms);
        r->live_delta = d.live;
        r->created_delta = d.made;
        r->created_per_s = d.made_per_s;
        if (next != NULL)
            next[snap->nrows + i] = now;
    }
    if (next == NULL)
        return; /* the next report's deltas then run from an older one */
    qsort(next, n, sizeof(*next), seen_order);
    free(seen);
    seen = next;
    nseen = n;
    seen_uptime_ms = snap->uptime_ms;
    seen_any = true;
}

/* format=openmetrics: the file holds the latest figures only, and a reader
 * (node_exporter's textfile collector) must never see half of them: write
 * a temporary beside it, then rename over it.  The temporary's name does
 * not end in .prom, so the collector never reads it.  0644: the collector
 * runs as its own user, and metrics name methods, not data. */
static bool
replace_file(const char *path, const struct pw_strbuf *text)
{
    char tmp[PW_PATH_MAX + 32];
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp)) {
        pw_log_error("report file name too long: %.80s; report written to stderr", path);
        return false;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        pw_log_error("cannot open report file %s: %s; report written to stderr", tmp, strerror(errno));
        return false;
    }
    bool ok = pw_write_all(fd, text->data, text->len);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        pw_log_error("cannot write report file %s: %s; report written to stderr", path, strerror(saved));
    }
    return ok;
}

/* O_APPEND makes each report one append, so two JVMs sharing a file never
 * interleave lines; O_NOFOLLOW refuses a link planted where the report
 * goes; 0600 because a report names a process's code. */
static void
emit(const struct pw_options *opts, const struct pw_strbuf *text)
{
    if (opts->file[0] != '\0') {
        char path[PW_PATH_MAX];
        if (!pw_expand_path(opts->file, path, sizeof(path))) {
            pw_log_error("report file name too long after expanding %%p: %.80s; report written to stderr",
                         opts->file);
        } else if (opts->format == PW_FORMAT_OPENMETRICS) {
            if (replace_file(path, text))
                return;
        } else {
            int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0) {
                pw_log_error("cannot open report file %s: %s; report written to stderr", path, strerror(errno));
            } else {
                bool ok = pw_write_all(fd, text->data, text->len);
                int saved = errno;
                close(fd);
                if (ok)
                    return;
                pw_log_error("cannot write report file %s: %s; report written to stderr", path, strerror(saved));
            }
        }
    }
    if (!pw_write_all(STDERR_FILENO, text->data, text->len))
        return; /* nowhere left to say it */
}

bool
pw_report_write(const char *reason, const struct pw_options *opts, struct pw_snap_totals *totals)
{
    pthread_mutex_lock(&report_lock);
    if (closed) {
        pthread_mutex_unlock(&report_lock);
        return false;
    }
    if (strcmp(reason, "exit") == 0)
        closed = true;
    struct pw_snapshot snap;
    if (!pw_snapshot_take(&snap, reason)) {
        pw_log_error("out of memory taking a %s report", reason);
        pthread_mutex_unlock(&report_lock);
        return false;
    }
    apply_deltas(&snap);
    snap.ref_threshold = opts->ref_threshold;
    if (totals != NULL)
        *totals = snap.totals;
    struct pw_strbuf text;
    pw_strbuf_init(&text);
    if (opts->format == PW_FORMAT_JSON)
        pw_report_json(&snap, &text);
    else if (opts->format == PW_FORMAT_COLLAPSED)
        pw_report_collapsed(&snap, &text);
    else if (opts->format == PW_FORMAT_OPENMETRICS)
        pw_report_openmetrics(&snap, &text,
                              &(struct pw_metrics_style){.rows = opts->metrics_rows, .pid_label = true});
    else
        pw_report_text(&snap, &text);
    if (text.failed) {
        pw_log_error("out of memory formatting a %s report", reason);
    } else {
        emit(opts, &text);
        /* Queued for the Flight Recorder, if a recording wants it: never
         * waits, whichever thread writes the report. */
        pw_jfr_report(reason, &snap.totals, opts->threshold);
    }
    pw_strbuf_free(&text);
    pw_snapshot_free(&snap);
    pthread_mutex_unlock(&report_lock);
    /* A report's buffers and libdw's view of every library are freed by
     * now, but glibc keeps freed heap for reuse: measured at 8 MB left over
     * after the threshold reports of a million leaks.  Hand it back, so the
     * process pays for pinwatch's tables and nothing else. */
    malloc_trim(0);
    return true;
}

bool
pw_report_metrics(const struct pw_options *opts, bool openmetrics, struct pw_strbuf *out)
{
    /* The lock keeps a scrape from reading the tables while a report does,
     * which both would pay for; no "previous report" is read or written. */
    pthread_mutex_lock(&report_lock);
    struct pw_snapshot snap;
    bool ok = pw_snapshot_take_figures(&snap, "metrics");
    if (ok) {
        pw_report_openmetrics(&snap, out,
                              &(struct pw_metrics_style){.rows = opts->metrics_rows, .openmetrics = openmetrics});
        pw_snapshot_free(&snap);
    }
    pthread_mutex_unlock(&report_lock);
    return ok && !out->failed;
}
