/* SPDX-License-Identifier: Apache-2.0 */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
pw_strbuf_init(struct pw_strbuf *b)
{
    memset(b, 0, sizeof(*b));
}

void
pw_strbuf_free(struct pw_strbuf *b)
{
    free(b->data);
    pw_strbuf_init(b);
}

static bool
reserve(struct pw_strbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *data = realloc(b->data, cap);
    if (data == NULL) {
        b->failed = true;
        return false;
    }
    b->data = data;
    b->cap = cap;
    return true;
}

void
pw_strbuf_add(struct pw_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void
pw_strbuf_puts(struct pw_strbuf *b, const char *s)
{
    pw_strbuf_add(b, s, strlen(s));
}

void
pw_strbuf_printf(struct pw_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of a valid UTF-8 sequence at p (2 to 4 bytes), or 0. */
static size_t
utf8_sequence(const unsigned char *p, unsigned *cp)
{
    if (p[0] >= 0xC2 && p[0] <= 0xDF && (p[1] & 0xC0) == 0x80) {
        *cp = ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
        return 2;
    }
    if (p[0] >= 0xE0 && p[0] <= 0xEF && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        *cp = ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
        return *cp >= 0x800 ? 3 : 0;
    }
    if (p[0] >= 0xF0 && p[0] <= 0xF4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
        *cp = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
        return *cp >= 0x10000 && *cp <= 0x10FFFF ? 4 : 0;
    }
    return 0;
}

/* JSON wants valid UTF-8.  Java names come in the JVM's modified UTF-8:
 * NUL as C0 80 and characters past U+FFFF as two 3-byte surrogates; both
 * are written as \u escapes (a surrogate pair stays a pair).  Bytes that
 * are not UTF-8 at all (a file name on disk) become U+FFFD. */
void
pw_strbuf_json_string(struct pw_strbuf *b, const char *s)
{
    pw_strbuf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0';) {
        unsigned cp;
        size_t n;
        if (*p < 0x80) {
            switch (*p) {
            case '"': pw_strbuf_add(b, "\\\"", 2); break;
            case '\\': pw_strbuf_add(b, "\\\\", 2); break;
            case '\n': pw_strbuf_add(b, "\\n", 2); break;
            case '\t': pw_strbuf_add(b, "\\t", 2); break;
            default:
                if (*p < 0x20 || *p == 0x7F)
                    pw_strbuf_printf(b, "\\u%04x", *p);
                else
                    pw_strbuf_add(b, (const char *)p, 1);
            }
            p++;
        } else if (p[0] == 0xC0 && p[1] == 0x80) {
            pw_strbuf_puts(b, "\\u0000");
            p += 2;
        } else if (p[0] == 0xED && p[1] >= 0xA0 && p[1] <= 0xBF && (p[2] & 0xC0) == 0x80) {
            cp = ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
            pw_strbuf_printf(b, "\\u%04x", cp);
            p += 3;
        } else if ((n = utf8_sequence(p, &cp)) != 0) {
            pw_strbuf_add(b, (const char *)p, n);
            p += n;
        } else {
            pw_strbuf_puts(b, "\\ufffd");
            p++;
        }
    }
    pw_strbuf_add(b, "\"", 1);
}
