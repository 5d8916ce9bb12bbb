/* SPDX-License-Identifier: Apache-2.0 */
#include "base/options.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#define PW_STR_(x) #x
#define PW_STR(x) PW_STR_(x)

/* "stderr" is the zeroed field; "none" and a path are kept as given. */
static bool
set_log(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    if (len == 0 || len >= sizeof(opts->log))
        return false;
    if (len == 6 && memcmp(value, "stderr", 6) == 0) {
        opts->log[0] = '\0';
        return true;
    }
    memcpy(opts->log, value, len);
    opts->log[len] = '\0';
    return true;
}

static bool
set_format(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    if (len == 4 && memcmp(value, "text", 4) == 0)
        opts->format = PW_FORMAT_TEXT;
    else if (len == 4 && memcmp(value, "json", 4) == 0)
        opts->format = PW_FORMAT_JSON;
    else if (len == 9 && memcmp(value, "collapsed", 9) == 0)
        opts->format = PW_FORMAT_COLLAPSED;
    else if (len == 11 && memcmp(value, "openmetrics", 11) == 0)
        opts->format = PW_FORMAT_OPENMETRICS;
    else
        return false;
    return true;
}

/* A decimal integer in [0, max] made of digits only: no sign, no spaces,
 * no suffix, so "10k" or "-1" are refused rather than half-read. */
bool
pw_parse_decimal(const char *value, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0 || len > 20)
        return false;
    uint64_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (value[i] < '0' || value[i] > '9')
            return false;
        unsigned d = (unsigned)(value[i] - '0');
        if (n > (max - d) / 10)
            return false;
        n = n * 10 + d;
    }
    *out = n;
    return true;
}

/* The shared setters: the row says which field and what it takes. */
static bool
set_path(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    char *field = (char *)opts + spec->offset;
    if (len == 0 || len >= spec->size)
        return false;
    memcpy(field, value, len);
    field[len] = '\0';
    return true;
}

_Static_assert(sizeof(int) != sizeof(uint64_t), "set_uint tells the two field types apart by size");

static bool
set_uint(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    uint64_t n;
    if (!pw_parse_decimal(value, len, spec->max, &n) || n < spec->min)
        return false;
    char *field = (char *)opts + spec->offset;
    if (spec->size == sizeof(uint64_t)) {
        memcpy(field, &n, sizeof(n));
    } else if (spec->size == sizeof(int) && spec->max <= INT_MAX) {
        int v = (int)n;
        memcpy(field, &v, sizeof(v));
    } else {
        return false;
    }
    return true;
}

static bool
set_switch(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    bool on;
    if (len == 2 && memcmp(value, "on", 2) == 0)
        on = true;
    else if (len == 3 && memcmp(value, "off", 3) == 0)
        on = false;
    else
        return false;
    memcpy((char *)opts + spec->offset, &on, sizeof(on));
    return true;
}

#define FIELD(f) .offset = offsetof(struct pw_options, f), .size = sizeof(((struct pw_options *)0)->f)
#define UINT_ROW(f, lo, hi) .set = set_uint, .kind = PW_OPT_UINT, FIELD(f), .min = (lo), .max = (hi)
#define PATH_ROW(f) .set = set_path, .kind = PW_OPT_PATH, FIELD(f)
#define SWITCH_ROW(f) .set = set_switch, .kind = PW_OPT_SWITCH, FIELD(f)
#define WORD_ROW(setter) .set = setter, .kind = PW_OPT_WORD

