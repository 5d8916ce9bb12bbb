/* SPDX-License-Identifier: Apache-2.0 */
/* The reference tables, as the agent built them: the shared table of
 * global and weak references (agent/state/ref_table.c) and a natively
 * attached thread's table of locals (agent/state/local_table.c).  A
 * delete finds what was made, on any thread; a second delete of a handle
 * is known as one; a handle the JVM hands out again is live again; a
 * locals table removes exactly the locals of a popped frame. */
#include "state/local_table.h"
#include "state/ref_table.h"
#include "unit_check.h"

#include <pthread.h>
#include <string.h>

#define N 20000

static uintptr_t
handle_of(uintptr_t base, uint32_t i)
{
    return unit_key(base, i);
}

struct tally {
    uintptr_t base, end;
    uint64_t live, site_sum;
};

static void
count_ref(uintptr_t handle, const struct pw_ref_info *info, void *arg)
{
    struct tally *t = arg;
    if (handle < t->base || handle >= t->end)
        return; /* another test's */
    t->live++;
    t->site_sum += info->site;
}

static struct tally
tally_refs(uintptr_t base)
{
    struct tally t = {.base = base, .end = base + ((uintptr_t)1 << 36)};
    pw_ref_table_visit(count_ref, &t);
    return t;
}

static void
made_and_deleted(void)
{
    const uintptr_t base = (uintptr_t)0x100000000000ull;
    uint64_t sites = 0;
    for (uint32_t i = 0; i < N; i++) {
        struct pw_ref_info info = {.site = 1 + i % 977, .t_ms = i}, old;
        bool stored = false;
        CHECK(!pw_ref_table_insert(handle_of(base, i), &info, &old, &stored), "handle %u replaced a record", i);
        CHECK(stored, "handle %u not stored", i);
        sites += info.site;
    }
    struct tally t = tally_refs(base);
    CHECK(t.live == N && t.site_sum == sites, "%llu live after %d made", (unsigned long long)t.live, N);
    CHECK(pw_ref_table_memory() >= N * 16, "%zu bytes for %d records", pw_ref_table_memory(), N);

    /* Delete every other one: removed, with the site it was made at. */
    for (uint32_t i = 0; i < N; i += 2) {
        struct pw_ref_info out;
        CHECK(pw_ref_table_remove(handle_of(base, i), &out) == PW_REF_REMOVED, "handle %u not removed", i);
        CHECK(out.site == 1 + i % 977 && out.t_ms == i, "handle %u: site %u, t %u", i, out.site, out.t_ms);
    }
    CHECK(tally_refs(base).live == N / 2, "%llu live after deleting half",
          (unsigned long long)tally_refs(base).live);

    /* A second delete names the site of the first. */
    for (uint32_t i = 0; i < N; i += 2) {
        struct pw_ref_info out;
        CHECK(pw_ref_table_remove(handle_of(base, i), &out) == PW_REF_DELETED, "handle %u: no double delete", i);
        CHECK(out.site == 1 + i % 977, "double delete of handle %u names site %u", i, out.site);
    }

    /* The JVM hands a deleted handle out again: live, nothing replaced. */
    for (uint32_t i = 0; i < N; i += 4) {
        struct pw_ref_info info = {.site = 5000, .t_ms = 1}, old;
        bool stored = false;
        CHECK(!pw_ref_table_insert(handle_of(base, i), &info, &old, &stored) && stored,
              "handle %u made again replaced a record", i);
    }
    CHECK(tally_refs(base).live == N / 2 + N / 4, "%llu live after making a quarter again",
          (unsigned long long)tally_refs(base).live);

    /* A live handle handed out again was deleted behind our back: the old
     * record comes back. */
    struct pw_ref_info info = {.site = 6000}, old = {0};
    bool stored = false;
    CHECK(pw_ref_table_insert(handle_of(base, 1), &info, &old, &stored) && stored, "a live handle made again");
    CHECK(old.site == 1 + 1 % 977, "the replaced record has site %u", old.site);

    /* A handle never seen: unknown, then known as deleted. */
    uintptr_t stranger = handle_of(base, N + 1);
    struct pw_ref_info out;
    CHECK(pw_ref_table_remove(stranger, &out) == PW_REF_UNKNOWN, "a stranger's delete is not unknown");
    CHECK(pw_ref_table_remove(stranger, &out) == PW_REF_DELETED && out.site == 0,
          "a stranger's second delete is not a double delete of no site");
}

/* References made on one thread and deleted on another, both at once:
 * every one deleted exactly once. */
#define PER_THREAD 50000
static const uintptr_t race_base = (uintptr_t)0x200000000000ull;
static _Atomic uint32_t made_up_to;

static void *
maker(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < PER_THREAD; i++) {
        struct pw_ref_info info = {.site = 7}, old;
        bool stored;
        CHECK(!pw_ref_table_insert(handle_of(race_base, i), &info, &old, &stored) && stored, "handle %u", i);
        atomic_store_explicit(&made_up_to, i + 1, memory_order_release);
    }
    return NULL;
}

