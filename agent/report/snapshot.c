/* SPDX-License-Identifier: Apache-2.0 */
#include "report/snapshot.h"
#include "base/clock.h"
#include "tracking/findings.h"
#include "jvm/jni_table.h"
#include "state/leak_table.h"
#include "state/methods.h"
#include "state/ref_table.h"
#include "tracking/refs.h"
#include "state/stack_table.h"
#include "state/thread_state.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* refs=: reports carry a references section.  Written once by
 * pw_snapshot_start, before the JNI table swap. */
static bool refs_on;

void
pw_snapshot_start(const struct pw_options *o)
{
    refs_on = o->refs;
}

/* What the locked pass over the tables gathers, per site. */
struct live_sum {
    uint64_t live, bytes, leaked, leaked_bytes;
    uint32_t oldest_t;
    bool any;
};

struct figures {
    struct pw_thread_pass threads; /* counters per site, and the threads' sums */
    struct live_sum *sums;
    uint32_t nsites;
    uint32_t now;
    bool leaked;         /* visiting the leak table */
    uint64_t leak_bytes; /* the leak table's */
};

static void
note_live(struct figures *fig, uint32_t site, uint32_t t_ms, uint64_t size)
{
    if (site >= fig->nsites)
        return;
    struct live_sum *s = &fig->sums[site];
    /* A record made after this report read the clock is as young as can be. */
    if ((int32_t)(fig->now - t_ms) < 0)
        t_ms = fig->now;
    if (!s->any || fig->now - t_ms > fig->now - s->oldest_t)
        s->oldest_t = t_ms;
    s->any = true;
    s->live++;
    s->bytes += size;
    s->leaked += fig->leaked;
    s->leaked_bytes += fig->leaked ? size : 0;
}

static bool
add_pin(uintptr_t key, const struct pw_pin_info *info, void *arg)
{
    (void)key;
    note_live(arg, info->site, info->t_ms, info->size);
    return false;
}

static void
add_ref(uintptr_t handle, const struct pw_ref_info *info, void *arg)
{
    (void)handle;
    note_live(arg, info->site, info->t_ms, 0);
}

/* Under pw_threads_pass's locks: a pin that moves to the leak table does
 * so under its thread's table lock, so it is met here or there, once. */
static void
add_leaks(void *arg)
{
    struct figures *fig = arg;
    fig->leaked = true;
    pw_leak_table_visit(add_pin, fig);
    fig->leaked = false;
    fig->leak_bytes = pw_leak_table_memory();
}

static void
figures_free(struct figures *fig)
{
    free(fig->threads.counts);
    free(fig->sums);
}

/* Every figure a report needs, per site, in one pass over the tables. */
static bool
collect_figures(struct figures *fig, bool refs)
{
    uint32_t nsites = pw_site_count();
    *fig = (struct figures){
        .threads = {.counts = calloc(nsites, sizeof(struct pw_counts)), .nsites = nsites},
        .sums = calloc(nsites, sizeof(struct live_sum)),
        .nsites = nsites,
        .now = (uint32_t)pw_clock_ms(),
    };
    if (fig->threads.counts == NULL || fig->sums == NULL) {
        figures_free(fig);
        return false;
    }
    pw_threads_pass(&fig->threads, add_pin, add_ref, add_leaks, fig);
    if (refs)
        pw_ref_table_visit(add_ref, fig);
    return true;
}

/* A site that made, ended or holds anything gets a snapshot row. */
static bool
site_active(const struct figures *fig, uint32_t i)
{
    const struct pw_counts *c = &fig->threads.counts[i];
    return c->acquired > 0 || c->released > 0 || fig->sums[i].live > 0;
}

static uint64_t
oldest_age_ms(const struct figures *fig, uint32_t i)
{
    return fig->sums[i].any ? (uint32_t)(fig->now - fig->sums[i].oldest_t) : 0;
}

/* The active sites that track pins (refs false) or references (true): as
 * many sites, and at most as many rows, as the snapshot gets. */
