#include "jni_names.h"

#include <stdio.h>
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
