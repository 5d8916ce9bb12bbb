/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/tracker.h"
#include "tracking/backtrace.h"
#include "base/clock.h"
#include "tracking/findings.h"
#include "jvm/java_stack.h"
#include "tracking/late_frame.h"
#include "state/stack_table.h"
#include "state/leak_table.h"
#include "state/methods.h"
#include "tracking/requests.h"

/* Written once by pw_tracker_start, before the JNI table swap. */
static jvmtiEnv *jvmti;
/* Loaded into a running JVM: methods bound before have no thunk, so a
 * thread in none of ours asks the JVM which native method it is in. */
static bool attached_late;
/* stack= and javastack=: frames kept per site. */
static int stack_depth, java_depth;

void
pw_tracker_start(const struct pw_options *o, jvmtiEnv *env, bool attached)
{
    jvmti = env;
    attached_late = attached;
    stack_depth = o->stack;
    java_depth = o->javastack;
}

/* The native method the JVM says this thread is in (its innermost Java
 * frame), or NULL when that frame is no native method's. */
static struct pw_method *
innermost_native(struct pw_thread *t)
{
    jmethodID id = NULL;
    jlocation loc;
    jboolean native = JNI_FALSE;
    if ((*jvmti)->GetFrameLocation(jvmti, NULL, 0, &id, &loc) != JVMTI_ERROR_NONE || id == NULL)
        return NULL;
    if (id == t->late.id)
        return t->late.method;
    if ((*jvmti)->IsMethodNative(jvmti, id, &native) != JVMTI_ERROR_NONE || !native)
        return NULL;
    struct pw_method *m = pw_method_unbound(jvmti, id);
    if (m != NULL) {
        t->late.id = id;
        t->late.method = m;
    }
    return m;
}

/* Without a frame of ours the thread is either natively attached or, after
 * a late attach, inside a method bound before pinwatch came: the JVM knows
 * which (a JVMTI call, the slow path the thunks exist to avoid), and the
 * invocation then gets its shadow frame lazily (late_frame.c), so that
 * only its first Get pays. */
static const struct pw_method *
method_without_frame(JNIEnv *env, struct pw_thread *t, void *ret)
{
    if (!attached_late || jvmti == NULL)
        return &pw_method_native_thread;
    /* No JVMTI call inside a critical region.  None is needed: no JNI call
     * may be made there, so no Java frame came or went since the Get that
     * opened it, which asked the JVM. */
    if (t->critical != 0)
        return t->late.last != NULL ? t->late.last : &pw_method_native_thread;
    struct pw_method *m = innermost_native(t);
    t->late.last = m != NULL ? m : &pw_method_native_thread;
    if (m == NULL)
        return &pw_method_native_thread;
    if (!atomic_load_explicit(&m->rebind_tried, memory_order_relaxed) && !atomic_exchange(&m->rebind_tried, true))
        pw_method_rebind(jvmti, env, m, ret);
    pw_late_frame_push(t, m, ret);
    return m;
}

/* A frame pushed lazily (a method record without a thunk) need not be the
 * innermost native invocation any more: its method may have called Java
 * that called another method bound before the attach, which has no frame
 * yet.  The JVM says, once per Get of such an invocation (thunked ones,
 * the hot path, are never asked about).  Inside a critical region the
 * innermost Java frame cannot have changed since the region opened. */
static __attribute__((noinline)) bool
innermost_asked(const struct pw_frame *f)
{
    jmethodID id = NULL;
    jlocation loc;
    return (*jvmti)->GetFrameLocation(jvmti, NULL, 0, &id, &loc) == JVMTI_ERROR_NONE && id != NULL &&
           id != f->method->id;
}

/* Inline: without a late attach it is one test. */
static inline bool
not_innermost(const struct pw_thread *t, const struct pw_frame *f)
{
    if (PW_LIKELY(!attached_late) || PW_LIKELY(f->method->orig != NULL) || t->critical != 0)
        return false;
    return innermost_asked(f);
}