static size_t
count_active(const struct figures *fig, bool refs)
{
    size_t n = 0;
    for (uint32_t i = 0; i < fig->nsites; i++)
        n += site_active(fig, i) && (pw_site_get(i)->kind != PW_KIND_PIN) == refs;
    return n;
}

static bool
build_pin_sites(struct pw_snapshot *snap, const struct figures *fig)
{
    size_t n = count_active(fig, false);
    snap->sites = calloc(n ? n : 1, sizeof(*snap->sites));
    snap->rows = calloc(n ? n : 1, sizeof(*snap->rows));
    if (snap->sites == NULL || snap->rows == NULL)
        return false;
    struct pw_snap_totals *t = &snap->totals;
    for (uint32_t i = 0; i < fig->nsites; i++) {
        const struct pw_site *site = pw_site_get(i);
        if (!site_active(fig, i) || site->kind != PW_KIND_PIN)
            continue;
        const struct pw_counts *c = &fig->threads.counts[i];
        const struct live_sum *sum = &fig->sums[i];
        struct pw_snap_site *s = &snap->sites[snap->nsites++];
        *s = (struct pw_snap_site){
            .site = i,
            .ret = (uintptr_t)site->ret,
            .acquired = c->acquired,
            .released = c->released,
            .commits = c->pin.commits,
            .live = sum->live,
            .live_bytes = sum->bytes,
            .leaked = sum->leaked,
            .carried = c->carried,
            .leaked_bytes = sum->leaked_bytes,
            .suppressed = site->suppressed ? sum->live : 0,
            .oldest_age_ms = oldest_age_ms(fig, i),
        };
        t->acquired += s->acquired;
        t->released += s->released;
        t->commits += s->commits;
        t->live += s->live;
        t->live_bytes += s->live_bytes;
        t->leaked += s->leaked;
        t->carried += s->carried;
        t->suppressed += s->suppressed;
        t->leaked_unsuppressed += s->suppressed == 0 ? s->leaked : 0;
    }
    return true;
}

static void
add_ref_totals(struct pw_snap_ref_totals *rt, uint8_t kind, const struct pw_snap_ref_site *s)
{
    rt->created += s->created;
    rt->deleted += s->deleted;
    rt->freed += s->freed;
    rt->live += s->live;
    rt->local_limit += s->over_limit;
    if (kind == PW_KIND_GLOBAL_REF)
        rt->live_global += s->live;
    else if (kind == PW_KIND_WEAK_REF)
        rt->live_weak += s->live;
    else
        rt->live_local += s->live;
}

static bool
build_ref_sites(struct pw_snapshot *snap, const struct figures *fig)
{
    size_t n = count_active(fig, true);
    snap->ref_sites = calloc(n ? n : 1, sizeof(*snap->ref_sites));
    snap->refs = calloc(n ? n : 1, sizeof(*snap->refs));
    if (snap->ref_sites == NULL || snap->refs == NULL)
        return false;
    for (uint32_t i = 0; i < fig->nsites; i++) {
        const struct pw_site *site = pw_site_get(i);
        uint8_t kind = site->kind;
        if (!site_active(fig, i) || kind == PW_KIND_PIN)
            continue;
        const struct pw_counts *c = &fig->threads.counts[i];
        struct pw_snap_ref_site *s = &snap->ref_sites[snap->nref_sites++];
        *s = (struct pw_snap_ref_site){
            .site = i,
            .ret = (uintptr_t)site->ret,
            .created = c->acquired,
            .deleted = c->released,
            .freed = c->ref.freed,
            .live = fig->sums[i].live,
            .oldest_age_ms = oldest_age_ms(fig, i),
            .peak = pw_site_ref_peak(site),
            .over_limit = pw_site_ref_over(site),
        };
        add_ref_totals(&snap->ref_totals, kind, s);
    }
    return true;
}

/* Rows are (method, signature, function): sites sorted by that key, then
 * within a row pins by the most live bytes, references by the most made. */
