/* SPDX-License-Identifier: Apache-2.0 */
/* Metrics for Prometheus: the snapshot's figures as an exposition, in one
 * of two dialects of the same text,
 *   OpenMetrics 1.0.0   what the HTTP endpoint sends a scraper that asks for
 *                       it (Prometheus does): counter families named without
 *                       _total, # UNIT lines, # EOF at the end;
 *   Prometheus 0.0.4    what it sends anyone else, and what format=openmetrics
 *                       writes to file= (node_exporter's textfile collector
 *                       reads this dialect only): TYPE names the _total
 *                       sample, no EOF.
 * Names follow the Prometheus rules: pinwatch_ prefix, base units, counters
 * end in _total.  Rows are labelled {method, signature, function}: the
 * three make a row's identity in every report, so no two series collide.
 * At most style->rows rows are named, the largest by live bytes (the
 * snapshot's order); the rest are summed into one row labelled "other", so
 * one process gives a bounded number of series whatever its code does.
 *
 * Families are drawn from tables, so a later kind of row (say JNI
 * references) is one more table and one more loop. */
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

enum family_type { GAUGE, COUNTER };

struct row_family {
    const char *name; /* without _total */
    enum family_type type;
    const char *unit; /* OpenMetrics # UNIT, or NULL */
    const char *help;
    uint64_t (*value)(const struct pw_snap_row *r);
};

static uint64_t
row_live(const struct pw_snap_row *r)
{
    return r->live;
}

static uint64_t
row_live_bytes(const struct pw_snap_row *r)
{
    return r->live_bytes;
}

static uint64_t
row_leaked(const struct pw_snap_row *r)
{
    return r->leaked;
}

static uint64_t
row_carried(const struct pw_snap_row *r)
{
    return r->carried;
}

static uint64_t
row_acquired(const struct pw_snap_row *r)
{
    return r->acquired;
}

static uint64_t
row_released(const struct pw_snap_row *r)
{
    return r->released;
}

static const struct row_family pin_families[] = {
    {"pinwatch_live_pins", GAUGE, NULL, "Pins taken and not yet released, by native method and Get function.",
     row_live},
    {"pinwatch_live_bytes", GAUGE, "bytes", "Bytes of the live pins (the elements the JVM copied or pinned).",
     row_live_bytes},
    {"pinwatch_leaked_pins", GAUGE, NULL, "Live pins whose native method has returned without releasing them.",
     row_leaked},
    {"pinwatch_carried", COUNTER, NULL,
     "Pins released by a later call after their native method returned holding them: carried across calls, not "
     "leaked.",
     row_carried},
    {"pinwatch_acquired", COUNTER, NULL, "Pins taken since the agent started.", row_acquired},
    {"pinwatch_released", COUNTER, NULL, "Pins released since the agent started.", row_released},
};

struct process_figure {
    const char *name;
    enum family_type type;
    const char *unit;
    const char *help;
    uint64_t (*value)(const struct pw_snapshot *s);
};

static uint64_t
unmatched(const struct pw_snapshot *s)
{
    return s->totals.unmatched_releases;
}

static uint64_t
lost(const struct pw_snapshot *s)
{
    return s->totals.lost;
}

static uint64_t
table_bytes(const struct pw_snapshot *s)
{
    return s->totals.table_bytes;
}

static uint64_t
rows(const struct pw_snapshot *s)
{
    return s->nrows;
}

static uint64_t
uptime(const struct pw_snapshot *s)
{
    return s->uptime_ms / 1000;
}

static const struct process_figure process_figures[] = {
    {"pinwatch_unmatched_releases", COUNTER, NULL, "Releases of buffers pinwatch never saw taken (passed on).",
     unmatched},
    {"pinwatch_lost", COUNTER, NULL, "Pins not recorded because a table was full (counted, not tracked).", lost},
    {"pinwatch_table_bytes", GAUGE, "bytes", "Memory of the agent's pin tables.", table_bytes},
    {"pinwatch_rows", GAUGE, NULL, "Rows (method, signature, function) before the metrics_rows bound.", rows},
    {"pinwatch_uptime_seconds", GAUGE, "seconds", "Seconds since the agent started counting.", uptime},
};

/* A label value: backslash, quote and newline escaped as the exposition
 * formats ask; bytes that are not UTF-8 (modified UTF-8 of a NUL or of a
 * character outside the BMP, or anything else) become U+FFFD, because
 * Prometheus rejects a whole scrape over one invalid label. */
