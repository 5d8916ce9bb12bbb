/* SPDX-License-Identifier: Apache-2.0 */
#include "dumps.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a field is read from, for the error that names it. */
struct ctx {
    const char *file;
    long line;
    bool failed;
};

static void __attribute__((format(printf, 2, 3))) bad(struct ctx *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pw_error("%s:%ld: not a pinwatch report: %s", c->file, c->line, msg);
}

static json_object *
field(struct ctx *c, json_object *obj, const char *key, json_type type, bool required, const char *where)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (required)
            bad(c, "%s has no \"%s\"", where, key);
        return NULL;
    }
    /* An integer is also a valid number. */
    if (json_object_get_type(v) != type && !(type == json_type_double && json_object_is_type(v, json_type_int))) {
        if (required)
            bad(c, "\"%s\" of %s is not %s", key, where, json_type_to_name(type));
        return NULL;
    }
    return v;
}

static uint64_t
get_u64(struct ctx *c, json_object *obj, const char *key, bool required, const char *where)
{
    json_object *v = field(c, obj, key, json_type_int, required, where);
    if (v == NULL)
        return 0;
    if (json_object_get_int64(v) < 0) {
        bad(c, "\"%s\" of %s is negative", key, where);
        return 0;
    }
    return json_object_get_uint64(v);
}

static int64_t
get_i64(struct ctx *c, json_object *obj, const char *key, bool required, const char *where)
{
    json_object *v = field(c, obj, key, json_type_int, required, where);
    return v != NULL ? json_object_get_int64(v) : 0;
}

/* NULL for an absent or null string when not required. */
static char *
get_str(struct ctx *c, json_object *obj, const char *key, bool required, const char *where)
{
    json_object *v = NULL;
    if (json_object_object_get_ex(obj, key, &v) && v == NULL && !required)
        return NULL;
    v = field(c, obj, key, json_type_string, required, where);
    return v != NULL ? pw_xstrdup(json_object_get_string(v)) : (required ? pw_xstrdup("") : NULL);
}

/* counted: the sites of a row, which carry live and live_bytes; a
 * finding's sites (README, "Findings") have a role and frames only. */
static void
read_sites(struct ctx *c, json_object *arr, struct dump_site **out, size_t *n, const char *where, bool counted)
{
    size_t len = json_object_array_length(arr);
    *out = pw_xmalloc(len * sizeof(**out));
    memset(*out, 0, len * sizeof(**out));
    *n = len;
    for (size_t i = 0; i < len; i++) {
        json_object *s = json_object_array_get_idx(arr, i);
        struct dump_site *site = &(*out)[i];
        if (!json_object_is_type(s, json_type_object)) {
            bad(c, "a site of %s is not an object", where);
            return;
        }
        site->live = get_u64(c, s, "live", counted, "a site");
        site->live_bytes = get_u64(c, s, "live_bytes", counted, "a site");
        site->acquired = get_u64(c, s, "acquired", false, "a site");
        site->released = get_u64(c, s, "released", false, "a site");
        json_object *frames = field(c, s, "frames", json_type_array, false, "a site");
        size_t nf = frames != NULL ? json_object_array_length(frames) : 0;
        site->frames = pw_xmalloc(nf * sizeof(*site->frames));
        memset(site->frames, 0, nf * sizeof(*site->frames));
        site->nframes = nf;
        for (size_t j = 0; j < nf; j++) {
            json_object *f = json_object_array_get_idx(frames, j);
            struct dump_frame *fr = &site->frames[j];
            if (!json_object_is_type(f, json_type_object)) {
                bad(c, "a frame of %s is not an object", where);
                return;
            }
            fr->address = get_str(c, f, "address", true, "a frame");
            fr->symbol = get_str(c, f, "symbol", false, "a frame");
            fr->library = get_str(c, f, "library", false, "a frame");
            fr->file = get_str(c, f, "file", false, "a frame");
            fr->offset = get_i64(c, f, "offset", false, "a frame");
            fr->line = field(c, f, "line", json_type_int, false, "a frame") != NULL
                           ? get_i64(c, f, "line", false, "")
                           : -1;
            json_object *tc = field(c, f, "tail_call", json_type_boolean, false, "a frame");
            fr->tail_call = tc != NULL && json_object_get_boolean(tc);
        }
        json_object *java = field(c, s, "java_stack", json_type_array, false, "a site");
        size_t nj = java != NULL ? json_object_array_length(java) : 0;
        site->java = pw_xmalloc(nj * sizeof(*site->java));
        memset(site->java, 0, nj * sizeof(*site->java));
        site->njava = nj;
        for (size_t j = 0; j < nj; j++) {
            json_object *f = json_object_array_get_idx(java, j);
            struct pw_jframe *jf = &site->java[j];
            if (!json_object_is_type(f, json_type_object)) {
                bad(c, "a java_stack frame of %s is not an object", where);
                return;
            }
            jf->method = get_str(c, f, "method", true, "a java_stack frame");
            jf->signature = get_str(c, f, "signature", false, "a java_stack frame");
            jf->line =
                field(c, f, "line", json_type_int, false, "") != NULL ? get_i64(c, f, "line", false, "") : -1;
        }
    }
}

