/* SPDX-License-Identifier: Apache-2.0 */
#include "state/pin_table.h"
#include "base/cpu.h"
#include "base/memory.h"

#include <stdlib.h>

#define INITIAL_BITS 4

struct pw_pin_slot pw_pin_no_slot; /* key PW_KEY_EMPTY, never written */

static inline uint32_t
slot_of(const struct pw_pin_table *tab, uintptr_t key)
{
    return pw_pin_table_slot_of(tab, key);
}

void
pw_pin_table_lock(struct pw_pin_table *tab)
{
    while (atomic_flag_test_and_set_explicit(&tab->lock, memory_order_acquire))
        pw_cpu_relax();
}

void
pw_pin_table_unlock(struct pw_pin_table *tab)
{
    atomic_flag_clear_explicit(&tab->lock, memory_order_release);
}

/* Empty slots an insert may claim in a table of mask + 1 slots holding
 * used pins and tombstones: up to a load of 3/4. */
static uint32_t
room_of(uint32_t mask, uint32_t used)
{
    uint32_t most = (mask + 1) / 4 * 3;
    return used < most ? most - used : 0;
}

static struct pw_pin_slot *
alloc_slots(uint32_t bits)
{
    return pw_table_alloc(((size_t)1 << bits) * sizeof(struct pw_pin_slot));
}

static void
free_slots(struct pw_pin_slot *slots, uint32_t mask)
{
    pw_table_free(slots, ((size_t)mask + 1) * sizeof(struct pw_pin_slot));
}

bool
pw_pin_table_init(struct pw_pin_table *tab)
{
    atomic_flag_clear(&tab->lock);
    tab->last = &pw_pin_no_slot;
    tab->slots = alloc_slots(INITIAL_BITS);
    if (tab->slots == NULL)
        return false;
    tab->shift = 64 - INITIAL_BITS;
    tab->mask = (1u << INITIAL_BITS) - 1;
    tab->room = room_of(tab->mask, 0);
    return true;
}

void
pw_pin_table_free(struct pw_pin_table *tab)
{
    free_slots(tab->slots, tab->mask);
    tab->slots = NULL;
    tab->last = &pw_pin_no_slot;
}

/* Rebuilds the table without tombstones, doubling it when pins fill more
 * than half.  Taken under the lock so that no other thread is inside. */
static bool
rehash(struct pw_pin_table *tab)
{
    uint32_t cap = tab->mask + 1, live = 0;
    for (uint32_t i = 0; i < cap; i++)
        live += PW_KEY_IS_PIN(atomic_load_explicit(&tab->slots[i].key, memory_order_relaxed));
    uint32_t bits = 64 - tab->shift;
    while (live * 2 >= (1u << bits))
        bits++;
    if (bits >= 31)
        return false;
    struct pw_pin_slot *fresh = alloc_slots(bits);
    if (fresh == NULL)
        return false;
    struct pw_pin_table next = {.slots = fresh, .shift = 64 - bits, .mask = (1u << bits) - 1};
    for (uint32_t i = 0; i < cap; i++) {
        uintptr_t key = atomic_load_explicit(&tab->slots[i].key, memory_order_relaxed);
        if (!PW_KEY_IS_PIN(key))
            continue;
        uint32_t j = slot_of(&next, key);
        while (atomic_load_explicit(&fresh[j].key, memory_order_relaxed) != PW_KEY_EMPTY)
            j = (j + 1) & next.mask;
        fresh[j].info = tab->slots[i].info;
        atomic_store_explicit(&fresh[j].key, key, memory_order_relaxed);
    }
    struct pw_pin_slot *old = tab->slots;
    uint32_t old_mask = tab->mask;
    tab->slots = fresh;
    tab->shift = next.shift;
    tab->mask = next.mask;
    tab->room = room_of(next.mask, live);
    tab->last = &pw_pin_no_slot;
    free_slots(old, old_mask);
    return true;
}

bool
pw_pin_table_make_room(struct pw_pin_table *tab)
{
    pw_pin_table_lock(tab);
    bool ok = rehash(tab);
    pw_pin_table_unlock(tab);
    return ok;
}

