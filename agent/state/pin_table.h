/* SPDX-License-Identifier: Apache-2.0 */
/* A thread's own table of the pins it took that are still live and whose
 * native method invocation is still running ("held").
 *
 * Only the owning thread inserts.  Both the owner and a thread releasing a
 * pin another thread took (that one under the table's lock, which the owner
 * takes only to grow the table) remove, so that of two releases of one pin
 * racing each other exactly one takes it: the protocol is above take_remote
 * in pin_table.c.
 * Keys are pin addresses; one address may be live more than once, so this is
 * a multiset: GetPrimitiveArrayCritical returns the array's own storage
 * (src/hotspot/share/prims/jni.cpp jni_GetPrimitiveArrayCritical: no copy),
 * so nested or concurrent criticals on one array share it, and every empty
 * array's Get<Type>ArrayElements returns the one get_bad_address() (jni.cpp
 * DEFINE_GETSCALARARRAYELEMENTS; a non-empty one is a fresh C-heap copy). */
#ifndef PW_PIN_TABLE_H
#define PW_PIN_TABLE_H

#include "base/pinwatch.h"
#include "state/site_table.h"

#include <stdatomic.h>

#define PW_KEY_EMPTY ((uintptr_t)0)
#define PW_KEY_TOMB ((uintptr_t)1) /* removed; probing goes on past it */
#define PW_KEY_BUSY ((uintptr_t)2) /* being removed by another thread */
#define PW_KEY_IS_PIN(k) ((k) > PW_KEY_BUSY)

/* What is known of one pin besides its address.  40 bytes, as before the
 * counters' pointer came in: the fields are ordered so that none pads. */
struct pw_pin_info {
    uint64_t size; /* bytes */
    jobject ref;   /* the array or string it came from, as the Get saw it;
                      only meaningful while that invocation runs (NULL in
                      the leak table) */
    union {
        /* The site as the thread's site cache holds it, copied whole. */
        struct pw_site_ref at;
        struct {
            /* The taking thread's counters for the site, so that the
             * owner's release counts without looking the site up.  Only
             * the owner may use it: another thread counts into its own. */
            struct pw_counts *counts;
            uint32_t site;   /* site_table id: method, function, call site */
            uint16_t fn;     /* the site's acquire function (its key), kept
                                here so that a release need not read the
                                shared site table */
            bool suppressed; /* likewise the site's suppression */
        };
    };
    uint32_t serial; /* invocation that took it (0: none, a native thread) */
    uint32_t t_ms;   /* pw_clock_ms() when taken, modulo 2^32 */
};
_Static_assert(sizeof(struct pw_pin_info) == 40, "a pin's record stays 40 bytes");

/* One release as a thread's ring of recent releases keeps it (thread_state.h). */
struct pw_recent_release {
    uintptr_t ptr;
    uint32_t site;
};

struct pw_pin_slot {
    _Atomic uintptr_t key;
    struct pw_pin_info info;
};

/* An empty slot for pw_pin_table.last to point at when no slot may be
 * (a table just made or rebuilt). */
PW_HIDDEN extern struct pw_pin_slot pw_pin_no_slot;

struct pw_pin_table {
    struct pw_pin_slot *slots;
    /* Owner only: the slot of the latest insert (or pw_pin_no_slot), where
     * a release looks first.  Most pins are given back before the thread's
     * next Get, so the common release finds its slot without hashing; the
     * slot may hold another pin or none by then, which its key tells. */
    struct pw_pin_slot *last;
    uint32_t shift; /* 64 - log2(capacity) */
    uint32_t mask;  /* capacity - 1 */
    /* Empty slots an insert may still claim before the table is rebuilt
     * (a load of 3/4, pins and tombstones); owner only.  Counted down, so
     * that an insert tests one word. */
    uint32_t room;
    atomic_flag lock;
    /* The slot the owner is taking right now, NULL when none: its half of
     * the removal protocol (pw_pin_table_take_slot), which a remote
     * releaser reads after its process-wide barrier. */
    _Atomic(struct pw_pin_slot *) releasing;
};