static int
by_method(const struct pw_site *x, const struct pw_site *y)
{
    int c = strcmp(pw_method_name(x->method), pw_method_name(y->method));
    if (c == 0)
        c = strcmp(pw_method_signature(x->method), pw_method_signature(y->method));
    if (c == 0)
        c = (int)x->kind - (int)y->kind;
    return c != 0 ? c : (int)x->fn - (int)y->fn;
}

static int
descending(uint64_t x, uint64_t y)
{
    return x < y ? 1 : x > y ? -1 : 0;
}

static int
by_pin_site(const void *a, const void *b)
{
    const struct pw_snap_site *x = a, *y = b;
    int c = by_method(pw_site_get(x->site), pw_site_get(y->site));
    if (c == 0)
        c = descending(x->live_bytes, y->live_bytes);
    return c != 0 ? c : descending(x->acquired, y->acquired);
}

static int
by_ref_site(const void *a, const void *b)
{
    const struct pw_snap_ref_site *x = a, *y = b;
    int c = by_method(pw_site_get(x->site), pw_site_get(y->site));
    return c != 0 ? c : descending(x->created, y->created);
}

/* Pins: the most live bytes first, then the most live, the most taken. */
static int
by_live_bytes(const void *a, const void *b)
{
    const struct pw_snap_row *x = a, *y = b;
    int c = descending(x->live_bytes, y->live_bytes);
    if (c == 0)
        c = descending(x->live, y->live);
    if (c == 0)
        c = descending(x->acquired, y->acquired);
    if (c == 0)
        c = strcmp(x->method, y->method);
    return c != 0 ? c : (int)x->fn - (int)y->fn;
}

/* References: the most live first, then the most made. */
static int
by_live(const void *a, const void *b)
{
    const struct pw_snap_ref_row *x = a, *y = b;
    int c = descending(x->live, y->live);
    if (c == 0)
        c = descending(x->created, y->created);
    if (c == 0)
        c = strcmp(x->method, y->method);
    if (c == 0)
        c = (int)x->kind - (int)y->kind;
    return c != 0 ? c : (int)x->fn - (int)y->fn;
}

/* Whether site starts a new row after last (NULL: the first). */
static bool
new_row(const char *last_method, const char *last_signature, uint32_t last_fn, uint8_t last_kind,
        const struct pw_site *site)
{
    return last_method == NULL || last_fn != site->fn || last_kind != site->kind ||
           strcmp(last_method, pw_method_name(site->method)) != 0 ||
           strcmp(last_signature, pw_method_signature(site->method)) != 0;
}

static void
group_pin_rows(struct pw_snapshot *snap)
{
    qsort(snap->sites, snap->nsites, sizeof(*snap->sites), by_pin_site);
    struct pw_snap_row *row = NULL;
    for (size_t i = 0; i < snap->nsites; i++) {
        struct pw_snap_site *s = &snap->sites[i];
        const struct pw_site *site = pw_site_get(s->site);
        if (row == NULL || new_row(row->method, row->signature, row->fn, PW_KIND_PIN, site)) {
            row = &snap->rows[snap->nrows++];
            *row = (struct pw_snap_row){.method = pw_method_name(site->method),
                                        .signature = pw_method_signature(site->method),
                                        .fn = site->fn,
                                        .sites = s};
        }
        row->nsites++;
        row->acquired += s->acquired;
        row->released += s->released;
        row->commits += s->commits;
        row->live += s->live;
        row->live_bytes += s->live_bytes;
        row->leaked += s->leaked;
        row->carried += s->carried;
        row->suppressed += s->suppressed;
        if (s->live > 0 && s->oldest_age_ms > row->oldest_age_ms)
            row->oldest_age_ms = s->oldest_age_ms;
    }
    qsort(snap->rows, snap->nrows, sizeof(*snap->rows), by_live_bytes);
}

