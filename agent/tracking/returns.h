/* SPDX-License-Identifier: Apache-2.0 */
/* The end of a native method's invocation, or of a thread, with pins still
 * held: they are leaks from then on, moved to the leak table and counted
 * as leaked_at_return; a site's first leak asks for an UNRELEASED line. */
#ifndef PW_RETURNS_H
#define PW_RETURNS_H

#include "state/thread_state.h"

/* Called by the native method exit stub (intercept/native_entry.S) when a
 * native method returns while pins it took are still in the thread's
 * table. */
PW_HIDDEN void pw_invocation_returned(struct pw_thread *t, struct pw_frame *f);

/* For pw_threads_init: publishes what the thread counted. */
PW_HIDDEN void pw_thread_ending(struct pw_thread *t);

#endif
