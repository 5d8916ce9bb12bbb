/* SPDX-License-Identifier: Apache-2.0 */
/* Per-thread state: the shadow stack of Java native methods the thread is
 * inside, its own table of live pins and its own counters.  The hot path
 * touches nothing else, which is what keeps it free of global locks and of
 * cache lines shared between threads. */
#ifndef PW_THREAD_STATE_H
#define PW_THREAD_STATE_H

#include "base/pinwatch.h"
#include "state/frame_layout.h"
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
    uint64_t reserved;
};

#define PW_SITE_CACHE_BITS 6
#define PW_SITE_CACHE (1 << PW_SITE_CACHE_BITS)

/* Recently released pins, newest last (struct pw_recent_release): what
 * tells a double release from a release of a pointer never seen. */
#define PW_RECENT_RELEASES 256

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

struct pw_site_cache_entry {
    void *ret;
    const struct pw_method *method;
    uint32_t fn;
    uint32_t site;
    struct pw_counts *counts; /* this thread's counters for the site, or NULL */
    bool suppressed;          /* the site's, which never changes */
};

struct pw_thread {
    uint32_t depth;            /* PW_T_DEPTH: frames in use */
    uint32_t serial;           /* PW_T_SERIAL: last invocation serial handed out */
    uint32_t too_deep;         /* PW_T_TOO_DEEP: invocations beyond PW_MAX_DEPTH */
    uint32_t critical;         /* critical regions this thread holds open */
    int32_t live_pending;      /* live pins not yet published to the threshold count */
    uint32_t sample_countdown; /* Gets until the next stack sample */
    JNIEnv *va_env;            /* PW_T_VA_ENV: the JNIEnv of a forwarded variadic call */
    uint64_t pad[4];
    struct pw_frame frames[PW_MAX_DEPTH]; /* PW_T_FRAMES */
    /* PW_T_VA_RET: per frame, the return address of the variadic JNI call
     * the invocation has in progress (va_forward.S), NULL when none. */
    void *va_ret[PW_MAX_DEPTH];

    struct pw_pin_table pins;
    struct pw_thread_counts counts;
    struct pw_site_cache_entry site_cache[PW_SITE_CACHE];
    struct pw_recent_release recent[PW_RECENT_RELEASES];
    uint32_t recent_next;
    uint32_t critical_site; /* site of the critical region most recently opened */
    struct {
        uint32_t serial; /* invocation the entry belongs to */
        jsize length;
        jarray array; /* an argument handle of that invocation */
    } length_cache;
    /* After a late attach: the last native method the JVM named for this
     * thread (GetFrameLocation), so that the record is found again without
     * the methods' lock, and named without the JVM inside a critical
     * region, where the innermost Java frame cannot have changed. */
    jmethodID late_id;
    struct pw_method *late_method;
    const struct pw_method *late_last; /* the last answer, whatever it was */

    /* References.  locals: the live local references of a thread outside
     * any native method (a natively attached thread), keyed by handle,
     * info.serial holding the local frame depth they were made at; made
     * on first use.  Only the owner inserts and removes; a report reads it
     * under its lock. */
    struct pw_pin_table locals;
    uint32_t local_depth; /* PushLocalFrame depth outside any native method */
    uint32_t kind;        /* enum pw_thread_kind */
    struct pw_local_frame local_frames[PW_LOCAL_FRAMES];
    uint32_t nlocal_frames;
    uint32_t recent_delete_next;
    int32_t refs_pending; /* live global references not yet published to ref_threshold */
    struct pw_recent_release recent_deletes[PW_RECENT_DELETES];

    /* Registry links, guarded by the registry lock. */
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
