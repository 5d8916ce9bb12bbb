/* SPDX-License-Identifier: Apache-2.0 */
#include "report/where.h"
#include "jvm/symbols.h"

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
pw_where_text(uintptr_t ret, char *text, size_t size)
{
    struct pw_symbols *symbols = pw_symbols_open();
    struct pw_location w = {0};
    pw_symbols_lookup(symbols, ret, &w);
    size_t n = 0;
    if (w.symbol != NULL)
        n += (size_t)snprintf(text, size, "%s+0x%" PRIx64, w.symbol, w.offset);
    else
        n += (size_t)snprintf(text, size, "0x%" PRIxPTR, ret);
    if (w.library != NULL && n < size)
        n += (size_t)snprintf(text + n, size - n, " (%s)", base_name(w.library));
    if (w.file != NULL && n < size)
        snprintf(text + n, size - n, " %s:%d", base_name(w.file), w.line);
    pw_symbols_close(symbols);
}
