/* SPDX-License-Identifier: Apache-2.0 */
#include "report/snapshot.h"
#include "base/clock.h"
#include "tracking/findings.h"
#include "jvm/jni_table.h"
#include "state/leak_table.h"
#include "state/local_table.h"
#include "state/methods.h"
#include "state/ref_table.h"
#include "tracking/refs.h"
#include "state/frame_layout.h"
#include "state/stack_table.h"
#include "state/thread_state.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PW_HIDDEN extern struct pw_counts pw_retired_counts[PW_MAX_SITES];
PW_HIDDEN extern uint64_t pw_retired_unmatched, pw_retired_lost;

struct live_sum {
    uint64_t live, bytes, leaked, leaked_bytes;
    uint32_t oldest_t;
    bool any;
};

struct pin_pass {
    struct live_sum *sums;
    uint32_t nsites;
    uint32_t now;
    bool leaked;
};

static bool
add_pin(uintptr_t key, const struct pw_pin_info *info, void *arg)
{
    (void)key;
    struct pin_pass *pass = arg;
    if (info->site >= pass->nsites)
        return false;
    struct live_sum *s = &pass->sums[info->site];
    /* A pin taken after this report read the clock is as young as can be. */
    uint32_t t_ms = (int32_t)(pass->now - info->t_ms) < 0 ? pass->now : info->t_ms;
    if (!s->any || pass->now - t_ms > pass->now - s->oldest_t)
        s->oldest_t = t_ms;
    s->any = true;
    s->live++;
    s->bytes += info->size;
    s->leaked += pass->leaked;
    s->leaked_bytes += pass->leaked ? info->size : 0;
    return false;
}

/* refs=: reports carry a references section.  Written once by
 * pw_snapshot_start, before the JNI table swap. */
static bool refs_on;

void
pw_snapshot_start(const struct pw_options *o)
{
    refs_on = o->refs;
}

static bool
add_local(uintptr_t handle, const struct pw_local_info *info, void *arg)
{
    struct pw_pin_info pin = {.site = info->site, .t_ms = info->t_ms};
    return add_pin(handle, &pin, arg);
}

static void
add_ref(uintptr_t handle, const struct pw_ref_info *info, void *arg)
{
    struct pw_pin_info pin = {.site = info->site, .t_ms = info->t_ms};
    add_pin(handle, &pin, arg);
}

static int
by_row_key(const void *a, const void *b)
{
    const struct pw_snap_site *x = a, *y = b;
    const struct pw_site *sx = pw_site_get(x->site), *sy = pw_site_get(y->site);
    int c = strcmp(pw_method_name(sx->method), pw_method_name(sy->method));
    if (c == 0)
        c = strcmp(pw_method_signature(sx->method), pw_method_signature(sy->method));
    if (c == 0)
        c = (int)sx->kind - (int)sy->kind;
    if (c == 0)
        c = (int)sx->fn - (int)sy->fn;
    if (c == 0)
        c = x->live_bytes < y->live_bytes ? 1 : x->live_bytes > y->live_bytes ? -1 : 0;
    if (c == 0)
        c = x->acquired < y->acquired ? 1 : x->acquired > y->acquired ? -1 : 0;
    return c;
}

/* References: the most live first, then the most made. */
static int
by_live(const void *a, const void *b)
{
    const struct pw_snap_row *x = a, *y = b;
    if (x->live != y->live)
        return x->live < y->live ? 1 : -1;
    if (x->acquired != y->acquired)
        return x->acquired < y->acquired ? 1 : -1;
    int c = strcmp(x->method, y->method);
    if (c == 0)
        c = (int)x->kind - (int)y->kind;
    return c != 0 ? c : (int)x->fn - (int)y->fn;
}

/* Pins: the most live bytes first, then as references. */
static int
by_live_bytes(const void *a, const void *b)
{
    const struct pw_snap_row *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes < y->live_bytes ? 1 : -1;
    return by_live(a, b);
}