static void
group_ref_rows(struct pw_snapshot *snap)
{
    qsort(snap->ref_sites, snap->nref_sites, sizeof(*snap->ref_sites), by_ref_site);
    struct pw_snap_ref_row *row = NULL;
    for (size_t i = 0; i < snap->nref_sites; i++) {
        struct pw_snap_ref_site *s = &snap->ref_sites[i];
        const struct pw_site *site = pw_site_get(s->site);
        if (row == NULL || new_row(row->method, row->signature, row->fn, row->kind, site)) {
            row = &snap->refs[snap->nrefs++];
            *row = (struct pw_snap_ref_row){.method = pw_method_name(site->method),
                                            .signature = pw_method_signature(site->method),
                                            .kind = site->kind,
                                            .fn = site->fn,
                                            .sites = s};
        }
        row->nsites++;
        row->created += s->created;
        row->deleted += s->deleted;
        row->freed += s->freed;
        row->live += s->live;
        if (s->live > 0 && s->oldest_age_ms > row->oldest_age_ms)
            row->oldest_age_ms = s->oldest_age_ms;
        if (s->peak > row->peak)
            row->peak = s->peak;
        row->over_limit += s->over_limit;
    }
    qsort(snap->refs, snap->nrefs, sizeof(*snap->refs), by_live);
}

#define INLINE_MAX 8

/* One stack's frames, inlined functions spelled out.  A frame is a tail
 * call when the call returned straight to the exit stub, or when tail says
 * the first already is (a finding's call, recorded as the function's start
 * + 1). */
static void
symbolise_stack(struct pw_snapshot *snap, const struct pw_method *m, const uintptr_t *ips, int n, bool tail,
                struct pw_snap_stack *out)
{
    out->frames = calloc((size_t)n * INLINE_MAX, sizeof(*out->frames));
    out->n = 0;
    if (out->frames == NULL)
        return;
    for (int i = 0; i < n; i++) {
        bool at_exit;
        uintptr_t ip = pw_method_caller(m, ips[i], &at_exit);
        bool tail_call = at_exit || (tail && i == 0);
        if (ip == 0)
            continue;
        struct pw_location where[INLINE_MAX];
        bool inlined[INLINE_MAX];
        int k = pw_symbols_expand(snap->symbols, ip, where, inlined, INLINE_MAX);
        for (int j = 0; j < k; j++) {
            struct pw_snap_frame *f = &out->frames[out->n++];
            *f = (struct pw_snap_frame){.address = tail_call ? ip - 1 : ip,
                                        .where = where[j],
                                        .inlined = inlined[j]};
            if (tail_call && !inlined[j]) {
                f->tail_call = true;
                f->where.offset = 0;
            }
        }
    }
}

/* The JVM itself or its launcher: libjvm.so, libjli.so, the java binary. */
static bool
jvm_own_code(uintptr_t ret)
{
    Dl_info info;
    if (ret == 0 || dladdr((void *)(ret - 1), &info) == 0 || info.dli_fname == NULL)
        return false;
    const char *slash = strrchr(info.dli_fname, '/');
    const char *base = slash != NULL ? slash + 1 : info.dli_fname;
    return strcmp(base, "libjvm.so") == 0 || strcmp(base, "libjli.so") == 0 || strcmp(base, "java") == 0;
}

/* The JDK's lib directory, "/…/lib/", found once from libjvm.so's path
 * (lib/server/libjvm.so), both resolved, so that links do not matter. */
static char jdk_lib[PATH_MAX];
static pthread_once_t jdk_lib_once = PTHREAD_ONCE_INIT;

static void
find_jdk_lib(void)
{
    Dl_info info;
    char path[PATH_MAX];
    if (pw_jni.GetVersion == NULL || dladdr((void *)pw_jni.GetVersion, &info) == 0 || info.dli_fname == NULL ||
        realpath(info.dli_fname, path) == NULL)
        return;
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(path, '/');
        if (slash == NULL)
            return;
        *slash = '\0';
    }
    if (strlen(path) + 2 <= sizeof(jdk_lib))
        snprintf(jdk_lib, sizeof(jdk_lib), "%s/", path);
}

