/* SPDX-License-Identifier: Apache-2.0 */
/* format=collapsed: one line per stack that holds live pins,
 *     java frames;native method;native frames LIVE_BYTES
 * outermost first, the form flame graph tools read (Brendan Gregg's
 * stackcollapse output, async-profiler's collapsed).  A site reached along
 * several paths is charged to the first one seen, so the lines still add up
 * to the report's live_bytes. */
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

/* Frame names may not hold the separators; signatures hold ';'. */
static void
frame_name(struct pw_strbuf *out, const char *name)
{
    for (const char *p = name; *p != '\0'; p++) {
        char c = *p == ';' || *p == ' ' || *p == '\n' ? '_' : *p;
        pw_strbuf_add(out, &c, 1);
    }
}

void
pw_report_collapsed(const struct pw_snapshot *snap, struct pw_strbuf *out)
{
    for (size_t i = 0; i < snap->nrows; i++) {
        const struct pw_snap_row *r = &snap->rows[i];
        for (size_t j = 0; j < r->nsites; j++) {
            const struct pw_snap_site *s = &r->sites[j];
            if (s->live == 0)
                continue;
            if (s->java_stack != NULL)
                for (int k = s->java_stack->n - 1; k >= 0; k--) {
                    frame_name(out, s->java_stack->frames[k].method);
                    pw_strbuf_puts(out, ";");
                }
            frame_name(out, r->method);
            const struct pw_snap_stack *st = &s->stacks[0];
            for (int k = st->n - 1; k >= 0; k--) {
                const struct pw_snap_frame *f = &st->frames[k];
                pw_strbuf_puts(out, ";");
                if (f->where.symbol != NULL)
                    frame_name(out, f->where.symbol);
                else
                    pw_strbuf_printf(out, "0x%" PRIxPTR, f->address);
                if (f->inlined)
                    pw_strbuf_puts(out, "_[i]");
            }
            pw_strbuf_printf(out, ";%s %" PRIu64 "\n", pw_function_name(r->fn), s->live_bytes);
        }
    }
}
