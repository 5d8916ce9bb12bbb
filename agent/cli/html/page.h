/* SPDX-License-Identifier: Apache-2.0 */
/* What every part of the report page uses: escaping, number formats, series
 * colours and the page's shell.  Every string that came from the JSON goes
 * through pw_html_esc(). */
#ifndef PW_CLI_HTML_PAGE_H
#define PW_CLI_HTML_PAGE_H

#include "dumps.h"
#include "util.h"

#include <stddef.h>
#include <stdint.h>

void pw_html_esc(struct pw_buf *b, const char *s);

/* 12345678 -> "11.8 MiB"; exact below 1 KiB. */
const char *pw_html_bytes(uint64_t n, char *out, size_t len);
/* 1234567 -> "1,234,567": readable and locale-independent. */
const char *pw_html_grouped(uint64_t n, char *out, size_t len);
/* 1500 -> "1.5 s": ms, s, min or h, whichever reads best. */
const char *pw_html_duration(uint64_t ms, char *out, size_t len);

/* The colour of the k-th series; the chart line and its legend share it. */
const char *pw_html_color(size_t k);

/* From <!DOCTYPE> to <main>: title is text (escaped here), subtitle the
 * header's line, already HTML. */
void pw_html_page_open(struct pw_buf *b, const char *title, const char *subtitle);
/* The row of totals; live_label names the first card. */
void pw_html_cards(struct pw_buf *b, const struct pw_totals *t, const char *live_label);
/* From </main> to the end, with the script. */
void pw_html_page_close(struct pw_buf *b);

#endif