/* Removal protocol.  The owner removes with one compare-and-swap, key ->
 * TOMB.  Another thread removes in two steps, key -> BUSY -> TOMB, both by
 * compare-and-swap, reading the fields in between; if the owner's swap lands
 * between them (both released the same pin at once) the second one fails and
 * the other thread backs off, and if the other thread's first swap lands
 * before the owner's, the owner's fails.  So a pin is never removed twice.
 * The owner reuses a slot only once it reads TOMB. */

static bool
take_remote(struct pw_pin_slot *s, uintptr_t key, struct pw_pin_info *out)
{
    uintptr_t expected = key;
    if (!atomic_compare_exchange_strong_explicit(&s->key, &expected, PW_KEY_BUSY, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return false;
    struct pw_pin_info info = s->info;
    expected = PW_KEY_BUSY;
    if (!atomic_compare_exchange_strong_explicit(&s->key, &expected, PW_KEY_TOMB, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return false;
    if (out != NULL)
        *out = info;
    return true;
}

const struct pw_pin_slot *
pw_pin_table_take(struct pw_pin_table *tab, uintptr_t key)
{
    struct pw_pin_slot *s;
    /* A slot another thread took meanwhile now reads BUSY or TOMB: the next
     * look finds the next pin with this key, if there is one. */
    while ((s = pw_pin_table_slot(tab, key)) != NULL && !pw_pin_table_take_slot(s, key))
        ;
    return s;
}

bool
pw_pin_table_find(struct pw_pin_table *tab, uintptr_t key, struct pw_pin_info *out)
{
    uint32_t i = slot_of(tab, key);
    for (;;) {
        struct pw_pin_slot *s = &tab->slots[i];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == PW_KEY_EMPTY)
            return false;
        if (k == key) {
            *out = s->info;
            return true;
        }
        i = (i + 1) & tab->mask;
    }
}

static bool
remove_locked(struct pw_pin_table *tab, uintptr_t key, struct pw_pin_info *out)
{
    if (tab->slots == NULL)
        return false;
    uint32_t i = slot_of(tab, key);
    for (uint32_t n = 0; n <= tab->mask; n++) {
        struct pw_pin_slot *s = &tab->slots[i];
        uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == PW_KEY_EMPTY)
            return false;
        if (k == key && take_remote(s, key, out))
            return true;
        i = (i + 1) & tab->mask;
    }
    return false;
}

bool
pw_pin_table_remove_remote(struct pw_pin_table *tab, uintptr_t key, struct pw_pin_info *out,
                           struct pw_recent_release *note)
{
    struct pw_pin_info info;
    pw_pin_table_lock(tab);
    bool found = remove_locked(tab, key, &info);
    if (found && note != NULL)
        *note = (struct pw_recent_release){.ptr = key, .site = info.site};
    pw_pin_table_unlock(tab);
    if (found && out != NULL)
        *out = info;
    return found;
}

void
pw_pin_table_visit(struct pw_pin_table *tab, pw_pin_visit_fn fn, void *arg)
{
    if (tab->slots == NULL)
        return;
    for (uint32_t i = 0; i <= tab->mask; i++) {
        struct pw_pin_slot *s = &tab->slots[i];
        uintptr_t key = atomic_load_explicit(&s->key, memory_order_acquire);
        if (!PW_KEY_IS_PIN(key))
            continue;
        struct pw_pin_info info = s->info;
        /* The owner may have removed and reused the slot meanwhile.  The
         * fence keeps the copy above before the second look at the key
         * (an acquire load alone would let aarch64 read the fields late;
         * x86 never reorders loads with loads). */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->key, memory_order_relaxed) != key)
            continue;
        if (fn(key, &info, arg))
            take_remote(s, key, NULL);
    }
}

size_t
pw_pin_table_memory(const struct pw_pin_table *tab)
{
    return tab->slots != NULL ? ((size_t)tab->mask + 1) * sizeof(struct pw_pin_slot) : 0;
}
