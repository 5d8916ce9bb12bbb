/* SPDX-License-Identifier: Apache-2.0 */
#include "html/tables.h"
#include "html/page.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int
rows_by_bytes(const void *a, const void *b)
{
    const struct pw_row *x = *(const struct pw_row *const *)a, *y = *(const struct pw_row *const *)b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->live != y->live)
        return x->live > y->live ? -1 : 1;
    return strcmp(x->method, y->method);
}

static void
num_cell(struct pw_buf *b, uint64_t v)
{
    char g[32];
    pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", v, pw_html_grouped(v, g, sizeof(g)));
}

static void
site_cell(struct pw_buf *b, const struct pw_row *r)
{
    /* The site holding most live pins, by its innermost frame. */
    const struct pw_site *best = NULL;
    for (size_t i = 0; i < r->nsites; i++)
        if (best == NULL || r->sites[i].live > best->live)
            best = &r->sites[i];
    pw_buf_puts(b, "<td class=\"site\">");
    if (best != NULL && best->nframes > 0) {
        const struct pw_frame *f = &best->frames[0];
        if (f->file != NULL) {
            const char *base = strrchr(f->file, '/');
            pw_html_esc(b, base != NULL ? base + 1 : f->file);
            if (f->line >= 0)
                pw_buf_printf(b, ":%" PRId64, f->line);
        } else if (f->symbol != NULL) {
            pw_html_esc(b, f->symbol);
            pw_buf_printf(b, "+%" PRId64, f->offset);
        } else {
            pw_html_esc(b, f->address);
        }
        if (r->nsites > 1)
            pw_buf_printf(b, " <span class=\"more\">+%zu sites</span>", r->nsites - 1);
    }
    pw_buf_puts(b, "</td>");
}

/* Live pins of row r's (method, function, signature) in report d (NULL: none). */
static uint64_t
live_in(const struct pw_dump *d, const struct pw_row *r)
{
    uint64_t n = 0;
    for (size_t j = 0; d != NULL && j < d->nrows; j++)
        if (strcmp(d->rows[j].method, r->method) == 0 && strcmp(d->rows[j].function, r->function) == 0 &&
            strcmp(d->rows[j].signature, r->signature) == 0)
            n += d->rows[j].live;
    return n;
}

/* The cells both leak tables share: method, function, live, live bytes,
 * leaked, held and growth. */
static void
pin_row_cells(struct pw_buf *b, const struct pw_row *r, int64_t growth)
{
    char sg[32];
    pw_buf_puts(b, "<td class=\"method\" title=\"");
    pw_html_esc(b, r->signature);
    pw_buf_puts(b, "\">");
    pw_html_esc(b, r->method);
    pw_buf_puts(b, "</td><td class=\"fn\">");
    pw_html_esc(b, r->function);
    pw_buf_puts(b, "</td>");
    num_cell(b, r->live);
    num_cell(b, r->live_bytes);
    num_cell(b, r->leaked);
    num_cell(b, r->held);
    pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                  pw_signed(growth, sg, sizeof(sg)));
}

void
pw_html_leak_table(struct pw_buf *b, const struct pw_dumps *d)
{
    const struct pw_dump *last = &d->items[d->n - 1], *first = &d->items[0];
    const struct pw_row **rows = pw_xmalloc(last->nrows * sizeof(*rows));
    size_t n = 0;
    for (size_t i = 0; i < last->nrows; i++)
        if (last->rows[i].live > 0)
            rows[n++] = &last->rows[i];
    qsort(rows, n, sizeof(*rows), rows_by_bytes);
    if (n == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live pins in the latest report.</p>\n");
        free(rows);
        return;
    }
    pw_buf_puts(b,
                "<div class=\"scroll\"><table id=\"leaks\" class=\"pw-table sortable\">\n<thead><tr>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Held</th>"
                "<th data-type=\"num\" class=\"num\">Growth</th><th data-type=\"num\" class=\"num\">Acquired</th>"
                "<th data-type=\"num\" class=\"num\">Released</th><th data-type=\"num\" class=\"num\">Oldest</th>"
                "<th data-type=\"str\">Taken at</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const struct pw_row *r = rows[i];
        /* Growth across the file: the same row in the first report. */
        uint64_t before = d->n > 1 ? live_in(first, r) : 0;
        char age[32];
        pw_buf_puts(b, "<tr class=\"pw-row\">");
        pin_row_cells(b, r, (int64_t)r->live - (int64_t)before);
        num_cell(b, r->acquired);
        num_cell(b, r->released);
        pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", r->oldest_age_ms,
                      pw_html_duration(r->oldest_age_ms, age, sizeof(age)));
        site_cell(b, r);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></div>\n");
    size_t quiet = last->nrows - n;
    if (quiet > 0)
        pw_buf_printf(b, "<p class=\"note\">%zu more row%s with no live pins not shown.</p>\n", quiet,
                      quiet == 1 ? "" : "s");
    free(rows);
}

