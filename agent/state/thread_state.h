/* SPDX-License-Identifier: Apache-2.0 */
/* Per-thread state: the shadow stack of Java native methods the thread is
 * inside, its own table of live pins and its own counters.  The hot path
 * touches nothing else, which is what keeps it free of global locks and of
 * cache lines shared between threads. */
#ifndef PW_THREAD_STATE_H
#define PW_THREAD_STATE_H

#include "base/pinwatch.h"
#include "state/frame_layout.h"
#include "state/local_table.h"
#include "state/pin_table.h"
#include "state/ref_table.h"
#include "state/site_table.h"

#include <pthread.h>

struct pw_method;

/* One invocation of a Java native method.  native_entry.S fills and pops
 * these; the layout is fixed by the PW_F_* offsets it uses. */
struct pw_frame {
    struct pw_method *method; /* PW_F_METHOD */
    void *ret;                /* PW_F_RET: where the native method returns to */
    uint32_t serial;          /* PW_F_SERIAL: tells invocations of one method apart */
    uint32_t live;            /* PW_F_LIVE: pins this invocation took still in the thread's table */
    /* PW_F_LOCALS: the invocation's local references (tracking/refs.h: read
     * and written only through pw_frame_locals() and pw_frame_set_locals()),
     * zeroed by the push like live. */
    uint64_t locals;
};

#define PW_SITE_CACHE_BITS 7
#define PW_SITE_CACHE (1 << PW_SITE_CACHE_BITS)

/* Recently released pins, newest last (struct pw_recent_release): what
 * tells a double release from a release of a pointer never seen. */
#define PW_RECENT_RELEASES 256 /* release_next is a byte */

/* References (refs=on).  Local frames pushed inside a native method
 * invocation, innermost last: the invocation's local count when pushed. */
#define PW_LOCAL_FRAMES 32
#define PW_RECENT_DELETES 64

enum pw_thread_kind {
    PW_THREAD_UNKNOWN,  /* not asked yet */
    PW_THREAD_ATTACHED, /* natively attached: no Java frame when first seen outside a method */
    PW_THREAD_JAVA,     /* a Java thread outside our methods (JNI_OnLoad, a callback, a late attach) */
};

struct pw_local_frame {
    uint32_t serial; /* invocation that pushed it */
    uint32_t count;  /* its local count before the push */
};

/* What a thread remembers of a site it met: keyed by (method, key, ret)
 * where key is PW_SITE_KEY(kind, fn).  32 bytes, so that an entry's offset
 * is a shift and a mask of ret (pw_site_cache_slot). */
struct pw_site_cache_entry {
    void *ret; /* NULL: holds nothing (empty, or a site that must not be cached) */
    const struct pw_method *method;
    struct pw_site_ref at; /* the site, its key and this thread's counters for it */
};
_Static_assert(sizeof(struct pw_site_cache_entry) == 32, "a cache entry is 32 bytes");
_Static_assert(PW_RECENT_RELEASES == 256, "the release ring's index is a byte");

/* Each part below the assembler's prefix has one owner, named beside it:
 * only that file gives its fields meaning (a report reads some of them). */
struct pw_thread {
    /* The first two cache lines hold every word the common hook reads or
     * writes besides its frame, its site's cache entry and counters, and its
     * pin's slot: in a real library's call (JNA's dispatch, lz4's codec) the
     * JVM's and the library's own work between two hooks evicts the
     * thread's state from L1, and each further line the hook touches was a
     * miss (perf annotate of JNA's release hook: its samples sat on the
     * loads of the pin table's header, the release ring's index and the
     * length cache, each on a line of its own).  The struct is allocated
     * line-aligned (pw_thread_create).
     *
     * Line 0 starts with the prefix at fixed offsets (state/frame_layout.h
     * PW_T_*), read and written by native_entry_<arch>.S, va_forward and
     * jni_guard_<arch>.S. */
    uint32_t depth;         /* PW_T_DEPTH: frames in use */
    uint32_t serial;        /* PW_T_SERIAL: last invocation serial handed out */
    uint32_t too_deep;      /* PW_T_TOO_DEEP: invocations beyond PW_MAX_DEPTH */
    uint32_t critical;      /* PW_T_CRITICAL: critical regions open (intercept/jni_hooks.c counts them) */
    uint32_t critical_site; /* intercept/jni_hooks.c: site of the critical region most recently opened */
    /* tracking/tracker.c: the next entry of releases.ring to write; a
     * byte, which wraps by itself (the release's note is an index, two
     * stores and an increment). */
    uint8_t release_next;
    JNIEnv *va_env; /* PW_T_VA_ENV: the JNIEnv of a forwarded variadic call */

    /* intercept/jni_hooks.c: the last array length it asked the JVM for. */
    struct {
        uint32_t serial; /* invocation the entry belongs to */
        jsize length;
        jarray array; /* an argument handle of that invocation */
    } length_cache;

    /* intercept/jni_hooks.c: the table this thread's JNIEnv pointed at
     * before its critical region opened (it points at the guarded table
     * meanwhile); NULL outside any region, or when the env was left alone. */
    const struct JNINativeInterface_ *region_env_was;

    /* Line 1.  Pins: tracking/tracker.c (returns.c moves them at return). */
    struct {
        struct pw_pin_table table;
        int32_t pending; /* live pins not yet published to threshold= (requests.h) */
    } pins __attribute__((aligned(64)));

    /* tracking/tracker.c: per kind, calls at sites the cache knows until
     * the next stack sample (sample()): each kind samples on its own. */
    uint32_t sample_countdown[PW_KIND_COUNT];

    struct pw_frame frames[PW_MAX_DEPTH]; /* PW_T_FRAMES */
    /* PW_T_VA_RET: per frame, the return address of the variadic JNI call
     * the invocation has in progress (va_forward.S), NULL when none. */
    void *va_ret[PW_MAX_DEPTH];

