/* SPDX-License-Identifier: Apache-2.0 */
#include "base/clock.h"
#include "base/threads.h"
#include "base/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS (2 * 1000 * 1000)

_Atomic uint64_t pw_clock_now_ms;
static struct timespec started;
static uint64_t process_age_at_start_ms;

/* The process's age when the agent started: /proc/self/stat's start time
 * (field 22, clock ticks after boot) against /proc/uptime. */
static uint64_t
process_age_ms(void)
{
    char buf[1024];
    double up = 0;
    FILE *f = fopen("/proc/uptime", "re");
    if (f == NULL)
        return 0;
    int ok = fscanf(f, "%lf", &up);
    fclose(f);
    f = fopen("/proc/self/stat", "re");
    if (ok != 1 || f == NULL) {
        if (f != NULL)
            fclose(f);
        return 0;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name may hold spaces and parentheses: fields count from
     * the last ')'. */
    char *p = strrchr(buf, ')');
    unsigned long long start = 0;
    for (int field = 2; p != NULL && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p == NULL || sscanf(p + 1, "%llu", &start) != 1)
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    double age = up - (double)start / (double)(hz > 0 ? hz : 100);
    return age > 0 ? (uint64_t)(age * 1000.0) : 0;
}


static uint64_t
since_start_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ns = (int64_t)(now.tv_sec - started.tv_sec) * 1000000000 + (now.tv_nsec - started.tv_nsec);
    return ns > 0 ? (uint64_t)ns / 1000000u : 0;
}

uint64_t
pw_clock_uptime_ms(void)
{
    return process_age_at_start_ms + since_start_ms();
}

uint64_t
pw_clock_epoch_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)(now.tv_nsec / 1000000);
}

static void *
tick(void *arg)
{
    (void)arg;
    struct timespec period = {.tv_sec = 0, .tv_nsec = TICK_NS};
    for (;;) {
        atomic_store_explicit(&pw_clock_now_ms, since_start_ms(), memory_order_relaxed);
        nanosleep(&period, NULL);
    }
    return NULL;
}

bool
pw_clock_start(bool attached)
{
    clock_gettime(CLOCK_MONOTONIC, &started);
    process_age_at_start_ms = attached ? process_age_ms() : 0;
    int rc = pw_daemon_spawn("pinwatch-clock", 64 * 1024, tick, NULL);
    if (rc != 0) {
        pw_log_warn("cannot start the clock thread (error %d); pin ages will read 0", rc);
        return false;
    }
    return true;
}

struct timespec
pw_clock_deadline(clockid_t clock, uint64_t ms)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}