/* Seconds with up to three decimals ("0.25"); at most a week. */
static bool
set_interval(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    const char *dot = memchr(value, '.', len);
    size_t ilen = dot != NULL ? (size_t)(dot - value) : len;
    uint64_t secs = 0, frac = 0;
    if (ilen > 0 && !pw_parse_decimal(value, ilen, 7 * 24 * 3600, &secs))
        return false;
    if (dot != NULL) {
        size_t flen = len - ilen - 1;
        if (flen == 0 || flen > 3 || !pw_parse_decimal(dot + 1, flen, 999, &frac))
            return false;
        for (size_t i = flen; i < 3; i++)
            frac *= 10;
    } else if (ilen == 0) {
        return false;
    }
    opts->interval_ms = secs * 1000 + frac;
    /* A non-zero interval shorter than 10 ms would spend the machine on
     * reports. */
    return opts->interval_ms == 0 || opts->interval_ms >= 10;
}

/* [HOST:]PORT, HOST a numeric address ("[::1]" for IPv6): no name is looked
 * up while the JVM starts, and a typo stops it rather than serve on an
 * address nobody meant. */
static bool
set_metrics(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len)
{
    const char *colon = NULL;
    char host[sizeof(opts->metrics_host)] = "127.0.0.1";
    if (len > 0 && value[0] == '[') {
        const char *close = memchr(value, ']', len);
        if (close == NULL || close + 1 >= value + len || close[1] != ':')
            return false;
        size_t hlen = (size_t)(close - value - 1);
        if (hlen == 0 || hlen >= sizeof(host))
            return false;
        memcpy(host, value + 1, hlen);
        host[hlen] = '\0';
        struct in6_addr a6;
        if (inet_pton(AF_INET6, host, &a6) != 1)
            return false;
        colon = close + 1;
    } else {
        for (size_t i = 0; i < len; i++)
            if (value[i] == ':')
                colon = value + i;
        if (colon != NULL) {
            size_t hlen = (size_t)(colon - value);
            if (hlen == 0 || hlen >= sizeof(host))
                return false;
            memcpy(host, value, hlen);
            host[hlen] = '\0';
            struct in_addr a4;
            if (inet_pton(AF_INET, host, &a4) != 1)
                return false;
        }
    }
    const char *port = colon != NULL ? colon + 1 : value;
    uint64_t n;
    if (!pw_parse_decimal(port, len - (size_t)(port - value), 65535, &n) || n == 0)
        return false;
    memcpy(opts->metrics_host, host, sizeof(host));
    opts->metrics_port = (uint16_t)n;
    return true;
}