static size_t
group_rows(struct pw_snap_site *sites, size_t nsites, struct pw_snap_row *rows,
           int (*order)(const void *, const void *))
{
    qsort(sites, nsites, sizeof(*sites), by_row_key);
    size_t nrows = 0;
    for (size_t i = 0; i < nsites; i++) {
        struct pw_snap_site *s = &sites[i];
        const struct pw_site *site = pw_site_get(s->site);
        struct pw_snap_row *row = nrows > 0 ? &rows[nrows - 1] : NULL;
        const char *name = pw_method_name(site->method), *sig = pw_method_signature(site->method);
        if (row == NULL || row->kind != site->kind || row->fn != site->fn || strcmp(row->method, name) != 0 ||
            strcmp(row->signature, sig) != 0) {
            row = &rows[nrows++];
            *row = (struct pw_snap_row){.method = name,
                                        .signature = sig,
                                        .kind = site->kind,
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
        if (s->peak > row->peak)
            row->peak = s->peak;
        row->over_limit += s->over_limit;
    }
    qsort(rows, nrows, sizeof(*rows), order);
    return nrows;
}

#define INLINE_MAX 8

/* One stack's frames, inlined functions spelled out. */
static void
symbolise_stack(struct pw_snapshot *snap, const struct pw_method *m, const uintptr_t *ips, int n,
                struct pw_snap_stack *out)
{
    out->frames = calloc((size_t)n * INLINE_MAX, sizeof(*out->frames));
    out->n = 0;
    if (out->frames == NULL)
        return;
    for (int i = 0; i < n; i++) {
        bool tail;
        uintptr_t ip = pw_method_caller(m, ips[i], &tail);
        if (ip == 0)
            continue;
        struct pw_location where[INLINE_MAX];
        bool inlined[INLINE_MAX];
        int k = pw_symbols_expand(snap->symbols, ip, where, inlined, INLINE_MAX);
        for (int j = 0; j < k; j++) {
            struct pw_snap_frame *f = &out->frames[out->n++];
            *f = (struct pw_snap_frame){.address = tail ? ip - 1 : ip, .where = where[j], .inlined = inlined[j]};
            if (tail && !inlined[j]) {
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

static void
symbolise_site(struct pw_snapshot *snap, struct pw_snap_site *s)
{
    const struct pw_site *site = pw_site_get(s->site);
    s->java_stack = atomic_load_explicit(&((struct pw_site *)site)->java_stack, memory_order_acquire);
    for (int i = 0; i < PW_SITE_STACKS; i++) {
        int n = 0;
        uint32_t id = atomic_load_explicit(&((struct pw_site *)site)->stacks[i], memory_order_acquire);
        const uintptr_t *ips = pw_stack_get(id, &n);
        if (n == 0)
            break;
        symbolise_stack(snap, site->method, ips, n, &s->stacks[s->nstacks++]);
    }
    if (s->nstacks == 0)
        symbolise_stack(snap, site->method, &s->ret, 1, &s->stacks[s->nstacks++]);
}

static const char *
release_name(uint32_t fn)
{
    static const char *const names[PW_FN_COUNT] = {
        "ReleaseBooleanArrayElements", "ReleaseByteArrayElements",   "ReleaseCharArrayElements",
        "ReleaseShortArrayElements",   "ReleaseIntArrayElements",    "ReleaseLongArrayElements",
        "ReleaseFloatArrayElements",   "ReleaseDoubleArrayElements", "ReleasePrimitiveArrayCritical",
        "ReleaseStringChars",          "ReleaseStringUTFChars",      "ReleaseStringCritical",
    };
    return fn < PW_FN_COUNT ? names[fn] : "?";
}

/* Findings are few: each is symbolised in full (both sites), unless the
 * snapshot is of figures only. */
static void
take_findings(struct pw_snapshot *snap, bool symbolise)
{
    for (int k = 0; k < PW_FINDING_KINDS; k++)
        snap->kinds[k] = (struct pw_snap_kind){.kind = pw_finding_kind_name((enum pw_finding_kind)k)};
    snap->nkinds = PW_FINDING_KINDS;
    size_t n = 0;
    struct pw_finding_row *rows = pw_findings_copy(&n);
    snap->totals.double_releases = pw_findings_double_releases();
    if (rows == NULL || n == 0) {
        free(rows);
        return;
    }
    snap->findings = calloc(n, sizeof(*snap->findings));
    if (snap->findings == NULL) {
        free(rows);
        return;
    }
    uint32_t nsites = pw_site_count();
    for (size_t i = 0; i < n; i++) {
        const struct pw_finding_row *r = &rows[i];
        struct pw_snap_finding *f = &snap->findings[snap->nfindings];
        const struct pw_site *site = r->site != 0 && r->site < nsites ? pw_site_get(r->site) : NULL;
        *f = (struct pw_snap_finding){
            .kind = pw_finding_kind_name(r->kind),
            .method = site != NULL ? pw_method_name(site->method) : "<unknown>",
            .signature = site != NULL ? pw_method_signature(site->method) : "",
            .site_kind = site != NULL ? site->kind : PW_KIND_PIN,
            .fn = site != NULL ? site->fn : PW_FN_COUNT,
            .count = r->count,
            .has_site = site != NULL,
        };
        uint32_t detail = r->detail & ~PW_FINDING_TAIL;
        switch (r->kind) {
        case PW_FINDING_JNI_IN_CRITICAL:
        case PW_FINDING_DOUBLE_DELETE:
        case PW_FINDING_LOCAL_LIMIT:
            f->call_function = pw_jni_slot_name(detail);
            if (r->kind != PW_FINDING_JNI_IN_CRITICAL)
                snap->totals.ref_findings += r->count;
            break;
        case PW_FINDING_LONG_CRITICAL: {
            f->call_function = site != NULL ? release_name(site->fn) : "?";
            uint64_t released = 0;
            for (size_t j = 0; j < snap->nsites; j++)
                if (snap->sites[j].site == r->site)
                    released = snap->sites[j].released;
            struct pw_long_critical lc;
            if (pw_findings_long_critical(r->site, released, &lc)) {
                f->count = lc.over;
                f->max_ms = lc.max_ms;
                f->p99_ms = lc.p99_ms;
            }
            break;
        }
        default: f->call_function = release_name(detail); break;
        }
        if (site != NULL && symbolise) {
            uint32_t id = atomic_load_explicit(&((struct pw_site *)site)->stacks[0], memory_order_acquire);
            int depth = 0;
            const uintptr_t *ips = pw_stack_get(id, &depth);
            uintptr_t ret = (uintptr_t)site->ret;
            symbolise_stack(snap, site->method, depth > 0 ? ips : &ret, depth > 0 ? depth : 1, &f->acquire);
        }
        if (r->call != 0 && symbolise)
            symbolise_stack(snap, NULL, &r->call, 1, &f->call);
        if ((r->detail & PW_FINDING_TAIL) != 0) {
            for (int k = 0; k < f->call.n; k++) {
                f->call.frames[k].address = r->call - 1;
                if (!f->call.frames[k].inlined) {
                    f->call.frames[k].tail_call = true;
                    f->call.frames[k].where.offset = 0;
                }
            }
        }
        snap->totals.findings += f->count;
        snap->nfindings++;
        if ((unsigned)r->kind < PW_FINDING_KINDS)
            snap->kinds[r->kind].count += f->count;
    }
    free(rows);
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

    uint32_t nsites = pw_site_count();
    struct pw_counts *counts = calloc(nsites, sizeof(*counts));
    struct live_sum *sums = calloc(nsites, sizeof(*sums));
    if (counts == NULL || sums == NULL) {
        free(counts);
        free(sums);
        return false;
    }
    struct pin_pass pass = {.sums = sums, .nsites = nsites, .now = (uint32_t)pw_clock_ms()};

    /* Pins move from a thread's table to the leak table only under that
     * table's lock, and threads cannot start or end while the registry is
     * read: with every table locked each pin is met exactly once.  The
     * owners' Get and Release never take their lock, so they run on. */
    pw_threads_read_lock();
    memcpy(counts, pw_retired_counts, nsites * sizeof(*counts));
    snap->totals.unmatched_releases = pw_retired_unmatched;
    snap->totals.lost = pw_retired_lost;
    for (struct pw_thread *t = pw_threads_first(); t != NULL; t = t->next)
        pw_pin_table_lock(&t->pins.table);
    for (struct pw_thread *t = pw_threads_first(); t != NULL; t = t->next) {
        pw_thread_counts_add_to(&t->sites.counts, counts, nsites);
        snap->totals.table_bytes += pw_pin_table_memory(&t->pins.table) + sizeof(*t);
        snap->totals.unmatched_releases += pw_count_read(&t->sites.counts.unmatched_releases);
        snap->totals.lost += pw_count_read(&t->sites.counts.lost);
        pw_pin_table_visit(&t->pins.table, add_pin, &pass);
        pw_local_table_visit(&t->refs.locals, add_local, &pass);
        snap->ref_totals.table_bytes += pw_local_table_memory(&t->refs.locals);
    }
    pass.leaked = true;
    pw_leak_table_visit(add_pin, &pass);
    snap->totals.table_bytes += pw_leak_table_memory();
    for (struct pw_thread *t = pw_threads_first(); t != NULL; t = t->next)
        pw_pin_table_unlock(&t->pins.table);
    pw_threads_read_unlock();
    pass.leaked = false;
    if (refs_on) {
        pw_ref_table_visit(add_ref, &pass);
        snap->ref_totals.table_bytes += pw_ref_table_memory();
    }

    size_t active = 0;
    for (uint32_t i = 0; i < nsites; i++)
        active += counts[i].acquired > 0 || sums[i].live > 0 || counts[i].released > 0;
    snap->sites = calloc(active ? active : 1, sizeof(*snap->sites));
    snap->rows = calloc(active ? active : 1, sizeof(*snap->rows));
    snap->refs = calloc(active ? active : 1, sizeof(*snap->refs));
    if (snap->sites == NULL || snap->rows == NULL || snap->refs == NULL) {
        free(counts);
        free(sums);
        pw_snapshot_free(snap);
        return false;
    }
    /* Pin sites first, reference sites after them. */
    size_t npins = 0;
    for (uint32_t i = 0; i < nsites; i++)
        npins += pw_site_get(i)->kind == PW_KIND_PIN &&
                 (counts[i].acquired > 0 || sums[i].live > 0 || counts[i].released > 0);
    size_t next_pin = 0, next_ref = npins;
    for (uint32_t i = 0; i < nsites; i++) {
        if (!(counts[i].acquired > 0 || sums[i].live > 0 || counts[i].released > 0))
            continue;
        const struct pw_site *site = pw_site_get(i);
        if (site->kind != PW_KIND_PIN) {
            struct pw_snap_site *s = &snap->sites[next_ref++];
            *s = (struct pw_snap_site){
                .site = i,
                .ret = (uintptr_t)site->ret,
                .acquired = counts[i].acquired,
                .released = counts[i].released,
                .commits = counts[i].ref.freed,
                .live = sums[i].live,
                .oldest_age_ms = sums[i].any ? (uint32_t)(pass.now - sums[i].oldest_t) : 0,
                .peak = atomic_load_explicit(&((struct pw_site *)site)->ref.peak, memory_order_relaxed),
                .over_limit = atomic_load_explicit(&((struct pw_site *)site)->ref.over, memory_order_relaxed),
            };
            struct pw_snap_ref_totals *rt = &snap->ref_totals;
            rt->created += s->acquired;
            rt->deleted += s->released;
            rt->freed += s->commits;
            rt->live += s->live;
            rt->local_limit += s->over_limit;
            if (site->kind == PW_KIND_GLOBAL_REF)
                rt->live_global += s->live;
            else if (site->kind == PW_KIND_WEAK_REF)
                rt->live_weak += s->live;
            else
                rt->live_local += s->live;
            snap->nsites++;
            continue;
        }
        struct pw_snap_site *s = &snap->sites[next_pin++];
        snap->nsites++;
        *s = (struct pw_snap_site){
            .site = i,
            .ret = (uintptr_t)pw_site_get(i)->ret,
            .acquired = counts[i].acquired,
            .released = counts[i].released,
            .commits = counts[i].pin.commits,
            .live = sums[i].live,
            .live_bytes = sums[i].bytes,
            .leaked = sums[i].leaked,
            .carried = counts[i].carried,
            .leaked_bytes = sums[i].leaked_bytes,
            .suppressed = pw_site_get(i)->suppressed ? sums[i].live : 0,
            .oldest_age_ms = sums[i].any ? (uint32_t)(pass.now - sums[i].oldest_t) : 0,
        };
        snap->totals.acquired += s->acquired;
        snap->totals.released += s->released;
        snap->totals.commits += s->commits;
        snap->totals.live += s->live;
        snap->totals.live_bytes += s->live_bytes;
        snap->totals.leaked += s->leaked;
        snap->totals.carried += s->carried;
        snap->totals.suppressed += s->suppressed;
        if (s->suppressed == 0)
            snap->totals.leaked_unsuppressed += s->leaked;
    }
    free(counts);
    free(sums);
    snap->npins = npins;
    if (depth == SITES)
        return true;

    snap->nrows = group_rows(snap->sites, npins, snap->rows, by_live_bytes);
    snap->nrefs = group_rows(snap->sites + npins, snap->nsites - npins, snap->refs, by_live);
    snap->refs_on = refs_on;
    snap->totals.ref_live = snap->ref_totals.live;
    struct pw_refs_counts rc;
    pw_refs_counts_read(&rc);
    snap->ref_totals.unknown_global_deletes = rc.unknown_global_deletes;
    snap->ref_totals.unknown_weak_deletes = rc.unknown_weak_deletes;
    snap->ref_totals.unknown_local_deletes = rc.unknown_local_deletes;
    snap->ref_totals.double_deletes = rc.double_deletes;
    snap->ref_totals.lost = rc.lost;
    /* Distinct methods among the rows that still hold pins. */
    for (size_t i = 0; i < snap->nrows; i++) {
        if (snap->rows[i].live == 0)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = snap->rows[j].live > 0 && strcmp(snap->rows[j].method, snap->rows[i].method) == 0 &&
                   strcmp(snap->rows[j].signature, snap->rows[i].signature) == 0;
        snap->totals.methods += !seen;
    }

    if (depth == FULL) {
        snap->symbols = pw_symbols_open();
        for (size_t i = 0; i < npins; i++)
            symbolise_site(snap, &snap->sites[i]);
        /* Every native method that makes a local has a reference site: the
         * JDK's own make dozens, and the JVM and its launcher make references
         * through JNI too.  Whole stacks only where references are live or a
         * call went past local_limit, and never for the JVM's own call sites,
         * whose stacks run through libjvm and libc to the thread's start
         * (symbolising those read libc's debug information every report,
         * measured at seconds under load); the rest are named by their call
         * site. */
        for (size_t i = npins; i < snap->nsites; i++) {
            struct pw_snap_site *s = &snap->sites[i];
            const struct pw_site *site = pw_site_get(s->site);
            if (jvm_own_code(s->ret)) {
                s->java_stack = atomic_load_explicit(&((struct pw_site *)site)->java_stack, memory_order_acquire);
                dl_frame(s->ret, &s->stacks[s->nstacks++]);
            } else if (s->live > 0 || s->over_limit > 0) {
                symbolise_site(snap, s);
            } else {
                symbolise_stack(snap, site->method, &s->ret, 1, &s->stacks[s->nstacks++]);
            }
        }
    }
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
    for (size_t i = 0; i < snap->nfindings; i++) {
        free(snap->findings[i].acquire.frames);
        free(snap->findings[i].call.frames);
    }
    free(snap->findings);
    free(snap->sites);
    free(snap->rows);
    free(snap->refs);
    memset(snap, 0, sizeof(*snap));
}