/* Adds the stack of this Get to its site unless the site knows it. */
static void
take_stack(struct pw_site *site, void *ret, bool bounded)
{
    uintptr_t ips[PW_STACK_MAX];
    int n = pw_backtrace(ret, ips, stack_depth, bounded);
    uint32_t id = pw_stack_intern(ips, n);
    if (id == PW_NO_STACK)
        return;
    for (int i = 0; i < PW_SITE_STACKS; i++) {
        uint32_t have = atomic_load_explicit(&site->stacks[i], memory_order_acquire);
        if (have == id)
            return;
        if (have == PW_NO_STACK && atomic_compare_exchange_strong(&site->stacks[i], &have, id))
            return;
        if (have == id)
            return;
    }
}

/* A site met by this thread for the first time (or again after its cache
 * entry was taken): the only place the expensive captures may happen. */
static void
first_sight(JNIEnv *env, struct pw_thread *t, uint32_t id, void *ret, bool bounded)
{
    struct pw_site *site = pw_site_get(id);
    if (id == PW_SITE_OVERFLOW)
        return;
    if (stack_depth > 0 && atomic_load_explicit(&site->stacks[0], memory_order_acquire) == PW_NO_STACK) {
        atomic_store_explicit(&site->sampled_ms, (uint32_t)pw_clock_ms(), memory_order_relaxed);
        take_stack(site, ret, bounded);
    }
    /* A JVMTI stack query is not for a thread inside a critical region. */
    if (java_depth > 0 && t->critical == 0 && t->depth > 0 &&
        !atomic_load_explicit(&site->java_tried, memory_order_relaxed) &&
        !atomic_exchange(&site->java_tried, true)) {
        struct pw_java_stack *js = pw_java_stack_capture(jvmti, env, java_depth);
        atomic_store_explicit(&site->java_stack, js, memory_order_release);
    }
}

/* Every PW_SAMPLE_PERIOD calls at known sites of one kind: the site's
 * stack again, if it is due. */
/* Not marked cold: GCC would then move the countdown itself, which every
 * Get runs, out of the hooks' hot path. */
static __attribute__((noinline)) void
sample(struct pw_thread *t, enum pw_kind kind, uint32_t id, void *ret, bool bounded)
{
    t->sample_countdown[kind] = PW_SAMPLE_PERIOD;
    struct pw_site *site = pw_site_get(id);
    uint32_t now = (uint32_t)pw_clock_ms(), last = atomic_load_explicit(&site->sampled_ms, memory_order_relaxed);
    if (stack_depth > 0 && now - last >= PW_SAMPLE_MS &&
        atomic_compare_exchange_strong(&site->sampled_ms, &last, now))
        take_stack(site, ret, bounded);
}

/* A call whose site this thread's cache does not hold.  The entry keeps
 * what the record needs of the site: its suppression and this thread's
 * counters for it.  The overflow site, and a site whose counters could not
 * be allocated (they go to the shared sink and are tallied as lost), are
 * filled in but not kept (ret NULL): every call there misses again, so the
 * hit path needs no test for either. */
