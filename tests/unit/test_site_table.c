/* SPDX-License-Identifier: Apache-2.0 */
/* The site table (agent/state/site_table.c), as the agent built it: a site
 * interned once into a dense id that stays its own, distinct keys (method,
 * kind, function, call site) apart, interning from many threads at once agreeing
 * on every id, the overflow site once PW_MAX_SITES are taken, and per-thread
 * counters that add up exactly. */
#include "state/methods.h"
#include "state/site_table.h"
#include "unit_check.h"

#include <pthread.h>
#include <string.h>

/* Pin sites; the key's kind is checked on its own below. */
#define INTERN(method, fn, ret) pw_site_intern((method), PW_KIND_PIN, (fn), (ret))

/* Methods are only compared by address here: two stand-ins are enough. */
static const char fake_methods[2];
#define METHOD(i) ((i) == 0 ? &pw_method_native_thread : (const struct pw_method *)&fake_methods[(i)-1])

#define NKEYS 3000
#define THREADS 4

static void *
ret_of(uint32_t i)
{
    return (void *)unit_key(0x401000, i);
}

static uint32_t
fn_of(uint32_t i)
{
    return i % PW_FN_COUNT;
}

static uint32_t ids[NKEYS];

static void
check_keys_apart(void)
{
    uint32_t first = pw_site_count();
    for (uint32_t i = 0; i < NKEYS; i++) {
        ids[i] = INTERN(METHOD(i % 3), fn_of(i), ret_of(i));
        CHECK(ids[i] == first + i, "key %u: id %u, expected the next dense id %u", i, ids[i], first + i);
        struct pw_site *s = pw_site_get(ids[i]);
        CHECK(s->method == METHOD(i % 3) && s->fn == fn_of(i) && s->ret == ret_of(i), "site %u: wrong key",
              ids[i]);
    }
    CHECK(pw_site_count() == first + NKEYS, "count %u, expected %u", pw_site_count(), first + NKEYS);
    /* Again: the same ids, nothing new. */
    for (uint32_t i = 0; i < NKEYS; i++)
        CHECK(INTERN(METHOD(i % 3), fn_of(i), ret_of(i)) == ids[i], "key %u interned again: another id", i);
    CHECK(pw_site_count() == first + NKEYS, "count grew on known keys: %u", pw_site_count());
    /* Keys that differ in one part only are other sites. */
    uint32_t m = INTERN(METHOD(1), fn_of(0), ret_of(0));
    uint32_t f = INTERN(METHOD(0), fn_of(1), ret_of(0));
    uint32_t r = INTERN(METHOD(0), fn_of(0), ret_of(NKEYS));
    uint32_t k = pw_site_intern(METHOD(0), PW_KIND_GLOBAL_REF, fn_of(0), ret_of(0));
    uint32_t apart[] = {ids[0], m, f, r, k};
    for (int a = 0; a < 5; a++)
        for (int b = a + 1; b < 5; b++)
            CHECK(apart[a] != apart[b], "keys %d and %d one part apart, yet one site %u", a, b, apart[a]);
    CHECK(pw_site_get(k)->kind == PW_KIND_GLOBAL_REF && pw_site_get(ids[0])->kind == PW_KIND_PIN,
          "a site's kind is not its key's");
    CHECK(pw_site_intern(METHOD(0), PW_KIND_GLOBAL_REF, fn_of(0), ret_of(0)) == k,
          "a reference site: another id");
    CHECK(pw_site_get(PW_MAX_SITES + 5) == pw_site_get(PW_SITE_OVERFLOW),
          "an id out of range is not the overflow");
}

struct worker {
    int index;
    struct pw_thread_counts counts;
    uint32_t seen[NKEYS];
};

/* Each thread interns every key (some new: i >= NKEYS / 2 are made here, by
 * whichever thread comes first) and counts on its own counters. */
