/* SPDX-License-Identifier: Apache-2.0 */
/* Sites: (native method, kind, function, call site address), interned
 * once into dense ids, and the counters kept per site.
 *
 * Counters live in the thread that counts: each thread writes only its own
 * (plain stores, no atomic read-modify-write, no shared cache lines) and a
 * report adds them up.  A thread's counters are folded into the retired
 * totals when it ends. */
#ifndef PW_SITE_TABLE_H
#define PW_SITE_TABLE_H

#include "base/pinwatch.h"

#include <stdatomic.h>

#define PW_MAX_SITES 65536
#define PW_SITE_OVERFLOW 0 /* every site past PW_MAX_SITES */

struct pw_method;
struct pw_java_stack;

/* Distinct native stacks remembered per site: the first seen, then those
 * that sampling finds (one Get in PW_SAMPLE_PERIOD per thread). */
#define PW_SITE_STACKS 4

struct pw_site {
    const struct pw_method *method; /* NULL only for PW_SITE_OVERFLOW */
    void *ret;                      /* return address of the call that made it */
    uint8_t kind;                   /* enum pw_kind */
    /* Pins: the enum pw_function.  References: the JNI function table slot
     * of the function that made them (NewGlobalRef, NewObject, ...). */
    uint32_t fn;
    _Atomic uint32_t elem_size;                 /* criticals: element size, 0 until known */
    bool suppressed;                            /* matches a suppression rule; set before publication */
    atomic_bool leak_noted;                     /* an UNRELEASED line was written for this site */
    _Atomic uint32_t stacks[PW_SITE_STACKS];    /* stack_table ids; 0: none yet */
    _Atomic(struct pw_java_stack *) java_stack; /* who called the native method */
    _Atomic uint32_t sampled_ms;                /* when its stack was last taken */
    atomic_bool java_tried;
    /* PW_KIND_LOCAL_REF sites only (tracking/refs.c writes them, zero on
     * every other site): the most locals one invocation of the method held
     * when this site made one, and the invocations that went past
     * local_limit here. */
    struct {
        _Atomic uint32_t peak;
        _Atomic uint64_t over;
    } ref;
};

/* A site's kind and function as one 16-bit word: what the site cache
 * compares (state/thread_state.h).  fn is below 4096 (an enum pw_function
 * or a JNI table slot).  A pin's key is its fn: PW_KIND_PIN is 0. */
#define PW_SITE_KEY(kind, fn) ((uint16_t)((uint32_t)(kind) << 12 | (uint32_t)(fn)))
_Static_assert(PW_KIND_PIN == 0 && PW_KIND_COUNT <= 16, "a pin's site key is its fn");

struct pw_counts;

/* What a thread's site cache entry keeps of a site (state/thread_state.h),
 * and what a pin's record takes from it (state/pin_table.h): one 16-byte
 * block, copied whole by the Get. */
struct pw_site_ref {
    struct pw_counts *counts; /* this thread's counters for the site, never NULL */
    uint32_t site;
    uint16_t key;    /* PW_SITE_KEY(kind, fn): in a pin's record, its fn */
    bool suppressed; /* the site's, which never changes */
    /* Criticals: the site's element size (struct pw_site elem_size) as the
     * entry was filled, or refreshed by the thread once it was learned; 0
     * until known.  The common critical Get reads it here, on the entry's
     * line, instead of the shared site's. */
    uint8_t elem;
};
_Static_assert(sizeof(struct pw_site_ref) == 16, "a site reference is 16 bytes");

/* Returns the site's id, creating it on first sight (the only path that
 * locks, once per site). */
PW_HIDDEN uint32_t pw_site_intern(const struct pw_method *method, enum pw_kind kind, uint32_t fn, void *ret);
PW_HIDDEN struct pw_site *pw_site_get(uint32_t id);
/* Ids in use are 0 .. pw_site_count() - 1. */
PW_HIDDEN uint32_t pw_site_count(void);

