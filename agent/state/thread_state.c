/* SPDX-License-Identifier: Apache-2.0 */
#include "state/thread_state.h"
#include "state/leak_table.h"
#include "base/log.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(offsetof(struct pw_thread, depth) == PW_T_DEPTH, "native_entry.S");
_Static_assert(offsetof(struct pw_thread, serial) == PW_T_SERIAL, "native_entry.S");
_Static_assert(offsetof(struct pw_thread, too_deep) == PW_T_TOO_DEEP, "native_entry.S");
_Static_assert(offsetof(struct pw_thread, critical) == PW_T_CRITICAL, "jni_guard.S");
_Static_assert(offsetof(struct pw_thread, frames) == PW_T_FRAMES, "native_entry.S");
_Static_assert(offsetof(struct pw_thread, frames) == 128 && _Alignof(struct pw_thread) == 64,
               "the hooks' hot words fill the struct's first two cache lines");
_Static_assert(offsetof(struct pw_thread, va_env) == PW_T_VA_ENV, "va_forward.S");
_Static_assert(offsetof(struct pw_thread, va_ret) == PW_T_VA_RET, "va_forward.S");
_Static_assert(offsetof(struct pw_frame, method) == PW_F_METHOD, "native_entry.S");
_Static_assert(offsetof(struct pw_frame, ret) == PW_F_RET, "native_entry.S");
_Static_assert(offsetof(struct pw_frame, serial) == PW_F_SERIAL, "native_entry.S");
_Static_assert(offsetof(struct pw_frame, live) == PW_F_LIVE, "native_entry.S");
_Static_assert(offsetof(struct pw_frame, locals) == PW_F_LOCALS, "native_entry.S");
_Static_assert(PW_F_LIVE == PW_F_SERIAL + 4, "native_entry.S stores serial and live as one word");
_Static_assert(sizeof(struct pw_frame) == 1u << PW_FRAME_SHIFT, "native_entry.S");

__thread struct pw_thread *pw_tls_self;
uintptr_t pw_native_returns[2];

static pthread_key_t exit_key;
static void (*before_retire)(struct pw_thread *t);
static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct pw_thread *registry;

/* Counters of threads that have ended, guarded by the registry lock. */
static struct pw_counts retired_counts[PW_MAX_SITES];
static uint64_t retired_unmatched, retired_lost;

/* A pin that outlives its thread is a leak: it can no longer be released
 * by the thread that took it, and a report must still see it. */
static bool
move_to_leaks(uintptr_t key, const struct pw_pin_info *info, void *arg)
{
    struct pw_thread *t = arg;
    if (!pw_leak_table_insert(key, info))
        pw_count_add(&t->sites.counts.lost, 1);
    return true;
}

static void
thread_ended(void *arg)
{
    struct pw_thread *t = arg;
    pw_tls_self = NULL;
    if (before_retire != NULL)
        before_retire(t);
    pthread_rwlock_wrlock(&registry_lock);
    pw_pin_table_lock(&t->pins.table);
    pw_pin_table_visit(&t->pins.table, move_to_leaks, t);
    pw_pin_table_unlock(&t->pins.table);
    pw_thread_counts_add_to(&t->sites.counts, retired_counts, PW_MAX_SITES);
    retired_unmatched += t->sites.counts.unmatched_releases;
    retired_lost += t->sites.counts.lost;
    *t->prevp = t->next;
    if (t->next != NULL)
        t->next->prevp = t->prevp;
    pthread_rwlock_unlock(&registry_lock);
    pw_pin_table_free(&t->pins.table);
    pw_local_table_free(&t->refs.locals);
    pw_thread_counts_free(&t->sites.counts);
    free(t);
}

bool
pw_threads_init(void (*on_end)(struct pw_thread *t))
{
    before_retire = on_end;
    /* Before any table is made, as the choice requires. */
    if (pw_pin_table_start(true))
        pw_log_debug("pin releases: the owner's without a locked instruction (membarrier for another thread's)");
    else
        pw_log_debug("pin releases: compare-and-swap (no expedited membarrier from the kernel)");
    int rc = pthread_key_create(&exit_key, thread_ended);
    if (rc != 0) {
        pw_log_error("pthread_key_create failed (error %d)", rc);
        return false;
    }
    return true;
}