    /* Sites: tracking/tracker.c finds a call's site (pw_site_cache_slot)
     * and every tracking file counts into counts. */
    struct {
        struct pw_site_cache_entry cache[PW_SITE_CACHE];
        struct pw_thread_counts counts;
    } sites;

    /* Recent pin releases: tracking/tracker.c (double-release detection). */
    struct {
        struct pw_recent_release ring[PW_RECENT_RELEASES];
    } releases;

    /* After a late attach: tracking/tracker.c and tracking/late_frame.c.
     * The last native method the JVM named for this thread
     * (GetFrameLocation), so that the record is found again without the
     * methods' lock, and named without the JVM inside a critical region,
     * where the innermost Java frame cannot have changed. */
    struct {
        jmethodID id;
        struct pw_method *method;
        const struct pw_method *last; /* the last answer, whatever it was */
    } late;

    /* References (refs=on): tracking/refs.c. */
    struct {
        /* The live local references of a thread outside any native method
         * (a natively attached thread), made on first use.  Only the owner
         * inserts and removes; a report reads it under its lock. */
        struct pw_local_table locals;
        uint32_t local_depth; /* PushLocalFrame depth outside any native method */
        uint32_t thread_kind; /* enum pw_thread_kind */
        int32_t pending;      /* live references not yet published to ref_threshold= (requests.h) */
        struct pw_local_frame local_frames[PW_LOCAL_FRAMES];
        uint32_t nlocal_frames;
        uint32_t recent_delete_next;
        struct pw_recent_release recent_deletes[PW_RECENT_DELETES];
    } refs;

    /* Registry links: state/thread_state.c, under the registry lock. */
    struct pw_thread *next;
    struct pw_thread **prevp;
};

/* initial-exec: one %fs-relative load, no __tls_get_addr on the hot path. */
extern __thread struct pw_thread *pw_tls_self __attribute__((tls_model("initial-exec"))) PW_HIDDEN;

/* The calling thread's state, created on first use; NULL only when memory
 * ran out (the caller then passes the call on untracked). */
PW_HIDDEN struct pw_thread *pw_thread_create(void);

static inline struct pw_thread *
pw_thread_self(void)
{
    struct pw_thread *t = pw_tls_self;
    return PW_LIKELY(t != NULL) ? t : pw_thread_create();
}

/* The innermost tracked native method invocation, or NULL on a thread that
 * is in none (a natively attached thread). */
static inline struct pw_frame *
pw_thread_top(struct pw_thread *t)
{
    uint32_t d = t->depth;
    return d == 0 ? NULL : &t->frames[d - 1];
}

/* The cache entry of this thread where the site of a call returning to ret
 * is kept: the one probe of the site cache, used by tracking/tracker.c and
 * by the inlined fast path of tracking/refs.h.  Direct-mapped by bits 2 to
 * 8 of the return address alone, which is a shift and a mask (the entry is
 * 32 bytes): no two call instructions share a return address, the JNI
 * calls of one function lie a few bytes to a few hundred apart, and the
 * method and function are compared on a hit (pw_site_cache_holds), so they
 * need not be hashed in.  A site shared by many methods (a helper) takes
 * one entry and misses when the method changes. */
static inline struct pw_site_cache_entry *
pw_site_cache_slot(struct pw_thread *t, const void *ret)
{
    uintptr_t offset = ((uintptr_t)ret << 3) & ((uintptr_t)(PW_SITE_CACHE - 1) << 5);
    return (struct pw_site_cache_entry *)((char *)t->sites.cache + offset);
}

/* Whether entry e holds the site of (m, key, ret). */
static inline bool
pw_site_cache_holds(const struct pw_site_cache_entry *e, const struct pw_method *m, uint16_t key, const void *ret)
{
    return e->ret == ret && e->method == m && e->at.key == key;
}

/* on_end runs first on a thread that ends, before its books are retired
 * (the tracking layer publishes its counts there). */
PW_HIDDEN bool pw_threads_init(void (*on_end)(struct pw_thread *t));

/* What one pass over every thread adds up (pw_threads_pass): the counters
 * of live and ended threads, and the bytes their tables hold. */
struct pw_thread_pass {
    struct pw_counts *counts; /* in: room for sites 0 .. nsites - 1; filled with their sums */
    uint32_t nsites;
    uint64_t unmatched, lost;   /* releases of pointers never handed out; operations not recorded */
    uint64_t table_bytes;       /* the threads' pin tables and their own records */
    uint64_t local_table_bytes; /* natively attached threads' local references */
};

/* A report's pass over the registry: under its read lock and with every
 * thread's pin table locked, fills sums with the counters of every thread,
 * live or ended; calls pins for every live pin and locals for every local
 * reference a natively attached thread holds; then calls under_lock (when
 * not NULL) before anything is unlocked.  Pins move from a thread's table
 * to the leak table only under that table's lock, and threads cannot start
 * or end while the registry is read: each pin is met exactly once, by pins
 * or by a visit of the leak table made from under_lock.  The owners' Get
 * and Release never take their table's lock, so they run on. */
PW_HIDDEN void pw_threads_pass(struct pw_thread_pass *sums, pw_pin_visit_fn pins,
                               void (*locals)(uintptr_t handle, const struct pw_ref_info *info, void *arg),
                               void (*under_lock)(void *arg), void *arg);

/* Calls fn for every live thread but skip, under the registry's read lock,
 * until fn returns true; returns whether one did. */
PW_HIDDEN bool pw_threads_any(const struct pw_thread *skip, bool (*fn)(struct pw_thread *t, void *arg),
                              void *arg);

#endif
