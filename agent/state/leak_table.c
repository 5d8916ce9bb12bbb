/* SPDX-License-Identifier: Apache-2.0 */
#include "state/leak_table.h"
#include "base/memory.h"
#include "state/site_table.h"

#include <pthread.h>
#include <stdlib.h>

#define SHARD_BITS 6
#define SHARDS (1 << SHARD_BITS)
#define MIN_CAPACITY 64

/* 20 bytes a pin, this table's whole cost: the size and the site share one
 * word (40 + 24 bits), and a leaked pin needs no invocation serial.  x86
 * and aarch64 read the unaligned words at full speed (all of it under the
 * shard's lock: no ordering question). */
struct __attribute__((packed)) leak_slot {
    uintptr_t key;
    uint64_t size_site;
    uint32_t t_ms;
};
_Static_assert(sizeof(struct leak_slot) == 20, "a leaked pin costs 20 bytes");

#define SIZE_BITS 40
#define SITE_MASK ((1ull << (64 - SIZE_BITS)) - 1)

struct shard {
    pthread_mutex_t lock;
    struct leak_slot *slots;
    size_t capacity;
    size_t count;
} __attribute__((aligned(64)));

static struct shard shards[SHARDS] = {[0 ... SHARDS - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};

static inline uint64_t
hash_key(uintptr_t key)
{
    uint64_t h = (uint64_t)key * PW_HASH_GOLDEN;
    return h ^ (h >> 29);
}

static inline struct shard *
shard_of(uint64_t h)
{
    return &shards[PW_HASH_TOP(h, SHARD_BITS)];
}

/* Capacity need not be a power of two.  A shard grows by a quarter when it
 * is 85 % full, so its load stays between 0.68 and 0.85; and the shards
 * start at staggered capacities (staggered()), so that they do not all
 * grow at one count and the table's load as a whole stays near the middle
 * of that range instead of swinging with them: 23-29 bytes a pin of 20-byte
 * slots, at any count.  Growing by 1.6, in step, a million leaks had just
 * grown every shard and took 36.7 bytes a pin.  The price is more moves:
 * about 5 per pin over its life instead of 2.7, at leak time only, under
 * one shard's lock.  The bits below the shard's own are scaled onto
 * [0, capacity) (Lemire's multiply-shift range reduction). */
static inline size_t
home(size_t capacity, uint64_t h)
{
    return (size_t)(((unsigned __int128)(h << SHARD_BITS) * capacity) >> 64);
}

static void
put(struct leak_slot *slots, size_t capacity, const struct leak_slot *in, uint64_t h)
{
    size_t i = home(capacity, h);
    while (slots[i].key != PW_KEY_EMPTY)
        i = i + 1 == capacity ? 0 : i + 1;
    slots[i] = *in;
}

/* Shard n's first capacity: MIN_CAPACITY grown by n/SHARDS of one step. */
static size_t
staggered(const struct shard *s)
{
    size_t n = (size_t)(s - shards);
    return MIN_CAPACITY + MIN_CAPACITY * n / (SHARDS * 4);
}

static bool
grow(struct shard *s)
{
    size_t capacity = s->capacity == 0 ? staggered(s) : s->capacity + s->capacity / 4;
    struct leak_slot *fresh = pw_table_alloc(capacity * sizeof(*fresh));
    if (fresh == NULL)
        return false;
    for (size_t i = 0; i < s->capacity; i++)
        if (s->slots[i].key != PW_KEY_EMPTY)
            put(fresh, capacity, &s->slots[i], hash_key(s->slots[i].key));
    pw_table_free(s->slots, s->capacity * sizeof(*s->slots));
    s->slots = fresh;
    s->capacity = capacity;
    return true;
}

static struct leak_slot
pack(uintptr_t key, const struct pw_pin_info *info)
{
    uint64_t size = info->size < (1ull << SIZE_BITS) ? info->size : (1ull << SIZE_BITS) - 1;
    return (struct leak_slot){
        .key = key,
        .size_site = size | ((uint64_t)info->site << SIZE_BITS),
        .t_ms = info->t_ms,
    };
}

static void
unpack(const struct leak_slot *slot, struct pw_pin_info *out)
{
    out->size = slot->size_site & ((1ull << SIZE_BITS) - 1);
    out->site = (uint32_t)((slot->size_site >> SIZE_BITS) & SITE_MASK);
    out->t_ms = slot->t_ms;
    out->serial = 0;
    out->ref = NULL;
    /* Not stored (24 bytes a pin): the site knows them. */
    const struct pw_site *site = pw_site_get(out->site);
    out->fn = (uint16_t)site->fn;
    out->suppressed = site->suppressed;
}

bool
pw_leak_table_insert(uintptr_t key, const struct pw_pin_info *info)
{
    uint64_t h = hash_key(key);
    struct shard *s = shard_of(h);
    struct leak_slot slot = pack(key, info);
    bool ok = true;
    pthread_mutex_lock(&s->lock);
    if ((s->count + 1) * 20 > s->capacity * 17)
        ok = grow(s);
    if (ok) {
        put(s->slots, s->capacity, &slot, h);
        s->count++;
    }
    pthread_mutex_unlock(&s->lock);
    return ok;
}

/* Linear probing with backward-shift deletion: no tombstones, so a table
 * that saw many leaks released stays as fast as a fresh one. */
static void
delete_at(struct shard *s, size_t i)
{
    size_t j = i;
    for (;;) {
        j = j + 1 == s->capacity ? 0 : j + 1;
        if (s->slots[j].key == PW_KEY_EMPTY)
            break;
        size_t k = home(s->capacity, hash_key(s->slots[j].key));
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        s->slots[i] = s->slots[j];
        i = j;
    }
    s->slots[i].key = PW_KEY_EMPTY;
    s->count--;
}

static bool
lookup(uintptr_t key, struct pw_pin_info *out, bool remove, struct pw_recent_release *note)
{
    uint64_t h = hash_key(key);
    struct shard *s = shard_of(h);
    bool found = false;
    pthread_mutex_lock(&s->lock);
    if (s->count > 0) {
        for (size_t i = home(s->capacity, h);; i = i + 1 == s->capacity ? 0 : i + 1) {
            if (s->slots[i].key == PW_KEY_EMPTY)
                break;
            if (s->slots[i].key == key) {
                struct pw_pin_info info;
                unpack(&s->slots[i], &info);
                if (out != NULL)
                    *out = info;
                if (remove) {
                    delete_at(s, i);
                    if (note != NULL)
                        *note = (struct pw_recent_release){.ptr = key, .site = info.site};
                }
                found = true;
                break;
            }
        }
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

bool
pw_leak_table_remove(uintptr_t key, struct pw_pin_info *out, struct pw_recent_release *note)
{
    return lookup(key, out, true, note);
}

bool
pw_leak_table_find(uintptr_t key, struct pw_pin_info *out)
{
    return lookup(key, out, false, NULL);
}

void
pw_leak_table_visit(pw_pin_visit_fn fn, void *arg)
{
    for (int n = 0; n < SHARDS; n++) {
        struct shard *s = &shards[n];
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < s->capacity; i++) {
            struct pw_pin_info info;
            if (s->slots[i].key == PW_KEY_EMPTY)
                continue;
            unpack(&s->slots[i], &info);
            (void)fn(s->slots[i].key, &info, arg);
        }
        pthread_mutex_unlock(&s->lock);
    }
}

size_t
pw_leak_table_memory(void)
{
    size_t bytes = 0;
    for (int n = 0; n < SHARDS; n++) {
        pthread_mutex_lock(&shards[n].lock);
        bytes += shards[n].capacity * sizeof(struct leak_slot);
        pthread_mutex_unlock(&shards[n].lock);
    }
    return bytes;
}
