/* SPDX-License-Identifier: Apache-2.0 */
/* What JNI reference functions do to pinwatch's books (refs=on).
 *
 * Global and weak global references outlive the call that made them: they
 * are live until deleted, wherever that happens, and sit in the shared
 * ref_table by handle.  Local references made inside a native method die
 * when it returns: they are counted per invocation (in the frame's locals
 * word, pw_frame_locals()) and their peak kept per site, never stored one
 * by one.  Local references of a natively attached thread outside any
 * native method live until PopLocalFrame or DetachCurrentThread (or the
 * thread's end): they are kept in the thread's own locals table. */
#ifndef PW_REFS_H
#define PW_REFS_H

#include "base/options.h"
#include "state/thread_state.h"

#include <stdatomic.h>

/* local_limit= and the JVMTI environment from start.  Before the JNI
 * table swap. */
PW_HIDDEN void pw_refs_start(const struct pw_options *o, jvmtiEnv *jvmti);

/* local_limit=: locals one invocation may hold before it is a finding.
 * Read by pw_refs_local_made_fast; written once by pw_refs_start, before
 * the JNI table swap. */
PW_HIDDEN extern uint32_t pw_refs_local_limit;

/* A global (kind PW_KIND_GLOBAL_REF) or weak (PW_KIND_WEAK_REF) reference
 * was made (ref never NULL) by a call from ret to the JNI function in slot. */
PW_HIDDEN void pw_refs_global_made(JNIEnv *env, struct pw_thread *t, enum pw_kind kind, uint32_t slot,
                                   jobject ref, void *ret);

enum pw_ref_delete {
    PW_REF_DELETE_PASS,      /* pass the delete on as made */
    PW_REF_DELETE_DROP,      /* a double delete: passing it on would corrupt the JVM */
    PW_REF_DELETE_AS_GLOBAL, /* a global reference deleted as a weak one: delete it as what it is */
    PW_REF_DELETE_AS_WEAK,   /* a weak reference deleted as a global one */
};

/* Called before the JVM's delete runs (ref not NULL), so the handle cannot
 * have been handed out again in between.  kind: what the delete was for. */
PW_HIDDEN enum pw_ref_delete pw_refs_global_deleting(struct pw_thread *t, enum pw_kind kind, jobject ref,
                                                     void *ret, uint32_t slot);

/* A local reference (not NULL) made by the JNI function in slot. */
PW_HIDDEN void pw_refs_local_made(JNIEnv *env, struct pw_thread *t, uint32_t slot, jobject ref, void *ret);

/* The locals word of a frame (struct pw_frame.locals): the invocation's
 * live local references (PW_LOCALS_COUNT_MASK) and whether it went past
 * local_limit (PW_LOCALS_OVER, a finding made once).  The push of the
 * frame zeroes it (native_entry_<arch>.S, late_frame.c), so the common
 * local, made and deleted within its invocation, is a load and a store of
 * the thread's own memory: no key to test against the invocation's serial
 * (which cost 8 instructions a local pair), nothing shared. */
#define PW_LOCALS_COUNT_MASK 0x7fffffffu
#define PW_LOCALS_OVER 0x80000000u

static inline uint32_t
pw_frame_locals(const struct pw_frame *f)
{
    return (uint32_t)f->locals;
}

static inline void
pw_frame_set_locals(struct pw_frame *f, uint32_t word)
{
    f->locals = word;
}

/* pw_refs_local_made, inlined into the wrappers for the common case:
 * inside a native method, at a call site this thread's site cache knows
 * (pw_site_cache_slot, the probe tracking/tracker.c uses), not due for a
 * stack sample, at no new peak for the site (as far as this thread has
 * seen it: struct pw_counts peak_seen) and within local_limit.
 * Returns false, having changed nothing, for anything else, which is
 * pw_refs_local_made's: the caller makes that call last, so that this path
 * calls nothing. */
static inline bool
pw_refs_local_made_fast(struct pw_thread *t, uint32_t slot, void *ret)
{
    struct pw_frame *f = pw_thread_top(t);
    if (PW_LIKELY(f != NULL && t->sample_countdown[PW_KIND_LOCAL_REF] > 1)) {
        const struct pw_method *m = f->method;
        uint16_t key = PW_SITE_KEY(PW_KIND_LOCAL_REF, slot);
        const struct pw_site_cache_entry *e = pw_site_cache_slot(t, ret);
        if (PW_LIKELY(pw_site_cache_holds(e, m, key, ret))) {
            uint32_t word = pw_frame_locals(f);
            uint32_t count = (word & PW_LOCALS_COUNT_MASK) + 1;
            if (PW_LIKELY(count <= pw_refs_local_limit &&
                          count <= __atomic_load_n(&e->at.counts->peak_seen, __ATOMIC_RELAXED))) {
                t->sample_countdown[PW_KIND_LOCAL_REF]--;
                pw_count_add(&e->at.counts->acquired, 1);
                pw_frame_set_locals(f, (word & PW_LOCALS_OVER) | count);
                return true;
            }
        }
    }
    return false;
}

/* DeleteLocalRef inside a native method, inlined: the invocation's count
 * only.  False when pw_refs_local_deleting must decide. */
static inline bool
pw_refs_local_deleted_fast(struct pw_thread *t)
{
    struct pw_frame *f = pw_thread_top(t);
    if (PW_UNLIKELY(f == NULL))
        return false;
    uint32_t word = pw_frame_locals(f);
    if ((word & PW_LOCALS_COUNT_MASK) > 0)
        pw_frame_set_locals(f, word - 1);
    return true;
}

/* DeleteLocalRef(ref), ref not NULL, before the JVM's; false for a double
 * delete, which is not passed on (-Xcheck:jni aborts the JVM on it). */
PW_HIDDEN bool pw_refs_local_deleting(struct pw_thread *t, jobject ref, void *ret);

/* A PushLocalFrame that succeeded; a PopLocalFrame about to run. */
PW_HIDDEN void pw_refs_frame_pushed(struct pw_thread *t);
PW_HIDDEN void pw_refs_frame_popping(struct pw_thread *t);

/* DetachCurrentThread about to run, or the thread ending: its locals die. */
PW_HIDDEN void pw_refs_thread_detached(struct pw_thread *t);

struct pw_refs_counts {
    uint64_t unknown_global_deletes, unknown_weak_deletes, unknown_local_deletes;
    uint64_t double_deletes;
    uint64_t lost; /* references not tracked for lack of memory */
};

PW_HIDDEN void pw_refs_counts_read(struct pw_refs_counts *out);

#endif
