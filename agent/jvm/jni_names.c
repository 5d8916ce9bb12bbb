/* SPDX-License-Identifier: Apache-2.0 */
#include "jvm/jni_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
    char *p, *end;
};

static bool
put(struct out *o, const char *s, size_t n)
{
    if ((size_t)(o->end - o->p) <= n)
        return false;
    memcpy(o->p, s, n);
    o->p += n;
    *o->p = '\0';
    return true;
}

/* Decodes one character of (modified) UTF-8 to a UTF-16 code unit; the
 * specification mangles non-ASCII characters as _0xxxx of that unit. */
static unsigned
next_unit(const unsigned char **s)
{
    const unsigned char *p = *s;
    unsigned c = *p++;
    if (c >= 0xE0 && (p[0] & 0xC0) == 0x80 && (p[1] & 0xC0) == 0x80) {
        c = ((c & 0x0F) << 12) | ((p[0] & 0x3Fu) << 6) | (p[1] & 0x3Fu);
        p += 2;
    } else if (c >= 0xC0 && (p[0] & 0xC0) == 0x80) {
        c = ((c & 0x1F) << 6) | (p[0] & 0x3Fu);
        p += 1;
    }
    *s = p;
    return c;
}

/* Mangles [s, end); '.' stands for the package separator '/'. */
static bool
mangle(struct out *o, const char *s, const char *end)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p < (const unsigned char *)end) {
        unsigned c = next_unit(&p);
        char buf[8];
        bool ok;
        if (c == '.' || c == '/')
            ok = put(o, "_", 1);
        else if (c == '_')
            ok = put(o, "_1", 2);
        else if (c == ';')
            ok = put(o, "_2", 2);
        else if (c == '[')
            ok = put(o, "_3", 2);
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            buf[0] = (char)c;
            ok = put(o, buf, 1);
        } else {
            snprintf(buf, sizeof(buf), "_0%04x", c & 0xFFFFu);
            ok = put(o, buf, 6);
        }
        if (!ok)
            return false;
    }
    return true;
}

bool
pw_jni_symbol(const char *java_name, const char *signature, char *out, size_t len)
{
    const char *dot = strrchr(java_name, '.');
    if (dot == NULL || dot == java_name || dot[1] == '\0' || len == 0)
        return false;
    struct out o = {out, out + len};
    *out = '\0';
    if (!put(&o, "Java_", 5) || !mangle(&o, java_name, dot) || !put(&o, "_", 1) ||
        !mangle(&o, dot + 1, dot + strlen(dot)))
        return false;
    if (signature == NULL)
        return true;
    const char *open = strchr(signature, '('), *close = strchr(signature, ')');
    if (open == NULL || close == NULL || close < open)
        return false;
    return put(&o, "__", 2) && mangle(&o, open + 1, close);
}

/* Appends one UTF-16 code unit as (modified) UTF-8. */
static bool
put_unit(struct out *o, unsigned c)
{
    char buf[3];
    size_t n;
    if (c < 0x80 && c != 0) {
        buf[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        buf[0] = (char)(0xC0 | (c >> 6));
        buf[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else {
        buf[0] = (char)(0xE0 | (c >> 12));
        buf[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        buf[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    }
    return put(o, buf, n);
}

static int
hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Undoes mangle() on [s, end): "_" is sep (the package '.' or, in
 * argument types, '/'). */
static bool
unmangle(struct out *o, const char *s, const char *end, char sep)
{
    while (s < end) {
        if (*s != '_') {
            if (!put(o, s, 1))
                return false;
            s++;
            continue;
        }
        if (s + 1 >= end || (s[1] < '0' || s[1] > '3')) {
            if (!put(o, &sep, 1))
                return false;
            s++;
            continue;
        }
        bool ok;
        switch (s[1]) {
        case '1':
            ok = put(o, "_", 1);
            s += 2;
            break;
        case '2':
            ok = put(o, ";", 1);
            s += 2;
            break;
        case '3':
            ok = put(o, "[", 1);
            s += 2;
            break;
        default: {
            if (end - s < 6)
                return false;
            unsigned c = 0;
            for (int i = 2; i < 6; i++) {
                int d = hex(s[i]);
                if (d < 0)
                    return false;
                c = c * 16 + (unsigned)d;
            }
            ok = put_unit(o, c);
            s += 6;
            break;
        }
        }
        if (!ok)
            return false;
    }
    return true;
}

bool
pw_jni_demangle(const char *symbol, char *out, size_t len, char *args, size_t args_len)
{
    if (strncmp(symbol, "Java_", 5) != 0 || len == 0 || args_len == 0)
        return false;
    const char *body = symbol + 5, *end = body + strlen(body);
    /* The long form's separator is "__" followed by an argument type: a
     * letter, or "_3" for an array.  A "__" followed by a digit is a
     * separator and an escape ("_1" for '_', "_0xxxx" for '$' or other
     * characters) at the start of a name segment. */
    const char *dunder = NULL;
    for (const char *p = strstr(body, "__"); p != NULL; p = strstr(p + 1, "__")) {
        if (p[2] < '0' || p[2] > '3') {
            dunder = p;
            break;
        }
    }
    const char *names_end = dunder != NULL ? dunder : end;
    /* The method is after the last separator '_' that is not an escape. */
    const char *last = NULL;
    for (const char *p = body; p < names_end; p++) {
        if (*p != '_')
            continue;
        if (p + 1 < names_end && p[1] >= '0' && p[1] <= '3') {
            p += p[1] == '0' ? 5 : 1;
            continue;
        }
        last = p;
    }
    if (last == NULL || last == body || last + 1 >= names_end)
        return false;
    struct out o = {out, out + len};
    *out = '\0';
    if (!unmangle(&o, body, last, '.') || !put(&o, ".", 1) || !unmangle(&o, last + 1, names_end, '.'))
        return false;
    struct out a = {args, args + args_len};
    *args = '\0';
    if (dunder != NULL)
        return put(&a, "(", 1) && unmangle(&a, dunder + 2, end, '/') && put(&a, ")", 1);
    return true;
}

char *
pw_java_method_name(const char *class_sig, const char *name)
{
    size_t clen = strlen(class_sig);
    if (clen >= 2 && class_sig[0] == 'L' && class_sig[clen - 1] == ';') {
        class_sig++;
        clen -= 2;
    }
    size_t nlen = strlen(name);
    char *out = malloc(clen + 1 + nlen + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < clen; i++)
        out[i] = class_sig[i] == '/' ? '.' : class_sig[i];
    out[clen] = '.';
    memcpy(out + clen + 1, name, nlen + 1);
    return out;
}
