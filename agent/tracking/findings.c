/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/findings.h"
#include "tracking/events.h"
#include "state/methods.h"
#include "state/frame_layout.h"
#include "state/site_table.h"
#include "state/thread_state.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define MAX_FINDINGS 4096
#define INDEX_SIZE (MAX_FINDINGS * 2)

/* In a finding's detail: the call was the native method's tail call, and
 * call is that function's start + 1.  Rows carry it as tail_call. */
#define PW_FINDING_TAIL 0x80000000u

struct finding {
    enum pw_finding_kind kind;
    uint32_t site;
    uintptr_t call;
    uint32_t detail;
    _Atomic uint64_t count;
};

static struct finding findings[MAX_FINDINGS];
static _Atomic uint32_t nfindings = 1; /* 0 is the empty index slot */
static _Atomic uint32_t index_[INDEX_SIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t double_releases, dropped;

/* critical_ms=: written once by pw_findings_start, before the JNI table swap. */
static uint64_t critical_ms;

void
pw_findings_start(const struct pw_options *o)
{
    critical_ms = o->critical_ms;
}

static const char *const kind_names[PW_FINDING_KINDS] = {
    [PW_FINDING_DOUBLE_RELEASE] = "double_release", [PW_FINDING_WRONG_OBJECT] = "wrong_object",
    [PW_FINDING_WRONG_FUNCTION] = "wrong_function", [PW_FINDING_JNI_IN_CRITICAL] = "jni_in_critical",
    [PW_FINDING_LONG_CRITICAL] = "long_critical",   [PW_FINDING_DOUBLE_DELETE] = "double_delete",
    [PW_FINDING_LOCAL_LIMIT] = "local_limit",
};

const char *
pw_finding_kind_name(enum pw_finding_kind kind)
{
    return (unsigned)kind < PW_FINDING_KINDS ? kind_names[kind] : "?";
}

static uint32_t
hash(enum pw_finding_kind kind, uint32_t site, uintptr_t call, uint32_t detail)
{
    uint64_t h = (uint64_t)call * PW_HASH_GOLDEN ^ ((uint64_t)site << 20) ^ ((uint64_t)kind << 8) ^ detail;
    h ^= h >> 29;
    return (uint32_t)(h * PW_HASH_MIX2 >> 40) & (INDEX_SIZE - 1);
}

static bool
is(const struct finding *f, enum pw_finding_kind kind, uint32_t site, uintptr_t call, uint32_t detail)
{
    return f->kind == kind && f->site == site && f->call == call && f->detail == detail;
}

/* Lock-free when the finding is known: a loop that misuses JNI a million
 * times costs one atomic add each, not a lock. */
static struct finding *
find_or_add(enum pw_finding_kind kind, uint32_t site, uintptr_t call, uint32_t detail)
{
    uint32_t h = hash(kind, site, call, detail);
    for (uint32_t i = h;; i = (i + 1) & (INDEX_SIZE - 1)) {
        uint32_t id = atomic_load_explicit(&index_[i], memory_order_acquire);
        if (id == 0)
            break;
        if (is(&findings[id], kind, site, call, detail))
            return &findings[id];
    }
    struct finding *found = NULL;
    pthread_mutex_lock(&lock);
    for (uint32_t i = h;; i = (i + 1) & (INDEX_SIZE - 1)) {
        uint32_t id = atomic_load_explicit(&index_[i], memory_order_relaxed);
        if (id != 0) {
            if (is(&findings[id], kind, site, call, detail)) {
                found = &findings[id];
                break;
            }
            continue;
        }
        uint32_t fresh = atomic_load_explicit(&nfindings, memory_order_relaxed);
        if (fresh >= MAX_FINDINGS)
            break;
        findings[fresh] = (struct finding){.kind = kind, .site = site, .call = call, .detail = detail};
        atomic_store_explicit(&nfindings, fresh + 1, memory_order_release);
        atomic_store_explicit(&index_[i], fresh, memory_order_release);
        found = &findings[fresh];
        break;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void
pw_finding(enum pw_finding_kind kind, uint32_t site, void *call, uint32_t detail)
{
    /* A release or JNI call made as the native method's last act returns
     * straight to our exit stub: the caller is that method's function. */
    if (pw_is_native_return((uintptr_t)call)) {
        struct pw_thread *t = pw_tls_self;
        struct pw_frame *f = t != NULL ? pw_thread_top(t) : NULL;
        uintptr_t caller = pw_method_caller(f != NULL ? f->method : NULL, (uintptr_t)call, NULL);
        if (caller != 0) {
            call = (void *)caller;
            detail |= PW_FINDING_TAIL;
        }
    }
    if (kind == PW_FINDING_DOUBLE_RELEASE)
        atomic_fetch_add_explicit(&double_releases, 1, memory_order_relaxed);
    struct finding *f = find_or_add(kind, site, (uintptr_t)call, detail);
    uint64_t count = 0;
    if (f != NULL)
        count = atomic_fetch_add_explicit(&f->count, 1, memory_order_relaxed) + 1;
    else
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    pw_events_finding(kind, site, (uintptr_t)call, (detail & PW_FINDING_TAIL) != 0, detail & ~PW_FINDING_TAIL,
                      count);
}

uint64_t
pw_findings_double_releases(void)
{
    return atomic_load_explicit(&double_releases, memory_order_relaxed);
}

struct pw_finding_row *
pw_findings_copy(size_t *n)
{
    uint32_t count = atomic_load_explicit(&nfindings, memory_order_acquire);
    struct pw_finding_row *rows = calloc(count, sizeof(*rows));
    *n = 0;
    if (rows == NULL)
        return NULL;
    for (uint32_t i = 1; i < count; i++) {
        const struct finding *f = &findings[i];
        rows[(*n)++] = (struct pw_finding_row){
            .kind = f->kind,
            .site = f->site,
            .call = f->call,
            .tail_call = (f->detail & PW_FINDING_TAIL) != 0,
            .detail = f->detail & ~PW_FINDING_TAIL,
            .count = atomic_load_explicit(&f->count, memory_order_relaxed),
        };
    }
    return rows;
}

/* Hold times of 1 ms and more, per site, in powers of two: [1,2), [2,4),
 * ... Shorter holds are the site's other releases. */
#define HOLD_BUCKETS 24

struct holds {
    _Atomic uint64_t bucket[HOLD_BUCKETS];
    _Atomic uint64_t over, max_ms;
};

static _Atomic(struct holds *) holds_of[PW_MAX_SITES];

void
pw_finding_critical_held(uint32_t site, void *call, uint64_t held_ms)
{
    (void)call;
    if (held_ms == 0 || site >= PW_MAX_SITES)
        return;
    struct holds *h = atomic_load_explicit(&holds_of[site], memory_order_acquire);
    if (h == NULL) {
        struct holds *fresh = calloc(1, sizeof(*fresh));
        if (fresh == NULL)
            return;
        struct holds *expected = NULL;
        if (atomic_compare_exchange_strong(&holds_of[site], &expected, fresh))
            h = fresh;
        else {
            free(fresh);
            h = expected;
        }
    }
    int b = 0;
    while (b < HOLD_BUCKETS - 1 && held_ms >= (2ull << b))
        b++;
    atomic_fetch_add_explicit(&h->bucket[b], 1, memory_order_relaxed);
    uint64_t max = atomic_load_explicit(&h->max_ms, memory_order_relaxed);
    while (held_ms > max && !atomic_compare_exchange_weak(&h->max_ms, &max, held_ms))
        ;
    if (held_ms > critical_ms) {
        atomic_fetch_add_explicit(&h->over, 1, memory_order_relaxed);
        /* One finding per site (no call, no detail), whichever call
         * released the region: how long each hold lasted is told by the
         * site's histogram, not by separate findings. */
        pw_finding(PW_FINDING_LONG_CRITICAL, site, NULL, 0);
    }
}

bool
pw_findings_long_critical(uint32_t site, uint64_t releases, struct pw_long_critical *out)
{
    struct holds *h = site < PW_MAX_SITES ? atomic_load_explicit(&holds_of[site], memory_order_acquire) : NULL;
    if (h == NULL)
        return false;
    out->over = atomic_load_explicit(&h->over, memory_order_relaxed);
    out->max_ms = atomic_load_explicit(&h->max_ms, memory_order_relaxed);
    uint64_t counted[HOLD_BUCKETS], long_holds = 0;
    for (int b = 0; b < HOLD_BUCKETS; b++)
        long_holds += counted[b] = atomic_load_explicit(&h->bucket[b], memory_order_relaxed);
    uint64_t total = releases > long_holds ? releases : long_holds;
    /* The hold below which 99% of all holds fall, to the bucket's upper
     * bound (and never past the longest seen). */
    uint64_t rank = total - total / 100, seen = total - long_holds;
    out->p99_ms = 0;
    for (int b = 0; b < HOLD_BUCKETS && seen < rank; b++) {
        seen += counted[b];
        out->p99_ms = 2ull << b;
    }
    if (out->p99_ms > out->max_ms)
        out->p99_ms = out->max_ms;
    return out->over > 0;
}