struct pw_thread *
pw_thread_create(void)
{
    /* Line-aligned, so that its first two lines are the hooks' hot words
     * and nothing else (struct pw_thread). */
    struct pw_thread *t = aligned_alloc(_Alignof(struct pw_thread), sizeof(*t));
    if (t == NULL)
        return NULL;
    memset(t, 0, sizeof(*t));
    for (int k = 0; k < PW_KIND_COUNT; k++)
        t->sample_countdown[k] = 1;
    if (!pw_pin_table_init(&t->pins.table)) {
        free(t);
        return NULL;
    }
    /* The key's destructor runs when the thread exits, whether the JVM
     * made it or it attached itself and never detached. */
    if (pthread_setspecific(exit_key, t) != 0) {
        pw_pin_table_free(&t->pins.table);
        free(t);
        return NULL;
    }
    pthread_rwlock_wrlock(&registry_lock);
    t->next = registry;
    t->prevp = &registry;
    if (registry != NULL)
        registry->prevp = &t->next;
    registry = t;
    pthread_rwlock_unlock(&registry_lock);
    pw_tls_self = t;
    return t;
}

struct locals_visit {
    void (*fn)(uintptr_t handle, const struct pw_ref_info *info, void *arg);
    void *arg;
};

/* A natively attached thread's locals, handed to the visitor as the
 * references they are (site and time made). */
static bool
visit_local(uintptr_t handle, const struct pw_local_info *info, void *arg)
{
    const struct locals_visit *v = arg;
    v->fn(handle, &(struct pw_ref_info){.site = info->site, .t_ms = info->t_ms}, v->arg);
    return false;
}

static void
add_thread(struct pw_thread *t, struct pw_thread_pass *sums, pw_pin_visit_fn pins,
           const struct locals_visit *locals, void *arg)
{
    pw_thread_counts_add_to(&t->sites.counts, sums->counts, sums->nsites);
    sums->table_bytes += pw_pin_table_memory(&t->pins.table) + sizeof(*t);
    sums->unmatched += pw_count_read(&t->sites.counts.unmatched_releases);
    sums->lost += pw_count_read(&t->sites.counts.lost);
    if (pins != NULL)
        pw_pin_table_visit(&t->pins.table, pins, arg);
    if (locals->fn != NULL)
        pw_local_table_visit(&t->refs.locals, visit_local, (void *)locals);
    sums->local_table_bytes += pw_local_table_memory(&t->refs.locals);
}

void
pw_threads_pass(struct pw_thread_pass *sums, pw_pin_visit_fn pins,
                void (*locals)(uintptr_t handle, const struct pw_ref_info *info, void *arg),
                void (*under_lock)(void *arg), void *arg)
{
    const struct locals_visit lv = {.fn = locals, .arg = arg};
    uint32_t n = sums->nsites < PW_MAX_SITES ? sums->nsites : PW_MAX_SITES;
    sums->nsites = n;
    pthread_rwlock_rdlock(&registry_lock);
    memcpy(sums->counts, retired_counts, n * sizeof(*sums->counts));
    sums->unmatched = retired_unmatched;
    sums->lost = retired_lost;
    sums->table_bytes = sums->local_table_bytes = 0;
    for (struct pw_thread *t = registry; t != NULL; t = t->next)
        pw_pin_table_lock(&t->pins.table);
    for (struct pw_thread *t = registry; t != NULL; t = t->next)
        add_thread(t, sums, pins, &lv, arg);
    if (under_lock != NULL)
        under_lock(arg);
    for (struct pw_thread *t = registry; t != NULL; t = t->next)
        pw_pin_table_unlock(&t->pins.table);
    pthread_rwlock_unlock(&registry_lock);
}

bool
pw_threads_any(const struct pw_thread *skip, bool (*fn)(struct pw_thread *t, void *arg), void *arg)
{
    bool found = false;
    pthread_rwlock_rdlock(&registry_lock);
    for (struct pw_thread *t = registry; t != NULL && !found; t = t->next)
        if (t != skip)
            found = fn(t, arg);
    pthread_rwlock_unlock(&registry_lock);
    return found;
}
