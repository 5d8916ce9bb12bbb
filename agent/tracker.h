/* What a Get and a Release do to pinwatch's books: find the pin's site,
 * record it in the thread's table and counters, and find it again on
 * release wherever it went (this thread, the leak table, another thread). */
#ifndef PW_TRACKER_H
#define PW_TRACKER_H

#include "thread_state.h"

/* Set before the JNI table is swapped; read-only afterwards. */
PW_HIDDEN extern jvmtiEnv *pw_tracker_jvmti;
/* Loaded into a running JVM: methods bound before have no thunk, so a
 * thread in none of ours asks the JVM which native method it is in. */
PW_HIDDEN extern bool pw_tracker_attached_late;

/* The site of a Get made from ret on this thread, for function fn.  env
 * is used only after a late attach, to bind a method anew. */
PW_HIDDEN uint32_t pw_track_site(JNIEnv *env, struct pw_thread *t, uint32_t fn, void *ret);

/* A Get returned ptr (never NULL) of size bytes. */
PW_HIDDEN void pw_track_acquire(struct pw_thread *t, uint32_t site, const void *ptr, uint64_t size);

/* A Release of ptr with mode; called before the JVM's release runs, so the
 * address cannot have been handed out again in between. */
PW_HIDDEN void pw_track_release(struct pw_thread *t, const void *ptr, jint mode);

#endif
