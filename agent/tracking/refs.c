/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/refs.h"
#include "base/clock.h"
#include "tracking/findings.h"
#include "state/ref_table.h"
#include "tracking/requests.h"
#include "tracking/tracker.h"

#include <stdatomic.h>

uint32_t pw_refs_local_limit;
/* For the one question a thread is asked about its frames.  Written once
 * by pw_refs_start, before the JNI table swap. */
static jvmtiEnv *jvmti;

void
pw_refs_start(const struct pw_options *o, jvmtiEnv *env)
{
    pw_refs_local_limit = (uint32_t)o->local_limit;
    jvmti = env;
}

/* Rare events, counted on shared atomics. */
static _Atomic uint64_t unknown_deletes[3], double_deletes, lost;

static void
remember_delete(struct pw_thread *t, uintptr_t handle, uint32_t site)
{
    uint32_t next = t->refs.recent_delete_next;
    struct pw_recent_release *r = &t->refs.recent_deletes[next % PW_RECENT_DELETES];
    __atomic_store_n(&r->site, site, __ATOMIC_RELAXED);
    __atomic_store_n(&r->ptr, handle, __ATOMIC_RELAXED);
    __atomic_store_n(&t->refs.recent_delete_next, next + 1, __ATOMIC_RELAXED);
}

struct ring_lookup {
    uintptr_t handle;
    uint32_t site;
};

/* Newest first: a handle the JVM handed out again is in the ring once per
 * delete, and the latest one names the site it came from last. */
static bool
in_ring(const struct pw_thread *o, struct ring_lookup *l)
{
    uint32_t next = __atomic_load_n(&o->refs.recent_delete_next, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < PW_RECENT_DELETES; i++) {
        const struct pw_recent_release *r = &o->refs.recent_deletes[(next - 1 - i) % PW_RECENT_DELETES];
        if (__atomic_load_n(&r->ptr, __ATOMIC_RELAXED) == l->handle) {
            l->site = __atomic_load_n(&r->site, __ATOMIC_RELAXED);
            return true;
        }
    }
    return false;
}

/* A local deleted before by this thread (locals are no other thread's),
 * and not made since by any call pinwatch saw (that would have put it back
 * in the thread's table)? */
static bool
deleted_before(struct pw_thread *t, uintptr_t handle, uint32_t *site)
{
    struct ring_lookup l = {.handle = handle};
    if (in_ring(t, &l)) {
        *site = l.site;
        return true;
    }
    return false;
}

void
pw_refs_global_made(JNIEnv *env, struct pw_thread *t, enum pw_kind kind, uint32_t slot, jobject ref, void *ret)
{
    const struct pw_site_ref *at = pw_track_site_ref(env, t, kind, slot, ret);
    uint32_t site = at->site;
    struct pw_ref_info info = {.site = site, .t_ms = (uint32_t)pw_clock_ms()}, old;
    bool stored;
    pw_count_add(&at->counts->acquired, 1);
    if (PW_UNLIKELY(pw_ref_table_insert((uintptr_t)ref, &info, &old, &stored))) {
        /* The JVM handed out a handle the books still hold: it was deleted
         * by a way pinwatch does not see.  It is not live any more. */
        pw_count_add(&pw_counts_of(&t->sites.counts, old.site)->ref.freed, 1);
        pw_requests_ref_count(t, -1);
    }
    if (PW_UNLIKELY(!stored)) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
        pw_count_add(&pw_counts_of(&t->sites.counts, site)->ref.freed, 1);
        return;
    }
    pw_requests_ref_count(t, 1);
}

enum pw_ref_delete
pw_refs_global_deleting(struct pw_thread *t, enum pw_kind kind, jobject ref, void *ret, uint32_t slot)
{
    struct pw_ref_info info;
    switch (pw_ref_table_remove((uintptr_t)ref, &info)) {
    case PW_REF_REMOVED: {
        pw_count_add(&pw_counts_of(&t->sites.counts, info.site)->released, 1);
        pw_requests_ref_count(t, -1);
        uint8_t made = pw_site_get(info.site)->kind;
        if (PW_UNLIKELY(made != kind))
            return made == PW_KIND_WEAK_REF ? PW_REF_DELETE_AS_WEAK : PW_REF_DELETE_AS_GLOBAL;
        return PW_REF_DELETE_PASS;
    }
    case PW_REF_DELETED:
        /* Deleted before, by any thread, and handed out by no call seen
         * since (that would have made the record live again). */
        atomic_fetch_add_explicit(&double_deletes, 1, memory_order_relaxed);
        pw_finding(PW_FINDING_DOUBLE_DELETE, info.site, ret, slot);
        return PW_REF_DELETE_DROP;
    case PW_REF_UNKNOWN:
    default:
        /* Made before a late attach, or by a way pinwatch does not see. */
        atomic_fetch_add_explicit(&unknown_deletes[kind == PW_KIND_WEAK_REF], 1, memory_order_relaxed);
        return PW_REF_DELETE_PASS;
    }
}

