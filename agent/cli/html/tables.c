/* SPDX-License-Identifier: Apache-2.0 */
/* Six tables from one set of parts: a table is its columns (table_open),
 * and its rows are made of the cells below, so that a method, a count or a
 * growth reads the same in every table and report.js sorts them all alike
 * (numbers by data-v, text by content). */
#include "html/tables.h"
#include "html/page.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct column {
    const char *label;
    bool num; /* sorted by number, right-aligned */
};

#define NCOLUMNS(c) (sizeof(c) / sizeof((c)[0]))

/* Wide tables sit in a scroll box so that the page keeps its width. */
static void
table_open(struct pw_buf *b, const char *id, bool scroll, const struct column *cols, size_t ncols)
{
    pw_buf_printf(b, "%s<table id=\"%s\" class=\"pw-table sortable\">\n<thead><tr>",
                  scroll ? "<div class=\"scroll\">" : "", id);
    for (size_t i = 0; i < ncols; i++)
        pw_buf_printf(b,
                      cols[i].num ? "<th data-type=\"num\" class=\"num\">%s</th>"
                                  : "<th data-type=\"str\">%s</th>",
                      cols[i].label);
    pw_buf_puts(b, "</tr></thead>\n<tbody>\n");
}

static void
table_close(struct pw_buf *b, bool scroll)
{
    pw_buf_puts(b, scroll ? "</tbody></table></div>" : "</tbody></table>");
}

static void
text_cell(struct pw_buf *b, const char *cls, const char *text)
{
    pw_buf_printf(b, "<td class=\"%s\">", cls);
    pw_html_esc(b, text);
    pw_buf_puts(b, "</td>");
}

/* The signature shows on hover: it tells overloads apart without a column. */
static void
method_cell(struct pw_buf *b, const char *method, const char *signature)
{
    pw_buf_puts(b, "<td class=\"method\" title=\"");
    pw_html_esc(b, signature);
    pw_buf_puts(b, "\">");
    pw_html_esc(b, method);
    pw_buf_puts(b, "</td>");
}

static void
num_cell(struct pw_buf *b, uint64_t v)
{
    char g[32];
    pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", v, pw_html_grouped(v, g, sizeof(g)));
}

/* Signed, and marked when it grew: growth is what a reader scans for. */
static void
growth_cell(struct pw_buf *b, int64_t growth)
{
    char sg[32];
    pw_buf_printf(b, "<td class=\"num%s\" data-v=\"%" PRId64 "\">%s</td>", growth > 0 ? " up" : "", growth,
                  pw_signed(growth, sg, sizeof(sg)));
}

static void
duration_cell(struct pw_buf *b, uint64_t ms)
{
    char d[32];
    pw_buf_printf(b, "<td class=\"num\" data-v=\"%" PRIu64 "\">%s</td>", ms, pw_html_duration(ms, d, sizeof(d)));
}

/* The site holding most live pins, by its innermost frame. */
static void
site_cell(struct pw_buf *b, const struct dump_site *sites, size_t nsites)
{
    const struct dump_site *best = NULL;
    for (size_t i = 0; i < nsites; i++)
        if (best == NULL || sites[i].live > best->live)
            best = &sites[i];
    pw_buf_puts(b, "<td class=\"site\">");
    if (best != NULL && best->nframes > 0) {
        const struct dump_frame *f = &best->frames[0];
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
        if (nsites > 1)
            pw_buf_printf(b, " <span class=\"more\">+%zu sites</span>", nsites - 1);
    }
    pw_buf_puts(b, "</td>");
}

static void
jvm_cells(struct pw_buf *b, const struct pw_process *p)
{
    text_cell(b, "host", p->host[0] != '\0' ? p->host : "?");
    pw_buf_printf(b, "<td class=\"num pid\" data-v=\"%" PRId64 "\">%" PRId64 "</td>", p->pid, p->pid);
}

/* The cells both live-pin tables share: method, function, live, live
 * bytes, leaked, held and growth. */