static void
label_value(struct pw_strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        unsigned c = *p;
        if (c == '\\' || c == '"') {
            char esc[2] = {'\\', (char)c};
            pw_strbuf_add(out, esc, 2);
            p++;
            continue;
        }
        if (c == '\n') {
            pw_strbuf_add(out, "\\n", 2);
            p++;
            continue;
        }
        if (c < 0x80) {
            pw_strbuf_add(out, (const char *)p, 1);
            p++;
            continue;
        }
        /* Well-formed UTF-8 only: no overlong forms, no surrogates, nothing
         * past U+10FFFF (RFC 3629, table 3-7 of Unicode). */
        size_t n = 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        }
        bool ok = n > 0 && p[1] >= lo && p[1] <= hi;
        for (size_t i = 2; ok && i < n; i++)
            ok = p[i] >= 0x80 && p[i] <= 0xBF;
        if (ok) {
            pw_strbuf_add(out, (const char *)p, n);
            p += n;
        } else {
            pw_strbuf_add(out, "\xEF\xBF\xBD", 3);
            p++;
        }
    }
}

static void
header(struct pw_strbuf *out, const char *name, enum family_type type, const char *unit, const char *help,
       const struct pw_metrics_style *style)
{
    /* OpenMetrics names the counter family without _total; 0.0.4 names the
     * sample. */
    const char *suffix = type == COUNTER && !style->openmetrics ? "_total" : "";
    pw_strbuf_printf(out, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help, name, suffix,
                     type == COUNTER ? "counter" : "gauge");
    if (unit != NULL && style->openmetrics)
        pw_strbuf_printf(out, "# UNIT %s %s\n", name, unit);
}

static void
sample_name(struct pw_strbuf *out, const char *name, enum family_type type)
{
    pw_strbuf_puts(out, name);
    if (type == COUNTER)
        pw_strbuf_puts(out, "_total");
}

/* The labels every sample of the process carries: none on the HTTP
 * endpoint (the scrape target names the process, as with the JMX
 * exporter), pid on a textfile (node_exporter serves every JVM of a node
 * under its own target). */
static void
labels_open(struct pw_strbuf *out, const struct pw_snapshot *snap, const struct pw_metrics_style *style)
{
    pw_strbuf_puts(out, "{");
    if (style->pid_label)
        pw_strbuf_printf(out, "pid=\"%ld\",", snap->pid);
}

static void
row_sample(struct pw_strbuf *out, const struct row_family *fam, const struct pw_snapshot *snap,
           const struct pw_metrics_style *style, const char *method, const char *signature, const char *function,
           uint64_t value)
{
    sample_name(out, fam->name, fam->type);
    labels_open(out, snap, style);
    pw_strbuf_puts(out, "method=\"");
    label_value(out, method);
    pw_strbuf_puts(out, "\",signature=\"");
    label_value(out, signature);
    pw_strbuf_puts(out, "\",function=\"");
    label_value(out, function);
    pw_strbuf_printf(out, "\"} %" PRIu64 "\n", value);
}

void
pw_report_openmetrics(const struct pw_snapshot *snap, struct pw_strbuf *out, const struct pw_metrics_style *style)
{
    size_t named = snap->nrows < style->rows ? snap->nrows : style->rows;
    for (size_t f = 0; f < sizeof(pin_families) / sizeof(pin_families[0]); f++) {
        const struct row_family *fam = &pin_families[f];
        header(out, fam->name, fam->type, fam->unit, fam->help, style);
        for (size_t i = 0; i < named; i++) {
            const struct pw_snap_row *r = &snap->rows[i];
            row_sample(out, fam, snap, style, r->method, r->signature, pw_function_name(r->fn), fam->value(r));
        }
        if (named < snap->nrows) {
            uint64_t sum = 0;
            for (size_t i = named; i < snap->nrows; i++)
                sum += fam->value(&snap->rows[i]);
            row_sample(out, fam, snap, style, "other", "", "other", sum);
        }
    }

    header(out, "pinwatch_findings", COUNTER, NULL,
           "Misuses of JNI pins seen (double_release, wrong_object, wrong_function, jni_in_critical, "
           "long_critical).",
           style);
    for (size_t k = 0; k < snap->nkinds; k++) {
        sample_name(out, "pinwatch_findings", COUNTER);
        labels_open(out, snap, style);
        pw_strbuf_puts(out, "kind=\"");
        label_value(out, snap->kinds[k].kind);
        pw_strbuf_printf(out, "\"} %" PRIu64 "\n", snap->kinds[k].count);
    }

    for (size_t f = 0; f < sizeof(process_figures) / sizeof(process_figures[0]); f++) {
        const struct process_figure *fig = &process_figures[f];
        header(out, fig->name, fig->type, fig->unit, fig->help, style);
        sample_name(out, fig->name, fig->type);
        if (style->pid_label)
            pw_strbuf_printf(out, "{pid=\"%ld\"}", snap->pid);
        pw_strbuf_printf(out, " %" PRIu64 "\n", fig->value(snap));
    }

    header(out, "pinwatch_build_info", GAUGE, NULL, "The agent's version; always 1.", style);
    pw_strbuf_puts(out, "pinwatch_build_info");
    labels_open(out, snap, style);
    pw_strbuf_printf(out, "version=\"%s\"} 1\n", PINWATCH_VERSION);
    if (style->openmetrics)
        pw_strbuf_puts(out, "# EOF\n");
}