bool
pw_snap_site_jdk(const struct pw_site *site)
{
    /* A tail call is named by its native function (pw_method_caller). */
    uintptr_t caller = pw_method_caller(site->method, (uintptr_t)site->ret, NULL);
    Dl_info info;
    char path[PATH_MAX];
    pthread_once(&jdk_lib_once, find_jdk_lib);
    if (jdk_lib[0] == '\0' || caller == 0 || dladdr((void *)(caller - 1), &info) == 0 || info.dli_fname == NULL ||
        realpath(info.dli_fname, path) == NULL)
        return false;
    return strncmp(path, jdk_lib, strlen(jdk_lib)) == 0;
}

/* One frame named from the dynamic symbol table only: no libdw. */
static void
dl_frame(uintptr_t ret, struct pw_snap_stack *out)
{
    out->frames = calloc(1, sizeof(*out->frames));
    out->n = 0;
    if (out->frames == NULL)
        return;
    Dl_info info;
    struct pw_snap_frame *f = &out->frames[out->n++];
    *f = (struct pw_snap_frame){.address = ret};
    if (dladdr((void *)(ret - 1), &info) != 0) {
        f->where.library = info.dli_fname;
        if (info.dli_sname != NULL) {
            f->where.symbol = info.dli_sname;
            f->where.offset = ret - (uintptr_t)info.dli_saddr;
        }
    }
}

/* Every stack the site has, or its call site alone; returns how many. */
static int
symbolise_site(struct pw_snapshot *snap, const struct pw_site *site, struct pw_snap_stack *stacks)
{
    int n = 0;
    for (int i = 0; i < PW_SITE_STACKS; i++) {
        int depth = 0;
        const uintptr_t *ips = pw_stack_get(pw_site_stack(site, i), &depth);
        if (depth == 0)
            break;
        symbolise_stack(snap, site->method, ips, depth, false, &stacks[n++]);
    }
    if (n == 0) {
        uintptr_t ret = (uintptr_t)site->ret;
        symbolise_stack(snap, site->method, &ret, 1, false, &stacks[n++]);
    }
    return n;
}

/* Every native method that makes a local has a reference site: the JDK's
 * own make dozens, and the JVM and its launcher make references through
 * JNI too.  Whole stacks only where references are live or a call went
 * past local_limit, and never for the JVM's own call sites, whose stacks
 * run through libjvm and libc to the thread's start (symbolising those
 * read libc's debug information every report, measured at seconds under
 * load); the rest are named by their call site. */
static void
symbolise_ref_site(struct pw_snapshot *snap, struct pw_snap_ref_site *s)
{
    const struct pw_site *site = pw_site_get(s->site);
    if (jvm_own_code(s->ret)) {
        s->jdk = true;
        s->java_stack = pw_site_java_stack(site);
        dl_frame(s->ret, &s->stacks[s->nstacks++]);
    } else if (s->live > 0 || s->over_limit > 0) {
        s->jdk = s->live > 0 && pw_snap_site_jdk(site);
        s->java_stack = pw_site_java_stack(site);
        s->nstacks = symbolise_site(snap, site, s->stacks);
    } else {
        symbolise_stack(snap, site->method, &s->ret, 1, false, &s->stacks[s->nstacks++]);
    }
}

static void
symbolise_all(struct pw_snapshot *snap)
{
    snap->symbols = pw_symbols_open();
    for (size_t i = 0; i < snap->nsites; i++) {
        struct pw_snap_site *s = &snap->sites[i];
        const struct pw_site *site = pw_site_get(s->site);
        s->java_stack = pw_site_java_stack(site);
        s->nstacks = symbolise_site(snap, site, s->stacks);
    }
    for (size_t i = 0; i < snap->nref_sites; i++)
        symbolise_ref_site(snap, &snap->ref_sites[i]);
}

