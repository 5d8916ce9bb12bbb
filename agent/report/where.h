/* SPDX-License-Identifier: Apache-2.0 */
/* A call site as one line of text, as the text report's leak table prints
 * it: "symbol+0xOFFSET (library) file:line".  Symbolises: report threads
 * and Java API calls only, never the hot path. */
#ifndef PW_WHERE_H
#define PW_WHERE_H

#include "base/pinwatch.h"

#include <stddef.h>

/* ret is a return address; the text is cut to size. */
PW_HIDDEN void pw_where_text(uintptr_t ret, char *text, size_t size);

#endif