static void *
deleter(void *arg)
{
    uint64_t *removed = arg;
    for (uint32_t i = 0; i < PER_THREAD;) {
        if (i >= atomic_load_explicit(&made_up_to, memory_order_acquire))
            continue;
        struct pw_ref_info out;
        *removed += pw_ref_table_remove(handle_of(race_base, i), &out) == PW_REF_REMOVED;
        i++;
    }
    return NULL;
}

static void
across_threads(void)
{
    pthread_t a, b;
    uint64_t removed = 0;
    CHECK(pthread_create(&a, NULL, maker, NULL) == 0 && pthread_create(&b, NULL, deleter, &removed) == 0,
          "pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(removed == PER_THREAD, "%llu of %d removed", (unsigned long long)removed, PER_THREAD);
    CHECK(tally_refs(race_base).live == 0, "%llu left live", (unsigned long long)tally_refs(race_base).live);
}

/* --- a thread's locals ------------------------------------------------- */

struct local_tally {
    uint64_t live;
    uint32_t drop_depth; /* remove the locals made at this depth; 0: none */
    bool all;            /* remove every one */
};

static bool
count_local(uintptr_t handle, const struct pw_local_info *info, void *arg)
{
    (void)handle;
    struct local_tally *t = arg;
    t->live++;
    return t->all || (t->drop_depth != 0 && info->depth == t->drop_depth);
}

static uint64_t
visit_locals(struct pw_local_table *tab, uint32_t drop_depth, bool all)
{
    struct local_tally t = {.drop_depth = drop_depth, .all = all};
    pw_local_table_visit(tab, count_local, &t);
    return t.live;
}

static void
locals(void)
{
    const uintptr_t base = (uintptr_t)0x300000000000ull;
    struct pw_local_table tab = {0};
    CHECK(visit_locals(&tab, 0, false) == 0 && pw_local_table_memory(&tab) == 0, "an empty table is not empty");
    struct pw_local_info out;
    CHECK(!pw_local_table_take(&tab, handle_of(base, 0), &out), "an empty table took a local");

    /* Made at frame depths 0, 1, 2, 3 in turn. */
    for (uint32_t i = 0; i < N; i++) {
        struct pw_local_info info = {.site = 1 + i % 31, .depth = i % 4, .t_ms = i};
        CHECK(pw_local_table_insert(&tab, handle_of(base, i), &info), "local %u not stored", i);
    }
    CHECK(visit_locals(&tab, 0, false) == N, "%d locals made, %llu kept", N,
          (unsigned long long)visit_locals(&tab, 0, false));
    CHECK(pw_local_table_memory(&tab) >= (size_t)N * 4 / 3 * sizeof(struct pw_local_slot), "%zu bytes",
          pw_local_table_memory(&tab));

    /* DeleteLocalRef of a third of them. */
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < N; i += 3) {
        CHECK(pw_local_table_take(&tab, handle_of(base, i), &out), "local %u not found", i);
        CHECK(out.site == 1 + i % 31 && out.depth == i % 4 && out.t_ms == i, "local %u: site %u depth %u", i,
              out.site, out.depth);
        CHECK(!pw_local_table_take(&tab, handle_of(base, i), &out), "local %u taken twice", i);
        deleted++;
    }
    CHECK(visit_locals(&tab, 0, false) == N - deleted, "%llu left after deleting %llu",
          (unsigned long long)visit_locals(&tab, 0, false), (unsigned long long)deleted);

    /* PopLocalFrame at depth 3: exactly the locals made there go. */
    uint64_t at3 = 0;
    for (uint32_t i = 0; i < N; i++)
        at3 += i % 3 != 0 && i % 4 == 3;
    visit_locals(&tab, 3, false);
    CHECK(visit_locals(&tab, 0, false) == N - deleted - at3, "%llu left after popping depth 3 (%llu there)",
          (unsigned long long)visit_locals(&tab, 0, false), (unsigned long long)at3);
    CHECK(!pw_local_table_take(&tab, handle_of(base, 3), &out), "a popped local is still there");
    CHECK(pw_local_table_take(&tab, handle_of(base, 1), &out) && out.depth == 1, "a local at depth 1 is gone");

    /* Removed slots are reused, not piled up: made and deleted over and
     * over, the table does not grow. */
    size_t bytes = pw_local_table_memory(&tab);
    for (uint32_t round = 0; round < 50; round++) {
        for (uint32_t i = 0; i < 1000; i++) {
            struct pw_local_info info = {.site = 9, .depth = 7};
            CHECK(pw_local_table_insert(&tab, handle_of(base, N + 10 + i), &info), "round %u", round);
        }
        for (uint32_t i = 0; i < 1000; i++)
            CHECK(pw_local_table_take(&tab, handle_of(base, N + 10 + i), &out), "round %u, local %u", round, i);
    }
    CHECK(pw_local_table_memory(&tab) == bytes, "%zu bytes after churn, %zu before", pw_local_table_memory(&tab),
          bytes);

    /* Detach: everything goes. */
    visit_locals(&tab, 0, true);
    CHECK(visit_locals(&tab, 0, false) == 0, "locals left after detach");
    pw_local_table_free(&tab);
    CHECK(pw_local_table_memory(&tab) == 0, "memory after free");
}

int
main(void)
{
    made_and_deleted();
    across_threads();
    locals();
    printf("ref tables: OK\n");
    return 0;
}