/* How the owner takes a slot, chosen once by pw_pin_table_start before any
 * table is made (so before the JNI table swap): true, with a plain store
 * that a remote releaser's membarrier orders (base/barrier.h); false, where
 * the kernel has no such barrier, with a compare-and-swap. */
PW_HIDDEN extern bool pw_pin_table_asymmetric;

/* At start, before any table is made, and only then (a table in use while
 * the choice changes could release a pin twice): the asymmetric protocol
 * when barrier is true and the kernel has the barrier.  Returns the choice. */
PW_HIDDEN bool pw_pin_table_start(bool barrier);

PW_HIDDEN bool pw_pin_table_init(struct pw_pin_table *tab);
PW_HIDDEN void pw_pin_table_free(struct pw_pin_table *tab);

static inline uint32_t
pw_pin_table_slot_of(const struct pw_pin_table *tab, uintptr_t key)
{
    /* Pin addresses are 8- or 16-byte aligned: Fibonacci hashing spreads them. */
    return (uint32_t)(((uint64_t)key * PW_HASH_GOLDEN) >> tab->shift);
}

/* Owner only: rebuilds the table without tombstones, larger if need be,
 * before an insert would fill it past 3/4.  False when memory ran out. */
PW_HIDDEN bool pw_pin_table_make_room(struct pw_pin_table *tab);

/* Owner only, in a table with room (tab->room > 0): an insert in two
 * steps, so that the caller writes the record's fields straight into the
 * slot (a record built aside and copied in costs a copy).  claim returns
 * the free slot where key goes; the caller fills its info; publish makes
 * it a pin.  Inline: it is half of every Get's bookkeeping. */
static inline struct pw_pin_slot *
pw_pin_table_claim(struct pw_pin_table *tab, uintptr_t key)
{
    uint32_t i = pw_pin_table_slot_of(tab, key);
    for (;;) {
        struct pw_pin_slot *s = &tab->slots[i];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_relaxed);
        if (k == PW_KEY_EMPTY || k == PW_KEY_TOMB) {
            /* A visitor that read the slot's old key must see it gone
             * before it can see any of the new fields (pw_pin_table_visit
             * checks the key again after copying them).  x86 keeps stores
             * in order by itself; aarch64 needs the barrier, and only when
             * a tombstone is reused. */
            if (k == PW_KEY_EMPTY)
                tab->room--;
            else
                atomic_thread_fence(memory_order_release);
            return s;
        }
        i = (i + 1) & tab->mask;
    }
}

static inline void
pw_pin_table_publish(struct pw_pin_table *tab, struct pw_pin_slot *s, uintptr_t key)
{
    atomic_store_explicit(&s->key, key, memory_order_release);
    tab->last = s;
}

/* Owner only.  Returns false when memory ran out. */
static inline bool
pw_pin_table_insert(struct pw_pin_table *tab, uintptr_t key, const struct pw_pin_info *info)
{
    if (PW_UNLIKELY(tab->room == 0) && !pw_pin_table_make_room(tab))
        return false;
    struct pw_pin_slot *s = pw_pin_table_claim(tab, key);
    s->info = *info;
    pw_pin_table_publish(tab, s, key);
    return true;
}

/* Owner only: removes one pin with this key and returns its slot, whose
 * info stays readable until the owner's next insert; NULL when absent. */
PW_HIDDEN const struct pw_pin_slot *pw_pin_table_take(struct pw_pin_table *tab, uintptr_t key);

/* Owner only: the slot of one live pin with this key, left in place (NULL
 * when absent); pw_pin_table_take_slot then removes it.  Lets a caller
 * look at the pin before deciding to take it.  Inline: it is the owner's
 * one probe of every release. */
static inline struct pw_pin_slot *
pw_pin_table_slot(struct pw_pin_table *tab, uintptr_t key)
{
    struct pw_pin_slot *last = tab->last;
    if (PW_LIKELY(atomic_load_explicit(&last->key, memory_order_acquire) == key)) {
        if (last == NULL)
            __builtin_unreachable(); /* it was just read through: callers need not test it */
        return last;
    }
    uint32_t i = pw_pin_table_slot_of(tab, key);
    for (;;) {
        struct pw_pin_slot *s = &tab->slots[i];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (PW_LIKELY(k == key))
            return s;
        if (k == PW_KEY_EMPTY)
            return NULL;
        i = (i + 1) & tab->mask;
    }
}