void
pw_html_references_section(struct pw_buf *b, const struct pw_dumps *d)
{
    const struct pw_dump *last = &d->items[d->n - 1], *first = &d->items[0];
    if (!last->has_refs)
        return;
    pw_buf_puts(b, "<section id=\"references\"><h2>Live JNI references in the latest report</h2>\n");
    size_t shown = 0;
    for (size_t i = 0; i < last->nrefs; i++) {
        const struct pw_ref_row *r = &last->refs[i];
        if (r->live == 0)
            continue;
        if (shown++ == 0)
            pw_buf_puts(b,
                        "<div class=\"scroll\"><table id=\"refs\" class=\"pw-table sortable\">\n<thead><tr>"
                        "<th data-type=\"str\">Kind</th><th data-type=\"str\">Native method</th>"
                        "<th data-type=\"str\">JNI function</th><th data-type=\"num\" class=\"num\">Live</th>"
                        "<th data-type=\"num\" class=\"num\">Growth</th>"
                        "<th data-type=\"num\" class=\"num\">Created</th>"
                        "<th data-type=\"num\" class=\"num\">Deleted</th>"
                        "<th data-type=\"num\" class=\"num\">Freed</th></tr></thead>\n<tbody>\n");
        uint64_t before = 0;
        if (d->n > 1)
            for (size_t j = 0; j < first->nrefs; j++)
                if (strcmp(first->refs[j].method, r->method) == 0 &&
                    strcmp(first->refs[j].function, r->function) == 0)
                    before += first->refs[j].live;
        int64_t growth = (int64_t)r->live - (int64_t)before;
        char sg[32];
        pw_buf_puts(b, "<tr class=\"pw-ref\"><td class=\"kind\">");
        pw_html_esc(b, r->kind);
        pw_buf_puts(b, "</td><td class=\"method\">");
        pw_html_esc(b, r->method);
        pw_buf_puts(b, "</td><td class=\"fn\">");
        pw_html_esc(b, r->function);
        pw_buf_puts(b, "</td>");
        num_cell(b, r->live);
        pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                      pw_signed(growth, sg, sizeof(sg)));
        num_cell(b, r->created);
        num_cell(b, r->deleted);
        num_cell(b, r->freed);
        pw_buf_puts(b, "</tr>\n");
    }
    if (shown == 0)
        pw_buf_puts(b, "<p class=\"empty\">No live references in the latest report.</p>\n");
    else
        pw_buf_puts(b, "</tbody></table></div>\n");
    pw_buf_puts(b, "</section>\n");
}

