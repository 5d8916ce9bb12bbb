/* SPDX-License-Identifier: Apache-2.0 */
/* format=text: the leak table for people.  Rows that hold pins come first,
 * each with its call sites; balanced rows follow on one line each, so that
 * a report also shows what pinwatch saw working. */
#include "report/report.h"
#include "report/where.h"

#include <inttypes.h>
#include <string.h>

#define BALANCED_SHOWN 20

#define TEXT_FRAMES 8

static void
frame_text(struct pw_strbuf *out, const struct pw_snap_frame *f)
{
    pw_where_append(out, &f->where, f->address, f->inlined);
    if (f->tail_call)
        pw_strbuf_puts(out, " (tail call)");
    pw_strbuf_puts(out, "\n");
}

/* The call site on the row's line of numbers, the frames that led there
 * below it, then the Java callers. */
static void
site_lines(struct pw_strbuf *out, const struct pw_snap_site *s)
{
    const struct pw_snap_stack *st = &s->stacks[0];
    pw_strbuf_printf(out, "    %8" PRIu64 " %10" PRIu64 "  at ", s->live, s->live_bytes);
    if (st->n > 0)
        frame_text(out, &st->frames[0]);
    else
        pw_strbuf_printf(out, "0x%" PRIxPTR "\n", s->ret);
    for (int i = 1; i < st->n && i < TEXT_FRAMES; i++) {
        pw_strbuf_puts(out, "                         from ");
        frame_text(out, &st->frames[i]);
    }
    if (st->n > TEXT_FRAMES)
        pw_strbuf_printf(out, "                         ... %d more frames\n", st->n - TEXT_FRAMES);
    if (s->nstacks > 1)
        pw_strbuf_printf(out,
                         "                         (reached along %d different paths; format=json lists them)\n",
                         s->nstacks);
    if (s->java_stack != NULL) {
        for (int i = 0; i < s->java_stack->n && i < TEXT_FRAMES; i++) {
            const struct pw_java_frame *f = &s->java_stack->frames[i];
            pw_strbuf_printf(out, "                    %s %s", i == 0 ? "java" : "    ", f->method);
            if (f->line >= 0)
                pw_strbuf_printf(out, ":%d", f->line);
            pw_strbuf_puts(out, "\n");
        }
    }
}

static void
age(char *buf, size_t len, uint64_t ms)
{
    snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "s", ms / 1000, (ms % 1000) / 100);
}

/* References are judged by growth, not by outliving a call: libraries keep
 * global references on purpose (caches, callbacks) and so does the JDK.  A
 * reference row is listed as a suspect when one of its invocations held
 * more locals than local_limit, when it alone holds ref_threshold live
 * references (with ref_threshold=N), or when its live count grew since the
 * previous report and it is not the JDK's own: every live site made by the
 * JVM or a library of the JDK (pw_snap_site_jdk), whose natives cache
 * references once, on their first use, by design.  The JUnit extension
 * applies the same rule.  The other rows holding references are counted on
 * one line; format=json lists every row. */
static bool
jdk_own(const struct pw_snap_ref_row *r)
{
    bool any = false;
    for (size_t j = 0; j < r->nsites; j++) {
        const struct pw_snap_ref_site *st = &r->sites[j];
        if (st->live == 0)
            continue;
        if (!st->jdk)
            return false;
        any = true;
    }
    return any;
}

static bool
ref_suspect(const struct pw_snapshot *snap, const struct pw_snap_ref_row *r)
{
    if (r->over_limit > 0)
        return true;
    if (snap->ref_threshold > 0 && r->live >= snap->ref_threshold)
        return true;
    return snap->after_report && r->live_delta > 0 && !jdk_own(r);
}

