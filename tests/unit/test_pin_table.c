/* SPDX-License-Identifier: Apache-2.0 */
/* The per-thread pin table (agent/state/pin_table.c), as the agent built
 * it: a multiset of pin addresses with owner-only insert and take, removal
 * by another thread, visits that remove, growth, tombstones that do not
 * pile up, and exact counts when the owner and another thread release the
 * same pins at once. */
#include "state/pin_table.h"
#include "unit_check.h"

#include <pthread.h>
#include <string.h>

static uintptr_t
key_of(uint32_t i)
{
    return unit_key((uintptr_t)0x7f0000000000ull, i);
}

static struct pw_pin_info
info_of(uint32_t i)
{
    return (struct pw_pin_info){.size = (uint64_t)i * 3 + 1, .site = i % 977, .serial = i, .t_ms = i * 7,
                                .fn = (uint8_t)(i % PW_FN_COUNT), .suppressed = i % 5 == 0};
}

static bool
same_info(const struct pw_pin_info *a, const struct pw_pin_info *b)
{
    return a->size == b->size && a->site == b->site && a->serial == b->serial && a->t_ms == b->t_ms &&
           a->fn == b->fn && a->suppressed == b->suppressed && a->ref == b->ref;
}

struct tally {
    uint64_t pins, bytes;
    uint32_t drop_mod; /* visit removes pins whose site % drop_mod == 0; 0: none */
};

static bool
count_pin(uintptr_t key, const struct pw_pin_info *info, void *arg)
{
    struct tally *t = arg;
    CHECK(PW_KEY_IS_PIN(key), "visit handed out marker %#lx", (unsigned long)key);
    t->pins++;
    t->bytes += info->size;
    return t->drop_mod != 0 && info->site % t->drop_mod == 0;
}

static struct tally
tally(struct pw_pin_table *tab, uint32_t drop_mod)
{
    struct tally t = {.drop_mod = drop_mod};
    pw_pin_table_visit(tab, count_pin, &t);
    return t;
}

static size_t
capacity(const struct pw_pin_table *tab)
{
    return pw_pin_table_memory(tab) / sizeof(struct pw_pin_slot);
}

static void
test_markers(void)
{
    CHECK(!PW_KEY_IS_PIN(PW_KEY_EMPTY) && !PW_KEY_IS_PIN(PW_KEY_TOMB) && !PW_KEY_IS_PIN(PW_KEY_BUSY),
          "a marker counts as a pin");
    CHECK(PW_KEY_IS_PIN((uintptr_t)3) && PW_KEY_IS_PIN(key_of(0)), "a pin address counts as a marker");
}

static void
test_insert_find_take(void)
{
    enum { N = 20000 };
    struct pw_pin_table tab;
    CHECK(pw_pin_table_init(&tab), "init");
    size_t cap0 = capacity(&tab);
    CHECK(cap0 >= 4 && (cap0 & (cap0 - 1)) == 0, "initial capacity %zu", cap0);
    CHECK(tally(&tab, 0).pins == 0, "a fresh table has pins");
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < N; i++) {
        struct pw_pin_info in = info_of(i);
        CHECK(pw_pin_table_insert(&tab, key_of(i), &in), "insert %u", i);
        bytes += in.size;
    }
    struct tally t = tally(&tab, 0);
    CHECK(t.pins == N && t.bytes == bytes, "after %d inserts: %llu pins, %llu bytes (expected %llu)", N,
          (unsigned long long)t.pins, (unsigned long long)t.bytes, (unsigned long long)bytes);
    /* Grown by doubling, kept at most 3/4 full. */
    size_t cap = capacity(&tab);
    CHECK((cap & (cap - 1)) == 0 && cap * 3 >= (size_t)N * 4 && cap <= (size_t)N * 4,
          "capacity %zu for %d pins", cap, N);
    CHECK(pw_pin_table_memory(&tab) == cap * sizeof(struct pw_pin_slot), "memory figure");
    for (uint32_t i = 0; i < N; i++) {
        struct pw_pin_info out;
        struct pw_pin_info want = info_of(i);
        CHECK(pw_pin_table_find(&tab, key_of(i), &out) && same_info(&out, &want), "find %u", i);
    }
    /* Take every even pin: the rest stay findable past the tombstones. */
    for (uint32_t i = 0; i < N; i += 2) {
        const struct pw_pin_slot *s = pw_pin_table_take(&tab, key_of(i));
        struct pw_pin_info want = info_of(i);
        CHECK(s != NULL && same_info(&s->info, &want), "take %u", i);
        CHECK(pw_pin_table_take(&tab, key_of(i)) == NULL, "pin %u taken twice", i);
        bytes -= want.size;
    }
    for (uint32_t i = 1; i < N; i += 2) {
        struct pw_pin_info out;
        CHECK(pw_pin_table_find(&tab, key_of(i), &out) && out.serial == i, "find %u past tombstones", i);
    }
    struct pw_pin_info out;
    CHECK(!pw_pin_table_find(&tab, key_of(N + 5), &out), "found a key never inserted");
    t = tally(&tab, 0);
    CHECK(t.pins == N / 2 && t.bytes == bytes, "after taking half: %llu pins, %llu bytes",
          (unsigned long long)t.pins, (unsigned long long)t.bytes);
    pw_pin_table_free(&tab);
    CHECK(pw_pin_table_memory(&tab) == 0, "memory after free");
}

