/* SPDX-License-Identifier: Apache-2.0 */
/* The page for the reports of many JVMs: the JVMs, their growth summed,
 * each JVM's latest live pins, the rows summed, one flame graph of all. */
#include "report_html.h"
#include "html/chart.h"
#include "html/flame.h"
#include "html/page.h"
#include "html/tables.h"

#include <stdlib.h>
#include <string.h>

/* Every report of every JVM in wall-clock order: the growth chart's points. */
struct timeline {
    struct pw_dumps points; /* shallow copies, for each point's reason */
    const struct pw_dump **order;
    size_t *owner; /* the JVM (index into procs) of each point */
    uint64_t *xs;  /* ms since the first point */
    uint64_t xmax;
};

static int
dumps_by_time(const void *a, const void *b)
{
    const struct pw_dump *x = *(const struct pw_dump *const *)a, *y = *(const struct pw_dump *const *)b;
    if (x->time_ms != y->time_ms)
        return x->time_ms < y->time_ms ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void
timeline_of(const struct pw_fleet *f, struct timeline *t)
{
    size_t nd = 0;
    t->order = pw_xmalloc(f->ndumps * sizeof(*t->order));
    t->owner = pw_xmalloc(f->ndumps * sizeof(*t->owner));
    for (size_t k = 0; k < f->nprocs; k++)
        for (size_t i = 0; i < f->procs[k].n; i++)
            t->order[nd++] = f->procs[k].dumps[i];
    qsort(t->order, nd, sizeof(*t->order), dumps_by_time);
    for (size_t i = 0; i < nd; i++)
        for (size_t k = 0; k < f->nprocs; k++)
            for (size_t j = 0; j < f->procs[k].n; j++)
                if (f->procs[k].dumps[j] == t->order[i])
                    t->owner[i] = k;
    t->points = (struct pw_dumps){.items = pw_xmalloc(nd * sizeof(struct pw_dump)), .n = nd};
    for (size_t i = 0; i < nd; i++)
        t->points.items[i] = *t->order[i];
    t->xs = pw_xmalloc((nd ? nd : 1) * sizeof(*t->xs));
    t->xmax = 0;
    for (size_t i = 0; i < nd; i++) {
        t->xs[i] = t->order[i]->time_ms - t->order[0]->time_ms;
        if (t->xs[i] > t->xmax)
            t->xmax = t->xs[i];
    }
}

static void
timeline_free(struct timeline *t)
{
    free(t->points.items);
    free(t->order);
    free(t->owner);
    free(t->xs);
}

/* At each point, the fleet's figure is the sum over the JVMs of their
 * latest report so far: a JVM that stopped reporting still counts. */
static size_t
summed_series(const struct pw_fleet *f, const struct timeline *t, struct pw_html_series **out)
{
    size_t nd = t->points.n, ns = 0;
    struct pw_html_series *s = NULL;
    for (size_t i = 0; i < nd; i++)
        for (size_t j = 0; j < t->order[i]->nrows; j++)
            if (t->order[i]->rows[j].live > 0)
                pw_html_series_for(&s, &ns, t->order[i]->rows[j].method, nd);
    const struct pw_dump **latest = pw_xmalloc(f->nprocs * sizeof(*latest));
    for (size_t k = 0; k < f->nprocs; k++)
        latest[k] = NULL;
    for (size_t i = 0; i < nd; i++) {
        latest[t->owner[i]] = t->order[i];
        for (size_t p = 0; p < f->nprocs; p++)
            for (size_t j = 0; latest[p] != NULL && j < latest[p]->nrows; j++) {
                const struct pw_row *r = &latest[p]->rows[j];
                for (size_t k = 0; k < ns; k++)
                    if (strcmp(s[k].method, r->method) == 0) {
                        s[k].live[i] += r->live;
                        s[k].bytes[i] += r->live_bytes;
                    }
            }
    }
    free(latest);
    *out = s;
    return ns;
}

/* Each JVM's latest report, summed. */
static struct pw_totals
latest_totals(const struct pw_fleet *f)
{
    struct pw_totals sum = {0};
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_totals *t = &f->procs[k].dumps[f->procs[k].n - 1]->totals;
        sum.live += t->live;
        sum.live_bytes += t->live_bytes;
        sum.leaked += t->leaked;
        sum.held += t->held;
        sum.carried += t->carried;
        sum.acquired += t->acquired;
    }
    return sum;
}

/* One flame graph of every JVM's latest live bytes: a report made of all
 * their rows (shallow copies: free only all->rows). */
static void
latest_rows(const struct pw_fleet *f, struct pw_dump *all)
{
    size_t nrows = 0;
    for (size_t k = 0; k < f->nprocs; k++)
        nrows += f->procs[k].dumps[f->procs[k].n - 1]->nrows;
    *all = (struct pw_dump){.rows = pw_xmalloc((nrows ? nrows : 1) * sizeof(struct pw_row))};
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_dump *last = f->procs[k].dumps[f->procs[k].n - 1];
        for (size_t i = 0; i < last->nrows; i++)
            all->rows[all->nrows++] = last->rows[i];
    }
}

void
pw_report_html_fleet(struct pw_buf *b, const struct pw_fleet *f)
{
    struct timeline t;
    timeline_of(f, &t);
    size_t nd = t.points.n;

    char title[32], span[32];
    snprintf(title, sizeof(title), "%zu JVMs", f->nprocs);
    struct pw_buf sub = {0};
    pw_buf_printf(&sub,
                  "<span id=\"fleet\">%zu JVM%s on %zu host%s</span> &middot; %zu report%s in %zu file%s over %s",
                  f->nprocs, f->nprocs == 1 ? "" : "s", f->nhosts, f->nhosts == 1 ? "" : "s", nd,
                  nd == 1 ? "" : "s", f->nfiles, f->nfiles == 1 ? "" : "s",
                  pw_html_duration(t.xmax, span, sizeof(span)));
    pw_html_page_open(b, title, sub.data);
    pw_buf_free(&sub);
    struct pw_totals sum = latest_totals(f);
    pw_html_cards(b, &sum, "live pins, all JVMs");

    pw_html_jvms_table(b, f);

    struct pw_html_series *s;
    size_t ns = summed_series(f, &t, &s);
    pw_html_growth_section(b, "Live pins per native method, summed over the JVMs",
                           "Wall-clock time since the first report; at each report, the sum over the JVMs of "
                           "their "
                           "latest report so far.",
                           &t.points, s, ns, t.xs, t.xmax);
    pw_html_series_free(s, ns);

    pw_buf_puts(b, "<section id=\"table\"><h2>Live pins in each JVM's latest report</h2>\n");
    pw_html_fleet_leak_table(b, f);
    pw_buf_puts(b, "</section>\n");
    pw_html_summed_table(b, f);

    struct pw_dump all;
    latest_rows(f, &all);
    pw_html_flame_section(b, "Live bytes by stack, all JVMs", &all);
    free(all.rows);
    pw_html_page_close(b);

    timeline_free(&t);
}