static __attribute__((noinline)) const struct pw_site_cache_entry *
site_missed(JNIEnv *env, struct pw_thread *t, struct pw_site_cache_entry *e, const struct pw_method *m,
            enum pw_kind kind, uint32_t fn, void *ret, bool bounded)
{
    uint32_t site = pw_site_intern(m, kind, fn, ret);
    struct pw_counts *counts = pw_counts_of(&t->sites.counts, site);
    /* Nor is a site of a method bound before a late attach and not bound
     * again (no thunk: its frame was pushed lazily and may not be the
     * innermost invocation any more, not_innermost): so a hit of the
     * inlined paths (pw_track_get_in, tracking/refs.h) needs no late-attach
     * test, and such a method's Gets all take the general path. */
    bool lazy = attached_late && m != &pw_method_native_thread && m->orig == NULL;
    bool keep = site != PW_SITE_OVERFLOW && t->sites.counts.chunks[site / PW_COUNT_CHUNK] != NULL && !lazy;
    *e = (struct pw_site_cache_entry){
        .ret = keep ? ret : NULL,
        .method = m,
        .at = {.counts = counts,
               .site = site,
               .key = PW_SITE_KEY(kind, fn),
               .suppressed = pw_site_get(site)->suppressed,
               .elem = (uint8_t)atomic_load_explicit(&pw_site_get(site)->elem_size, memory_order_relaxed)},
    };
    first_sight(env, t, site, ret, bounded);
    /* A lazy frame's site misses every time: its stack samples are
     * counted down here instead. */
    if (PW_UNLIKELY(lazy) && --t->sample_countdown[kind] == 0)
        sample(t, kind, site, ret, bounded);
    return e;
}

static inline __attribute__((always_inline)) const struct pw_site_cache_entry *
site_of(JNIEnv *env, struct pw_thread *t, struct pw_frame **fp, enum pw_kind kind, uint32_t fn, void *ret)
{
    struct pw_frame *f = *fp;
    const struct pw_method *m;
    if (PW_LIKELY(f != NULL) && PW_LIKELY(!not_innermost(t, f))) {
        m = f->method;
    } else {
        /* After a late attach this may push a frame for the invocation. */
        m = method_without_frame(env, t, ret);
        f = *fp = pw_thread_top(t);
    }
    uint16_t key = PW_SITE_KEY(kind, fn);
    struct pw_site_cache_entry *e = pw_site_cache_slot(t, ret);
    /* Native frames can be walked safely up to the method's entry (a
     * thunked method) or to the thread's start (a native thread). */
    bool bounded = f != NULL || m == &pw_method_native_thread;
    if (PW_LIKELY(pw_site_cache_holds(e, m, key, ret))) {
        if (PW_UNLIKELY(--t->sample_countdown[kind] == 0))
            sample(t, kind, e->at.site, ret, bounded);
        return e;
    }
    return site_missed(env, t, e, m, kind, fn, ret, bounded);
}

uint32_t
pw_track_site(JNIEnv *env, struct pw_thread *t, enum pw_kind kind, uint32_t fn, void *ret)
{
    return pw_track_site_ref(env, t, kind, fn, ret)->site;
}

const struct pw_site_ref *
pw_track_site_ref(JNIEnv *env, struct pw_thread *t, enum pw_kind kind, uint32_t fn, void *ret)
{
    struct pw_frame *f = pw_thread_top(t);
    return &site_of(env, t, &f, kind, fn, ret)->at;
}

/* counts: this thread's counters for the site (never NULL). */
static inline __attribute__((always_inline)) void
acquire(struct pw_thread *t, struct pw_frame *f, uint32_t site, struct pw_counts *counts, bool suppressed,
        uint32_t fn, const void *ptr, uint64_t size, jobject ref)
{
    if (PW_UNLIKELY(!PW_KEY_IS_PIN((uintptr_t)ptr)))
        return; /* no JVM hands out such an address; the tables could not hold it */
    struct pw_pin_info info = {
        .size = size,
        .ref = ref,
        .counts = counts,
        .site = site,
        .serial = f != NULL ? f->serial : 0,
        .t_ms = (uint32_t)pw_clock_ms(),
        .fn = (uint16_t)fn,
        .suppressed = suppressed,
    };
    pw_count_add(&counts->acquired, 1);
    if (PW_UNLIKELY(!pw_pin_table_insert(&t->pins.table, (uintptr_t)ptr, &info))) {
        pw_count_add(&t->sites.counts.lost, 1);
        return;
    }
    if (f != NULL)
        f->live++;
    if (PW_LIKELY(!suppressed))
        pw_requests_count(t, 1);
}