static void *
work(void *arg)
{
    struct worker *w = arg;
    for (uint32_t k = 0; k < 2 * NKEYS; k++) {
        uint32_t i = (k * 7 + (uint32_t)w->index * 911) % (2 * NKEYS);
        uint32_t id = INTERN(METHOD(2), fn_of(i), ret_of(100000 + i));
        if (i < NKEYS)
            w->seen[i] = id;
        struct pw_counts *c = pw_counts_of(&w->counts, id);
        pw_count_add(&c->acquired, (uint64_t)w->index + 1);
        pw_count_add(&c->released, 1);
        pw_count_add(&c->carried, i % 3);
    }
    return NULL;
}

static void
check_threads(void)
{
    static struct worker workers[THREADS];
    pthread_t t[THREADS];
    uint32_t before = pw_site_count();
    for (int i = 0; i < THREADS; i++) {
        workers[i].index = i;
        CHECK(pthread_create(&t[i], NULL, work, &workers[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    uint32_t n = pw_site_count();
    CHECK(n == before + 2 * NKEYS, "%u threads made %u sites of %u keys", THREADS, n - before, 2 * NKEYS);
    for (uint32_t i = 0; i < NKEYS; i++)
        for (int w = 1; w < THREADS; w++)
            CHECK(workers[w].seen[i] == workers[0].seen[i], "key %u: thread %d got id %u, thread 0 %u", i, w,
                  workers[w].seen[i], workers[0].seen[i]);

    struct pw_counts *sums = calloc(n, sizeof(*sums));
    CHECK(sums != NULL, "calloc");
    for (int w = 0; w < THREADS; w++)
        pw_thread_counts_add_to(&workers[w].counts, sums, n);
    uint64_t acquired = 0, released = 0, carried = 0;
    for (uint32_t id = 0; id < n; id++) {
        if (id < before) {
            CHECK(sums[id].acquired == 0 && sums[id].released == 0, "site %u counted by no thread has counts",
                  id);
            continue;
        }
        /* Every thread counted each of its sites once: 1 + 2 + 3 + 4. */
        CHECK(sums[id].acquired == 10 && sums[id].released == THREADS, "site %u: acquired %llu released %llu", id,
              (unsigned long long)sums[id].acquired, (unsigned long long)sums[id].released);
        acquired += sums[id].acquired;
        released += sums[id].released;
        carried += sums[id].carried;
    }
    uint64_t carried_want = 0;
    for (uint32_t i = 0; i < 2 * NKEYS; i++)
        carried_want += THREADS * (i % 3);
    CHECK(acquired == 10ull * 2 * NKEYS && released == (uint64_t)THREADS * 2 * NKEYS && carried == carried_want,
          "totals: acquired %llu released %llu carried %llu (expected %llu)", (unsigned long long)acquired,
          (unsigned long long)released, (unsigned long long)carried, (unsigned long long)carried_want);
    free(sums);
    for (int w = 0; w < THREADS; w++)
        pw_thread_counts_free(&workers[w].counts);
}

/* Past PW_MAX_SITES a new key is charged to the overflow site, and known
 * keys keep their ids. */
static void
check_overflow(void)
{
    uint32_t i = 0;
    while (pw_site_count() < PW_MAX_SITES) {
        uint32_t want = pw_site_count();
        uint32_t id = INTERN(METHOD(1), fn_of(i), ret_of(200000 + i));
        CHECK(id == want, "filling: id %u, expected %u", id, want);
        i++;
    }
    CHECK(INTERN(METHOD(1), fn_of(i), ret_of(200000 + i)) == PW_SITE_OVERFLOW, "a site past the limit has an id");
    CHECK(pw_site_count() == PW_MAX_SITES, "count past the limit: %u", pw_site_count());
    for (uint32_t k = 0; k < NKEYS; k++)
        CHECK(INTERN(METHOD(k % 3), fn_of(k), ret_of(k)) == ids[k], "key %u lost its id when the table filled",
              k);
    CHECK(pw_site_get(PW_SITE_OVERFLOW)->method == NULL, "the overflow site has a method");
}

int
main(void)
{
    check_keys_apart();
    check_threads();
    check_overflow();
    printf("PASS: site table\n");
    return 0;
}
