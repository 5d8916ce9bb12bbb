/* SPDX-License-Identifier: Apache-2.0 */
/* The per-thread pin table (agent/state/pin_table.c), as the agent built
 * it: a multiset of pin addresses with owner-only insert and take, removal
 * by another thread, visits that remove, growth, tombstones that do not
 * pile up, and exact counts when the owner and another thread release the
 * same pins at once, with the owner's barrier-free take (the process-wide
 * barrier) and with its compare-and-swap (the fallback). */
#include "state/pin_table.h"
#include "base/cpu.h"
#include "unit_check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

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
static uint64_t lost;

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
        /* pw_pin_table_take, step by step, to count the takes it loses. */
        struct pw_pin_slot *s;
        while ((s = pw_pin_table_slot(&tab, key_of(i))) != NULL) {
            if (pw_pin_table_take_slot(&tab, s, key_of(i))) {
                owner++;
                break;
            }
            lost++;
        }
    }
    pthread_join(th, NULL);
    pthread_barrier_destroy(&start);
    CHECK(owner + r.count == N, "owner took %llu, the other thread %llu: %llu releases of %d pins",
          (unsigned long long)owner, (unsigned long long)r.count, (unsigned long long)(owner + r.count), N);
    CHECK(tally(&tab, 0).pins == 0, "pins left after both released all");
    pw_pin_table_free(&tab);
}

/* Pairs of an owner and a remote releaser in lockstep: the owner inserts a
 * pin, tells the remote, and both release it at once, pin after pin, so
 * that every pin is raced for (not only where two sweeps meet, as above).
 * The owner waits before its take for a time it adapts to who won the last
 * one, which keeps the two near the point where either may win.  Every pin
 * must be taken by exactly one of them, the remote getting the pin's own
 * record, and the table must end empty. */
struct pair {
    struct pw_pin_table tab;
    uint32_t n, base;
    _Atomic uint32_t go, done; /* pin number + 1 the owner offered, the remote finished */
    uint64_t owner, remote;   /* pins each took */
    uint64_t owner_lost;      /* takes the owner found taken (the remote's BUSY or TOMB) */
    uint64_t remote_lost;     /* remote looks that found the pin gone */
};

static void
wait_until(_Atomic uint32_t *word, uint32_t value)
{
    for (unsigned spins = 0; atomic_load_explicit(word, memory_order_acquire) != value; spins++) {
        /* More threads than cores: let the other side run. */
        if (spins > 200)
            sched_yield();
        else
            pw_cpu_relax();
    }
}

static void *
pair_remote(void *arg)
{
    struct pair *p = arg;
    for (uint32_t i = 0; i < p->n; i++) {
        wait_until(&p->go, i + 1);
        struct pw_pin_info out;
        if (pw_pin_table_remove_remote(&p->tab, key_of(p->base + i), &out, NULL)) {
            CHECK(out.serial == p->base + i, "the remote's removal of %u gave pin %u", p->base + i, out.serial);
            p->remote++;
        } else {
            p->remote_lost++;
        }
        atomic_store_explicit(&p->done, i + 1, memory_order_release);
    }
    return NULL;
}

static void *
pair_owner(void *arg)
{
    struct pair *p = arg;
    uint32_t delay = 0, rnd = p->base | 1;
    for (uint32_t i = 0; i < p->n; i++) {
        uintptr_t key = key_of(p->base + i);
        struct pw_pin_info in = info_of(p->base + i);
        CHECK(pw_pin_table_insert(&p->tab, key, &in), "insert %u", p->base + i);
        atomic_store_explicit(&p->go, i + 1, memory_order_release);
        rnd ^= rnd << 13, rnd ^= rnd >> 17, rnd ^= rnd << 5;
        for (uint32_t d = delay + rnd % 32; d > 0; d--)
            __asm__ volatile("" ::: "memory");
        bool took = false;
        struct pw_pin_slot *s;
        while ((s = pw_pin_table_slot(&p->tab, key)) != NULL) {
            if (pw_pin_table_take_slot(&p->tab, s, key)) {
                took = true;
                break;
            }
            p->owner_lost++;
        }
        p->owner += took;
        /* Bounded: a remote that was not running (more threads than
         * cores) must not push the owner's wait out of reach. */
        if (took && delay < 4096)
            delay++;
        else if (!took && delay > 0)
            delay--;
        wait_until(&p->done, i + 1);
    }
    return NULL;
}

/* The two threads of a pair on two different processors, when there are
 * two: a pair sharing one only takes turns and never races. */