/* Owner only: a take that found the slot's key changed (a remote releaser
 * has it, or had it): waits until that one is done.  Always false. */
PW_HIDDEN bool pw_pin_table_taken_meanwhile(struct pw_pin_slot *s);

/* Owner only: removes the pin in slot s of tab, whose key was read as key.
 * False when another thread took it since (both released it at once: this
 * release is the second).  Stores before it (the release ring) are seen by
 * any thread that sees the slot taken.  Inline: it is the end of every
 * release.
 *
 * With the barrier (pw_pin_table_asymmetric), no locked instruction: the
 * owner says which slot it takes (releasing), loads the key and, when the
 * pin is still there, stores TOMB; a remote releaser, which first swaps the
 * key to BUSY, then runs the process-wide barrier and waits while the owner
 * names the slot, so that exactly one of them takes the pin (why, in
 * pin_table.c above take_remote).  Without it, a compare-and-swap (about
 * 8 ns on the long[4] pair, agent/HOW-IT-WORKS.md "Exact under racing
 * releases"): a plain store alone could land after both of the other
 * thread's steps, and both releases would count and reach the JVM. */
static inline bool
pw_pin_table_take_slot(struct pw_pin_table *tab, struct pw_pin_slot *s, uintptr_t key)
{
    if (PW_UNLIKELY(!pw_pin_table_asymmetric))
        /* Only the owner reuses a TOMB slot: the fields stay readable. */
        return atomic_compare_exchange_strong_explicit(&s->key, &key, PW_KEY_TOMB, memory_order_release,
                                                       memory_order_relaxed);
    atomic_store_explicit(&tab->releasing, s, memory_order_relaxed);
    /* The compiler must keep the store before the load; the processor may
     * swap them (x86's store buffer, aarch64), which the remote releaser's
     * barrier undoes: it interrupts this thread either before the store or
     * after the load, or makes a full barrier between them. */
    atomic_signal_fence(memory_order_seq_cst);
    if (PW_LIKELY(atomic_load_explicit(&s->key, memory_order_relaxed) == key)) {
        /* Release: the ring entry and, for a remote releaser waiting on
         * releasing, this store before the one below. */
        atomic_store_explicit(&s->key, PW_KEY_TOMB, memory_order_release);
        atomic_store_explicit(&tab->releasing, NULL, memory_order_release);
        return true;
    }
    atomic_store_explicit(&tab->releasing, NULL, memory_order_release);
    return pw_pin_table_taken_meanwhile(s);
}

/* Owner only: the info of one live pin with this key, not removed. */
PW_HIDDEN bool pw_pin_table_find(struct pw_pin_table *tab, uintptr_t key, struct pw_pin_info *out);

/* Any thread: removes one pin with this key from another thread's table,
 * under the table's lock.  When it does and note is not NULL, note gets the
 * release (key, site) before the lock is let go: a thread that then finds
 * the pin gone, and waits on the lock first, sees it (tracking/tracker.c). */
PW_HIDDEN bool pw_pin_table_remove_remote(struct pw_pin_table *tab, uintptr_t key, struct pw_pin_info *out,
                                          struct pw_recent_release *note);

/* Calls fn for every pin (the caller holds the lock or owns the table); a
 * pin for which fn returns true is removed, as the owner takes one: only the
 * owner may pass such an fn. */
typedef bool (*pw_pin_visit_fn)(uintptr_t key, const struct pw_pin_info *info, void *arg);
PW_HIDDEN void pw_pin_table_visit(struct pw_pin_table *tab, pw_pin_visit_fn fn, void *arg);

/* Bytes of the slot array (owner, or under the lock). */
PW_HIDDEN size_t pw_pin_table_memory(const struct pw_pin_table *tab);

PW_HIDDEN void pw_pin_table_lock(struct pw_pin_table *tab);
PW_HIDDEN void pw_pin_table_unlock(struct pw_pin_table *tab);

#endif
