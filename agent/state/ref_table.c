#include "ref_table.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SHARDS 64
#define MIN_CAPACITY 64u

struct record {
    uintptr_t handle; /* 0: empty */
    struct pw_ref_info info;
};

/* Padded to a cache line: shards of unrelated handles share nothing. */
struct shard {
    atomic_flag lock;
    uint32_t mask; /* capacity - 1; 0 before the first insert */
    uint32_t used;
    struct record *slots;
} __attribute__((aligned(64)));

static struct shard shards[SHARDS] = {[0 ... SHARDS - 1] = {.lock = ATOMIC_FLAG_INIT}};

/* HotSpot's handles are 8-byte aligned words in OopStorage blocks with a
 * tag in the low bits: those carry nothing, the rest is mixed. */
static inline uint64_t
mix(uintptr_t handle)
{
    uint64_t h = (uint64_t)(handle >> 3) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

static inline struct shard *
shard_of(uint64_t h)
{
    return &shards[h >> 58];
}

static void
lock(struct shard *s)
{
    unsigned spins = 0;
    while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire)) {
        /* A holder that is growing the shard may keep it for milliseconds. */
        if (++spins > 64) {
            sched_yield();
            spins = 0;
        } else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ volatile("yield");
#endif
        }
    }
}

static void
unlock(struct shard *s)
{
    atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

static void
place(struct record *slots, uint32_t mask, uint64_t h, const struct record *r)
{
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        if (slots[i].handle == 0) {
            slots[i] = *r;
            return;
        }
    }
}

static bool
grow(struct shard *s)
{
    uint32_t cap = s->mask == 0 ? MIN_CAPACITY : (s->mask + 1) * 2;
    struct record *fresh = calloc(cap, sizeof(*fresh));
    if (fresh == NULL)
        return false;
    if (s->slots != NULL) {
        for (uint32_t i = 0; i <= s->mask; i++)
            if (s->slots[i].handle != 0)
                place(fresh, cap - 1, mix(s->slots[i].handle), &s->slots[i]);
        free(s->slots);
    }
    s->slots = fresh;
    s->mask = cap - 1;
    return true;
}

bool
pw_ref_table_insert(uintptr_t handle, const struct pw_ref_info *info, struct pw_ref_info *old, bool *stored)
{
    uint64_t h = mix(handle);
    struct shard *s = shard_of(h);
    bool replaced = false;
    *stored = true;
    lock(s);
    if (s->slots == NULL || (s->used + 1) * 4 > (s->mask + 1) * 3) {
        if (!grow(s) && s->slots == NULL) {
            unlock(s);
            *stored = false;
            return false;
        }
    }
    for (uint32_t i = (uint32_t)h & s->mask;; i = (i + 1) & s->mask) {
        struct record *r = &s->slots[i];
        if (r->handle == handle) {
            *old = r->info;
            r->info = *info;
            replaced = true;
            break;
        }
        if (r->handle == 0) {
            /* Full but for this one slot: better untracked than a table
             * with no empty slot to end a probe. */
            if ((s->used + 2) > s->mask + 1) {
                *stored = false;
                break;
            }
            r->handle = handle;
            r->info = *info;
            s->used++;
            break;
        }
    }
    unlock(s);
    return replaced;
}

bool
pw_ref_table_remove(uintptr_t handle, struct pw_ref_info *out)
{
    uint64_t h = mix(handle);
    struct shard *s = shard_of(h);
    bool found = false;
    lock(s);
    if (s->slots == NULL) {
        unlock(s);
        return false;
    }
    uint32_t mask = s->mask, i = (uint32_t)h & mask;
    for (;; i = (i + 1) & mask) {
        if (s->slots[i].handle == 0)
            break;
        if (s->slots[i].handle == handle) {
            found = true;
            break;
        }
    }
    if (found) {
        *out = s->slots[i].info;
        /* Backward-shift deletion: no tombstones, probes stay short under
         * a churn of makes and deletes. */
        uint32_t hole = i;
        for (uint32_t j = (i + 1) & mask; s->slots[j].handle != 0; j = (j + 1) & mask) {
            uint32_t home = (uint32_t)mix(s->slots[j].handle) & mask;
            /* Moves into the hole unless its home lies in (hole, j]. */
            bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!stays) {
                s->slots[hole] = s->slots[j];
                hole = j;
            }
        }
        s->slots[hole].handle = 0;
        s->used--;
    }
    unlock(s);
    return found;
}

void
pw_ref_table_visit(void (*fn)(uintptr_t handle, const struct pw_ref_info *info, void *arg), void *arg)
{
    for (int k = 0; k < SHARDS; k++) {
        struct shard *s = &shards[k];
        lock(s);
        for (uint32_t i = 0; s->slots != NULL && i <= s->mask; i++)
            if (s->slots[i].handle != 0)
                fn(s->slots[i].handle, &s->slots[i].info, arg);
        unlock(s);
    }
}

size_t
pw_ref_table_memory(void)
{
    size_t bytes = 0;
    for (int k = 0; k < SHARDS; k++) {
        struct shard *s = &shards[k];
        lock(s);
        bytes += s->slots != NULL ? (size_t)(s->mask + 1) * sizeof(struct record) : 0;
        unlock(s);
    }
    return bytes;
}
