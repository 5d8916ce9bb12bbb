/* SPDX-License-Identifier: Apache-2.0 */
/* pw_jni_symbol / pw_jni_demangle:
 *  - demangle of any text with output buffers of any size stays in bounds;
 *  - a valid Java name (segments of Java identifier characters, none
 *    starting with a digit, any BMP character) and signature mangle and
 *    demangle back to themselves, in the short and the long form. */
#include "jvm/jni_names.h"
#include "fuzz_check.h"

#include <string.h>

struct reader {
    const uint8_t *p, *end;
};

static unsigned
next(struct reader *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

/* Appends one identifier character chosen by the input; first: not a digit. */
static size_t
ident_char(struct reader *r, char *out, bool first)
{
    static const char ascii[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$0123456789";
    unsigned c = next(r);
    if (c < 200) {
        size_t n = first ? sizeof(ascii) - 1 - 10 : sizeof(ascii) - 1;
        out[0] = ascii[c % n];
        return 1;
    }
    /* A non-ASCII BMP character, encoded as (modified) UTF-8. */
    unsigned u = (next(r) << 8 | next(r)) & 0xFFFF;
    if (u < 0x80)
        u += 0x80;
    if (u < 0x800) {
        out[0] = (char)(0xC0 | (u >> 6));
        out[1] = (char)(0x80 | (u & 0x3F));
        return 2;
    }
    out[0] = (char)(0xE0 | (u >> 12));
    out[1] = (char)(0x80 | ((u >> 6) & 0x3F));
    out[2] = (char)(0x80 | (u & 0x3F));
    return 3;
}

/* segments separated by sep; 1-4 segments of 1-6 characters. */
static size_t
name(struct reader *r, char *out, char sep)
{
    size_t n = 0;
    unsigned segs = 1 + next(r) % 4;
    for (unsigned s = 0; s < segs; s++) {
        if (s)
            out[n++] = sep;
        unsigned len = 1 + next(r) % 6;
        for (unsigned i = 0; i < len; i++)
            n += ident_char(r, out + n, i == 0);
    }
    out[n] = '\0';
    return n;
}

static void
round_trip(const uint8_t *data, size_t size)
{
    struct reader r = {data, data + size};
    char java[512], args[512], sig[520], sym[8192], back[1024], back_args[1024];
    size_t n = name(&r, java, '.');
    if (strchr(java, '.') == NULL) { /* a method needs a class */
        memmove(java + 2, java, n + 1);
        memcpy(java, "C.", 2);
    }
    size_t a = 0;
    unsigned nargs = next(&r) % 4;
    for (unsigned i = 0; i < nargs && a < 200; i++) {
        while (next(&r) % 4 == 0 && a < 190)
            args[a++] = '[';
        unsigned k = next(&r) % 9;
        if (k < 8) {
            args[a++] = "ZBCSIJFD"[k];
        } else {
            args[a++] = 'L';
            a += name(&r, args + a, '/');
            args[a++] = ';';
        }
    }
    args[a] = '\0';
    snprintf(sig, sizeof(sig), "(%s)V", args);

    CHECK(pw_jni_symbol(java, NULL, sym, sizeof(sym)), "short form of %s refused", java);
    CHECK(pw_jni_demangle(sym, back, sizeof(back), back_args, sizeof(back_args)), "%s (from %s) not demangled",
          sym, java);
    CHECK(strcmp(back, java) == 0 && back_args[0] == '\0', "%s -> %s -> %s%s", java, sym, back, back_args);

    CHECK(pw_jni_symbol(java, sig, sym, sizeof(sym)), "long form of %s%s refused", java, sig);
    CHECK(pw_jni_demangle(sym, back, sizeof(back), back_args, sizeof(back_args)), "%s (from %s%s) not demangled",
          sym, java, sig);
    char want[520];
    snprintf(want, sizeof(want), "(%s)", args);
    CHECK(strcmp(back, java) == 0 && strcmp(back_args, want) == 0, "%s%s -> %s -> %s%s", java, sig, sym, back,
          back_args);
}

/* Any text, any buffer sizes: in bounds, terminated. */
static void
any_text(const uint8_t *data, size_t size)
{
    if (size < 3)
        return;
    size_t len = 1 + data[0], alen = 1 + data[1];
    char *text = malloc(size - 1);
    memcpy(text, data + 2, size - 2);
    text[size - 2] = '\0';
    char *out = malloc(len), *args = malloc(alen);
    if (pw_jni_demangle(text, out, len, args, alen)) {
        CHECK(memchr(out, '\0', len) != NULL && memchr(args, '\0', alen) != NULL, "unterminated");
    }
    free(out);
    out = malloc(len);
    if (pw_jni_symbol(text, strchr(text, '('), out, len))
        CHECK(memchr(out, '\0', len) != NULL, "symbol unterminated");
    free(out);
    free(args);
    free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    if (data[0] & 1)
        round_trip(data + 1, size - 1);
    else
        any_text(data + 1, size - 1);
    return 0;
}