static void
references_text(const struct pw_snapshot *snap, struct pw_strbuf *out)
{
    const struct pw_snap_ref_totals *t = &snap->ref_totals;
    pw_strbuf_printf(out,
                     "  references: %" PRIu64 " live (%" PRIu64 " global, %" PRIu64 " weak, %" PRIu64
                     " local on attached threads), created %" PRIu64 ", deleted %" PRIu64 ", freed %" PRIu64
                     ", unknown deletes %" PRIu64 ", double deletes %" PRIu64 ", over local_limit %" PRIu64 "\n",
                     t->live, t->live_global, t->live_weak, t->live_local, t->created, t->deleted, t->freed,
                     t->unknown_global_deletes + t->unknown_weak_deletes + t->unknown_local_deletes,
                     t->double_deletes, t->local_limit);
    bool header = false, deltas = snap->since_ms > 0;
    size_t quiet_rows = 0, jdk_rows = 0;
    uint64_t quiet_live = 0;
    for (size_t i = 0; i < snap->nrefs; i++) {
        const struct pw_snap_ref_row *r = &snap->refs[i];
        if (r->live == 0 && r->over_limit == 0)
            continue;
        if (!ref_suspect(snap, r)) {
            quiet_rows++;
            quiet_live += r->live;
            jdk_rows += jdk_own(r);
            continue;
        }
        if (!header) {
            pw_strbuf_puts(out, "    suspects:\n");
            pw_strbuf_puts(out, "        LIVE   CREATED   DELETED    OLDEST      PEAK");
            if (deltas)
                pw_strbuf_puts(out, "    +LIVE");
            pw_strbuf_puts(out, "  KIND    FUNCTION                   NATIVE METHOD\n");
            header = true;
        }
        char oldest[32];
        age(oldest, sizeof(oldest), r->oldest_age_ms);
        pw_strbuf_printf(out, "    %8" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9s %9" PRIu32, r->live, r->created,
                         r->deleted, oldest, r->peak);
        if (deltas)
            pw_strbuf_printf(out, " %+8" PRId64, r->live_delta);
        pw_strbuf_printf(out, "  %-6s  %-25s  %s%s", pw_snap_ref_kind(r->kind), pw_snap_ref_function_name(r->fn),
                         r->method, r->signature);
        if (r->over_limit > 0)
            pw_strbuf_printf(out, "  (%" PRIu64 " invocation%s over local_limit)", r->over_limit,
                             r->over_limit == 1 ? "" : "s");
        pw_strbuf_puts(out, "\n");
        for (size_t j = 0; j < r->nsites; j++) {
            const struct pw_snap_ref_site *st = &r->sites[j];
            if (st->live == 0 && st->over_limit == 0)
                continue;
            pw_strbuf_printf(out, "    %8" PRIu64 "  at ", st->live);
            if (st->stacks[0].n > 0)
                frame_text(out, &st->stacks[0].frames[0]);
            else
                pw_strbuf_printf(out, "0x%" PRIxPTR "\n", st->ret);
        }
    }
    if (quiet_rows > 0)
        pw_strbuf_printf(out,
                         "    not suspects: %zu row%s holding %" PRIu64
                         " live reference%s, %zu of them the JDK's own, "
                         "%s (format=json lists them)\n",
                         quiet_rows, quiet_rows == 1 ? "" : "s", quiet_live, quiet_live == 1 ? "" : "s", jdk_rows,
                         snap->after_report ? "none growing since the previous report"
                                            : "no previous report to judge growth by");
}