/* Is this thread, outside any native method of ours, a natively attached
 * one?  Asked once per thread: a thread that had no Java frame the first
 * time is the attached kind (a launcher's main thread, a pthread that
 * called AttachCurrentThread); one with Java frames is a Java thread in
 * JNI_OnLoad, a JVMTI callback or a method bound before a late attach,
 * whose locals the JVM frees when that returns. */
static bool
natively_attached(struct pw_thread *t)
{
    if (PW_UNLIKELY(t->refs.thread_kind == PW_THREAD_UNKNOWN)) {
        jint frames = 0;
        if (t->critical == 0 && jvmti != NULL &&
            (*jvmti)->GetFrameCount(jvmti, NULL, &frames) != JVMTI_ERROR_NONE)
            frames = 0;
        t->refs.thread_kind = frames == 0 ? PW_THREAD_ATTACHED : PW_THREAD_JAVA;
    }
    return t->refs.thread_kind == PW_THREAD_ATTACHED;
}

static __attribute__((noinline, cold)) void
peak_reached(struct pw_site *s, uint32_t site, uint32_t count, struct pw_frame *f, uint32_t word, void *ret,
             uint32_t slot)
{
    uint32_t peak = atomic_load_explicit(&s->ref.peak, memory_order_relaxed);
    while (peak < count && !atomic_compare_exchange_weak(&s->ref.peak, &peak, count))
        ;
    if (count > pw_refs_local_limit && (word & PW_LOCALS_OVER) == 0) {
        pw_frame_set_locals(f, count | PW_LOCALS_OVER);
        atomic_fetch_add_explicit(&s->ref.over, 1, memory_order_relaxed);
        pw_finding(PW_FINDING_LOCAL_LIMIT, site, ret, slot);
    }
}

void
pw_refs_local_made(JNIEnv *env, struct pw_thread *t, uint32_t slot, jobject ref, void *ret)
{
    uint32_t site = pw_track_site(env, t, PW_KIND_LOCAL_REF, slot, ret);
    struct pw_counts *c = pw_counts_of(&t->sites.counts, site);
    pw_count_add(&c->acquired, 1);
    struct pw_frame *f = pw_thread_top(t);
    if (PW_LIKELY(f != NULL)) {
        uint32_t word = pw_frame_locals(f);
        uint32_t count = (word & PW_LOCALS_COUNT_MASK) + 1;
        pw_frame_set_locals(f, (word & PW_LOCALS_OVER) | count);
        struct pw_site *s = pw_site_get(site);
        if (PW_UNLIKELY(count > atomic_load_explicit(&s->ref.peak, memory_order_relaxed) ||
                        (count > pw_refs_local_limit && (word & PW_LOCALS_OVER) == 0)))
            peak_reached(s, site, count, f, word, ret, slot);
        /* What the inlined path compares with from now on (refs.h). */
        __atomic_store_n(&c->peak_seen, atomic_load_explicit(&s->ref.peak, memory_order_relaxed),
                         __ATOMIC_RELAXED);
        return;
    }
    if (!natively_attached(t))
        return; /* freed by the JVM when the Java-called code returns */
    struct pw_local_info stale;
    if (PW_UNLIKELY(pw_local_table_take(&t->refs.locals, (uintptr_t)ref, &stale))) {
        /* Its slot was freed without pinwatch seeing how. */
        pw_count_add(&pw_counts_of(&t->sites.counts, stale.site)->ref.freed, 1);
        pw_requests_ref_count(t, -1);
    }
    struct pw_local_info info = {.site = site, .depth = t->refs.local_depth, .t_ms = (uint32_t)pw_clock_ms()};
    if (PW_UNLIKELY(!pw_local_table_insert(&t->refs.locals, (uintptr_t)ref, &info))) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
        pw_count_add(&c->ref.freed, 1);
        return;
    }
    pw_requests_ref_count(t, 1);
}