void
pw_track_acquire_at(struct pw_thread *t, const struct pw_site_ref *at, uint32_t fn, const void *ptr,
                    uint64_t size, jobject ref)
{
    acquire(t, pw_thread_top(t), at->site, at->counts, at->suppressed, fn, ptr, size, ref);
}

__attribute__((noinline)) void
pw_track_get(JNIEnv *env, struct pw_thread *t, uint32_t fn, void *ret, const void *ptr, uint64_t size,
             jobject ref)
{
    /* The top frame is found once: the stores in between would make the
     * compiler look for it again. */
    struct pw_frame *f = pw_thread_top(t);
    const struct pw_site_cache_entry *e = site_of(env, t, &f, PW_KIND_PIN, fn, ret);
    acquire(t, f, e->at.site, e->at.counts, e->at.suppressed, fn, ptr, size, ref);
}

/* The tests of the common Get (pw_track_get_in): the site's part of the
 * record, or NULL when anything is not as common. */
static inline __attribute__((always_inline)) const struct pw_site_ref *
get_ready(struct pw_thread *t, const struct pw_frame *f, uint32_t fn, void *ret)
{
    /* No late-attach test: the cache never holds a site of a lazily pushed
     * frame's method (site_missed). */
    const struct pw_site_cache_entry *e = pw_site_cache_slot(t, ret);
    if (PW_UNLIKELY(!pw_site_cache_holds(e, f->method, PW_SITE_KEY(PW_KIND_PIN, fn), ret) ||
                    t->pins.table.room == 0 || !pw_requests_count_is_quiet(t, 1)))
        return NULL;
    return &e->at;
}

/* The record of the common Get, once get_ready said yes.  at is the cache
 * entry's: nothing between the two (the JVM's Get, through pw_jni) comes
 * back into pinwatch on this thread. */
static inline __attribute__((always_inline)) void
get_commit(struct pw_thread *t, struct pw_frame *f, const struct pw_site_ref *at, const void *ptr, uint64_t size,
           jobject ref)
{
    struct pw_pin_table *tab = &t->pins.table;
    pw_count_add(&at->counts->acquired, 1);
    /* Written into the slot field by field; the site's part is the entry's,
     * whole (a pin's key is its fn: PW_SITE_KEY). */
    struct pw_pin_slot *s = pw_pin_table_claim(tab, (uintptr_t)ptr);
    s->info.size = size;
    s->info.ref = ref;
    s->info.at = *at;
    s->info.serial = f->serial;
    s->info.t_ms = (uint32_t)pw_clock_ms();
    pw_pin_table_publish(tab, s, (uintptr_t)ptr);
    f->live++;
    if (PW_LIKELY(!at->suppressed))
        pw_requests_count_quiet(t, 1);
}

__attribute__((always_inline)) inline enum pw_get_done
pw_track_get_in(struct pw_thread *t, struct pw_frame *f, uint32_t fn, void *ret, const void *ptr, uint64_t size,
                jobject ref)
{
    /* Every test first, nothing changed until all have passed: anything
     * rare (a lazily pushed frame after a late attach, which may not be the
     * innermost invocation any more; a site-cache miss; a table to grow; a
     * threshold step) is pw_track_get's, from scratch.  So the path calls
     * nothing, and the hook keeps no more registers than its JVM call
     * needs.  The stack sample, one Get in PW_SAMPLE_PERIOD, is the hook's
     * tail call (pw_track_sample) rather than a start over. */
    const struct pw_site_ref *at = get_ready(t, f, fn, ret);
    if (PW_UNLIKELY(at == NULL))
        return PW_GET_OTHER;
    get_commit(t, f, at, ptr, size, ref);
    return PW_UNLIKELY(--t->sample_countdown[PW_KIND_PIN] == 0) ? PW_GET_SAMPLE : PW_GET_DONE;
}

