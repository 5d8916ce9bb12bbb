/* SPDX-License-Identifier: Apache-2.0 */
/* The threshold crossing (agent/tracking/requests.c), as the agent built
 * it: per-thread counts published in steps of PW_PUBLISH_STEP, one report
 * asked for at each mark the shared count reaches, the mark doubling past
 * the count however far it jumped, nothing asked for on the way down or
 * when off; pins and references on their own crossings; and exactly one
 * report per mark when several threads publish at once. */
#include "tracking/requests.h"
#include "unit_check.h"

#include <pthread.h>
#include <string.h>

/* The counts i = 1 .. n (i > 0: that many +1s; i < 0 that many -1s) at
 * which a +1 or -1 through pw_crossing_count moved the mark. */
static int
count_steps(struct pw_crossing *c, int32_t *pending, int delta, int n, uint64_t *at, int max)
{
    int crossings = 0;
    for (int i = 1; i <= n; i++) {
        uint64_t before = atomic_load(&c->next);
        pw_crossing_count(c, pending, delta);
        if (atomic_load(&c->next) != before) {
            CHECK(crossings < max, "more than %d crossings", max);
            at[crossings++] = (uint64_t)i;
        }
    }
    return crossings;
}

static void
exact_crossings(void)
{
    struct pw_crossing c = {0};
    int32_t pending = 0;
    pw_crossing_start(&c, 100);
    CHECK(c.on, "threshold 100 is off");
    uint64_t at[8];
    /* Published at 16, 32, ...: the marks 100, 200, 400, 800 are reached
     * at the first multiple of 16 at or past them. */
    int n = count_steps(&c, &pending, 1, 1000, at, 8);
    const uint64_t want[] = {112, 208, 400, 800};
    CHECK(n == 4, "%d crossings up to 1000, expected 4", n);
    for (int i = 0; i < n; i++)
        CHECK(at[i] == want[i], "crossing %d at %llu, expected %llu", i, (unsigned long long)at[i],
              (unsigned long long)want[i]);
    CHECK(atomic_load(&c.next) == 1600, "next mark %llu", (unsigned long long)atomic_load(&c.next));
    CHECK(atomic_load(&c.published) == 992 && pending == 8, "published %lld, pending %d",
          (long long)atomic_load(&c.published), pending);

    /* Down to nothing and back: the marks passed stay passed. */
    n = count_steps(&c, &pending, -1, 1000, at, 8);
    CHECK(n == 0, "%d crossings going down", n);
    n = count_steps(&c, &pending, 1, 1000, at, 8);
    CHECK(n == 0, "%d crossings back up to 1000 (next mark 1600)", n);
    n = count_steps(&c, &pending, 1, 600, at, 8);
    CHECK(n == 1 && at[0] == 600, "back up to 1600: %d crossings, the first at +%llu", n,
          (unsigned long long)at[0]);

    /* A jump over several marks asks once, and the mark goes past it. */
    pending = 5000;
    CHECK(pw_crossing_publish(&c, &pending), "a jump to 6600 asked for nothing");
    CHECK(pending == 0, "pending %d after publishing", pending);
    CHECK(atomic_load(&c.next) == 12800, "next mark %llu after a jump to 6600",
          (unsigned long long)atomic_load(&c.next));
    pending = 0;
    CHECK(!pw_crossing_publish(&c, &pending), "publishing nothing asked for a report");
}

static void
off(void)
{
    struct pw_crossing c = {0};
    int32_t pending = 0;
    pw_crossing_start(&c, 0);
    CHECK(!c.on, "threshold 0 is on");
    for (int i = 0; i < 100000; i++)
        pw_crossing_count(&c, &pending, 1);
    /* An off crossing still adds up pending (one test per count), but drops
     * it at each step instead of publishing. */
    CHECK(pending >= 0 && pending < PW_PUBLISH_STEP && atomic_load(&c.published) == 0,
          "an off crossing counted: %d, %lld", pending, (long long)atomic_load(&c.published));
}

/* Pins and references through the agent's own crossings and thread state:
 * each kind on its own count, and a crossing reaches the report thread. */
static void
both_kinds(void)
{
    /* Line-aligned, as pw_thread_create makes it (struct pw_thread). */
    struct pw_thread *t = aligned_alloc(_Alignof(struct pw_thread), sizeof(*t));
    CHECK(t != NULL, "no memory");
    memset(t, 0, sizeof(*t));
    struct pw_options o = {.threshold = 64, .refs = true, .ref_threshold = 32};
    pw_requests_start(&o);
    struct timespec past = {0};
    struct pw_requests *got = calloc(1, sizeof(*got));
    CHECK(got != NULL, "no memory");
    pw_requests_wait(&past, got);

    for (int i = 0; i < 63; i++)
        pw_requests_count(t, 1);
    for (int i = 0; i < 31; i++)
        pw_requests_ref_count(t, 1);
    CHECK(t->pins.pending == 63 % PW_PUBLISH_STEP && t->refs.pending == 31 % PW_PUBLISH_STEP,
          "pending %d pins, %d references", t->pins.pending, t->refs.pending);
    pw_requests_wait(&past, got);
    CHECK(!got->threshold, "a report asked for below both thresholds");

    pw_requests_ref_count(t, 1); /* 32 references: published, the mark */
    pw_requests_wait(&past, got);
    CHECK(got->threshold, "32 live references asked for no report");
    CHECK(atomic_load(&pw_pin_crossing.published) == 48, "pins published %lld",
          (long long)atomic_load(&pw_pin_crossing.published));

    pw_requests_publish(t); /* as at a leaking return: 63 pins */
    pw_requests_wait(&past, got);
    CHECK(!got->threshold && t->pins.pending == 0, "63 live pins asked for a report");
    pw_requests_count(t, 1); /* 64 pins, one unpublished */
    pw_requests_wait(&past, got);
    CHECK(!got->threshold, "pins asked before publishing");
    pw_requests_publish(t);
    pw_requests_wait(&past, got);
    CHECK(got->threshold && t->pins.pending == 0, "64 live pins, published, asked for no report");
    CHECK(atomic_load(&pw_ref_crossing.published) == 32, "references published %lld",
          (long long)atomic_load(&pw_ref_crossing.published));
    free(got);
    free(t);
}

#define THREADS 4
#define STEPS 2500 /* each of PW_PUBLISH_STEP */

static struct pw_crossing shared;
static int crossed[THREADS];

static void *
publisher(void *arg)
{
    int *mine = arg;
    for (int i = 0; i < STEPS; i++) {
        int32_t pending = PW_PUBLISH_STEP;
        *mine += pw_crossing_publish(&shared, &pending);
    }
    return NULL;
}

/* Marks 1000, 2000, ... 128000 up to 4 * 2500 * 16 = 160000: eight of
 * them, each asked for by exactly one thread. */
static void
across_threads(void)
{
    pw_crossing_start(&shared, 1000);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, publisher, &crossed[i]) == 0, "pthread_create");
    int total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        total += crossed[i];
    }
    int64_t published = atomic_load(&shared.published);
    CHECK(published == (int64_t)THREADS * STEPS * PW_PUBLISH_STEP, "published %lld", (long long)published);
    int marks = 0;
    for (uint64_t m = 1000; m <= (uint64_t)published; m *= 2)
        marks++;
    CHECK(total == marks, "%d reports asked for, %d marks passed", total, marks);
    CHECK(atomic_load(&shared.next) == 256000, "next mark %llu", (unsigned long long)atomic_load(&shared.next));
}

int
main(void)
{
    exact_crossings();
    off();
    both_kinds();
    across_threads();
    printf("requests: OK\n");
    return 0;
}
