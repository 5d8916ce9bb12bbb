/* SPDX-License-Identifier: Apache-2.0 */
/* What a Get and a Release do to pinwatch's books: find the pin's site,
 * record it in the thread's table and counters, and find it again on
 * release wherever it went (this thread, the leak table, another thread). */
#ifndef PW_TRACKER_H
#define PW_TRACKER_H

#include "base/options.h"
#include "state/thread_state.h"

/* stack= and javastack= from o; jvmti for the late-attach questions and
 * Java stacks; attached: loaded into a running JVM.  Before the JNI table
 * swap. */
PW_HIDDEN void pw_tracker_start(const struct pw_options *o, jvmtiEnv *jvmti, bool attached);

/* The site of a call made from ret on this thread, of kind and function
 * fn (an enum pw_function for pins, a JNI table slot for references).  env
 * is used only after a late attach, to bind a method anew. */
PW_HIDDEN uint32_t pw_track_site(JNIEnv *env, struct pw_thread *t, enum pw_kind kind, uint32_t fn, void *ret);

/* The same site with this thread's counters for it (never NULL), valid
 * until the thread's next call of a pw_track_ function. */
PW_HIDDEN const struct pw_site_ref *pw_track_site_ref(JNIEnv *env, struct pw_thread *t, enum pw_kind kind,
                                                      uint32_t fn, void *ret);

/* A Get returned ptr (never NULL) of size bytes, from object ref, at the
 * site pw_track_site_ref gave (copied: the thread's cache entry may change
 * with any pw_track_ call); the counters and the suppression come with it. */
PW_HIDDEN void pw_track_acquire_at(struct pw_thread *t, const struct pw_site_ref *at, uint32_t fn,
                                   const void *ptr, uint64_t size, jobject ref);

/* Both at once, for a Get whose size does not depend on its site. */
PW_HIDDEN void pw_track_get(JNIEnv *env, struct pw_thread *t, uint32_t fn, void *ret, const void *ptr,
                            uint64_t size, jobject ref);

enum pw_get_done {
    PW_GET_OTHER,  /* nothing changed: pw_track_get must do it */
    PW_GET_DONE,   /* recorded */
    PW_GET_SAMPLE, /* recorded, and the site's stack is due: pw_track_sample */
};

/* The same, inlined into the elements hooks for their common case: f is
 * the thread's top frame (pw_thread_top, not NULL), t holds no critical
 * region and ptr is a pin address (PW_KEY_IS_PIN).  PW_GET_OTHER, having
 * changed nothing, for anything else (a site-cache miss, a table to grow,
 * a threshold step, a lazily pushed frame after a late attach). */
PW_HIDDEN enum pw_get_done pw_track_get_in(struct pw_thread *t, struct pw_frame *f, uint32_t fn, void *ret,
                                           const void *ptr, uint64_t size, jobject ref);

/* The common GetPrimitiveArrayCritical in two steps around the JVM's call,
 * inlined into its hook: ready, before the region opens, tests what
 * pw_track_get_in tests (and that no stack sample is due) and returns the
 * site, or NULL having changed nothing; commit, once the JVM handed out
 * ptr (a pin address), records it.  No JNI call may come between. */
PW_HIDDEN const struct pw_site_ref *pw_track_critical_ready(struct pw_thread *t, struct pw_frame *f, uint32_t fn,
                                                            void *ret);
PW_HIDDEN void pw_track_critical_commit(struct pw_thread *t, struct pw_frame *f, const struct pw_site_ref *at,
                                        const void *ptr, uint64_t size, jobject ref);

/* After PW_GET_SAMPLE, as the hook's last act: the stack of the site of
 * the pin just taken from ret, if it is due. */
PW_HIDDEN void pw_track_sample(struct pw_thread *t, void *ret);

enum pw_release_action {
    PW_RELEASE_PASS,     /* give it to the JVM as the application made it */
    PW_RELEASE_REDIRECT, /* wrong family: release through the pin's own */
    PW_RELEASE_DROP,     /* a double release: passing it on would free twice */
};

struct pw_release {
    enum pw_release_action action;
    uint32_t fn;   /* the pin's acquire function (when found) */
    uint32_t site; /* the pin's site (when found) */
    bool found;
    bool same_call; /* taken by the running invocation: ref is still valid */
    jobject ref;    /* the object the pin came from (when same_call) */
    uint64_t size;  /* the pin's bytes (when found) */
};

/* A Release of ptr through family fn with mode, made from call; called
 * before the JVM's release runs, so the address cannot have been handed
 * out again in between.  Findings are recorded here. */
PW_HIDDEN struct pw_release pw_track_release(struct pw_thread *t, uint32_t fn, const void *ptr, jint mode,
                                             void *call);

/* The common release, done in full: ptr is a pin in this thread's own
 * table, taken by the running invocation from obj through family fn, and
 * mode is not JNI_COMMIT.  Returns false, having changed nothing, for any
 * other release, which then goes through pw_track_release; true means the
 * release is counted and goes to the JVM as made. */
PW_HIDDEN bool pw_track_release_own(struct pw_thread *t, uint32_t fn, const void *ptr, jint mode, jobject obj,
                                    void *call);

#endif
