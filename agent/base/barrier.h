/* SPDX-License-Identifier: Apache-2.0 */
/* A memory barrier on every running thread of the process, paid by the one
 * thread that asks for it: the other side of an asymmetric Dekker protocol
 * whose common side then needs no barrier instruction of its own (Linux's
 * membarrier(2), as HotSpot's FlushProcessWriteBuffers and liburcu use it). */
#ifndef PW_BARRIER_H
#define PW_BARRIER_H

#include "base/pinwatch.h"

/* Once, at start: registers the process for pw_barrier_process.  False when
 * the kernel has no expedited private membarrier (before Linux 4.14) or
 * refuses it (seccomp, an emulator without it): pw_barrier_process must
 * then never be called. */
PW_HIDDEN bool pw_barrier_init(void);

/* After pw_barrier_init returned true: when it returns, every other thread
 * of the process has run a full memory barrier since it was called (or was
 * not running, and a context switch is one).  So a store another thread made
 * before that barrier is visible here, and that thread's loads after it see
 * what this thread stored before the call.  Costs a system call and an
 * interrupt to each processor running a thread of the process: microseconds,
 * for rare paths only. */
PW_HIDDEN void pw_barrier_process(void);

#endif