/* long_critical: the over-limit holds, longest and p99 of the site's. */
static void
long_critical(const struct pw_snapshot *snap, uint32_t site, struct pw_snap_finding *f)
{
    uint64_t released = 0;
    for (size_t j = 0; j < snap->nsites; j++)
        if (snap->sites[j].site == site)
            released = snap->sites[j].released;
    struct pw_long_critical lc;
    if (pw_findings_long_critical(site, released, &lc)) {
        f->count = lc.over;
        f->max_ms = lc.max_ms;
        f->p99_ms = lc.p99_ms;
    }
}

/* The offending call's function, as the reports name it. */
static const char *
call_function(enum pw_finding_kind kind, const struct pw_site *site, uint32_t detail)
{
    switch (kind) {
    case PW_FINDING_JNI_IN_CRITICAL:
    case PW_FINDING_DOUBLE_DELETE:
    case PW_FINDING_LOCAL_LIMIT: return pw_jni_slot_name(detail);
    case PW_FINDING_LONG_CRITICAL: return site != NULL ? pw_release_name(site->fn) : "?";
    default: return pw_release_name(detail);
    }
}

const struct pw_site *
pw_snap_finding_names(enum pw_finding_kind kind, uint32_t site_id, uint32_t detail, struct pw_snap_finding *f)
{
    const struct pw_site *site = site_id != 0 && site_id < pw_site_count() ? pw_site_get(site_id) : NULL;
    *f = (struct pw_snap_finding){
        .kind = pw_finding_kind_name(kind),
        .method = site != NULL ? pw_method_name(site->method) : "<unknown>",
        .signature = site != NULL ? pw_method_signature(site->method) : "",
        .function = site != NULL ? pw_snap_site_function(site) : "?",
        .call_function = call_function(kind, site, detail),
        .has_site = site != NULL,
    };
    return site;
}

static void
add_finding(struct pw_snapshot *snap, const struct pw_finding_row *r, bool symbolise)
{
    struct pw_snap_finding *f = &snap->findings[snap->nfindings++];
    const struct pw_site *site = pw_snap_finding_names(r->kind, r->site, r->detail, f);
    f->count = r->count;
    if (r->kind == PW_FINDING_DOUBLE_DELETE || r->kind == PW_FINDING_LOCAL_LIMIT)
        snap->totals.ref_findings += r->count;
    else if (r->kind == PW_FINDING_LONG_CRITICAL)
        long_critical(snap, r->site, f);
    if (site != NULL && symbolise) {
        int depth = 0;
        const uintptr_t *ips = pw_stack_get(pw_site_stack(site, 0), &depth);
        uintptr_t ret = (uintptr_t)site->ret;
        symbolise_stack(snap, site->method, depth > 0 ? ips : &ret, depth > 0 ? depth : 1, false, &f->acquire);
    }
    if (r->call != 0 && symbolise)
        symbolise_stack(snap, NULL, &r->call, 1, r->tail_call, &f->call);
    snap->totals.findings += f->count;
    if ((unsigned)r->kind < PW_FINDING_KINDS)
        snap->kinds[r->kind].count += f->count;
}

/* Findings are few: each is symbolised in full (both sites), unless the
 * snapshot is of figures only. */
static void
take_findings(struct pw_snapshot *snap, bool symbolise)
{
    for (int k = 0; k < PW_FINDING_KINDS; k++)
        snap->kinds[k] = (struct pw_snap_kind){.kind = pw_finding_kind_name((enum pw_finding_kind)k)};
    snap->nkinds = PW_FINDING_KINDS;
    snap->totals.double_releases = pw_findings_double_releases();
    size_t n = 0;
    struct pw_finding_row *rows = pw_findings_copy(&n);
    if (rows != NULL && n > 0)
        snap->findings = calloc(n, sizeof(*snap->findings));
    for (size_t i = 0; snap->findings != NULL && i < n; i++)
        add_finding(snap, &rows[i], symbolise);
    free(rows);
}