static void
read_dump(struct ctx *c, json_object *o, struct pw_dump *d)
{
    memset(d, 0, sizeof(*d));
    d->file = c->file;
    d->line = c->line;
    if (!json_object_is_type(o, json_type_object)) {
        bad(c, "the line is JSON but not an object");
        return;
    }
    json_object *tool = field(c, o, "tool", json_type_string, true, "the line");
    if (tool != NULL && strcmp(json_object_get_string(tool), "pinwatch") != 0) {
        bad(c, "\"tool\" is \"%.40s\", not \"pinwatch\"", json_object_get_string(tool));
        return;
    }
    d->version = get_str(c, o, "version", true, "the report");
    d->reason = get_str(c, o, "reason", true, "the report");
    d->pid = get_i64(c, o, "pid", true, "the report");
    d->host = get_str(c, o, "host", false, "the report");
    d->time_ms = get_u64(c, o, "time_ms", true, "the report");
    d->uptime_ms = get_u64(c, o, "uptime_ms", true, "the report");
    d->since_ms = get_u64(c, o, "since_ms", false, "the report");
    json_object *t = field(c, o, "totals", json_type_object, true, "the report");
    if (t != NULL) {
        d->totals.acquired = get_u64(c, t, "acquired", true, "totals");
        d->totals.released = get_u64(c, t, "released", true, "totals");
        d->totals.live = get_u64(c, t, "live", true, "totals");
        d->totals.live_bytes = get_u64(c, t, "live_bytes", true, "totals");
        d->totals.leaked = get_u64(c, t, "leaked", false, "totals");
        d->totals.held = get_u64(c, t, "held", false, "totals");
        d->totals.carried = get_u64(c, t, "carried", false, "totals");
        d->totals.suppressed = get_u64(c, t, "suppressed", false, "totals");
        d->totals.unmatched_releases = get_u64(c, t, "unmatched_releases", false, "totals");
        d->totals.lost = get_u64(c, t, "lost", false, "totals");
    }
    json_object *rows = field(c, o, "rows", json_type_array, true, "the report");
    size_t nrows = rows != NULL ? json_object_array_length(rows) : 0;
    d->rows = pw_xmalloc(nrows * sizeof(*d->rows));
    memset(d->rows, 0, nrows * sizeof(*d->rows));
    d->nrows = nrows;
    for (size_t i = 0; i < nrows && !c->failed; i++) {
        json_object *r = json_object_array_get_idx(rows, i);
        struct pw_row *row = &d->rows[i];
        if (!json_object_is_type(r, json_type_object)) {
            bad(c, "rows[%zu] is not an object", i);
            break;
        }
        char where[32];
        snprintf(where, sizeof(where), "rows[%zu]", i);
        row->method = get_str(c, r, "method", true, where);
        row->signature = get_str(c, r, "signature", false, where);
        row->function = get_str(c, r, "function", true, where);
        row->acquired = get_u64(c, r, "acquired", true, where);
        row->released = get_u64(c, r, "released", true, where);
        row->live = get_u64(c, r, "live", true, where);
        row->live_bytes = get_u64(c, r, "live_bytes", true, where);
        row->leaked = get_u64(c, r, "leaked", false, where);
        row->held = get_u64(c, r, "held", false, where);
        row->carried = get_u64(c, r, "carried", false, where);
        row->suppressed = get_u64(c, r, "suppressed", false, where);
        row->commits = get_u64(c, r, "commits", false, where);
        row->oldest_age_ms = get_u64(c, r, "oldest_age_ms", false, where);
        row->live_delta = get_i64(c, r, "live_delta", false, where);
        json_object *sites = field(c, r, "sites", json_type_array, false, where);
        if (sites != NULL)
            read_sites(c, sites, &row->sites, &row->nsites, where, true);
    }
    json_object *refs = field(c, o, "references", json_type_object, false, "the report");
    json_object *ref_rows = refs != NULL ? field(c, refs, "rows", json_type_array, true, "references") : NULL;
    if (ref_rows != NULL && !c->failed) {
        d->has_refs = true;
        size_t n = json_object_array_length(ref_rows);
        d->refs = pw_xmalloc(n * sizeof(*d->refs));
        memset(d->refs, 0, n * sizeof(*d->refs));
        d->nrefs = n;
        for (size_t i = 0; i < n && !c->failed; i++) {
            json_object *r = json_object_array_get_idx(ref_rows, i);
            struct pw_ref_row *rr = &d->refs[i];
            if (!json_object_is_type(r, json_type_object)) {
                bad(c, "references.rows[%zu] is not an object", i);
                break;
            }
            rr->kind = get_str(c, r, "kind", true, "a reference row");
            rr->method = get_str(c, r, "method", true, "a reference row");
            rr->function = get_str(c, r, "function", true, "a reference row");
            rr->created = get_u64(c, r, "created", true, "a reference row");
            rr->deleted = get_u64(c, r, "deleted", false, "a reference row");
            rr->freed = get_u64(c, r, "freed", false, "a reference row");
            rr->live = get_u64(c, r, "live", true, "a reference row");
        }
    }
    json_object *findings = field(c, o, "findings", json_type_array, false, "the report");
    if (findings != NULL && !c->failed) {
        d->has_findings = true;
        size_t n = json_object_array_length(findings);
        d->findings = pw_xmalloc(n * sizeof(*d->findings));
        memset(d->findings, 0, n * sizeof(*d->findings));
        d->nfindings = n;
        for (size_t i = 0; i < n && !c->failed; i++) {
            json_object *f = json_object_array_get_idx(findings, i);
            struct pw_finding *fd = &d->findings[i];
            if (!json_object_is_type(f, json_type_object)) {
                bad(c, "findings[%zu] is not an object", i);
                break;
            }
            fd->kind = get_str(c, f, "kind", true, "a finding");
            fd->method = get_str(c, f, "method", false, "a finding");
            fd->function = get_str(c, f, "function", false, "a finding");
            fd->count = get_u64(c, f, "count", false, "a finding");
            json_object *sites = field(c, f, "sites", json_type_array, false, "a finding");
            if (sites != NULL)
                read_sites(c, sites, &fd->sites, &fd->nsites, "a finding", false);
        }
    }
}

