/* SPDX-License-Identifier: Apache-2.0 */
/* format=json: JSON Lines, one report per line.  The field names and
 * meanings are a contract (README.md, "JSON contract"); new fields may be
 * added, none renamed. */
#include "report/report.h"

#include <inttypes.h>

static void
string_or_null(struct pw_strbuf *out, const char *s)
{
    if (s != NULL)
        pw_strbuf_json_string(out, s);
    else
        pw_strbuf_puts(out, "null");
}

static void
frame_json(struct pw_strbuf *out, const struct pw_snap_frame *f)
{
    const struct pw_location *w = &f->where;
    pw_strbuf_printf(out, "{\"address\":\"0x%" PRIxPTR "\",\"symbol\":", f->address);
    string_or_null(out, w->symbol);
    pw_strbuf_printf(out,
                     ",\"offset\":%" PRIu64 ",\"library\":", w->symbol != NULL && !f->inlined ? w->offset : 0);
    string_or_null(out, w->library);
    if (w->file != NULL) {
        pw_strbuf_puts(out, ",\"file\":");
        pw_strbuf_json_string(out, w->file);
        pw_strbuf_printf(out, ",\"line\":%d", w->line);
    }
    if (f->inlined)
        pw_strbuf_puts(out, ",\"inlined\":true");
    if (f->tail_call)
        pw_strbuf_puts(out, ",\"tail_call\":true");
    pw_strbuf_puts(out, "}");
}

static void
stack_json(struct pw_strbuf *out, const struct pw_snap_stack *st)
{
    pw_strbuf_puts(out, "[");
    for (int k = 0; k < st->n; k++) {
        if (k)
            pw_strbuf_puts(out, ",");
        frame_json(out, &st->frames[k]);
    }
    pw_strbuf_puts(out, "]");
}

static void java_stack_json(struct pw_strbuf *out, const struct pw_java_stack *js);

static void
site_json(struct pw_strbuf *out, const struct pw_snap_site *s)
{
    pw_strbuf_printf(out,
                     "{\"live\":%" PRIu64 ",\"live_bytes\":%" PRIu64 ",\"acquired\":%" PRIu64
                     ",\"released\":%" PRIu64 ",\"frames\":",
                     s->live, s->live_bytes, s->acquired, s->released);
    stack_json(out, &s->stacks[0]);
    if (s->nstacks > 1) {
        pw_strbuf_puts(out, ",\"other_stacks\":[");
        for (int i = 1; i < s->nstacks; i++) {
            if (i > 1)
                pw_strbuf_puts(out, ",");
            stack_json(out, &s->stacks[i]);
        }
        pw_strbuf_puts(out, "]");
    }
    java_stack_json(out, s->java_stack);
    pw_strbuf_puts(out, "}");
}

static void
java_stack_json(struct pw_strbuf *out, const struct pw_java_stack *js)
{
    if (js != NULL) {
        pw_strbuf_puts(out, ",\"java_stack\":[");
        for (int i = 0; i < js->n; i++) {
            const struct pw_java_frame *f = &js->frames[i];
            pw_strbuf_puts(out, i ? ",{\"method\":" : "{\"method\":");
            pw_strbuf_json_string(out, f->method);
            pw_strbuf_puts(out, ",\"signature\":");
            pw_strbuf_json_string(out, f->signature);
            if (f->line >= 0)
                pw_strbuf_printf(out, ",\"line\":%d", f->line);
            pw_strbuf_puts(out, "}");
        }
        pw_strbuf_puts(out, "]");
    }
}

/* A rate with one decimal, printed by hand: printf's %f follows the
 * process locale, which may write a decimal comma. */
static void
rate_json(struct pw_strbuf *out, double per_s)
{
    bool negative = per_s < 0;
    uint64_t tenths = (uint64_t)((negative ? -per_s : per_s) * 10.0 + 0.5);
    pw_strbuf_printf(out, "%s%" PRIu64 ".%" PRIu64, negative && tenths > 0 ? "-" : "", tenths / 10, tenths % 10);
}