static void
start_on(pthread_t *th, void *(*fn)(void *), void *arg, const cpu_set_t *cpus, uint32_t nth)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    int n = CPU_COUNT(cpus), seen = 0;
    for (int c = 0; c < CPU_SETSIZE && n >= 2; c++) {
        if (CPU_ISSET(c, cpus) && seen++ == (int)(nth % (uint32_t)n)) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
            break;
        }
    }
    CHECK(pthread_create(th, &attr, fn, arg) == 0, "pthread_create");
    pthread_attr_destroy(&attr);
}

static void
test_pairs(bool barrier, uint32_t npairs, uint32_t pins)
{
    enum { MAX_PAIRS = 16 };
    CHECK(npairs <= MAX_PAIRS, "%u pairs", npairs);
    bool on = pw_pin_table_start(barrier);
    CHECK(on == (barrier && pw_pin_table_asymmetric), "the protocol chosen");
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
        CPU_ZERO(&cpus);
    /* As many pairs at once as there are pairs of processors, the rest
     * after them. */
    uint32_t batch = (uint32_t)CPU_COUNT(&cpus) / 2;
    if (batch == 0)
        batch = 1;
    static struct pair pairs[MAX_PAIRS];
    pthread_t th[2 * MAX_PAIRS];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t first = 0; first < npairs; first += batch) {
        uint32_t end = first + batch < npairs ? first + batch : npairs;
        for (uint32_t k = first; k < end; k++) {
            struct pair *p = &pairs[k];
            memset(p, 0, sizeof(*p));
            CHECK(pw_pin_table_init(&p->tab), "init");
            p->n = pins;
            p->base = k * pins;
            start_on(&th[2 * k], pair_owner, p, &cpus, 2 * (k - first));
            start_on(&th[2 * k + 1], pair_remote, p, &cpus, 2 * (k - first) + 1);
        }
        for (uint32_t k = first; k < end; k++) {
            pthread_join(th[2 * k], NULL);
            pthread_join(th[2 * k + 1], NULL);
        }
    }
    uint64_t owner = 0, remote = 0, owner_lost = 0, remote_lost = 0;
    for (uint32_t k = 0; k < npairs; k++) {
        struct pair *p = &pairs[k];
        CHECK(p->owner + p->remote == p->n,
              "pair %u (%s): the owner took %llu pins and the remote %llu, %llu releases of %u pins", k,
              on ? "barrier" : "compare-and-swap", (unsigned long long)p->owner, (unsigned long long)p->remote,
              (unsigned long long)(p->owner + p->remote), p->n);
        CHECK(tally(&p->tab, 0).pins == 0, "pins left in pair %u's table", k);
        pw_pin_table_free(&p->tab);
        owner += p->owner;
        remote += p->remote;
        owner_lost += p->owner_lost;
        remote_lost += p->remote_lost;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("pin_table pairs (%s): %u pairs x %u pins raced, each taken once: owner %llu, remote %llu; "
           "the owner found the remote's mark %llu times, the remote found the pin gone %llu times; %.1f s\n",
           on ? "barrier, no locked instruction in the owner's take" : "compare-and-swap", npairs, pins,
           (unsigned long long)owner, (unsigned long long)remote, (unsigned long long)owner_lost,
           (unsigned long long)remote_lost, s);
}

int
main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "race") == 0) {
        /* race [PINS]: pins per pair in test_pairs */
        uint32_t pins = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 12500;
        bool barrier = pw_pin_table_start(true);
        printf("pin_table race: the process-wide barrier (membarrier) is %s\n",
               barrier ? "available" : "not available: both runs use the compare-and-swap");
        for (int mode = 0; mode < 2; mode++) {
            (void)pw_pin_table_start(mode == 0);
            lost = 0;
            for (int round = 0; round < 20; round++)
                test_race();
            printf("pin_table race (%s): 20 rounds of 200000 pins, every pin released exactly once; the "
                   "owner's take lost %llu times\n",
                   pw_pin_table_asymmetric ? "barrier" : "compare-and-swap", (unsigned long long)lost);
        }
        test_pairs(true, 8, pins);
        test_pairs(false, 8, pins);
        return 0;
    }
    (void)pw_pin_table_start(true);
    test_markers();
    test_insert_find_take();
    test_multiset();
    test_churn();
    test_visit_removes();
    test_remote();
    (void)pw_pin_table_start(false);
    test_multiset();
    test_remote();
    puts("pin_table: all checks passed");
    return 0;
}