static const struct pw_option_spec specs[] = {
    {"file", "PATH", "stderr", "append every report to PATH (created 0600; %p is replaced by the pid)",
     PATH_ROW(file)},
    {"format", "text|json|collapsed|openmetrics", "text",
     "text: an aligned table for people; json: JSON Lines, one line per report; collapsed: live bytes per "
     "stack for flame graphs; openmetrics: Prometheus metrics, and file= is then replaced atomically at each "
     "report (for node_exporter's textfile collector), not appended to",
     WORD_ROW(set_format)},
    {"log", "stderr|none|PATH", "stderr",
     "where pinwatch's own [pinwatch] lines go (UNRELEASED, errors, warnings): none drops them, PATH appends "
     "them to that file (created 0600; %p is replaced by the pid), so that stderr is left to the application",
     WORD_ROW(set_log)},
    {"stack", "N", "16",
     "native frames kept per call site (0-64; 0: the call site only); taken when a site is new, then again at "
     "most every " PW_STR(PW_SAMPLE_MS) " ms, looked at on every " PW_STR(PW_SAMPLE_PERIOD) "th Get of a thread",
     UINT_ROW(stack, 0, 64)},
    {"javastack", "N", "8", "Java frames above the native method kept per call site (0-64)",
     UINT_ROW(javastack, 0, 64)},
    {"critical_ms", "MS", "10", "critical regions held longer than MS are reported as long_critical",
     UINT_ROW(critical_ms, 0, UINT64_C(1) << 32)},
    {"threshold", "N", "10000",
     "write a report when N live pins are reached, again at 2N, 4N, ...; 0 turns it off",
     UINT_ROW(threshold, 0, UINT64_C(1) << 40)},
    {"interval", "SECONDS", "0", "write a report every SECONDS (decimals allowed, at least 0.01); 0 turns it off",
     WORD_ROW(set_interval)},
    {"exitcode", "N", "off", "after the exit report, end the process with status N (1-255) if leaked pins remain",
     UINT_ROW(exitcode, 1, 255)},
    {"refs", "on|off", "on",
     "track JNI global, weak global and local references per native method; off: their functions are not "
     "wrapped at all",
     SWITCH_ROW(refs)},
    {"ref_threshold", "N", "0",
     "write a report when N live global and weak references (and locals of attached threads) are reached, "
     "again at 2N, 4N, ...; 0 turns it off",
     UINT_ROW(ref_threshold, 0, UINT64_C(1) << 40)},
    /* HotSpot's -Xcheck:jni warned above 16 locals plus the frame's
     * declared capacity: a bar correct code crosses all the time (one loop
     * over an array of 100 objects).  A leak worth a finding is an
     * invocation that keeps making locals without deleting them: thousands,
     * not dozens.  Each costs the JVM 8 bytes of handle block and keeps its
     * object alive until the method returns. */
    {"local_limit", "N", "10000",
     "one native method invocation holding more than N local references is a local_limit finding (1-2^30)",
     UINT_ROW(local_limit, 1, UINT64_C(1) << 30)},
    {"ref_exitcode", "N", "off",
     "after the exit report, end the process with status N (1-255) if there was a double_delete or "
     "local_limit finding, or (with ref_threshold) that many references are still live",
     UINT_ROW(ref_exitcode, 1, 255)},
    {"suppress", "FILE", "none",
     "rules for pins kept on purpose: method:GLOB, library:GLOB, function:NAME, # comments", PATH_ROW(suppress)},
    {"metrics", "[HOST:]PORT", "off",
     "serve the current figures at http://HOST:PORT/metrics for Prometheus, from the agent's own thread; "
     "HOST is a numeric address, 127.0.0.1 when not given ([::1] style for IPv6)",
     WORD_ROW(set_metrics)},
    {"metrics_rows", "N", "20",
     "rows named in metrics (1-10000), the largest by live bytes; the rest are summed into one 'other' row",
     UINT_ROW(metrics_rows, 1, 10000)},
    {"dump", "", "", "when loaded again into a JVM where pinwatch runs: write a report now (with file=, format=)",
     WORD_ROW(NULL)},
    {"help", "", "", "print this list and stop the JVM", WORD_ROW(NULL)},
};

#define SPEC_COUNT (sizeof(specs) / sizeof(specs[0]))
_Static_assert(SPEC_COUNT <= 64, "struct pw_options.given has one bit per row");

const struct pw_option_spec *
pw_option_specs(size_t *count)
{
    *count = SPEC_COUNT;
    return specs;
}

void
pw_options_defaults(struct pw_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        const char *d = specs[i].fallback;
        /* Numbers and switches are set from the table; "off" and the
         * words' defaults ("stderr", "none", "text") name what the zeroed
         * struct already means.  A table default its own setter refuses is
         * a bug that tests/unit (options) catches; the field then keeps its
         * zero. */
        bool valued = specs[i].kind == PW_OPT_UINT || specs[i].kind == PW_OPT_SWITCH;
        if (specs[i].set != NULL && valued && strcmp(d, "off") != 0)
            (void)specs[i].set(opts, &specs[i], d, strlen(d));
    }
    opts->given = 0;
}

static size_t
spec_index(const char *key)
{
    for (size_t i = 0; i < SPEC_COUNT; i++)
        if (strcmp(specs[i].key, key) == 0)
            return i;
    return SPEC_COUNT;
}

bool
pw_options_given(const struct pw_options *opts, const char *key)
{
    size_t i = spec_index(key);
    return i < SPEC_COUNT && (opts->given & (UINT64_C(1) << i)) != 0;
}