/* Nested criticals on one array: the same address live three times. */
static void
test_multiset(void)
{
    struct pw_pin_table tab;
    CHECK(pw_pin_table_init(&tab), "init");
    uint64_t sizes = 0;
    for (uint32_t i = 0; i < 3; i++) {
        struct pw_pin_info in = info_of(100 + i);
        CHECK(pw_pin_table_insert(&tab, key_of(1), &in), "insert copy %u", i);
        sizes += in.size;
    }
    uint64_t taken = 0;
    for (int i = 0; i < 3; i++) {
        const struct pw_pin_slot *s = pw_pin_table_take(&tab, key_of(1));
        CHECK(s != NULL, "copy %d of a pin taken three times is missing", i);
        taken += s->info.size;
    }
    CHECK(taken == sizes, "the three copies' sizes %llu, expected %llu", (unsigned long long)taken,
          (unsigned long long)sizes);
    CHECK(pw_pin_table_take(&tab, key_of(1)) == NULL, "a fourth copy");
    pw_pin_table_free(&tab);
}

/* Tombstones are cleared when the table is rebuilt: a thread that takes and
 * releases forever keeps a small table. */
static void
test_churn(void)
{
    struct pw_pin_table tab;
    CHECK(pw_pin_table_init(&tab), "init");
    size_t cap0 = capacity(&tab);
    for (uint32_t i = 0; i < 200000; i++) {
        struct pw_pin_info in = info_of(i);
        CHECK(pw_pin_table_insert(&tab, key_of(i), &in), "insert %u", i);
        if (i >= 2)
            CHECK(pw_pin_table_take(&tab, key_of(i - 2)) != NULL, "take %u", i - 2);
    }
    CHECK(tally(&tab, 0).pins == 2, "two pins live");
    CHECK(capacity(&tab) == cap0, "capacity %zu after churn with two live pins (started at %zu)", capacity(&tab),
          cap0);
    pw_pin_table_free(&tab);
}

static void
test_visit_removes(void)
{
    enum { N = 5000 };
    struct pw_pin_table tab;
    CHECK(pw_pin_table_init(&tab), "init");
    uint64_t kept = 0, kept_bytes = 0;
    for (uint32_t i = 0; i < N; i++) {
        struct pw_pin_info in = info_of(i);
        CHECK(pw_pin_table_insert(&tab, key_of(i), &in), "insert %u", i);
        if (in.site % 3 != 0) {
            kept++;
            kept_bytes += in.size;
        }
    }
    struct tally t = tally(&tab, 3);
    CHECK(t.pins == N, "the removing visit saw %llu pins", (unsigned long long)t.pins);
    t = tally(&tab, 0);
    CHECK(t.pins == kept && t.bytes == kept_bytes, "after a visit removing site%%3==0: %llu pins (expected %llu)",
          (unsigned long long)t.pins, (unsigned long long)kept);
    pw_pin_table_free(&tab);
}

/* Remote removal: one thread's table, another thread releasing. */
struct race {
    struct pw_pin_table *tab;
    uint32_t n;
    uint8_t *removed; /* 1: by the remote thread */
    uint64_t count;
    pthread_barrier_t *start;
};

