/* format=json: JSON Lines, one report per line.  The field names and
 * meanings are a contract (README.md, "JSON contract"); new fields may be
 * added, none renamed. */
#include "report.h"

#include <inttypes.h>

static void
frame_json(struct pw_strbuf *out, const struct pw_snap_site *s)
{
    const struct pw_location *w = &s->where;
    pw_strbuf_printf(out, "{\"address\":\"0x%" PRIxPTR "\",\"symbol\":", s->ret);
    if (w->symbol != NULL)
        pw_strbuf_json_string(out, w->symbol);
    else
        pw_strbuf_puts(out, "null");
    pw_strbuf_printf(out, ",\"offset\":%" PRIu64 ",\"library\":", w->symbol != NULL ? w->offset : 0);
    if (w->library != NULL)
        pw_strbuf_json_string(out, w->library);
    else
        pw_strbuf_puts(out, "null");
    if (w->file != NULL) {
        pw_strbuf_puts(out, ",\"file\":");
        pw_strbuf_json_string(out, w->file);
        pw_strbuf_printf(out, ",\"line\":%d", w->line);
    }
    if (s->tail_call)
        pw_strbuf_puts(out, ",\"tail_call\":true");
    pw_strbuf_puts(out, "}");
}

void
pw_report_json(const struct pw_snapshot *snap, struct pw_strbuf *out)
{
    const struct pw_snap_totals *t = &snap->totals;
    pw_strbuf_printf(out,
                     "{\"tool\":\"pinwatch\",\"version\":\"%s\",\"pid\":%ld,\"reason\":",
                     PINWATCH_VERSION, snap->pid);
    pw_strbuf_json_string(out, snap->reason);
    pw_strbuf_printf(out,
                     ",\"time_ms\":%" PRIu64 ",\"uptime_ms\":%" PRIu64 ",\"since_ms\":%" PRIu64
                     ",\"totals\":{\"acquired\":%" PRIu64
                     ",\"released\":%" PRIu64 ",\"live\":%" PRIu64 ",\"live_bytes\":%" PRIu64
                     ",\"leaked\":%" PRIu64 ",\"held\":%" PRIu64 ",\"suppressed\":%" PRIu64 ",\"commits\":%" PRIu64
                     ",\"unmatched_releases\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"methods\":%" PRIu64
                     ",\"rows\":%zu},\"rows\":[",
                     snap->time_ms, snap->uptime_ms, snap->since_ms, t->acquired, t->released, t->live, t->live_bytes,
                     t->leaked, t->live - t->leaked, t->suppressed, t->commits, t->unmatched_releases, t->lost, t->methods, snap->nrows);
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
                         ",\"held\":%" PRIu64 ",\"suppressed\":%" PRIu64 ",\"commits\":%" PRIu64
                         ",\"oldest_age_ms\":%" PRIu64 ",\"live_delta\":%" PRId64 ",\"acquired_delta\":%" PRIu64
                         ",\"acquired_per_s\":%" PRIu64 ".%" PRIu64 ",\"sites\":[",
                         pw_function_name(r->fn), r->acquired, r->released, r->live, r->live_bytes, r->leaked,
                         r->live - r->leaked, r->suppressed, r->commits, r->oldest_age_ms, r->live_delta,
                         r->acquired_delta, tenths / 10, tenths % 10);
        for (size_t j = 0; j < r->nsites; j++) {
            const struct pw_snap_site *s = &r->sites[j];
            pw_strbuf_printf(out,
                             "%s{\"live\":%" PRIu64 ",\"live_bytes\":%" PRIu64 ",\"acquired\":%" PRIu64
                             ",\"released\":%" PRIu64 ",\"frames\":[",
                             j ? "," : "", s->live, s->live_bytes, s->acquired, s->released);
            frame_json(out, s);
            pw_strbuf_puts(out, "]}");
        }
        pw_strbuf_puts(out, "]}");
    }
    pw_strbuf_puts(out, "]}\n");
}
