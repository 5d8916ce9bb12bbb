/* SPDX-License-Identifier: Apache-2.0 */
/* A call site as one line of text, as the text report's leak table prints
 * it: "symbol+0xOFFSET (library) file:line".  Symbolises: report threads
 * and Java API calls only, never the hot path. */
#ifndef PW_WHERE_H
#define PW_WHERE_H

#include "base/pinwatch.h"
#include "base/strbuf.h"
#include "jvm/symbols.h"

#include <stddef.h>

/* w, found for address, as that text; an inlined frame is named
 * "symbol (inlined)", without an offset. */
PW_HIDDEN void pw_where_append(struct pw_strbuf *out, const struct pw_location *w, uintptr_t address,
                               bool inlined);

/* ret, a return address, symbolised and written as that text, cut to size. */
PW_HIDDEN void pw_where_text(uintptr_t ret, char *text, size_t size);

#endif
