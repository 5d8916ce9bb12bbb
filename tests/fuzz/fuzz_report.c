/* SPDX-License-Identifier: Apache-2.0 */
/* The three report writers fed a struct pw_snapshot built from the input
 * (strings, counts, stacks, findings):
 *   json       exactly one line; json-c parses it (strictly, and as UTF-8
 *              when every string put in is UTF-8); the rows, sites and
 *              findings are all there with the counts put in;
 *   collapsed  one line per site holding pins, each ending in its live
 *              bytes, so the lines add up;
 *   text       ends in a newline, holds no NUL;
 *   openmetrics every line a # HELP/TYPE/UNIT/EOF comment or a sample whose
 *              label values are escaped as the format says; valid UTF-8
 *              whatever went in; the row bound holds and the live pins of
 *              the samples add up to the rows'. */
#include "report/report.h"
#include "fuzz_check.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

struct reader {
    const uint8_t *p, *end;
    bool utf8; /* strings are valid UTF-8 */
    /* Everything allocated for one snapshot, freed at the end. */
    void *owned[4096];
    size_t nowned;
};

static unsigned
byte(struct reader *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

static uint64_t
u64(struct reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | byte(r);
    return v;
}

static void *
own(struct reader *r, void *p)
{
    if (r->nowned < sizeof(r->owned) / sizeof(r->owned[0]))
        r->owned[r->nowned++] = p;
    return p;
}

static void *
alloc(struct reader *r, size_t n)
{
    return own(r, calloc(1, n ? n : 1));
}

/* A string of up to 31 bytes from the input; NUL bytes are skipped.  In
 * UTF-8 mode, bytes >= 0x80 become "é" or "中". */
static const char *
string(struct reader *r)
{
    unsigned len = byte(r) % 32;
    char *s = alloc(r, len * 3 + 1), *o = s;
    for (unsigned i = 0; i < len; i++) {
        unsigned c = byte(r);
        if (c == 0)
            continue;
        if (r->utf8 && c >= 0x80) {
            const char *m = c & 1 ? "\xc3\xa9" : "\xe4\xb8\xad";
            memcpy(o, m, strlen(m));
            o += strlen(m);
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    return s;
}

static const char *
maybe_string(struct reader *r)
{
    return byte(r) & 1 ? string(r) : NULL;
}

static void
stack(struct reader *r, struct pw_snap_stack *st)
{
    st->n = (int)(byte(r) % 6);
    st->frames = alloc(r, (size_t)st->n * sizeof(*st->frames));
    for (int i = 0; i < st->n; i++) {
        struct pw_snap_frame *f = &st->frames[i];
        f->address = (uintptr_t)u64(r, 8);
        f->where.symbol = maybe_string(r);
        f->where.offset = u64(r, 2);
        f->where.library = maybe_string(r);
        f->where.file = maybe_string(r);
        f->where.line = (int)(u64(r, 2));
        unsigned flags = byte(r);
        f->inlined = flags & 1;
        f->tail_call = flags & 2;
    }
}

static void
build(struct reader *r, struct pw_snapshot *snap)
{
    static const char *const reasons[] = {"exit", "jcmd", "threshold", "interval", "command"};
    memset(snap, 0, sizeof(*snap));
    unsigned rc = byte(r);
    snap->reason = rc < 250 ? reasons[rc % 5] : string(r);
    snap->pid = (long)u64(r, 3);
    snap->uptime_ms = u64(r, 5);
    snap->time_ms = u64(r, 6);
    snap->since_ms = u64(r, 3);
    uint64_t *t = &snap->totals.acquired;
    /* Every totals field, as the struct lays them out (all uint64_t). */
    for (size_t i = 0; i < sizeof(snap->totals) / sizeof(uint64_t); i++)
        t[i] = u64(r, byte(r) % 9);

    snap->nsites = byte(r) % 12;
    snap->sites = alloc(r, snap->nsites * sizeof(*snap->sites));
    for (size_t i = 0; i < snap->nsites; i++) {
        struct pw_snap_site *s = &snap->sites[i];
        s->site = (uint32_t)i;
        s->ret = (uintptr_t)u64(r, 8);
        s->acquired = u64(r, 6);
        s->released = u64(r, 6);
        s->live = u64(r, 1) % 4 == 0 ? 0 : u64(r, 4);
        s->live_bytes = u64(r, 6);
        s->leaked = u64(r, 4);
        s->oldest_age_ms = u64(r, 4);
        s->nstacks = 1 + (int)(byte(r) % PW_SITE_STACKS);
        for (int k = 0; k < s->nstacks; k++)
            stack(r, &s->stacks[k]);
        if (byte(r) & 1) {
            int n = (int)(byte(r) % 4);
            struct pw_java_stack *js = alloc(r, sizeof(*js) + (size_t)n * sizeof(js->frames[0]));
            js->n = n;
            for (int k = 0; k < n; k++) {
                js->frames[k].method = (char *)string(r);
                js->frames[k].signature = (char *)string(r);
                js->frames[k].line = (int)u64(r, 2) - 1;
            }
            s->java_stack = js;
        }
    }
    /* Rows take consecutive runs of the sites. */
    snap->nrows = byte(r) % 8;
    snap->rows = alloc(r, snap->nrows * sizeof(*snap->rows));
    size_t next_site = 0;
    for (size_t i = 0; i < snap->nrows; i++) {
        struct pw_snap_row *row = &snap->rows[i];
        row->method = string(r);
        row->signature = string(r);
        row->fn = byte(r) % (PW_FN_COUNT + 1);
        row->acquired = u64(r, 6);
        row->released = u64(r, 6);
        row->commits = u64(r, 2);
        row->live = u64(r, 4);
        row->live_bytes = u64(r, 6);
        row->leaked = u64(r, 4);
        row->suppressed = u64(r, 2);
        row->oldest_age_ms = u64(r, 4);
        row->live_delta = (int64_t)u64(r, 4) - (INT64_C(1) << 31);
        row->acquired_delta = u64(r, 5);
        /* As report.c computes it. */
        row->acquired_per_s = snap->since_ms > 0 ? (double)row->acquired_delta * 1000.0 / (double)snap->since_ms : 0;
        size_t n = byte(r) % 4;
        if (n > snap->nsites - next_site)
            n = snap->nsites - next_site;
        row->sites = &snap->sites[next_site];
        row->nsites = n;
        next_site += n;
    }
    snap->nfindings = byte(r) % 5;
    snap->findings = alloc(r, snap->nfindings * sizeof(*snap->findings));
    for (size_t i = 0; i < snap->nfindings; i++) {
        static const char *const kinds[] = {"double_release", "wrong_object", "wrong_function", "jni_in_critical",
                                            "long_critical"};
        struct pw_snap_finding *f = &snap->findings[i];
        f->kind = kinds[byte(r) % 5];
        f->method = string(r);
        f->signature = string(r);
        f->function = pw_function_name(byte(r) % (PW_FN_COUNT + 2));
        f->call_function = byte(r) & 1 ? "ReleaseIntArrayElements" : "GetObjectClass";
        f->count = u64(r, 4);
        f->max_ms = u64(r, 1) & 1 ? u64(r, 3) : 0;
        f->p99_ms = u64(r, 3);
        f->has_site = byte(r) & 1;
        stack(r, &f->acquire);
        stack(r, &f->call);
    }
}

/* Sites that end up in some row and hold pins: collapsed's lines. */
static void
collapsed_expect(const struct pw_snapshot *snap, size_t *lines, uint64_t *bytes)
{
    *lines = 0;
    *bytes = 0;
    for (size_t i = 0; i < snap->nrows; i++)
        for (size_t j = 0; j < snap->rows[i].nsites; j++)
            if (snap->rows[i].sites[j].live > 0) {
                (*lines)++;
                *bytes += snap->rows[i].sites[j].live_bytes;
            }
}

static void
check_json(const struct pw_snapshot *snap, const struct pw_strbuf *out, bool utf8)
{
    CHECK(!out->failed && out->len > 0 && out->data[out->len - 1] == '\n', "json: not one terminated line");
    CHECK(memchr(out->data, '\n', out->len - 1) == NULL, "json: a newline inside the line");
    CHECK(strlen(out->data) == out->len, "json: NUL inside");
    struct json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | (utf8 ? JSON_TOKENER_VALIDATE_UTF8 : 0));
    struct json_object *root = json_tokener_parse_ex(tok, out->data, (int)out->len - 1);
    enum json_tokener_error e = json_tokener_get_error(tok);
    CHECK(root != NULL && e == json_tokener_success, "json does not parse (%s) at offset %zu of %zu: %.200s",
          json_tokener_error_desc(e), json_tokener_get_parse_end(tok), out->len,
          out->data + (json_tokener_get_parse_end(tok) > 100 ? json_tokener_get_parse_end(tok) - 100 : 0));
    CHECK(json_tokener_get_parse_end(tok) == out->len - 1, "json: trailing text after the object");
    json_tokener_free(tok);

    struct json_object *totals, *rows, *findings, *v;
    CHECK(json_object_object_get_ex(root, "totals", &totals) && json_object_object_get_ex(root, "rows", &rows) &&
              json_object_object_get_ex(root, "findings", &findings),
          "json: totals, rows or findings missing");
    CHECK(json_object_array_length(rows) == snap->nrows, "json: %zu rows, put in %zu",
          json_object_array_length(rows), snap->nrows);
    CHECK(json_object_array_length(findings) == snap->nfindings, "json: %zu findings, put in %zu",
          json_object_array_length(findings), snap->nfindings);
    CHECK(json_object_object_get_ex(totals, "acquired", &v) && json_object_get_uint64(v) == snap->totals.acquired,
          "json: totals.acquired %" PRIu64 " put in, %" PRIu64 " read", snap->totals.acquired,
          json_object_get_uint64(v));
    CHECK(json_object_object_get_ex(totals, "table_bytes", &v) &&
              json_object_get_uint64(v) == snap->totals.table_bytes,
          "json: totals.table_bytes");
    for (size_t i = 0; i < snap->nrows; i++) {
        struct json_object *row = json_object_array_get_idx(rows, i), *sites, *m;
        CHECK(json_object_object_get_ex(row, "sites", &sites) &&
                  json_object_array_length(sites) == snap->rows[i].nsites,
              "json: row %zu sites", i);
        CHECK(json_object_object_get_ex(row, "live", &v) && json_object_get_uint64(v) == snap->rows[i].live,
              "json: row %zu live", i);
        /* A name of printable ASCII reads back as it went in; other bytes
         * are escaped or replaced (the writer emits valid UTF-8 only). */
        bool ascii = true;
        for (const char *c = snap->rows[i].method; *c != '\0'; c++)
            ascii = ascii && (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f;
        CHECK(json_object_object_get_ex(row, "method", &m) &&
                  (!ascii || strcmp(json_object_get_string(m), snap->rows[i].method) == 0),
              "json: row %zu method %s read back as %s", i, snap->rows[i].method, json_object_get_string(m));
    }
    json_object_put(root);
}

static void
check_collapsed(const struct pw_snapshot *snap, const struct pw_strbuf *out)
{
    size_t want_lines;
    uint64_t want_bytes;
    collapsed_expect(snap, &want_lines, &want_bytes);
    size_t lines = 0;
    uint64_t bytes = 0;
    const char *p = out->data ? out->data : "";
    CHECK(strlen(p) == out->len, "collapsed: NUL inside");
    while (*p) {
        const char *nl = strchr(p, '\n');
        CHECK(nl != NULL, "collapsed: last line unterminated");
        const char *sp = nl;
        while (sp > p && sp[-1] != ' ')
            sp--;
        CHECK(sp > p && sp < nl, "collapsed: line without a count: %.*s", (int)(nl - p), p);
        char *end;
        unsigned long long n = strtoull(sp, &end, 10);
        CHECK(end == nl, "collapsed: count not a number: %.*s", (int)(nl - sp), sp);
        bytes += n;
        lines++;
        p = nl + 1;
    }
    CHECK(lines == want_lines && bytes == want_bytes, "collapsed: %zu lines / %" PRIu64 " bytes, expected %zu / %" PRIu64,
          lines, bytes, want_lines, want_bytes);
}

/* Length of the well-formed UTF-8 sequence at p, 0 if there is none. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || (size_t)(end - p) < n)
        return 0;
    unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80, hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (n > 1 && (p[1] < lo || p[1] > hi))
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

static void
check_openmetrics(const struct pw_snapshot *snap, const struct pw_strbuf *out, const struct pw_metrics_style *style)
{
    CHECK(!out->failed && out->len > 0 && out->data[out->len - 1] == '\n', "openmetrics: not terminated");
    const unsigned char *u = (const unsigned char *)out->data, *uend = u + out->len;
    for (const unsigned char *q = u; q < uend;) {
        size_t n = utf8_len(q, uend);
        CHECK(n > 0 && *q != '\0', "openmetrics: not UTF-8 at offset %zu", (size_t)(q - u));
        q += n;
    }
    size_t live_samples = 0, lines = 0;
    uint64_t live_sum = 0;
    bool eof = false;
    for (const char *p = out->data; p < out->data + out->len;) {
        const char *nl = memchr(p, '\n', (size_t)(out->data + out->len - p));
        CHECK(nl != NULL && !eof, "openmetrics: a line after # EOF or unterminated");
        lines++;
        if (p[0] == '#') {
            CHECK(strncmp(p, "# HELP pinwatch_", 16) == 0 || strncmp(p, "# TYPE pinwatch_", 16) == 0 ||
                      strncmp(p, "# UNIT pinwatch_", 16) == 0 || (nl - p == 5 && strncmp(p, "# EOF", 5) == 0),
                  "openmetrics: stray comment %.*s", (int)(nl - p), p);
            eof = nl - p == 5;
            p = nl + 1;
            continue;
        }
        const char *q = p;
        while (q < nl && ((*q >= 'a' && *q <= 'z') || *q == '_'))
            q++;
        CHECK(q > p && strncmp(p, "pinwatch_", 9) == 0, "openmetrics: bad name %.*s", (int)(nl - p), p);
        bool live = (size_t)(q - p) == strlen("pinwatch_live_pins") && strncmp(p, "pinwatch_live_pins", 18) == 0;
        if (*q == '{') {
            q++;
            while (*q != '}') {
                const char *k = q;
                while (q < nl && *q >= 'a' && *q <= 'z')
                    q++;
                CHECK(q > k && q + 1 < nl && q[0] == '=' && q[1] == '"', "openmetrics: bad label at %.40s", k);
                q += 2;
                while (q < nl && *q != '"') {
                    if (*q == '\\') {
                        CHECK(q[1] == '\\' || q[1] == '"' || q[1] == 'n', "openmetrics: bad escape \\%c", q[1]);
                        q++;
                    }
                    q++;
                }
                CHECK(q < nl, "openmetrics: label value runs past the line");
                q++;
                if (*q == ',')
                    q++;
                else
                    CHECK(*q == '}', "openmetrics: labels not closed");
            }
            q++;
        }
        CHECK(*q == ' ', "openmetrics: no space before the value: %.*s", (int)(nl - p), p);
        char *end;
        unsigned long long v = strtoull(q + 1, &end, 10);
        CHECK(end == nl && q[1] >= '0' && q[1] <= '9', "openmetrics: value not an integer: %.*s", (int)(nl - q), q);
        if (live) {
            live_samples++;
            live_sum += v;
        }
        p = nl + 1;
    }
    size_t named = snap->nrows < style->rows ? snap->nrows : style->rows;
    CHECK(live_samples == named + (snap->nrows > named), "openmetrics: %zu live_pins samples for %zu rows, bound %zu",
          live_samples, snap->nrows, style->rows);
    uint64_t want = 0;
    for (size_t i = 0; i < snap->nrows; i++)
        want += snap->rows[i].live;
    CHECK(live_sum == want, "openmetrics: live pins add up to %" PRIu64 ", rows to %" PRIu64, live_sum, want);
    CHECK(eof == style->openmetrics, "openmetrics: # EOF %s", eof ? "in 0.0.4 text" : "missing");
    (void)lines;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 15)
        return 0;
    struct reader *r = calloc(1, sizeof(*r));
    r->utf8 = !(data[0] & 1);
    r->p = data + 1;
    r->end = data + size;
    struct pw_snapshot snap;
    build(r, &snap);

    struct pw_strbuf out;
    pw_strbuf_init(&out);
    pw_report_json(&snap, &out);
    check_json(&snap, &out, r->utf8);
    pw_strbuf_free(&out);

    pw_report_collapsed(&snap, &out);
    check_collapsed(&snap, &out);
    pw_strbuf_free(&out);

    pw_report_text(&snap, &out);
    CHECK(!out.failed && out.len > 0 && out.data[out.len - 1] == '\n' && strlen(out.data) == out.len,
          "text: not newline-terminated text");
    pw_strbuf_free(&out);

    struct pw_metrics_style style = {.rows = 1 + data[0] / 2 % 5, .openmetrics = data[0] & 2, .pid_label = data[0] & 4};
    pw_report_openmetrics(&snap, &out, &style);
    check_openmetrics(&snap, &out, &style);
    pw_strbuf_free(&out);

    for (size_t i = 0; i < r->nowned; i++)
        free(r->owned[i]);
    free(r);
    return 0;
}
