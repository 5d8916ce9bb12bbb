/* SPDX-License-Identifier: Apache-2.0 */
/* A millisecond clock that costs one load on the hot path.  A small thread
 * of the agent's own (no JVM calls) advances it; pin ages need no more
 * precision than its period. */
#ifndef PW_CLOCK_H
#define PW_CLOCK_H

#include "base/pinwatch.h"

#include <stdatomic.h>
#include <time.h>

PW_HIDDEN extern _Atomic uint64_t pw_clock_now_ms;

/* Starts the ticker; false when no thread could be made (pin ages then
 * read 0).  attached: the JVM ran before the agent came, so its uptime is
 * taken from the process's start time. */
PW_HIDDEN bool pw_clock_start(bool attached);

/* Milliseconds since the agent started. */
static inline uint64_t
pw_clock_ms(void)
{
    return atomic_load_explicit(&pw_clock_now_ms, memory_order_relaxed);
}

/* Milliseconds since the JVM started: since the agent loaded when it
 * loaded with the JVM (a launcher that exec'd java later than its process
 * began would otherwise add its own time), since the process began after a
 * late attach. */
PW_HIDDEN uint64_t pw_clock_uptime_ms(void);

/* CLOCK_MONOTONIC in milliseconds, read now (not the ticker): for timeouts
 * off the hot path, in the agent and in the command. */
static inline int64_t
pw_clock_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wall-clock milliseconds since the epoch, for report timestamps. */
PW_HIDDEN uint64_t pw_clock_epoch_ms(void);

/* The time ms milliseconds from now on clock, as the pthread timed waits
 * take it (CLOCK_REALTIME for pthread_mutex_timedlock, CLOCK_MONOTONIC for
 * a condition variable set to it). */
PW_HIDDEN struct timespec pw_clock_deadline(clockid_t clock, uint64_t ms);

#endif