static void
ref_site_json(struct pw_strbuf *out, const struct pw_snap_ref_site *s, bool local)
{
    pw_strbuf_printf(out,
                     "{\"live\":%" PRIu64 ",\"created\":%" PRIu64 ",\"deleted\":%" PRIu64 ",\"freed\":%" PRIu64,
                     s->live, s->created, s->deleted, s->freed);
    if (local)
        pw_strbuf_printf(out, ",\"peak_per_call\":%" PRIu32 ",\"over_limit\":%" PRIu64, s->peak, s->over_limit);
    if (s->live > 0 && s->jdk)
        pw_strbuf_puts(out, ",\"jdk\":true");
    pw_strbuf_puts(out, ",\"frames\":");
    stack_json(out, &s->stacks[0]);
    java_stack_json(out, s->java_stack);
    pw_strbuf_puts(out, "}");
}

static void
references_json(const struct pw_snapshot *snap, struct pw_strbuf *out)
{
    const struct pw_snap_ref_totals *t = &snap->ref_totals;
    pw_strbuf_printf(out,
                     ",\"references\":{\"totals\":{\"created\":%" PRIu64 ",\"deleted\":%" PRIu64
                     ",\"freed\":%" PRIu64 ",\"live\":%" PRIu64 ",\"live_global\":%" PRIu64
                     ",\"live_weak\":%" PRIu64 ",\"live_local\":%" PRIu64
                     ",\"unknown_deletes\":{\"global\":%" PRIu64 ",\"weak\":%" PRIu64 ",\"local\":%" PRIu64
                     "},\"double_deletes\":%" PRIu64 ",\"local_limit\":%" PRIu64 ",\"lost\":%" PRIu64
                     ",\"table_bytes\":%" PRIu64 ",\"rows\":%zu},\"rows\":[",
                     t->created, t->deleted, t->freed, t->live, t->live_global, t->live_weak, t->live_local,
                     t->unknown_global_deletes, t->unknown_weak_deletes, t->unknown_local_deletes,
                     t->double_deletes, t->local_limit, t->lost, t->table_bytes, snap->nrefs);
    for (size_t i = 0; i < snap->nrefs; i++) {
        const struct pw_snap_ref_row *r = &snap->refs[i];
        bool local = r->kind == PW_KIND_LOCAL_REF;
        pw_strbuf_printf(out, "%s{\"kind\":\"%s\",\"method\":", i ? "," : "", pw_snap_ref_kind(r->kind));
        pw_strbuf_json_string(out, r->method);
        pw_strbuf_puts(out, ",\"signature\":");
        pw_strbuf_json_string(out, r->signature);
        pw_strbuf_printf(out,
                         ",\"function\":\"%s\",\"created\":%" PRIu64 ",\"deleted\":%" PRIu64 ",\"freed\":%" PRIu64
                         ",\"live\":%" PRIu64 ",\"oldest_age_ms\":%" PRIu64 ",\"live_delta\":%" PRId64
                         ",\"created_delta\":%" PRIu64 ",\"live_per_s\":",
                         pw_snap_ref_function_name(r->fn), r->created, r->deleted, r->freed, r->live,
                         r->oldest_age_ms, r->live_delta, r->created_delta);
        rate_json(out, snap->since_ms > 0 ? (double)r->live_delta * 1000.0 / (double)snap->since_ms : 0.0);
        pw_strbuf_puts(out, ",\"created_per_s\":");
        rate_json(out, r->created_per_s);
        if (local)
            pw_strbuf_printf(out, ",\"peak_per_call\":%" PRIu32 ",\"over_limit\":%" PRIu64, r->peak,
                             r->over_limit);
        pw_strbuf_puts(out, ",\"sites\":[");
        for (size_t j = 0; j < r->nsites; j++) {
            if (j)
                pw_strbuf_puts(out, ",");
            ref_site_json(out, &r->sites[j], local);
        }
        pw_strbuf_puts(out, "]}");
    }
    pw_strbuf_puts(out, "]}");
}

