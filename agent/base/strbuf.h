/* SPDX-License-Identifier: Apache-2.0 */
/* A growable text buffer for reports: formatted off the hot path, written
 * with one write(2) so that a report is never interleaved with another. */
#ifndef PW_STRBUF_H
#define PW_STRBUF_H

#include "base/pinwatch.h"

struct pw_strbuf {
    char *data;
    size_t len, cap;
    bool failed; /* memory ran out: the text is cut short */
};

PW_HIDDEN void pw_strbuf_init(struct pw_strbuf *b);
PW_HIDDEN void pw_strbuf_free(struct pw_strbuf *b);
PW_HIDDEN void pw_strbuf_add(struct pw_strbuf *b, const char *s, size_t n);
PW_HIDDEN void pw_strbuf_puts(struct pw_strbuf *b, const char *s);
PW_HIDDEN void pw_strbuf_printf(struct pw_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal, quotes included. */
PW_HIDDEN void pw_strbuf_json_string(struct pw_strbuf *b, const char *s);

#endif