void
pw_report_text(const struct pw_snapshot *snap, struct pw_strbuf *out)
{
    const struct pw_snap_totals *t = &snap->totals;
    pw_strbuf_printf(out,
                     "pinwatch: %" PRIu64 " live pins, %" PRIu64 " bytes, in %" PRIu64
                     " native method%s (reason: %s, pid %ld, uptime %" PRIu64 ".%" PRIu64 " s",
                     t->live, t->live_bytes, t->methods, t->methods == 1 ? "" : "s", snap->reason, snap->pid,
                     snap->uptime_ms / 1000, (snap->uptime_ms % 1000) / 100);
    if (snap->since_ms > 0)
        pw_strbuf_printf(out, ", %" PRIu64 ".%" PRIu64 " s since the previous report", snap->since_ms / 1000,
                         (snap->since_ms % 1000) / 100);
    pw_strbuf_puts(out, ")\n");
    size_t live_rows = 0;
    for (size_t i = 0; i < snap->nrows; i++)
        live_rows += snap->rows[i].live > 0;
    bool deltas = snap->since_ms > 0;
    if (live_rows > 0) {
        pw_strbuf_puts(out, "        LIVE      BYTES    LEAKED      HELD  ACQUIRED  RELEASED  OLDEST");
        if (deltas)
            pw_strbuf_puts(out, "    +LIVE     ACQ/S");
        pw_strbuf_puts(out, "  FUNCTION                   NATIVE METHOD\n");
        for (size_t i = 0; i < snap->nrows; i++) {
            const struct pw_snap_row *r = &snap->rows[i];
            if (r->live == 0)
                continue;
            char oldest[32];
            age(oldest, sizeof(oldest), r->oldest_age_ms);
            pw_strbuf_printf(out,
                             "    %8" PRIu64 " %10" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
                             " %7s",
                             r->live, r->live_bytes, r->leaked, r->live - r->leaked, r->acquired, r->released,
                             oldest);
            if (deltas)
                pw_strbuf_printf(out, " %+8" PRId64 " %9" PRIu64, r->live_delta,
                                 (uint64_t)(r->acquired_per_s + 0.5));
            pw_strbuf_printf(out, "  %-25s  %s%s", pw_function_name(r->fn), r->method, r->signature);
            if (r->suppressed > 0)
                pw_strbuf_printf(out, "  (%" PRIu64 " suppressed)", r->suppressed);
            if (r->carried > 0)
                pw_strbuf_printf(out, "  (%" PRIu64 " carried across calls)", r->carried);
            pw_strbuf_puts(out, "\n");
            for (size_t j = 0; j < r->nsites; j++)
                if (r->sites[j].live > 0)
                    site_lines(out, &r->sites[j]);
        }
    }
    size_t balanced = snap->nrows - live_rows, shown = 0;
    if (balanced > 0) {
        pw_strbuf_printf(out, "  balanced (every pin released): %zu row%s\n", balanced, balanced == 1 ? "" : "s");
        for (size_t i = 0; i < snap->nrows && shown < BALANCED_SHOWN; i++) {
            const struct pw_snap_row *r = &snap->rows[i];
            if (r->live > 0)
                continue;
            shown++;
            pw_strbuf_printf(out, "    %9" PRIu64 " acquired  %-25s  %s%s", r->acquired, pw_function_name(r->fn),
                             r->method, r->signature);
            if (r->carried > 0)
                pw_strbuf_printf(out, "  (%" PRIu64 " carried across calls)", r->carried);
            pw_strbuf_puts(out, "\n");
        }
        if (balanced > shown)
            pw_strbuf_printf(out, "    ... %zu more balanced rows (format=json lists every row)\n",
                             balanced - shown);
    }
    pw_strbuf_printf(out,
                     "  totals: acquired %" PRIu64 ", released %" PRIu64 ", live %" PRIu64 " (%" PRIu64
                     " bytes, %" PRIu64 " leaked, %" PRIu64 " held, %" PRIu64
                     " suppressed), carried across calls %" PRIu64 ", commits %" PRIu64
                     ", unmatched releases %" PRIu64 "\n",
                     t->acquired, t->released, t->live, t->live_bytes, t->leaked, t->live - t->leaked,
                     t->suppressed, t->carried, t->commits, t->unmatched_releases);
    if (snap->refs_on)
        references_text(snap, out);
    if (snap->nfindings > 0) {
        pw_strbuf_printf(out, "  findings: %zu\n", snap->nfindings);
        for (size_t i = 0; i < snap->nfindings; i++) {
            const struct pw_snap_finding *f = &snap->findings[i];
            pw_strbuf_printf(out, "    %-16s %9" PRIu64 "  %s%s", f->kind, f->count, f->method, f->signature);
            if (f->has_site)
                pw_strbuf_printf(out, " %s", f->function);
            pw_strbuf_printf(out, " -> %s", f->call_function);
            if (f->max_ms > 0)
                pw_strbuf_printf(out, " (max %" PRIu64 " ms, p99 %" PRIu64 " ms)", f->max_ms, f->p99_ms);
            pw_strbuf_puts(out, "\n");
            if (f->acquire.n > 0) {
                pw_strbuf_puts(out, "                       taken at ");
                frame_text(out, &f->acquire.frames[0]);
            }
            if (f->call.n > 0) {
                pw_strbuf_puts(out, "                       called at ");
                frame_text(out, &f->call.frames[0]);
            }
        }
    }
    if (t->lost > 0)
        pw_strbuf_printf(out, "  WARNING: %" PRIu64 " operations were not recorded for lack of memory\n",
                         t->lost);
}