static bool
blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

bool
pw_dumps_parse(const char *name, const char *data, size_t len, struct pw_dumps *out)
{
    memset(out, 0, sizeof(*out));
    size_t cap = 0;
    struct ctx c = {.file = name};
    const char *p = data, *end = data + len;
    json_tokener *tok = json_tokener_new();
    if (tok == NULL) {
        pw_error("out of memory");
        return false;
    }
    while (p < end && !c.failed) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl != NULL ? nl : end;
        size_t n = (size_t)(line_end - p);
        const char *line = p;
        p = nl != NULL ? nl + 1 : end;
        c.line++;
        if (blank(line, n) || (n >= 10 && memcmp(line, "[pinwatch]", 10) == 0))
            continue;
        json_tokener_reset(tok);
        json_object *o = json_tokener_parse_ex(tok, line, (int)n);
        enum json_tokener_error err = json_tokener_get_error(tok);
        bool parsed = o != NULL && err == json_tokener_success && (size_t)json_tokener_get_parse_end(tok) >= n;
        if (parsed && !blank(line + json_tokener_get_parse_end(tok), n - json_tokener_get_parse_end(tok))) {
            parsed = false;
            err = json_tokener_error_parse_unexpected;
        }
        if (!parsed) {
            json_object_put(o);
            /* The last line of the file, cut short by a JVM that ended in the
             * middle of writing it: what came before is whole. */
            bool last = blank(p, (size_t)(end - p));
            if (last && (nl == NULL || err == json_tokener_continue)) {
                pw_warn("%s:%ld: the last line is cut short (the JVM ended while writing it?); skipped", name,
                        c.line);
                break;
            }
            pw_error("%s:%ld: malformed JSON: %s", name, c.line,
                     err == json_tokener_continue ? "the line ends inside a value"
                                                  : json_tokener_error_desc(err));
            c.failed = true;
            break;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->items = pw_xrealloc(out->items, cap * sizeof(*out->items));
        }
        read_dump(&c, o, &out->items[out->n++]);
        json_object_put(o);
    }
    json_tokener_free(tok);
    if (!c.failed && out->n == 0) {
        pw_error("%s: no pinwatch report in it (run the agent with format=json)", name);
        c.failed = true;
    }
    if (c.failed) {
        pw_dumps_free(out);
        return false;
    }
    return true;
}