/* Distinct methods among the rows that still hold pins. */
static uint64_t
methods_holding_pins(const struct pw_snapshot *snap)
{
    uint64_t n = 0;
    for (size_t i = 0; i < snap->nrows; i++) {
        if (snap->rows[i].live == 0)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = snap->rows[j].live > 0 && strcmp(snap->rows[j].method, snap->rows[i].method) == 0 &&
                   strcmp(snap->rows[j].signature, snap->rows[i].signature) == 0;
        n += !seen;
    }
    return n;
}

/* The references' figures kept outside the sites. */
static void
ref_figures(struct pw_snapshot *snap)
{
    snap->refs_on = refs_on;
    snap->totals.ref_live = snap->ref_totals.live;
    struct pw_refs_counts rc;
    pw_refs_counts_read(&rc);
    snap->ref_totals.unknown_global_deletes = rc.unknown_global_deletes;
    snap->ref_totals.unknown_weak_deletes = rc.unknown_weak_deletes;
    snap->ref_totals.unknown_local_deletes = rc.unknown_local_deletes;
    snap->ref_totals.double_deletes = rc.double_deletes;
    snap->ref_totals.lost = rc.lost;
}

enum depth {
    SITES,   /* the sites' figures and the totals: no rows, no findings, no names */
    FIGURES, /* every figure, nothing symbolised */
    FULL,
};

static bool
take(struct pw_snapshot *snap, const char *reason, enum depth depth)
{
    memset(snap, 0, sizeof(*snap));
    snap->reason = reason;
    snap->pid = (long)getpid();
    snap->uptime_ms = pw_clock_uptime_ms();
    snap->time_ms = pw_clock_epoch_ms();
    if (depth != SITES && gethostname(snap->host, sizeof(snap->host)) != 0)
        snap->host[0] = '\0';
    snap->host[sizeof(snap->host) - 1] = '\0';

    struct figures fig;
    if (!collect_figures(&fig, refs_on))
        return false;
    snap->totals.unmatched_releases = fig.threads.unmatched;
    snap->totals.lost = fig.threads.lost;
    snap->totals.table_bytes = fig.threads.table_bytes + fig.leak_bytes;
    snap->ref_totals.table_bytes = fig.threads.local_table_bytes + (refs_on ? pw_ref_table_memory() : 0);
    bool built = build_pin_sites(snap, &fig) && build_ref_sites(snap, &fig);
    figures_free(&fig);
    if (!built) {
        pw_snapshot_free(snap);
        return false;
    }
    if (depth == SITES)
        return true;

    group_pin_rows(snap);
    group_ref_rows(snap);
    ref_figures(snap);
    snap->totals.methods = methods_holding_pins(snap);
    if (depth == FULL)
        symbolise_all(snap);
    take_findings(snap, depth == FULL);
    return true;
}

bool
pw_snapshot_take(struct pw_snapshot *snap, const char *reason)
{
    return take(snap, reason, FULL);
}

bool
pw_snapshot_take_figures(struct pw_snapshot *snap, const char *reason)
{
    return take(snap, reason, FIGURES);
}

bool
pw_snapshot_take_sites(struct pw_snapshot *snap)
{
    return take(snap, "sites", SITES);
}

void
pw_snapshot_free(struct pw_snapshot *snap)
{
    pw_symbols_close(snap->symbols);
    for (size_t i = 0; i < snap->nsites; i++)
        for (int j = 0; j < snap->sites[i].nstacks; j++)
            free(snap->sites[i].stacks[j].frames);
    for (size_t i = 0; i < snap->nref_sites; i++)
        for (int j = 0; j < snap->ref_sites[i].nstacks; j++)
            free(snap->ref_sites[i].stacks[j].frames);
    for (size_t i = 0; i < snap->nfindings; i++) {
        free(snap->findings[i].acquire.frames);
        free(snap->findings[i].call.frames);
    }
    free(snap->findings);
    free(snap->sites);
    free(snap->rows);
    free(snap->refs);
    free(snap->ref_sites);
    memset(snap, 0, sizeof(*snap));
}
