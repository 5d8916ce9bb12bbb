/* SPDX-License-Identifier: Apache-2.0 */
/* The page for one JSON Lines file: its reports over time, the latest in
 * detail. */
#include "report_html.h"
#include "html/chart.h"
#include "html/flame.h"
#include "html/page.h"
#include "html/tables.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The header's line: the file, how many reports over how long, which JVM,
 * the latest report's reason and time, the agent's version. */
static void
subtitle(struct pw_buf *sub, const char *file, const struct pw_dumps *d, bool one_pid)
{
    const struct pw_dump *last = &d->items[d->n - 1], *first = &d->items[0];
    pw_html_esc(sub, file);
    char when[64] = "";
    time_t t = (time_t)(last->time_ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm) != NULL)
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
    char span[32];
    pw_buf_printf(sub, " &middot; %zu report%s over %s", d->n, d->n == 1 ? "" : "s",
                  pw_html_duration(last->time_ms >= first->time_ms ? last->time_ms - first->time_ms : 0, span,
                                   sizeof(span)));
    if (one_pid)
        pw_buf_printf(sub, " &middot; pid %" PRId64, last->pid);
    else
        pw_buf_puts(sub, " &middot; several JVMs");
    pw_buf_puts(sub, " &middot; latest: ");
    pw_html_esc(sub, last->reason);
    pw_buf_printf(sub, " at %s &middot; agent ", when);
    pw_html_esc(sub, last->version);
}

/* Each report's time since the first: uptime within one JVM; across JVMs,
 * whose uptimes do not compare, wall-clock time. */
static uint64_t *
times_of(const struct pw_dumps *d, bool one_pid, uint64_t *xmax)
{
    const struct pw_dump *first = &d->items[0];
    uint64_t *xs = pw_xmalloc(d->n * sizeof(*xs));
    *xmax = 0;
    for (size_t i = 0; i < d->n; i++) {
        const struct pw_dump *x = &d->items[i];
        if (one_pid)
            xs[i] = x->uptime_ms >= first->uptime_ms ? x->uptime_ms - first->uptime_ms : 0;
        else
            xs[i] = x->time_ms >= first->time_ms ? x->time_ms - first->time_ms : 0;
        if (xs[i] > *xmax)
            *xmax = xs[i];
    }
    return xs;
}

void
pw_report_html(struct pw_buf *b, const char *file, const struct pw_dumps *d)
{
    const struct pw_dump *last = &d->items[d->n - 1];
    bool one_pid = true;
    for (size_t i = 1; i < d->n; i++)
        if (d->items[i].pid != d->items[0].pid)
            one_pid = false;

    const char *base = strrchr(file, '/');
    struct pw_buf sub = {0};
    subtitle(&sub, file, d, one_pid);
    pw_html_page_open(b, base != NULL ? base + 1 : file, sub.data);
    pw_buf_free(&sub);
    pw_html_cards(b, &last->totals, "live pins");

    uint64_t xmax;
    uint64_t *xs = times_of(d, one_pid, &xmax);
    struct pw_html_series *s;
    size_t ns = pw_html_series_of(d, &s);
    char note[160];
    snprintf(note, sizeof(note), "%s since the first report%s; one line per native method that ever held a pin.",
             one_pid ? "JVM uptime" : "Wall-clock time", d->n == 1 ? " (one report: one point)" : "");
    pw_html_growth_section(b, "Live pins per native method", note, d, s, ns, xs, xmax);
    pw_html_series_free(s, ns);
    free(xs);

    pw_html_findings_section(b, last);

    pw_buf_puts(b, "<section id=\"table\"><h2>Live pins in the latest report</h2>\n");
    pw_html_leak_table(b, d);
    pw_buf_puts(b, "</section>\n");

    pw_html_references_section(b, d);

    pw_html_flame_section(b, "Live bytes by stack", last);
    pw_html_page_close(b);
}
