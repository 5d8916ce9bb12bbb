/* SPDX-License-Identifier: Apache-2.0 */
/* What a Get and a Release do to pinwatch's books: find the pin's site,
 * record it in the thread's table and counters, and find it again on
 * release wherever it went (this thread, the leak table, another thread). */
#ifndef PW_TRACKER_H
#define PW_TRACKER_H

#include "state/thread_state.h"

/* Set before the JNI table is swapped; read-only afterwards. */
PW_HIDDEN extern jvmtiEnv *pw_tracker_jvmti;
/* Loaded into a running JVM: methods bound before have no thunk, so a
 * thread in none of ours asks the JVM which native method it is in. */
PW_HIDDEN extern bool pw_tracker_attached_late;
/* stack= and javastack=: frames kept per site. */
PW_HIDDEN extern int pw_tracker_stack_depth;
PW_HIDDEN extern int pw_tracker_java_depth;

/* A site's native stack is taken again at most every PW_SAMPLE_MS (looked
 * at every PW_SAMPLE_PERIOD calls of a thread at known sites of one kind,
 * counted down in the kind's sites.sample_countdown), so that a site reached along
 * several paths shows them while a hot site costs next to nothing. */
#define PW_SAMPLE_PERIOD 64
#define PW_SAMPLE_MS 50

/* The site of a call made from ret on this thread, of kind and function
 * fn (an enum pw_function for pins, a JNI table slot for references).  env
 * is used only after a late attach, to bind a method anew. */
PW_HIDDEN uint32_t pw_track_site(JNIEnv *env, struct pw_thread *t, enum pw_kind kind, uint32_t fn, void *ret);

/* A Get returned ptr (never NULL) of size bytes, from object ref. */
PW_HIDDEN void pw_track_acquire(struct pw_thread *t, uint32_t site, uint32_t fn, const void *ptr, uint64_t size,
                                jobject ref);

/* Both at once, for a Get whose size does not depend on its site. */
PW_HIDDEN void pw_track_get(JNIEnv *env, struct pw_thread *t, uint32_t fn, void *ret, const void *ptr,
                            uint64_t size, jobject ref);

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

/* Set at start when -Xcheck:jni is on: the checker would abort on a
 * reference the application has deleted (src/hotspot/share/prims/
 * jniCheck.cpp validates every handle and reports a bad one with
 * ReportJNIFatalError), so identity checks that use the Get's reference are
 * skipped. */
PW_HIDDEN extern bool pw_tracker_checked_jni;

#endif