bool
pw_refs_local_deleting(struct pw_thread *t, jobject ref, void *ret)
{
    struct pw_frame *f = pw_thread_top(t);
    if (PW_LIKELY(f != NULL)) {
        uint32_t word = pw_frame_locals(f);
        if ((word & PW_LOCALS_COUNT_MASK) > 0)
            pw_frame_set_locals(f, word - 1);
        return true;
    }
    if (t->refs.thread_kind != PW_THREAD_ATTACHED)
        return true;
    uintptr_t handle = (uintptr_t)ref;
    struct pw_local_info made;
    if (pw_local_table_take(&t->refs.locals, handle, &made)) {
        pw_count_add(&pw_counts_of(&t->sites.counts, made.site)->released, 1);
        pw_requests_ref_count(t, -1);
        remember_delete(t, handle, made.site);
        return true;
    }
    uint32_t site = 0;
    /* A local handle is this thread's only: no other ring can know it.
     * Made since by a call pinwatch saw, it would be in the table; made by
     * the JVM itself, deleting it would destroy the JVM's reference.  Not
     * passing it on is safe either way, and -Xcheck:jni aborts on it. */
    if (deleted_before(t, handle, &site)) {
        atomic_fetch_add_explicit(&double_deletes, 1, memory_order_relaxed);
        pw_finding(PW_FINDING_DOUBLE_DELETE, site, ret,
                   (uint32_t)(offsetof(struct JNINativeInterface_, DeleteLocalRef) / sizeof(void *)));
        return false;
    }
    atomic_fetch_add_explicit(&unknown_deletes[2], 1, memory_order_relaxed);
    remember_delete(t, handle, 0);
    return true;
}

static bool
serial_running(const struct pw_thread *t, uint32_t serial)
{
    for (uint32_t d = t->depth; d > 0; d--)
        if (t->frames[d - 1].serial == serial)
            return true;
    return false;
}

/* Frames pushed by invocations that returned without popping them (the
 * JVM pops those itself). */
static void
drop_stale_frames(struct pw_thread *t)
{
    while (t->refs.nlocal_frames > 0 &&
           !serial_running(t, t->refs.local_frames[t->refs.nlocal_frames - 1].serial))
        t->refs.nlocal_frames--;
}

void
pw_refs_frame_pushed(struct pw_thread *t)
{
    struct pw_frame *f = pw_thread_top(t);
    if (f == NULL) {
        if (natively_attached(t))
            t->refs.local_depth++;
        return;
    }
    drop_stale_frames(t);
    if (t->refs.nlocal_frames < PW_LOCAL_FRAMES) {
        uint32_t word = pw_frame_locals(f);
        /* The invocation's count goes on across the frame (it holds both
         * frames' locals); the pop brings it back to this. */
        t->refs.local_frames[t->refs.nlocal_frames++] =
            (struct pw_local_frame){.serial = f->serial, .count = word};
    }
}

struct popped {
    struct pw_thread *t;
    uint32_t depth;
};

static bool
freed_by_pop(uintptr_t handle, const struct pw_local_info *info, void *arg)
{
    (void)handle;
    struct popped *p = arg;
    if (info->depth != p->depth)
        return false;
    pw_count_add(&pw_counts_of(&p->t->sites.counts, info->site)->ref.freed, 1);
    pw_requests_ref_count(p->t, -1);
    return true;
}

void
pw_refs_frame_popping(struct pw_thread *t)
{
    struct pw_frame *f = pw_thread_top(t);
    if (f == NULL) {
        if (t->refs.thread_kind != PW_THREAD_ATTACHED || t->refs.local_depth == 0)
            return;
        struct popped p = {.t = t, .depth = t->refs.local_depth};
        pw_local_table_visit(&t->refs.locals, freed_by_pop, &p);
        t->refs.local_depth--;
        return;
    }
    drop_stale_frames(t);
    if (t->refs.nlocal_frames > 0 && t->refs.local_frames[t->refs.nlocal_frames - 1].serial == f->serial) {
        uint32_t word = pw_frame_locals(f);
        uint32_t saved = t->refs.local_frames[--t->refs.nlocal_frames].count;
        pw_frame_set_locals(f, (saved & PW_LOCALS_COUNT_MASK) | ((saved | word) & PW_LOCALS_OVER));
    }
}

static bool
freed_all(uintptr_t handle, const struct pw_local_info *info, void *arg)
{
    (void)handle;
    struct pw_thread *t = arg;
    pw_count_add(&pw_counts_of(&t->sites.counts, info->site)->ref.freed, 1);
    pw_requests_ref_count(t, -1);
    return true;
}

void
pw_refs_thread_detached(struct pw_thread *t)
{
    pw_local_table_visit(&t->refs.locals, freed_all, t);
    t->refs.local_depth = 0;
    t->refs.nlocal_frames = 0;
}

void
pw_refs_counts_read(struct pw_refs_counts *out)
{
    out->unknown_global_deletes = atomic_load_explicit(&unknown_deletes[0], memory_order_relaxed);
    out->unknown_weak_deletes = atomic_load_explicit(&unknown_deletes[1], memory_order_relaxed);
    out->unknown_local_deletes = atomic_load_explicit(&unknown_deletes[2], memory_order_relaxed);
    out->double_deletes = atomic_load_explicit(&double_deletes, memory_order_relaxed);
    out->lost = atomic_load_explicit(&lost, memory_order_relaxed);
}
