/* SPDX-License-Identifier: Apache-2.0 */
/* After a late attach: an invocation of a native method bound before the
 * attach has no thunk, so no shadow frame and no swapped return address.
 * At its first Get pinwatch gives it both, lazily, from the thread's own
 * stack, so that its return is seen and the pins it returns holding are
 * leaked there, as for any thunked method. */
#ifndef PW_LATE_FRAME_H
#define PW_LATE_FRAME_H

#include "state/thread_state.h"

/* Pushes a shadow frame for method m (the innermost Java frame, a native
 * method, as the JVM said) on t, and makes the native function's frame
 * return through pw_native_exit.  ret: the Get's return address.  False,
 * with nothing changed, unless every step is proven (see late_frame.c). */
PW_HIDDEN bool pw_late_frame_push(struct pw_thread *t, struct pw_method *m, void *ret);

#endif