struct pw_counts {
    uint64_t acquired;
    uint64_t released;
    /* PW_KIND_LOCAL_REF sites only (tracking/refs.h): the site's peak
     * (struct pw_site ref.peak) as this thread last read or raised it.
     * Peaks only grow, so a count up to it is no new peak: the common
     * local is judged on this line, which it counts into anyway, instead
     * of the shared site's.  Not a count: reports do not read it. */
    uint32_t peak_seen;
    /* What the third counter means depends on the site's kind. */
    union {
        struct {
            uint64_t commits; /* Release with JNI_COMMIT: copied back, still live */
        } pin;
        struct {
            uint64_t freed; /* freed by the JVM (PopLocalFrame, detach, thread end) */
        } ref;
    };
    uint64_t leaked_at_return; /* pins that were live when their method returned */
    uint64_t carried;          /* of those, released later (by another call, or another thread) */
};

#define PW_COUNT_CHUNK 128

struct pw_thread_counts {
    struct pw_counts *chunks[PW_MAX_SITES / PW_COUNT_CHUNK];
    uint64_t unmatched_releases; /* releases of pointers never handed out */
    uint64_t lost;               /* operations not recorded for lack of memory */
};

PW_HIDDEN struct pw_counts *pw_counts_chunk_alloc(struct pw_thread_counts *c, uint32_t chunk);

/* This thread's counters for a site.  Never NULL: when memory runs out the
 * counts go to a shared sink and are reported as lost. */
static inline struct pw_counts *
pw_counts_of(struct pw_thread_counts *c, uint32_t site)
{
    struct pw_counts *chunk = c->chunks[site / PW_COUNT_CHUNK];
    if (PW_UNLIKELY(chunk == NULL))
        chunk = pw_counts_chunk_alloc(c, site / PW_COUNT_CHUNK);
    return &chunk[site % PW_COUNT_CHUNK];
}

/* Single-writer increment: the owner is the only thread that stores, a
 * report only loads, so no lock prefix is needed for exact counts.  On
 * x86-64 one add to memory: an aligned 8-byte store is single-copy atomic
 * there, so a report reads the old count or the new one, never a torn one,
 * as with the relaxed load and store, which GCC keeps as three
 * instructions (two more on every Get, Release and reference the hooks
 * count). */
static inline void
pw_count_add(uint64_t *counter, uint64_t n)
{
#if defined(__x86_64__)
    __asm__("addq %1, %0" : "+m"(*counter) : "er"(n));
#else
    __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
#endif
}

static inline uint64_t
pw_count_read(const uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* Adds a thread's counters for sites 0 .. n - 1 to sums[0 .. n - 1]. */
PW_HIDDEN void pw_thread_counts_add_to(const struct pw_thread_counts *c, struct pw_counts *sums, uint32_t n);
PW_HIDDEN void pw_thread_counts_free(struct pw_thread_counts *c);

/* Readers of a published site (a report's snapshot): the fields other
 * threads may still store, loaded as they are stored (C11's atomic loads
 * take a const object, so no reader casts). */
static inline uint32_t
pw_site_stack(const struct pw_site *site, int i)
{
    return atomic_load_explicit(&site->stacks[i], memory_order_acquire);
}

static inline const struct pw_java_stack *
pw_site_java_stack(const struct pw_site *site)
{
    return atomic_load_explicit(&site->java_stack, memory_order_acquire);
}

/* Local reference sites: the most locals one invocation held when it made
 * one here, and the invocations that went past local_limit here. */
static inline uint32_t
pw_site_ref_peak(const struct pw_site *site)
{
    return atomic_load_explicit(&site->ref.peak, memory_order_relaxed);
}

static inline uint64_t
pw_site_ref_over(const struct pw_site *site)
{
    return atomic_load_explicit(&site->ref.over, memory_order_relaxed);
}

#endif