void
pw_report_json(const struct pw_snapshot *snap, struct pw_strbuf *out)
{
    const struct pw_snap_totals *t = &snap->totals;
    pw_strbuf_printf(out, "{\"tool\":\"pinwatch\",\"version\":\"%s\",\"pid\":%ld,\"host\":", PINWATCH_VERSION,
                     snap->pid);
    pw_strbuf_json_string(out, snap->host);
    pw_strbuf_puts(out, ",\"reason\":");
    pw_strbuf_json_string(out, snap->reason);
    pw_strbuf_printf(out,
                     ",\"time_ms\":%" PRIu64 ",\"uptime_ms\":%" PRIu64 ",\"since_ms\":%" PRIu64
                     ",\"totals\":{\"acquired\":%" PRIu64 ",\"released\":%" PRIu64 ",\"live\":%" PRIu64
                     ",\"live_bytes\":%" PRIu64 ",\"leaked\":%" PRIu64 ",\"held\":%" PRIu64
                     ",\"carried\":%" PRIu64 ",\"suppressed\":%" PRIu64 ",\"commits\":%" PRIu64
                     ",\"unmatched_releases\":%" PRIu64 ",\"double_releases\":%" PRIu64 ",\"findings\":%" PRIu64
                     ",\"lost\":%" PRIu64 ",\"table_bytes\":%" PRIu64 ",\"methods\":%" PRIu64
                     ",\"rows\":%zu},\"rows\":[",
                     snap->time_ms, snap->uptime_ms, snap->since_ms, t->acquired, t->released, t->live,
                     t->live_bytes, t->leaked, t->live - t->leaked, t->carried, t->suppressed, t->commits,
                     t->unmatched_releases, t->double_releases, t->findings, t->lost, t->table_bytes, t->methods,
                     snap->nrows);
    for (size_t i = 0; i < snap->nrows; i++) {
        const struct pw_snap_row *r = &snap->rows[i];
        /* Printed by hand: printf's %f follows the process locale, which
         * may write a decimal comma. */
        uint64_t tenths = (uint64_t)(r->acquired_per_s * 10.0 + 0.5);
        pw_strbuf_puts(out, i ? ",{\"method\":" : "{\"method\":");
        pw_strbuf_json_string(out, r->method);
        pw_strbuf_puts(out, ",\"signature\":");
        pw_strbuf_json_string(out, r->signature);
        pw_strbuf_printf(out,
                         ",\"function\":\"%s\",\"acquired\":%" PRIu64 ",\"released\":%" PRIu64
                         ",\"live\":%" PRIu64 ",\"live_bytes\":%" PRIu64 ",\"leaked\":%" PRIu64
                         ",\"held\":%" PRIu64 ",\"carried\":%" PRIu64 ",\"suppressed\":%" PRIu64
                         ",\"commits\":%" PRIu64 ",\"oldest_age_ms\":%" PRIu64 ",\"live_delta\":%" PRId64
                         ",\"acquired_delta\":%" PRIu64 ",\"acquired_per_s\":%" PRIu64 ".%" PRIu64 ",\"sites\":[",
                         pw_function_name(r->fn), r->acquired, r->released, r->live, r->live_bytes, r->leaked,
                         r->live - r->leaked, r->carried, r->suppressed, r->commits, r->oldest_age_ms,
                         r->live_delta, r->acquired_delta, tenths / 10, tenths % 10);
        for (size_t j = 0; j < r->nsites; j++) {
            if (j)
                pw_strbuf_puts(out, ",");
            site_json(out, &r->sites[j]);
        }
        pw_strbuf_puts(out, "]}");
    }
    pw_strbuf_puts(out, "]");
    if (snap->refs_on)
        references_json(snap, out);
    pw_strbuf_puts(out, ",\"findings\":[");
    for (size_t i = 0; i < snap->nfindings; i++) {
        const struct pw_snap_finding *f = &snap->findings[i];
        pw_strbuf_printf(out, "%s{\"kind\":\"%s\",\"method\":", i ? "," : "", f->kind);
        pw_strbuf_json_string(out, f->method);
        pw_strbuf_puts(out, ",\"signature\":");
        pw_strbuf_json_string(out, f->signature);
        pw_strbuf_printf(out, ",\"function\":\"%s\",\"call\":\"%s\",\"count\":%" PRIu64, f->function,
                         f->call_function, f->count);
        if (f->max_ms > 0)
            pw_strbuf_printf(out, ",\"max_ms\":%" PRIu64 ",\"p99_ms\":%" PRIu64, f->max_ms, f->p99_ms);
        pw_strbuf_puts(out, ",\"sites\":[");
        bool first = true;
        if (f->acquire.n > 0) {
            pw_strbuf_puts(out, "{\"role\":\"acquire\",\"frames\":");
            stack_json(out, &f->acquire);
            pw_strbuf_puts(out, "}");
            first = false;
        }
        if (f->call.n > 0) {
            pw_strbuf_puts(out, first ? "{\"role\":\"call\",\"frames\":" : ",{\"role\":\"call\",\"frames\":");
            stack_json(out, &f->call);
            pw_strbuf_puts(out, "}");
        }
        pw_strbuf_puts(out, "]}");
    }
    pw_strbuf_puts(out, "]}\n");
}
