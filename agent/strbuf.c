#include "strbuf.h"

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

void
pw_strbuf_json_string(struct pw_strbuf *b, const char *s)
{
    pw_strbuf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        switch (*p) {
        case '"':
            pw_strbuf_add(b, "\\\"", 2);
            break;
        case '\\':
            pw_strbuf_add(b, "\\\\", 2);
            break;
        case '\n':
            pw_strbuf_add(b, "\\n", 2);
            break;
        case '\t':
            pw_strbuf_add(b, "\\t", 2);
            break;
        default:
            if (*p < 0x20)
                pw_strbuf_printf(b, "\\u%04x", *p);
            else
                pw_strbuf_add(b, (const char *)p, 1);
        }
    }
    pw_strbuf_add(b, "\"", 1);
}