static void
pin_cells(struct pw_buf *b, const struct pw_row *r, int64_t growth)
{
    method_cell(b, r->method, r->signature);
    text_cell(b, "fn", r->function);
    num_cell(b, r->live);
    num_cell(b, r->live_bytes);
    num_cell(b, r->leaked);
    num_cell(b, r->held);
    growth_cell(b, growth);
}

/* Only rows with live pins are listed; the note keeps the others counted. */
static void
quiet_note(struct pw_buf *b, size_t quiet)
{
    if (quiet > 0)
        pw_buf_printf(b, "<p class=\"note\">%zu more row%s with no live pins not shown.</p>\n", quiet,
                      quiet == 1 ? "" : "s");
}

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

/* Live references of row r's (method, function) in report d. */
static uint64_t
refs_live_in(const struct pw_dump *d, const struct pw_ref_row *r)
{
    uint64_t n = 0;
    for (size_t j = 0; j < d->nrefs; j++)
        if (strcmp(d->refs[j].method, r->method) == 0 && strcmp(d->refs[j].function, r->function) == 0)
            n += d->refs[j].live;
    return n;
}

void
pw_html_leak_table(struct pw_buf *b, const struct pw_dumps *d)
{
    static const struct column cols[] = {
        {"Native method", false}, {"JNI function", false}, {"Live", true},      {"Live bytes", true},
        {"Leaked", true},         {"Held", true},          {"Growth", true},    {"Acquired", true},
        {"Released", true},       {"Oldest", true},        {"Taken at", false},
    };
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
    table_open(b, "leaks", true, cols, NCOLUMNS(cols));
    for (size_t i = 0; i < n; i++) {
        const struct pw_row *r = rows[i];
        /* Growth across the file: the same row in the first report. */
        uint64_t before = d->n > 1 ? live_in(first, r) : 0;
        pw_buf_puts(b, "<tr class=\"pw-row\">");
        pin_cells(b, r, (int64_t)r->live - (int64_t)before);
        num_cell(b, r->acquired);
        num_cell(b, r->released);
        duration_cell(b, r->oldest_age_ms);
        site_cell(b, r->sites, r->nsites);
        pw_buf_puts(b, "</tr>\n");
    }
    table_close(b, true);
    pw_buf_puts(b, "\n");
    quiet_note(b, last->nrows - n);
    free(rows);
}

void
pw_html_references_section(struct pw_buf *b, const struct pw_dumps *d)
{
    static const struct column cols[] = {
        {"Kind", false},  {"Native method", false}, {"JNI function", false}, {"Live", true},
        {"Growth", true}, {"Created", true},        {"Deleted", true},       {"Freed", true},
    };
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
            table_open(b, "refs", true, cols, NCOLUMNS(cols));
        uint64_t before = d->n > 1 ? refs_live_in(first, r) : 0;
        pw_buf_puts(b, "<tr class=\"pw-ref\">");
        text_cell(b, "kind", r->kind);
        text_cell(b, "method", r->method);
        text_cell(b, "fn", r->function);
        num_cell(b, r->live);
        growth_cell(b, (int64_t)r->live - (int64_t)before);
        num_cell(b, r->created);
        num_cell(b, r->deleted);
        num_cell(b, r->freed);
        pw_buf_puts(b, "</tr>\n");
    }
    if (shown == 0) {
        pw_buf_puts(b, "<p class=\"empty\">No live references in the latest report.</p>\n");
    } else {
        table_close(b, true);
        pw_buf_puts(b, "\n");
    }
    pw_buf_puts(b, "</section>\n");
}

void
pw_html_findings_section(struct pw_buf *b, const struct pw_dump *last)
{
    static const struct column cols[] = {
        {"Kind", false}, {"Native method", false}, {"JNI function", false}, {"Count", true}, {"Taken at", false},
    };
    if (!last->has_findings)
        return;
    pw_buf_puts(b, "<section><h2>Findings</h2>\n");
    if (last->nfindings == 0) {
        pw_buf_puts(b, "<p class=\"empty\">None in the latest report.</p></section>\n");
        return;
    }
    table_open(b, "findings", false, cols, NCOLUMNS(cols));
    for (size_t i = 0; i < last->nfindings; i++) {
        const struct pw_finding *f = &last->findings[i];
        pw_buf_puts(b, "<tr class=\"pw-finding\">");
        text_cell(b, "kind", f->kind);
        text_cell(b, "method", f->method);
        text_cell(b, "fn", f->function);
        num_cell(b, f->count);
        site_cell(b, f->sites, f->nsites);
        pw_buf_puts(b, "</tr>\n");
    }
    table_close(b, false);
    pw_buf_puts(b, "</section>\n");
}