const char *
pw_options_given_outside(const struct pw_options *opts, const char *const *allowed)
{
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        if ((opts->given & (UINT64_C(1) << i)) == 0)
            continue;
        bool ok = false;
        for (const char *const *a = allowed; *a != NULL && !ok; a++)
            ok = strcmp(*a, specs[i].key) == 0;
        if (!ok)
            return specs[i].key;
    }
    return NULL;
}

/* Copies at most 64 bytes of a user's text into an error line, so that a
 * 64 KiB option string still gives a one-line message. */
static void
quote(char *dst, size_t dstlen, const char *src, size_t len)
{
    /* Control characters are written as \xNN: an option string with a
     * newline must not end the line (or forge another [pinwatch] line). */
    size_t n = len < 64 ? len : 64, o = 0;
    for (size_t i = 0; i < n && o + 5 < dstlen; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(dst + o, dstlen - o, "\\x%02x", c);
        else
            dst[o++] = (char)c;
    }
    snprintf(dst + o, dstlen - o, "%s", len > n ? "..." : "");
}

static bool
parse_item(const char *item, size_t len, struct pw_options *opts, char *err, size_t errlen)
{
    char shown[300];
    const char *eq = memchr(item, '=', len);
    size_t keylen = eq != NULL ? (size_t)(eq - item) : len;

    if (keylen == 4 && memcmp(item, "help", 4) == 0 && eq == NULL) {
        opts->help = true;
        opts->given |= UINT64_C(1) << spec_index("help");
        return true;
    }
    if (keylen == 4 && memcmp(item, "dump", 4) == 0 && eq == NULL) {
        opts->dump = true;
        opts->given |= UINT64_C(1) << spec_index("dump");
        return true;
    }
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        const struct pw_option_spec *spec = &specs[i];
        if (spec->set == NULL || strlen(spec->key) != keylen || memcmp(spec->key, item, keylen) != 0)
            continue;
        if (eq == NULL) {
            snprintf(err, errlen, "option '%s' needs a value (%s=%s)", spec->key, spec->key, spec->values);
            return false;
        }
        const char *value = eq + 1;
        size_t vlen = len - keylen - 1;
        if (!spec->set(opts, spec, value, vlen)) {
            quote(shown, sizeof(shown), value, vlen);
            snprintf(err, errlen, "bad value '%s' for option '%s' (expected %s)", shown, spec->key, spec->values);
            return false;
        }
        opts->given |= UINT64_C(1) << i;
        return true;
    }
    quote(shown, sizeof(shown), item, keylen);
    snprintf(err, errlen, "unknown option '%s' (try -agentpath:libpinwatch.so=help)", shown);
    return false;
}

bool
pw_options_parse(const char *text, struct pw_options *opts, char *err, size_t errlen)
{
    pw_options_defaults(opts);
    if (text == NULL)
        return true;
    const char *p = text;
    while (*p != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            char shown[300];
            quote(shown, sizeof(shown), text, strlen(text));
            snprintf(err, errlen, "empty option in '%s' (options are key=value separated by commas)", shown);
            return false;
        }
        if (!parse_item(p, len, opts, err, errlen))
            return false;
        p += len;
        if (*p == ',')
            p++;
    }
    return true;
}

void
pw_options_print_help(FILE *out)
{
    fprintf(out,
            "pinwatch %s: counts JNI pins per Java native method and reports the leaks.\n"
            "Usage: -agentpath:/path/libpinwatch.so=key=value,key=value,...\n"
            "Options:\n",
            PINWATCH_VERSION);
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        const struct pw_option_spec *spec = &specs[i];
        char left[48];
        snprintf(left, sizeof(left), "%s%s%s", spec->key, spec->values[0] ? "=" : "", spec->values);
        fprintf(out, "  %-26s %s", left, spec->help);
        if (spec->fallback[0] != '\0')
            fprintf(out, " (default: %s)", spec->fallback);
        fputc('\n', out);
    }
}
