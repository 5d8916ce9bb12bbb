/* SPDX-License-Identifier: Apache-2.0 */
#include "report/metrics_http.h"

#include <string.h>

size_t
pw_http_head_end(const char *buf, size_t len)
{
    /* Bare LF line ends are tolerated, as most servers do. */
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* RFC 9110 tchar: what a method name may be made of. */
static bool
tchar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool
visible(char c)
{
    return c > 0x20 && c < 0x7f;
}

static size_t
line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
}

static char
lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
starts_nocase(const char *p, size_t n, const char *word)
{
    size_t w = strlen(word);
    if (n < w)
        return false;
    for (size_t i = 0; i < w; i++)
        if (lower(p[i]) != word[i])
            return false;
    return true;
}

/* Whether one header line's value names the OpenMetrics media type. */
static bool
accepts_openmetrics(const char *p, size_t n)
{
    static const char type[] = "application/openmetrics-text";
    for (size_t i = 0; i + sizeof(type) - 1 <= n; i++)
        if (starts_nocase(p + i, n - i, type))
            return true;
    return false;
}

struct pw_http_answer
pw_http_answer(const char *buf, size_t len)
{
    struct pw_http_answer bad = {.status = 400};
    const char *end = buf + len, *p = buf;
    size_t n = line_end(p, end);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    /* METHOD SP TARGET SP HTTP/1.x */
    size_t m = 0;
    while (m < n && tchar(p[m]))
        m++;
    if (m == 0 || m >= n || p[m] != ' ')
        return bad;
    size_t t0 = m + 1, t = t0;
    while (t < n && visible(p[t]))
        t++;
    if (t == t0 || t >= n || p[t] != ' ')
        return bad;
    size_t v0 = t + 1;
    if (n - v0 != 8 || memcmp(p + v0, "HTTP/1.", 7) != 0 || (p[v0 + 7] != '0' && p[v0 + 7] != '1'))
        return bad;

    struct pw_http_answer ok = {.status = 200};
    /* Every header line must at least look like one: NAME ':' VALUE. */
    const char *h = p + line_end(p, end) + 1;
    while (h < end) {
        size_t hn = line_end(h, end);
        size_t vis = hn > 0 && h[hn - 1] == '\r' ? hn - 1 : hn;
        if (vis == 0)
            break; /* the blank line */
        size_t k = 0;
        while (k < vis && tchar(h[k]))
            k++;
        if (k == 0 || k >= vis || h[k] != ':')
            return bad;
        for (size_t i = k + 1; i < vis; i++)
            if ((unsigned char)h[i] < 0x20 && h[i] != '\t')
                return bad;
        if (k == 6 && starts_nocase(h, k, "accept") && accepts_openmetrics(h + k + 1, vis - k - 1))
            ok.openmetrics = true;
        h += hn + 1;
    }

    if (m != 3 || memcmp(p, "GET", 3) != 0)
        return (struct pw_http_answer){.status = 405};
    size_t tlen = t - t0;
    const char *target = p + t0;
    if (tlen >= 8 && memcmp(target, "/metrics", 8) == 0 && (tlen == 8 || target[8] == '?'))
        return ok;
    return (struct pw_http_answer){.status = 404};
}