void
pw_html_findings_section(struct pw_buf *b, const struct pw_dump *last)
{
    if (!last->has_findings)
        return;
    pw_buf_puts(b, "<section><h2>Findings</h2>\n");
    if (last->nfindings == 0) {
        pw_buf_puts(b, "<p class=\"empty\">None in the latest report.</p></section>\n");
        return;
    }
    pw_buf_puts(b,
                "<table id=\"findings\" class=\"pw-table sortable\">\n<thead><tr><th data-type=\"str\">Kind</th>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">Count</th><th data-type=\"str\">Taken at</th></tr></thead>\n"
                "<tbody>\n");
    for (size_t i = 0; i < last->nfindings; i++) {
        const struct pw_finding *f = &last->findings[i];
        pw_buf_puts(b, "<tr class=\"pw-finding\"><td class=\"kind\">");
        pw_html_esc(b, f->kind);
        pw_buf_puts(b, "</td><td class=\"method\">");
        pw_html_esc(b, f->method);
        pw_buf_puts(b, "</td><td class=\"fn\">");
        pw_html_esc(b, f->function);
        pw_buf_puts(b, "</td>");
        num_cell(b, f->count);
        struct pw_row fake = {.nsites = f->nsites, .sites = f->sites};
        site_cell(b, &fake);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></section>\n");
}

struct fleet_row {
    const struct pw_process *proc;
    const struct pw_row *row;
    int64_t growth; /* since the JVM's first report (or its start) */
};

static int
fleet_rows_by_bytes(const void *a, const void *b)
{
    const struct fleet_row *x = a, *y = b;
    int c = rows_by_bytes(&x->row, &y->row);
    if (c != 0)
        return c;
    c = strcmp(x->proc->host, y->proc->host);
    return c != 0 ? c : (x->proc->pid > y->proc->pid) - (x->proc->pid < y->proc->pid);
}

static void
jvm_cell(struct pw_buf *b, const struct pw_process *p)
{
    pw_buf_puts(b, "<td class=\"host\">");
    pw_html_esc(b, p->host[0] != '\0' ? p->host : "?");
    pw_buf_printf(b, "</td><td class=\"num pid\" data-v=\"%" PRId64 "\">%" PRId64 "</td>", p->pid, p->pid);
}

void
pw_html_jvms_table(struct pw_buf *b, const struct pw_fleet *f)
{
    pw_buf_puts(b,
                "<section id=\"jvms\"><h2>JVMs</h2>\n<div class=\"scroll\"><table id=\"jvm-table\" "
                "class=\"pw-table sortable\">\n<thead><tr><th data-type=\"str\">Host</th>"
                "<th data-type=\"num\" class=\"num\">PID</th><th data-type=\"num\" class=\"num\">Reports</th>"
                "<th data-type=\"num\" class=\"num\">Uptime</th><th data-type=\"str\">Latest</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Growth</th>"
                "<th data-type=\"num\" class=\"num\">Findings</th></tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *last = p->dumps[p->n - 1], *first = p->n > 1 ? p->dumps[0] : NULL;
        int64_t growth = (int64_t)last->totals.live - (int64_t)(first != NULL ? first->totals.live : 0);
        uint64_t findings = 0;
        for (size_t i = 0; i < last->nfindings; i++)
            findings += last->findings[i].count;
        char up[32], sg[32];
        pw_buf_puts(b, "<tr class=\"pw-jvm\">");
        jvm_cell(b, p);
        num_cell(b, p->n);
        pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td><td class=\"where\">", last->uptime_ms,
                      pw_html_duration(last->uptime_ms, up, sizeof(up)));
        pw_html_esc(b, last->reason);
        pw_buf_puts(b, " &middot; ");
        pw_html_esc(b, last->file);
        pw_buf_printf(b, ":%ld</td>", last->line);
        num_cell(b, last->totals.live);
        num_cell(b, last->totals.live_bytes);
        num_cell(b, last->totals.leaked);
        pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                      pw_signed(growth, sg, sizeof(sg)));
        num_cell(b, findings);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b,
                "</tbody></table></div>\n<p class=\"note\">Growth: live pins in the JVM's latest report less "
                "those in its first (or at its start, when it wrote one report).</p></section>\n");
}