__attribute__((always_inline)) inline const struct pw_site_ref *
pw_track_critical_ready(struct pw_thread *t, struct pw_frame *f, uint32_t fn, void *ret)
{
    /* A stack sample due is left to the general path too: it would
     * otherwise run inside the critical region. */
    const struct pw_site_ref *at = get_ready(t, f, fn, ret);
    return PW_LIKELY(at != NULL && t->sample_countdown[PW_KIND_PIN] > 1) ? at : NULL;
}

__attribute__((always_inline)) inline void
pw_track_critical_commit(struct pw_thread *t, struct pw_frame *f, const struct pw_site_ref *at, const void *ptr,
                         uint64_t size, jobject ref)
{
    get_commit(t, f, at, ptr, size, ref);
    t->sample_countdown[PW_KIND_PIN]--;
}

void
pw_track_sample(struct pw_thread *t, void *ret)
{
    /* The entry that held the site a moment ago: nothing has replaced it. */
    sample(t, PW_KIND_PIN, pw_site_cache_slot(t, ret)->at.site, ret, true);
}

/* A critical region's pin given back: a finding when it was held long. */
static inline void
critical_held(const struct pw_pin_info *info, void *call)
{
    uint32_t held = (uint32_t)pw_clock_ms() - info->t_ms;
    if (PW_UNLIKELY(held > 0 && held < UINT32_MAX / 2))
        pw_finding_critical_held(info->site, call, held);
}

/* fn is the pin's function (info->fn): a caller that knows it already
 * lets the compiler drop the critical branch. */
static inline __attribute__((always_inline)) void
counted_release(struct pw_thread *t, struct pw_counts *counts, const struct pw_pin_info *info, uint32_t fn,
                void *call)
{
    bool suppressed = info->suppressed;
    pw_count_add(&counts->released, 1);
    if (PW_LIKELY(!suppressed))
        pw_requests_count(t, -1);
    if (PW_UNLIKELY(pw_fn_is_critical(fn)))
        critical_held(info, call);
}

/* The next entry of this thread's ring of recent releases, where a second
 * release of a pin that finds it nowhere else learns it was released.  An
 * entry must be there before the pin can be seen gone: the owner writes it
 * before its swap takes the pin (note_release), a thread taking a pin from
 * another thread's table or the leak table has the table write it before it
 * lets go of the lock (remove_elsewhere), and an owner that finds its pin gone
 * waits on its table's lock once (pw_track_release).  So of two releases
 * racing for one pin, the loser always finds the winner's entry. */
static inline struct pw_recent_release *
next_note(struct pw_thread *t)
{
    return &t->releases.ring[t->release_next];
}

static inline __attribute__((always_inline)) void
note_release(struct pw_thread *t, uintptr_t key, uint32_t site)
{
    *next_note(t) = (struct pw_recent_release){.ptr = key, .site = site};
    t->release_next++;
}

/* The owner's take of a pin of its own table, noted first (note_release):
 * the slot, or NULL when no pin with this key is left. */
static const struct pw_pin_slot *
take_own(struct pw_thread *t, uintptr_t key)
{
    struct pw_pin_slot *s;
    while ((s = pw_pin_table_slot(&t->pins.table, key)) != NULL) {
        note_release(t, key, s->info.site);
        if (pw_pin_table_take_slot(&t->pins.table, s, key))
            return s;
        /* Another thread took that one meanwhile; look for the next. */
    }
    return NULL;
}

/* The invocation that took a pin (its frame's serial) no longer holds it. */
static void
frame_released(struct pw_thread *t, uint32_t serial)
{
    if (serial == 0)
        return;
    for (uint32_t d = t->depth; d > 0; d--) {
        struct pw_frame *f = &t->frames[d - 1];
        if (f->serial == serial) {
            if (f->live > 0)
                f->live--;
            return;
        }
    }
}

struct lookup {
    uintptr_t key;
    struct pw_pin_info *info;
    uint32_t *site;
    struct pw_recent_release *note; /* where a removal records the release */
};