void
pw_html_jvms_table(struct pw_buf *b, const struct pw_fleet *f)
{
    static const struct column cols[] = {
        {"Host", false}, {"PID", true},        {"Reports", true}, {"Uptime", true}, {"Latest", false},
        {"Live", true},  {"Live bytes", true}, {"Leaked", true},  {"Growth", true}, {"Findings", true},
    };
    pw_buf_puts(b, "<section id=\"jvms\"><h2>JVMs</h2>\n");
    table_open(b, "jvm-table", true, cols, NCOLUMNS(cols));
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *last = p->dumps[p->n - 1], *first = p->n > 1 ? p->dumps[0] : NULL;
        uint64_t findings = 0;
        for (size_t i = 0; i < last->nfindings; i++)
            findings += last->findings[i].count;
        pw_buf_puts(b, "<tr class=\"pw-jvm\">");
        jvm_cells(b, p);
        num_cell(b, p->n);
        duration_cell(b, last->uptime_ms);
        pw_buf_puts(b, "<td class=\"where\">");
        pw_html_esc(b, last->reason);
        pw_buf_puts(b, " &middot; ");
        pw_html_esc(b, last->file);
        pw_buf_printf(b, ":%ld</td>", last->line);
        num_cell(b, last->totals.live);
        num_cell(b, last->totals.live_bytes);
        num_cell(b, last->totals.leaked);
        growth_cell(b, (int64_t)last->totals.live - (int64_t)(first != NULL ? first->totals.live : 0));
        num_cell(b, findings);
        pw_buf_puts(b, "</tr>\n");
    }
    table_close(b, true);
    pw_buf_puts(b,
                "\n<p class=\"note\">Growth: live pins in the JVM's latest report less those in its first (or at "
                "its start, when it wrote one report).</p></section>\n");
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

void
pw_html_fleet_leak_table(struct pw_buf *b, const struct pw_fleet *f)
{
    static const struct column cols[] = {
        {"Host", false},  {"PID", true},        {"Native method", false}, {"JNI function", false},
        {"Live", true},   {"Live bytes", true}, {"Leaked", true},         {"Held", true},
        {"Growth", true}, {"Acquired", true},   {"Taken at", false},
    };
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
    table_open(b, "leaks", true, cols, NCOLUMNS(cols));
    for (size_t i = 0; i < n; i++) {
        const struct pw_row *r = rows[i].row;
        pw_buf_puts(b, "<tr class=\"pw-row\">");
        jvm_cells(b, rows[i].proc);
        pin_cells(b, r, rows[i].growth);
        num_cell(b, r->acquired);
        site_cell(b, r->sites, r->nsites);
        pw_buf_puts(b, "</tr>\n");
    }
    table_close(b, true);
    pw_buf_puts(b, "\n");
    quiet_note(b, quiet);
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
    static const struct column cols[] = {
        {"Native method", false}, {"JNI function", false}, {"JVMs", true},     {"Live", true},
        {"Live bytes", true},     {"Leaked", true},        {"Acquired", true},
    };
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
    table_open(b, "summed-table", true, cols, NCOLUMNS(cols));
    for (size_t i = 0; i < n; i++) {
        pw_buf_puts(b, "<tr class=\"pw-sum\">");
        method_cell(b, s[i].method, s[i].signature);
        text_cell(b, "fn", s[i].function);
        num_cell(b, s[i].jvms);
        num_cell(b, s[i].live);
        num_cell(b, s[i].live_bytes);
        num_cell(b, s[i].leaked);
        num_cell(b, s[i].acquired);
        pw_buf_puts(b, "</tr>\n");
    }
    table_close(b, true);
    pw_buf_puts(b, "</section>\n");
    free(s);
}
