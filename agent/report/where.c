/* SPDX-License-Identifier: Apache-2.0 */
#include "report/where.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

void
pw_where_append(struct pw_strbuf *out, const struct pw_location *w, uintptr_t address, bool inlined)
{
    if (w->symbol != NULL && !inlined)
        pw_strbuf_printf(out, "%s+0x%" PRIx64, w->symbol, w->offset);
    else if (w->symbol != NULL)
        pw_strbuf_printf(out, "%s (inlined)", w->symbol);
    else
        pw_strbuf_printf(out, "0x%" PRIxPTR, address);
    if (w->library != NULL)
        pw_strbuf_printf(out, " (%s)", base_name(w->library));
    if (w->file != NULL)
        pw_strbuf_printf(out, " %s:%d", base_name(w->file), w->line);
}

void
pw_where_text(uintptr_t ret, bool tail_call, char *text, size_t size)
{
    struct pw_symbols *symbols = pw_symbols_open();
    struct pw_location w = {0};
    pw_symbols_lookup(symbols, ret, &w);
    struct pw_strbuf out;
    pw_strbuf_init(&out);
    /* As the reports' frames name a tail call: the function itself. */
    if (tail_call)
        w.offset = 0;
    pw_where_append(&out, &w, tail_call ? ret - 1 : ret, false);
    if (tail_call)
        pw_strbuf_puts(&out, " (tail call)");
    pw_symbols_close(symbols);
    snprintf(text, size, "%s", out.data != NULL && !out.failed ? out.data : "");
    pw_strbuf_free(&out);
}