static bool
remove_from(struct pw_thread *o, void *arg)
{
    struct lookup *l = arg;
    return pw_pin_table_remove_remote(&o->pins.table, l->key, l->info, l->note);
}

/* Finds a pin this thread does not hold.  Pins only ever move from a
 * thread's table to the leak table (at return or thread end, under that
 * thread's lock), so looking in the threads first and the leak table last
 * cannot miss one that moves meanwhile. */
static bool
remove_elsewhere(struct pw_thread *self, uintptr_t key, struct pw_pin_info *info, bool *returned)
{
    struct pw_recent_release *note = next_note(self);
    struct lookup l = {.key = key, .info = info, .note = note};
    bool found = true;
    *returned = true;
    if (!pw_leak_table_remove(key, info, note)) {
        *returned = false;
        if (!pw_threads_any(self, remove_from, &l)) {
            *returned = true;
            found = pw_leak_table_remove(key, info, note);
        }
    }
    if (found)
        self->release_next++; /* the entry the table wrote */
    return found;
}

/* Another thread's pin, read under that thread's lock, not taken out. */
static bool
find_in(struct pw_thread *o, void *arg)
{
    struct lookup *l = arg;
    pw_pin_table_lock(&o->pins.table);
    bool found = pw_pin_table_find(&o->pins.table, l->key, l->info);
    pw_pin_table_unlock(&o->pins.table);
    return found;
}

static bool
find_anywhere(struct pw_thread *t, uintptr_t key, struct pw_pin_info *info)
{
    struct lookup l = {.key = key, .info = info};
    return pw_pin_table_find(&t->pins.table, key, info) || pw_leak_table_find(key, info) ||
           pw_threads_any(t, find_in, &l);
}

/* Another thread's recent releases, read racily: a ring only its owner
 * writes, where a stale entry at worst misses a double release. */
static bool
released_by(struct pw_thread *o, void *arg)
{
    struct lookup *l = arg;
    for (uint32_t i = 0; i < PW_RECENT_RELEASES; i++) {
        if (__atomic_load_n(&o->releases.ring[i].ptr, __ATOMIC_RELAXED) == l->key) {
            *l->site = __atomic_load_n(&o->releases.ring[i].site, __ATOMIC_RELAXED);
            return true;
        }
    }
    return false;
}

/* A release nobody's table knows: was it released already?  Only this
 * thread's and other threads' recent releases can say. */
static bool
released_before(struct pw_thread *t, uintptr_t key, uint32_t *site)
{
    for (uint32_t i = 0; i < PW_RECENT_RELEASES; i++) {
        const struct pw_recent_release *r = &t->releases.ring[(uint8_t)(t->release_next - 1 - i)];
        if (r->ptr == key) {
            *site = r->site;
            return true;
        }
    }
    struct lookup l = {.key = key, .site = site};
    return pw_threads_any(t, released_by, &l);
}

static inline void
found(struct pw_release *r, const struct pw_pin_info *info)
{
    r->found = true;
    r->fn = info->fn;
    r->site = info->site;
    r->size = info->size;
    r->ref = info->ref;
}