bool
pw_dumps_read(const char *path, struct pw_dumps *out)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "rbe");
    if (f == NULL) {
        pw_error("cannot open %s: %s", path, strerror(errno));
        return false;
    }
    struct pw_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        pw_buf_add(&b, chunk, n);
    bool err = ferror(f);
    int saved = errno;
    fclose(f);
    if (err) {
        pw_error("cannot read %s: %s", path, strerror(saved));
        pw_buf_free(&b);
        return false;
    }
    bool ok = pw_dumps_parse(path, b.data != NULL ? b.data : "", b.len, out);
    pw_buf_free(&b);
    return ok;
}

static void
free_sites(struct dump_site *sites, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sites[i].nframes; j++) {
            free(sites[i].frames[j].address);
            free(sites[i].frames[j].symbol);
            free(sites[i].frames[j].library);
            free(sites[i].frames[j].file);
        }
        free(sites[i].frames);
        for (size_t j = 0; j < sites[i].njava; j++) {
            free(sites[i].java[j].method);
            free(sites[i].java[j].signature);
        }
        free(sites[i].java);
    }
    free(sites);
}

void
pw_dumps_free(struct pw_dumps *d)
{
    for (size_t i = 0; i < d->n; i++) {
        struct pw_dump *x = &d->items[i];
        free(x->version);
        free(x->host);
        free(x->reason);
        for (size_t j = 0; j < x->nrows; j++) {
            free(x->rows[j].method);
            free(x->rows[j].signature);
            free(x->rows[j].function);
            free_sites(x->rows[j].sites, x->rows[j].nsites);
        }
        free(x->rows);
        for (size_t j = 0; j < x->nfindings; j++) {
            free(x->findings[j].kind);
            free(x->findings[j].method);
            free(x->findings[j].function);
            free_sites(x->findings[j].sites, x->findings[j].nsites);
        }
        free(x->findings);
        for (size_t j = 0; j < x->nrefs; j++) {
            free(x->refs[j].kind);
            free(x->refs[j].method);
            free(x->refs[j].function);
        }
        free(x->refs);
    }
    free(d->items);
    memset(d, 0, sizeof(*d));
}
