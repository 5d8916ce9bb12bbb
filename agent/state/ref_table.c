/* SPDX-License-Identifier: Apache-2.0 */
#include "state/ref_table.h"
#include "base/cpu.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SHARDS 64
#define MIN_CAPACITY 128u
/* In a record's site: the reference was deleted (sites stay below 2^16). */
#define DELETED 0x80000000u

struct record {
    uintptr_t handle; /* 0: empty */
    struct pw_ref_info info;
};

/* Padded to a cache line: shards of unrelated handles share nothing. */
struct shard {
    atomic_flag lock;
    uint32_t mask; /* capacity - 1; 0 before the first insert */
    uint32_t used; /* records, tombstones included */
    uint32_t live;
    struct record *slots;
} __attribute__((aligned(64)));

static struct shard shards[SHARDS] = {[0 ... SHARDS - 1] = {.lock = ATOMIC_FLAG_INIT}};

/* HotSpot's handles are 8-byte aligned words in OopStorage blocks with a
 * tag in the low bits: those carry nothing, the rest is mixed. */
static inline uint64_t
mix(uintptr_t handle)
{
    uint64_t h = (uint64_t)(handle >> 3) * PW_HASH_GOLDEN;
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
            pw_cpu_relax();
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

/* Rebuilds the shard without its tombstones, doubling it unless the live
 * records fill less than half of it.  Out of line: inlined, its loops made
 * every insert and remove save and restore registers they never use. */
static __attribute__((noinline)) bool
rebuild(struct shard *s)
{
    uint32_t cap = s->mask == 0 ? MIN_CAPACITY : s->mask + 1;
    if (s->mask != 0 && s->live * 2 >= cap)
        cap *= 2;
    struct record *fresh = calloc(cap, sizeof(*fresh));
    if (fresh == NULL)
        return false;
    if (s->slots != NULL) {
        for (uint32_t i = 0; i <= s->mask; i++)
            if (s->slots[i].handle != 0 && (s->slots[i].info.site & DELETED) == 0)
                place(fresh, cap - 1, mix(s->slots[i].handle), &s->slots[i]);
        free(s->slots);
    }
    s->slots = fresh;
    s->mask = cap - 1;
    s->used = s->live;
    return true;
}

/* The handle's record, or the empty slot that ends its probe; NULL when the
 * shard has no room (memory ran out growing it).  Under the shard's lock. */
static inline struct record *
slot_for(struct shard *s, uintptr_t handle, uint64_t h)
{
    if (s->slots == NULL || (s->used + 1) * 4 > (s->mask + 1) * 3) {
        if (!rebuild(s) && (s->slots == NULL || s->used + 2 > s->mask + 1))
            return NULL;
    }
    for (uint32_t i = (uint32_t)h & s->mask;; i = (i + 1) & s->mask) {
        struct record *r = &s->slots[i];
        if (r->handle == handle || r->handle == 0)
            return r;
    }
}

bool
pw_ref_table_insert(uintptr_t handle, const struct pw_ref_info *info, struct pw_ref_info *old, bool *stored)
{
    uint64_t h = mix(handle);
    struct shard *s = shard_of(h);
    bool replaced = false;
    lock(s);
    struct record *r = slot_for(s, handle, h);
    *stored = r != NULL;
    if (r != NULL) {
        if (r->handle == 0) {
            r->handle = handle;
            s->used++;
            s->live++;
        } else if ((r->info.site & DELETED) != 0) {
            s->live++;
        } else {
            *old = r->info;
            replaced = true;
        }
        r->info = *info;
    }
    unlock(s);
    return replaced;
}

enum pw_ref_removal
pw_ref_table_remove(uintptr_t handle, struct pw_ref_info *out)
{
    uint64_t h = mix(handle);
    struct shard *s = shard_of(h);
    enum pw_ref_removal result = PW_REF_UNKNOWN;
    lock(s);
    struct record *r = slot_for(s, handle, h);
    if (r != NULL && r->handle == handle) {
        *out = r->info;
        out->site &= ~DELETED;
        if ((r->info.site & DELETED) != 0) {
            result = PW_REF_DELETED;
        } else {
            result = PW_REF_REMOVED;
            r->info.site |= DELETED;
            s->live--;
        }
    } else if (r != NULL) {
        /* Never seen: remembered, so that a second delete is known. */
        r->handle = handle;
        r->info = (struct pw_ref_info){.site = DELETED};
        s->used++;
    }
    unlock(s);
    return result;
}

void
pw_ref_table_visit(void (*fn)(uintptr_t handle, const struct pw_ref_info *info, void *arg), void *arg)
{
    for (int k = 0; k < SHARDS; k++) {
        struct shard *s = &shards[k];
        lock(s);
        for (uint32_t i = 0; s->slots != NULL && i <= s->mask; i++)
            if (s->slots[i].handle != 0 && (s->slots[i].info.site & DELETED) == 0)
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