__attribute__((always_inline)) inline bool
pw_track_release_own(struct pw_thread *t, uint32_t fn, const void *ptr, jint mode, jobject obj, void *call)
{
    uintptr_t key = (uintptr_t)ptr;
    if (PW_UNLIKELY(!PW_KEY_IS_PIN(key) || mode == JNI_COMMIT))
        return false;
    struct pw_frame *top = pw_thread_top(t);
    if (PW_UNLIKELY(top == NULL))
        return false;
    struct pw_pin_slot *slot = pw_pin_table_slot(&t->pins.table, key);
    /* As in pw_track_get_in, every test before any change: a threshold
     * step is pw_track_release's, so that the path calls nothing (but a
     * critical's held time) before the JVM's release. */
    if (PW_UNLIKELY(slot == NULL || slot->info.serial != top->serial || slot->info.fn != fn ||
                    slot->info.ref != obj || !pw_requests_count_is_quiet(t, -1)))
        return false;
    const struct pw_pin_info *info = &slot->info;
    note_release(t, key, info->site);
    if (PW_UNLIKELY(!pw_pin_table_take_slot(&t->pins.table, slot, key)))
        return false; /* another thread released it meanwhile: pw_track_release says so */
    /* The owner's own record (only the owner reuses the slot, so it stays
     * readable): its counters' pointer is this thread's. */
    pw_count_add(&info->counts->released, 1);
    if (PW_LIKELY(!info->suppressed))
        pw_requests_count_quiet(t, -1);
    if (PW_UNLIKELY(pw_fn_is_critical(fn)))
        critical_held(info, call);
    /* The pin was counted into this invocation's live when taken and is
     * taken out of the table once: live is at least 1 here. */
    top->live--;
    return true;
}

struct pw_release
pw_track_release(struct pw_thread *t, uint32_t fn, const void *ptr, jint mode, void *call)
{
    uintptr_t key = (uintptr_t)ptr;
    struct pw_release r = {.action = PW_RELEASE_PASS};
    const struct pw_pin_slot *slot;
    struct pw_pin_info info;
    bool returned = false;
    if (PW_UNLIKELY(!PW_KEY_IS_PIN(key))) {
        /* NULL (or 1, 2: the tables' own markers) is no pointer any Get
         * returned: unmatched, and passed on as the JVM would take it. */
        pw_count_add(&t->sites.counts.unmatched_releases, 1);
        return r;
    }
    if (mode == JNI_COMMIT) {
        /* Copy-back only: the buffer stays allocated and the pin live. */
        if (find_anywhere(t, key, &info)) {
            found(&r, &info);
            pw_count_add(&pw_counts_of(&t->sites.counts, info.site)->pin.commits, 1);
        }
    } else if (PW_LIKELY((slot = take_own(t, key)) != NULL)) {
        found(&r, &slot->info);
        struct pw_frame *top = pw_thread_top(t);
        r.same_call = top != NULL && slot->info.serial == top->serial;
        counted_release(t, slot->info.counts, &slot->info, slot->info.fn, call);
        if (r.same_call) {
            if (top->live > 0)
                top->live--;
        } else {
            frame_released(t, slot->info.serial);
        }
    } else if (remove_elsewhere(t, key, &info, &returned)) {
        found(&r, &info);
        counted_release(t, pw_counts_of(&t->sites.counts, info.site), &info, info.fn, call);
        /* Its method had returned (or its thread ended) holding it: carried
         * across calls, legal, and no leak after all. */
        if (returned)
            pw_count_add(&pw_counts_of(&t->sites.counts, info.site)->carried, 1);
    } else {
        uint32_t site = 0;
        /* Another thread may be removing this very pin from this thread's
         * table right now: its ring entry is written before it lets go of
         * the lock (remove_from), so wait for the lock once. */
        pw_pin_table_lock(&t->pins.table);
        pw_pin_table_unlock(&t->pins.table);
        /* Dropping a critical release wrongly would leave the GC locked
         * for good: only when every pin since start is in the books. */
        bool sure = !pw_fn_is_critical(fn) || (!attached_late && pw_count_read(&t->sites.counts.lost) == 0);
        if (released_before(t, key, &site) && sure) {
            pw_finding(PW_FINDING_DOUBLE_RELEASE, site, call, fn);
            r.action = PW_RELEASE_DROP;
        } else {
            pw_count_add(&t->sites.counts.unmatched_releases, 1);
        }
        return r;
    }
    if (PW_UNLIKELY(r.fn != fn)) {
        pw_finding(PW_FINDING_WRONG_FUNCTION, r.site, call, fn);
        r.action = PW_RELEASE_REDIRECT;
    }
    return r;
}
