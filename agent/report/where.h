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

/* ret, a return address, symbolised and written as that text, cut to size.
 * tail_call: ret is a native function's start + 1 standing for the tail
 * call it ended with (state/methods.h, pw_method_caller), written as the
 * reports write such a frame, "symbol+0x0 (library) file:line (tail call)". */
PW_HIDDEN void pw_where_text(uintptr_t ret, bool tail_call, char *text, size_t size);

#endif
