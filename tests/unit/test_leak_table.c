/* SPDX-License-Identifier: Apache-2.0 */
/* The leak table (agent/state/leak_table.c), as the agent built it: pins
 * packed into 20 bytes with their real sites, found and removed again after
 * backward-shift deletions, exact counts from many threads, and a memory
 * figure that matches its load factor. */
#include "state/leak_table.h"
#include "state/methods.h"
#include "state/site_table.h"
#include "unit_check.h"

#include <pthread.h>

#define SLOT_BYTES 20 /* leak_table.c's packed slot */

static uint32_t sites[8];

static uintptr_t
key_of(uint32_t i)
{
    return unit_key((uintptr_t)0x7e0000000000ull, i);
}

static struct pw_pin_info
info_of(uint32_t i)
{
    return (struct pw_pin_info){.size = (uint64_t)i * 5 + 3, .site = sites[i % 8], .serial = 99, .t_ms = i * 11,
                                .ref = (jobject)(uintptr_t)0x1234};
}

struct tally {
    uint64_t pins, bytes;
};

static bool
count_pin(uintptr_t key, const struct pw_pin_info *info, void *arg)
{
    struct tally *t = arg;
    CHECK(PW_KEY_IS_PIN(key), "visit handed out marker %#lx", (unsigned long)key);
    t->pins++;
    t->bytes += info->size;
    return true; /* ignored: a leak visit removes nothing */
}

static struct tally
tally(void)
{
    struct tally t = {0};
    pw_leak_table_visit(count_pin, &t);
    return t;
}

static void
check_found(uint32_t i, const struct pw_pin_info *out)
{
    struct pw_pin_info want = info_of(i);
    const struct pw_site *s = pw_site_get(want.site);
    CHECK(out->size == want.size && out->site == want.site && out->t_ms == want.t_ms, "pin %u: size %llu site %u",
          i, (unsigned long long)out->size, out->site);
    /* Not stored: a leak has no invocation, no valid reference; fn and
     * suppression come from the site. */
    CHECK(out->serial == 0 && out->ref == NULL, "pin %u: serial %u, ref %p", i, out->serial, (void *)out->ref);
    CHECK(out->fn == s->fn && out->suppressed == s->suppressed, "pin %u: fn %u, site's %u", i, out->fn, s->fn);
}

static void
test_basic(void)
{
    enum { N = 100000 };
    CHECK(pw_leak_table_memory() == 0, "memory before any leak: %zu", pw_leak_table_memory());
    struct pw_pin_info out;
    CHECK(!pw_leak_table_find(key_of(0), &out) && !pw_leak_table_remove(key_of(0), &out, NULL), "an empty table found");
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < N; i++) {
        struct pw_pin_info in = info_of(i);
        CHECK(pw_leak_table_insert(key_of(i), &in), "insert %u", i);
        bytes += in.size;
    }
    struct tally t = tally();
    CHECK(t.pins == N && t.bytes == bytes, "%llu pins, %llu bytes after %d inserts", (unsigned long long)t.pins,
          (unsigned long long)t.bytes, N);
    /* At most 17/20 full, at least 17/20 / 1.6 after growing; 64 shards
     * of at least 64 slots. */
    size_t mem = pw_leak_table_memory();
    CHECK(mem % SLOT_BYTES == 0 && mem * 17 >= (size_t)N * SLOT_BYTES * 20 &&
              mem <= (size_t)N * SLOT_BYTES * 2 + 64 * 64 * SLOT_BYTES,
          "memory %zu for %d leaks (%zu bytes a leak)", mem, N, mem / N);
    for (uint32_t i = 0; i < N; i++) {
        CHECK(pw_leak_table_find(key_of(i), &out), "find %u", i);
        check_found(i, &out);
    }
    /* Remove two in three: backward shifts must keep every other pin
     * reachable from its home. */
    for (uint32_t i = 0; i < N; i++) {
        if (i % 3 == 0)
            continue;
        CHECK(pw_leak_table_remove(key_of(i), &out, NULL), "remove %u", i);
        check_found(i, &out);
        CHECK(!pw_leak_table_find(key_of(i), &out), "%u found after its removal", i);
        bytes -= info_of(i).size;
    }
    for (uint32_t i = 0; i < N; i += 3) {
        CHECK(pw_leak_table_find(key_of(i), &out), "%u lost by the removal of its neighbours", i);
        check_found(i, &out);
    }
    t = tally();
    CHECK(t.pins == (N + 2) / 3 && t.bytes == bytes, "%llu pins, %llu bytes after removals (expected %d, %llu)",
          (unsigned long long)t.pins, (unsigned long long)t.bytes, (N + 2) / 3, (unsigned long long)bytes);
    CHECK(pw_leak_table_memory() == mem, "the table shrank or grew on removal");
    for (uint32_t i = 0; i < N; i += 3)
        CHECK(pw_leak_table_remove(key_of(i), &out, NULL), "remove %u", i);
    CHECK(tally().pins == 0, "leaks left");
}

