/* SPDX-License-Identifier: Apache-2.0 */
/* No network, no library: the file is the whole report, so its style and
 * script (report.css, report.js) are compiled in. */
#include "html/page.h"
#include "report_assets.h"

#include <inttypes.h>
#include <stdio.h>

void
pw_html_esc(struct pw_buf *b, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        switch (*s) {
        case '&': pw_buf_puts(b, "&amp;"); break;
        case '<': pw_buf_puts(b, "&lt;"); break;
        case '>': pw_buf_puts(b, "&gt;"); break;
        case '"': pw_buf_puts(b, "&quot;"); break;
        case '\'': pw_buf_puts(b, "&#39;"); break;
        default: pw_buf_add(b, s, 1);
        }
    }
}

const char *
pw_html_bytes(uint64_t n, char *out, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(out, len, "%" PRIu64 " B", n);
        return out;
    }
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(out, len, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return out;
}

const char *
pw_html_grouped(uint64_t n, char *out, size_t len)
{
    char digits[32];
    int nd = snprintf(digits, sizeof(digits), "%" PRIu64, n);
    size_t o = 0;
    for (int i = 0; i < nd && o + 2 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    return out;
}

const char *
pw_html_duration(uint64_t ms, char *out, size_t len)
{
    if (ms < 1000)
        snprintf(out, len, "%" PRIu64 " ms", ms);
    else if (ms < 120000)
        snprintf(out, len, "%.1f s", (double)ms / 1000);
    else if (ms < 7200000)
        snprintf(out, len, "%.1f min", (double)ms / 60000);
    else
        snprintf(out, len, "%.1f h", (double)ms / 3600000);
    return out;
}

const char *
pw_html_color(size_t k)
{
    static const char *const palette[] = {"#d9480f", "#1971c2", "#2f9e44", "#9c36b5", "#e8590c",
                                          "#0c8599", "#c2255c", "#5c940d", "#3b5bdb", "#f08c00"};
    return palette[k % (sizeof(palette) / sizeof(palette[0]))];
}

void
pw_html_page_open(struct pw_buf *b, const char *title, const char *subtitle)
{
    pw_buf_puts(b,
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"pinwatch " PINWATCH_VERSION "\">\n<title>pinwatch: ");
    pw_html_esc(b, title);
    pw_buf_puts(b, "</title>\n<style>\n");
    pw_buf_puts(b, pw_html_style);
    pw_buf_puts(b, "</style>\n</head>\n<body>\n<header><h1><span>pinwatch</span> JNI pin report</h1><p>");
    pw_buf_puts(b, subtitle);
    pw_buf_puts(b, "</p></header>\n<main>\n");
}

void
pw_html_cards(struct pw_buf *b, const struct pw_totals *t, const char *live_label)
{
    char live[32], bytes[32], leaked[32], held[32], carried[32], acquired[32];
    pw_buf_printf(b,
                  "<div class=\"cards\">"
                  "<div class=\"card%s\" id=\"total-live\"><b>%s</b><span>%s</span></div>"
                  "<div class=\"card%s\"><b>%s</b><span>live bytes</span></div>"
                  "<div class=\"card\"><b>%s</b><span>leaked (returned holding)</span></div>"
                  "<div class=\"card\"><b>%s</b><span>held by running code</span></div>"
                  "<div class=\"card\" id=\"total-carried\"><b>%s</b><span>carried across calls (released "
                  "later, not leaked)</span></div>"
                  "<div class=\"card\"><b>%s</b><span>pins taken</span></div>"
                  "</div>\n",
                  t->live ? " alert" : "", pw_html_grouped(t->live, live, sizeof(live)), live_label,
                  t->live_bytes ? " alert" : "", pw_html_bytes(t->live_bytes, bytes, sizeof(bytes)),
                  pw_html_grouped(t->leaked, leaked, sizeof(leaked)),
                  pw_html_grouped(t->held, held, sizeof(held)),
                  pw_html_grouped(t->carried, carried, sizeof(carried)),
                  pw_html_grouped(t->acquired, acquired, sizeof(acquired)));
}

void
pw_html_page_close(struct pw_buf *b)
{
    pw_buf_puts(b, "</main>\n<script>\n");
    pw_buf_puts(b, pw_html_script);
    pw_buf_puts(b, "</script>\n</body>\n</html>\n");
}
