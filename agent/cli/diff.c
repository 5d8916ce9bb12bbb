/* SPDX-License-Identifier: Apache-2.0 */
#include "diff.h"
#include "fleet.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct change {
    const char *method, *function;
    uint64_t before, after, bytes_before, bytes_after;
    const struct pw_process *proc; /* per-JVM rows of a fleet diff */
    uint64_t ms;                   /* that JVM's interval */
    size_t jvms;                   /* summed rows: JVMs holding pins in either */
};

static struct change *
find(struct change **list, size_t *n, const struct pw_row *r)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i].method, r->method) == 0 && strcmp((*list)[i].function, r->function) == 0)
            return &(*list)[i];
    *list = pw_xrealloc(*list, (*n + 1) * sizeof(**list));
    struct change *c = &(*list)[(*n)++];
    *c = (struct change){.method = r->method, .function = r->function};
    return c;
}

static int64_t
delta(uint64_t before, uint64_t after)
{
    return (int64_t)after - (int64_t)before;
}

/* Most growth first, then most bytes, then by name: the same input always
 * prints the same table. */
static int
by_growth(const void *x, const void *y)
{
    const struct change *a = x, *b = y;
    int64_t da = delta(a->before, a->after), db = delta(b->before, b->after);
    if (da != db)
        return da > db ? -1 : 1;
    int64_t ba = delta(a->bytes_before, a->bytes_after), bb = delta(b->bytes_before, b->bytes_after);
    if (ba != bb)
        return ba > bb ? -1 : 1;
    int c = strcmp(a->method, b->method);
    return c != 0 ? c : strcmp(a->function, b->function);
}

/* d per second over ms, with two decimals, from integers only. */
static const char *
rate(int64_t d, uint64_t ms, char *out, size_t len)
{
    if (ms == 0) {
        snprintf(out, len, "-");
        return out;
    }
    /* Hundredths, rounded half away from zero. */
    int64_t scaled = d * 100000;
    int64_t q = scaled / (int64_t)ms, r = scaled % (int64_t)ms;
    if (2 * (r < 0 ? -r : r) >= (int64_t)ms)
        q += d < 0 ? -1 : 1;
    int64_t whole = (q < 0 ? -q : q) / 100, frac = (q < 0 ? -q : q) % 100;
    snprintf(out, len, "%s%" PRId64 ".%02" PRId64, q > 0 ? "+" : q < 0 ? "-" : "", whole, frac);
    return out;
}

/* The references sections: live references per (kind, method, function),
 * rows live in neither left out, most growth first. */
static void
diff_refs(FILE *out, const struct pw_dump *a, const struct pw_dump *b, uint64_t ms)
{
    struct change *list = NULL;
    size_t n = 0;
    const struct pw_dump *both[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < both[k]->nrefs; i++) {
            const struct pw_ref_row *r = &both[k]->refs[i];
            /* The kind goes with the function: NewGlobalRef, NewWeakGlobalRef
             * and the local ones never share a name. */
            struct pw_row key = {.method = r->method, .function = r->function};
            struct change *c = find(&list, &n, &key);
            if (k == 0)
                c->before += r->live;
            else
                c->after += r->live;
        }
    }
    if (n > 1)
        qsort(list, n, sizeof(*list), by_growth);
    size_t wm = strlen("METHOD"), wf = strlen("FUNCTION");
    for (size_t i = 0; i < n; i++) {
        if (strlen(list[i].method) > wm)
            wm = strlen(list[i].method);
        if (strlen(list[i].function) > wf)
            wf = strlen(list[i].function);
    }
    fprintf(out, "\nreferences:\n%-*s  %-*s  %11s  %10s  %8s  %10s\n", (int)wm, "METHOD", (int)wf, "FUNCTION",
            "LIVE BEFORE", "AFTER", "DELTA", "PER SECOND");
    int64_t total = 0;
    uint64_t before = 0, after = 0;
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        const struct change *c = &list[i];
        int64_t d = delta(c->before, c->after);
        total += d;
        before += c->before;
        after += c->after;
        if (c->before == 0 && c->after == 0)
            continue;
        char s1[32], s2[32];
        fprintf(out, "%-*s  %-*s  %11" PRIu64 "  %10" PRIu64 "  %8s  %10s\n", (int)wm, c->method, (int)wf,
                c->function, c->before, c->after, pw_signed(d, s1, sizeof(s1)), rate(d, ms, s2, sizeof(s2)));
        shown++;
    }
    if (shown == 0)
        fprintf(out, "(no live references in either report)\n");
    char s1[32], s2[32];
    fprintf(out, "total: live references %" PRIu64 " -> %" PRIu64 " (%s), %s per second\n", before, after,
            pw_signed(total, s1, sizeof(s1)), rate(total, ms, s2, sizeof(s2)));
    free(list);
}

