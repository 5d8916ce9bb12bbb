/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's own threads (the clock, the report thread, the metrics
 * endpoint): detached, named, and blind to every signal. */
#ifndef PW_THREADS_H
#define PW_THREADS_H

#include "base/pinwatch.h"

/* Starts fn(arg) on a new thread called name; stack_size 0 takes the
 * default.  Returns 0, or the pthread_create error for the caller to
 * report. */
PW_HIDDEN int pw_daemon_spawn(const char *name, size_t stack_size, void *(*fn)(void *arg), void *arg);

#endif
