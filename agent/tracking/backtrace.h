/* SPDX-License-Identifier: Apache-2.0 */
/* Native frames of an acquisition, captured with libunwind on the thread
 * that made it.  Costly (hundreds of ns), so the tracker asks for a stack
 * only when a site is new or a sample falls due. */
#ifndef PW_BACKTRACE_H
#define PW_BACKTRACE_H

#include "base/pinwatch.h"

#define PW_STACK_MAX 64

/* Return addresses from the frame that called the Get (whose return address
 * is ret) outwards, stopping at the native method's entry (pw_native_exit)
 * or after max frames.  bounded: the walk must not leave the native
 * method's own C frames (a thread without a tracked frame may have JIT code
 * above, which libunwind cannot walk safely). */
PW_HIDDEN int pw_backtrace(void *ret, uintptr_t *ips, int max, bool bounded);

/* Once, before any capture: libunwind's default global cache blocks every
 * signal around each lookup (two sigprocmask calls a frame); a cache per
 * thread needs no lock. */
PW_HIDDEN void pw_backtrace_init(void);

#endif