void
pw_diff(FILE *out, const struct pw_dump *a, const struct pw_dump *b)
{
    struct change *list = NULL;
    size_t n = 0;
    for (size_t i = 0; i < a->nrows; i++) {
        struct change *c = find(&list, &n, &a->rows[i]);
        c->before += a->rows[i].live;
        c->bytes_before += a->rows[i].live_bytes;
    }
    for (size_t i = 0; i < b->nrows; i++) {
        struct change *c = find(&list, &n, &b->rows[i]);
        c->after += b->rows[i].live;
        c->bytes_after += b->rows[i].live_bytes;
    }
    if (n > 1)
        qsort(list, n, sizeof(*list), by_growth);
    /* The rate needs both reports on one clock: the same JVM. */
    uint64_t ms = a->pid == b->pid && b->uptime_ms > a->uptime_ms ? b->uptime_ms - a->uptime_ms : 0;

    fprintf(out, "before: %s:%ld  pid %" PRId64 "  reason %s  uptime %" PRIu64 " ms\n", a->file, a->line, a->pid,
            a->reason, a->uptime_ms);
    fprintf(out, "after:  %s:%ld  pid %" PRId64 "  reason %s  uptime %" PRIu64 " ms\n", b->file, b->line, b->pid,
            b->reason, b->uptime_ms);
    if (ms > 0)
        fprintf(out, "interval: %" PRIu64 " ms\n", ms);
    else
        fprintf(out, "interval: unknown (%s); no rates\n",
                a->pid != b->pid ? "two different JVMs" : "the second report is not later");
    fputc('\n', out);

    size_t wm = strlen("METHOD"), wf = strlen("FUNCTION"), shown = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
        if (list[i].before == 0 && list[i].after == 0)
            continue;
        if (strlen(list[i].method) > wm)
            wm = strlen(list[i].method);
        if (strlen(list[i].function) > wf)
            wf = strlen(list[i].function);
    }
    fprintf(out, "%-*s  %-*s  %11s  %10s  %8s  %12s  %10s\n", (int)wm, "METHOD", (int)wf, "FUNCTION",
            "LIVE BEFORE", "AFTER", "DELTA", "BYTES DELTA", "PER SECOND");
    int64_t total = 0, total_bytes = 0;
    uint64_t before = 0, after = 0;
    for (size_t i = 0; i < n; i++) {
        const struct change *c = &list[i];
        int64_t d = delta(c->before, c->after), db = delta(c->bytes_before, c->bytes_after);
        total += d;
        total_bytes += db;
        before += c->before;
        after += c->after;
        if (c->before == 0 && c->after == 0) {
            same++;
            continue;
        }
        char s1[32], s2[32], s3[32];
        fprintf(out, "%-*s  %-*s  %11" PRIu64 "  %10" PRIu64 "  %8s  %12s  %10s\n", (int)wm, c->method, (int)wf,
                c->function, c->before, c->after, pw_signed(d, s1, sizeof(s1)), pw_signed(db, s2, sizeof(s2)),
                rate(d, ms, s3, sizeof(s3)));
        shown++;
    }
    if (shown == 0)
        fprintf(out, "(no live pins in either report)\n");
    char s1[32], s2[32], s3[32];
    fprintf(out, "\ntotal: live %" PRIu64 " -> %" PRIu64 " (%s), bytes %s, %s per second", before, after,
            pw_signed(total, s1, sizeof(s1)), pw_signed(total_bytes, s2, sizeof(s2)),
            rate(total, ms, s3, sizeof(s3)));
    if (same > 0)
        fprintf(out, "; %zu row%s with no live pins in either not shown", same, same == 1 ? "" : "s");
    fputc('\n', out);
    free(list);
    if (a->has_refs || b->has_refs)
        diff_refs(out, a, b, ms);
}