/* The size shares a word with the site: 40 bits, saturated. */
static void
test_packing(void)
{
    struct pw_pin_info in = info_of(3), out;
    in.size = UINT64_C(1) << 45;
    CHECK(pw_leak_table_insert(key_of(1u << 30), &in), "insert");
    CHECK(pw_leak_table_remove(key_of(1u << 30), &out, NULL), "remove");
    CHECK(out.size == (UINT64_C(1) << 40) - 1 && out.site == in.site, "size %llu site %u",
          (unsigned long long)out.size, out.site);
    /* One address leaked twice (a buffer handed out again and leaked again). */
    in = info_of(4);
    CHECK(pw_leak_table_insert(key_of(5), &in) && pw_leak_table_insert(key_of(5), &in), "insert twice");
    CHECK(pw_leak_table_remove(key_of(5), &out, NULL) && pw_leak_table_remove(key_of(5), &out, NULL), "remove twice");
    CHECK(!pw_leak_table_remove(key_of(5), &out, NULL), "removed a third time");
}

enum { THREADS = 4, PER_THREAD = 50000 };

static void *
worker(void *arg)
{
    uint32_t base = (uint32_t)(uintptr_t)arg * PER_THREAD + 1000000;
    struct pw_pin_info out;
    for (uint32_t i = 0; i < PER_THREAD; i++) {
        struct pw_pin_info in = info_of(base + i);
        CHECK(pw_leak_table_insert(key_of(base + i), &in), "insert %u", base + i);
        /* Release every other one at once, late releases of leaks. */
        if (i % 2 == 1)
            CHECK(pw_leak_table_remove(key_of(base + i - 1), &out, NULL) && out.size == info_of(base + i - 1).size,
                  "remove %u", base + i - 1);
    }
    return NULL;
}

static void
test_threads(void)
{
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0, "pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    uint64_t bytes = 0;
    for (uint32_t t = 0; t < THREADS; t++)
        for (uint32_t i = 1; i < PER_THREAD; i += 2)
            bytes += info_of(t * PER_THREAD + 1000000 + i).size;
    struct tally t = tally();
    CHECK(t.pins == THREADS * PER_THREAD / 2 && t.bytes == bytes, "%llu pins, %llu bytes from %d threads",
          (unsigned long long)t.pins, (unsigned long long)t.bytes, THREADS);
}

int
main(void)
{
    /* Real sites, so that a leak's function and suppression come from the
     * site table as in the agent. */
    for (uint32_t i = 0; i < 8; i++) {
        sites[i] = pw_site_intern(&pw_method_native_thread, PW_KIND_PIN, i % PW_FN_COUNT, (void *)(uintptr_t)(0x401000 + i * 64));
        CHECK(sites[i] != PW_SITE_OVERFLOW && pw_site_get(sites[i])->fn == i % PW_FN_COUNT, "site %u", i);
    }
    test_basic();
    test_packing();
    test_threads();
    puts("leak_table: all checks passed");
    return 0;
}
