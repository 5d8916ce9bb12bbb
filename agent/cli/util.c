/* SPDX-License-Identifier: Apache-2.0 */
#include "util.h"

#include "base/options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Formatted first and written with one write(2), so a line never mixes with
 * the output of a JVM that shares the terminal. */
static void __attribute__((format(printf, 2, 0))) say(const char *prefix, const char *fmt, va_list ap)
{
    char line[2048];
    int n = snprintf(line, sizeof(line), "pinwatch: %s", prefix);
    if (n < 0)
        return;
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    /* One line whatever the message holds. */
    for (size_t i = 0; i < len; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    line[len++] = '\n';
    fflush(stdout);
    if (!pw_write_all(STDERR_FILENO, line, len))
        return; /* nowhere left to say it */
}

void
pw_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void
pw_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("warning: ", fmt, ap);
    va_end(ap);
}

static void *
check(void *p)
{
    if (p == NULL) {
        pw_error("out of memory");
        exit(PW_EXIT_FAIL);
    }
    return p;
}

void *
pw_xmalloc(size_t n)
{
    return check(malloc(n ? n : 1));
}

void *
pw_xrealloc(void *p, size_t n)
{
    return check(realloc(p, n ? n : 1));
}

char *
pw_xstrdup(const char *s)
{
    return check(strdup(s));
}

void
pw_buf_add(struct pw_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = pw_xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void
pw_buf_puts(struct pw_buf *b, const char *s)
{
    pw_buf_add(b, s, strlen(s));
}

void
pw_buf_printf(struct pw_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        pw_buf_add(b, small, (size_t)n);
        return;
    }
    char *big = pw_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    pw_buf_add(b, big, (size_t)n);
    free(big);
}

void
pw_buf_free(struct pw_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

bool
pw_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    /* The agent's own rule for its numbers (base/options.c). */
    return pw_parse_decimal(s, strlen(s), max, out);
}

const char *
pw_signed(int64_t n, char *out, size_t len)
{
    snprintf(out, len, n > 0 ? "+%lld" : "%lld", (long long)n);
    return out;
}