static void *
remote(void *arg)
{
    struct race *r = arg;
    pthread_barrier_wait(r->start);
    /* From the top down, while the owner goes up: they meet in the middle
     * and contend there for the same pins. */
    for (uint32_t i = r->n; i-- > 0;) {
        struct pw_pin_info out;
        if (pw_pin_table_remove_remote(r->tab, key_of(i), &out, NULL)) {
            CHECK(out.serial == i, "remote removal of %u gave pin %u", i, out.serial);
            r->removed[i] = 1;
            r->count++;
        }
    }
    return NULL;
}

static void
test_remote(void)
{
    struct pw_pin_table tab;
    CHECK(pw_pin_table_init(&tab), "init");
    struct pw_pin_info in = info_of(7), out;
    CHECK(pw_pin_table_insert(&tab, key_of(7), &in), "insert");
    CHECK(!pw_pin_table_remove_remote(&tab, key_of(8), &out, NULL), "removed a pin never inserted");
    CHECK(pw_pin_table_remove_remote(&tab, key_of(7), &out, NULL) && same_info(&out, &in), "remote removal");
    CHECK(pw_pin_table_take(&tab, key_of(7)) == NULL, "the owner took a pin removed remotely");
    CHECK(!pw_pin_table_remove_remote(&tab, key_of(7), &out, NULL), "removed twice remotely");
    /* Remote removals among the owner's pins, then the owner's takes. */
    for (uint32_t i = 0; i < 1000; i++) {
        struct pw_pin_info p = info_of(i);
        CHECK(pw_pin_table_insert(&tab, key_of(i), &p), "insert %u", i);
    }
    for (uint32_t i = 0; i < 1000; i += 4)
        CHECK(pw_pin_table_remove_remote(&tab, key_of(i), &out, NULL) && out.serial == i, "remote removal of %u", i);
    uint32_t taken = 0;
    for (uint32_t i = 0; i < 1000; i++)
        taken += pw_pin_table_take(&tab, key_of(i)) != NULL;
    CHECK(taken == 750, "the owner took %u pins after 250 of 1000 were removed remotely", taken);
    pw_pin_table_free(&tab);
}

/* The owner and another thread release every pin at once: each pin must go
 * exactly once (the second of a concurrent double release is dropped, not
 * passed to the JVM). */
static uint64_t lost, lost_whole;

static void
test_race(void)
{
    enum { N = 200000 };
    struct pw_pin_table tab;
    CHECK(pw_pin_table_init(&tab), "init");
    for (uint32_t i = 0; i < N; i++) {
        struct pw_pin_info p = info_of(i);
        CHECK(pw_pin_table_insert(&tab, key_of(i), &p), "insert %u", i);
    }
    static uint8_t removed[N];
    memset(removed, 0, sizeof(removed));
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct race r = {.tab = &tab, .n = N, .removed = removed, .start = &start};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, remote, &r) == 0, "pthread_create");
    pthread_barrier_wait(&start);
    uint64_t owner = 0;
    for (uint32_t i = 0; i < N; i++) {
        /* pw_pin_table_take, step by step, to count the swaps it loses. */
        struct pw_pin_slot *s;
        while ((s = pw_pin_table_slot(&tab, key_of(i))) != NULL) {
            if (pw_pin_table_take_slot(s, key_of(i))) {
                owner++;
                break;
            }
            lost++;
            /* Both of the other thread's swaps landed between the owner's
             * look and its take: there a plain store released it twice. */
            if (atomic_load(&s->key) == PW_KEY_TOMB)
                lost_whole++;
        }
    }
    pthread_join(th, NULL);
    pthread_barrier_destroy(&start);
    CHECK(owner + r.count == N, "owner took %llu, the other thread %llu: %llu releases of %d pins",
          (unsigned long long)owner, (unsigned long long)r.count, (unsigned long long)(owner + r.count), N);
    CHECK(tally(&tab, 0).pins == 0, "pins left after both released all");
    pw_pin_table_free(&tab);
}

int
main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "race") == 0) {
        for (int round = 0; round < 60; round++)
            test_race();
        printf("pin_table race: 60 rounds of 200000 pins, every pin released exactly once; the owner's swap "
               "lost %llu times, %llu of them to both of the other thread's swaps (each a double release "
               "before the owner's take was a swap)\n",
               (unsigned long long)lost, (unsigned long long)lost_whole);
        return 0;
    }
    test_markers();
    test_insert_find_take();
    test_multiset();
    test_churn();
    test_visit_removes();
    test_remote();
    puts("pin_table: all checks passed");
    return 0;
}