/* Per JVM, most growth first across the fleet, so the one executor of forty
 * that leaks comes first; then by JVM, so equal rows read in order. */
static int
by_growth_then_jvm(const void *x, const void *y)
{
    int c = by_growth(x, y);
    if (c != 0)
        return c;
    const struct change *a = x, *b = y;
    c = strcmp(a->proc->host, b->proc->host);
    if (c != 0)
        return c;
    return a->proc->pid < b->proc->pid   ? -1
           : a->proc->pid > b->proc->pid ? 1
                                         : (a->proc > b->proc) - (a->proc < b->proc);
}

static struct change *
find_in(struct change **list, size_t *n, const struct pw_row *r, const struct pw_process *proc)
{
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i].proc == proc && strcmp((*list)[i].method, r->method) == 0 &&
            strcmp((*list)[i].function, r->function) == 0)
            return &(*list)[i];
    *list = pw_xrealloc(*list, (*n + 1) * sizeof(**list));
    struct change *c = &(*list)[(*n)++];
    *c = (struct change){.method = r->method, .function = r->function, .proc = proc};
    return c;
}

void
pw_diff_fleet(FILE *out, const struct pw_fleet *f)
{
    fprintf(out, "JVMs: %zu on %zu host%s, %zu report%s in %zu file%s\n", f->nprocs, f->nhosts,
            f->nhosts == 1 ? "" : "s", f->ndumps, f->ndumps == 1 ? "" : "s", f->nfiles,
            f->nfiles == 1 ? "" : "s");
    size_t wj = strlen("JVM");
    char name[300];
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *a = p->dumps[0], *b = p->dumps[p->n - 1];
        pw_process_name(p, name, sizeof(name));
        if (strlen(name) > wj)
            wj = strlen(name);
        if (p->n > 1)
            fprintf(out, "  %s: %zu reports, %s:%ld (uptime %" PRIu64 " ms) -> %s:%ld (uptime %" PRIu64 " ms)\n",
                    name, p->n, a->file, a->line, a->uptime_ms, b->file, b->line, b->uptime_ms);
        else
            fprintf(out, "  %s: 1 report, from the JVM's start -> %s:%ld (uptime %" PRIu64 " ms)\n", name,
                    b->file, b->line, b->uptime_ms);
    }
    fputc('\n', out);

    /* Each JVM: its first report against its last, or against its start (no
     * pins) when it wrote one report. */
    struct change *list = NULL;
    size_t n = 0;
    for (size_t k = 0; k < f->nprocs; k++) {
        const struct pw_process *p = &f->procs[k];
        const struct pw_dump *a = p->n > 1 ? p->dumps[0] : NULL, *b = p->dumps[p->n - 1];
        uint64_t ms = a != NULL ? (b->uptime_ms > a->uptime_ms ? b->uptime_ms - a->uptime_ms : 0) : b->uptime_ms;
        for (size_t i = 0; a != NULL && i < a->nrows; i++) {
            struct change *c = find_in(&list, &n, &a->rows[i], p);
            c->before += a->rows[i].live;
            c->bytes_before += a->rows[i].live_bytes;
            c->ms = ms;
        }
        for (size_t i = 0; i < b->nrows; i++) {
            struct change *c = find_in(&list, &n, &b->rows[i], p);
            c->after += b->rows[i].live;
            c->bytes_after += b->rows[i].live_bytes;
            c->ms = ms;
        }
    }
    if (n > 1)
        qsort(list, n, sizeof(*list), by_growth_then_jvm);

    /* The same rows summed over the JVMs. */
    struct change *sum = NULL;
    size_t nsum = 0;
    for (size_t i = 0; i < n; i++) {
        struct pw_row key = {.method = (char *)list[i].method, .function = (char *)list[i].function};
        struct change *c = find(&sum, &nsum, &key);
        c->before += list[i].before;
        c->after += list[i].after;
        c->bytes_before += list[i].bytes_before;
        c->bytes_after += list[i].bytes_after;
        c->jvms += list[i].before > 0 || list[i].after > 0;
    }
    if (nsum > 1)
        qsort(sum, nsum, sizeof(*sum), by_growth);

    size_t wm = strlen("METHOD"), wf = strlen("FUNCTION"), shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (list[i].before == 0 && list[i].after == 0)
            continue;
        if (strlen(list[i].method) > wm)
            wm = strlen(list[i].method);
        if (strlen(list[i].function) > wf)
            wf = strlen(list[i].function);
    }
    fprintf(out, "%-*s  %-*s  %-*s  %11s  %10s  %8s  %12s  %10s\n", (int)wj, "JVM", (int)wm, "METHOD", (int)wf,
            "FUNCTION", "LIVE BEFORE", "AFTER", "DELTA", "BYTES DELTA", "PER SECOND");
    for (size_t i = 0; i < n; i++) {
        const struct change *c = &list[i];
        if (c->before == 0 && c->after == 0)
            continue;
        char s1[32], s2[32], s3[32];
        fprintf(out, "%-*s  %-*s  %-*s  %11" PRIu64 "  %10" PRIu64 "  %8s  %12s  %10s\n", (int)wj,
                pw_process_name(c->proc, name, sizeof(name)), (int)wm, c->method, (int)wf, c->function, c->before,
                c->after, pw_signed(delta(c->before, c->after), s1, sizeof(s1)),
                pw_signed(delta(c->bytes_before, c->bytes_after), s2, sizeof(s2)),
                rate(delta(c->before, c->after), c->ms, s3, sizeof(s3)));
        shown++;
    }
    if (shown == 0)
        fprintf(out, "(no live pins in any JVM)\n");

    fprintf(out, "\nall JVMs:\n%-*s  %-*s  %5s  %11s  %10s  %8s  %12s\n", (int)wm, "METHOD", (int)wf, "FUNCTION",
            "JVMS", "LIVE BEFORE", "AFTER", "DELTA", "BYTES DELTA");
    int64_t total = 0, total_bytes = 0;
    uint64_t before = 0, after = 0;
    for (size_t i = 0; i < nsum; i++) {
        const struct change *c = &sum[i];
        int64_t d = delta(c->before, c->after), db = delta(c->bytes_before, c->bytes_after);
        total += d;
        total_bytes += db;
        before += c->before;
        after += c->after;
        if (c->before == 0 && c->after == 0)
            continue;
        char s1[32], s2[32];
        fprintf(out, "%-*s  %-*s  %5zu  %11" PRIu64 "  %10" PRIu64 "  %8s  %12s\n", (int)wm, c->method, (int)wf,
                c->function, c->jvms, c->before, c->after, pw_signed(d, s1, sizeof(s1)),
                pw_signed(db, s2, sizeof(s2)));
    }
    char s1[32], s2[32];
    fprintf(out, "\ntotal: live %" PRIu64 " -> %" PRIu64 " (%s), bytes %s, over %zu JVM%s\n", before, after,
            pw_signed(total, s1, sizeof(s1)), pw_signed(total_bytes, s2, sizeof(s2)), f->nprocs,
            f->nprocs == 1 ? "" : "s");
    free(list);
    free(sum);
}