void
pw_html_fleet_leak_table(struct pw_buf *b, const struct pw_fleet *f)
{
    struct fleet_row *rows = NULL;
    size_t n = 0, quiet = 0;
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *last = p->dumps[p->n - 1], *first = p->n > 1 ? p->dumps[0] : NULL;
        for (size_t i = 0; i < last->nrows; i++) {
            const struct pw_row *r = &last->rows[i];
            if (r->live == 0) {
                quiet++;
                continue;
            }
            rows = pw_xrealloc(rows, (n + 1) * sizeof(*rows));
            rows[n++] = (struct fleet_row){p, r, (int64_t)r->live - (int64_t)live_in(first, r)};
        }
    }
    if (n == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live pins in any JVM's latest report.</p>\n");
        free(rows);
        return;
    }
    qsort(rows, n, sizeof(*rows), fleet_rows_by_bytes);
    pw_buf_puts(b,
                "<div class=\"scroll\"><table id=\"leaks\" class=\"pw-table sortable\">\n<thead><tr>"
                "<th data-type=\"str\">Host</th><th data-type=\"num\" class=\"num\">PID</th>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Held</th>"
                "<th data-type=\"num\" class=\"num\">Growth</th><th data-type=\"num\" class=\"num\">Acquired</th>"
                "<th data-type=\"str\">Taken at</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const struct pw_row *r = rows[i].row;
        pw_buf_puts(b, "<tr class=\"pw-row\">");
        jvm_cell(b, rows[i].proc);
        pin_row_cells(b, r, rows[i].growth);
        num_cell(b, r->acquired);
        site_cell(b, r);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></div>\n");
    if (quiet > 0)
        pw_buf_printf(b, "<p class=\"note\">%zu more row%s with no live pins not shown.</p>\n", quiet,
                      quiet == 1 ? "" : "s");
    free(rows);
}

struct summed {
    const char *method, *signature, *function;
    uint64_t live, live_bytes, leaked, acquired;
    size_t jvms;
};

static int
summed_by_bytes(const void *a, const void *b)
{
    const struct summed *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->live != y->live)
        return x->live > y->live ? -1 : 1;
    int c = strcmp(x->method, y->method);
    return c != 0 ? c : strcmp(x->function, y->function);
}

void
pw_html_summed_table(struct pw_buf *b, const struct pw_fleet *f)
{
    struct summed *s = NULL;
    size_t n = 0;
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_dump *last = f->procs[k].dumps[f->procs[k].n - 1];
        for (size_t i = 0; i < last->nrows; i++) {
            const struct pw_row *r = &last->rows[i];
            if (r->live == 0)
                continue;
            size_t j = 0;
            while (j < n && !(strcmp(s[j].method, r->method) == 0 && strcmp(s[j].signature, r->signature) == 0 &&
                              strcmp(s[j].function, r->function) == 0))
                j++;
            if (j == n) {
                s = pw_xrealloc(s, (n + 1) * sizeof(*s));
                s[n++] = (struct summed){.method = r->method, .signature = r->signature, .function = r->function};
            }
            s[j].live += r->live;
            s[j].live_bytes += r->live_bytes;
            s[j].leaked += r->leaked;
            s[j].acquired += r->acquired;
            s[j].jvms++;
        }
    }
    pw_buf_puts(b, "<section id=\"summed\"><h2>Live pins summed over the JVMs</h2>\n");
    if (n == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live pins in any JVM's latest report.</p></section>\n");
        return;
    }
    qsort(s, n, sizeof(*s), summed_by_bytes);
    pw_buf_puts(b,
                "<div class=\"scroll\"><table id=\"summed-table\" class=\"pw-table sortable\">\n<thead><tr>"
                "<th data-type=\"str\">Native method</th><th data-type=\"str\">JNI function</th>"
                "<th data-type=\"num\" class=\"num\">JVMs</th>"
                "<th data-type=\"num\" class=\"num\">Live</th><th data-type=\"num\" class=\"num\">Live bytes</th>"
                "<th data-type=\"num\" class=\"num\">Leaked</th><th data-type=\"num\" class=\"num\">Acquired</th>"
                "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        pw_buf_puts(b, "<tr class=\"pw-sum\"><td class=\"method\" title=\"");
        pw_html_esc(b, s[i].signature);
        pw_buf_puts(b, "\">");
        pw_html_esc(b, s[i].method);
        pw_buf_puts(b, "</td><td class=\"fn\">");
        pw_html_esc(b, s[i].function);
        pw_buf_puts(b, "</td>");
        num_cell(b, s[i].jvms);
        num_cell(b, s[i].live);
        num_cell(b, s[i].live_bytes);
        num_cell(b, s[i].leaked);
        num_cell(b, s[i].acquired);
        pw_buf_puts(b, "</tr>\n");
    }
    pw_buf_puts(b, "</tbody></table></div></section>\n");
    free(s);
}
