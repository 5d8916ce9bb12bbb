/* SPDX-License-Identifier: Apache-2.0 */
#include "state/local_table.h"
#include "base/cpu.h"

#include <stdlib.h>

#define EMPTY ((uintptr_t)0)
#define REMOVED ((uintptr_t)1)
#define FIRST_CAPACITY 64

static void
lock(struct pw_local_table *tab)
{
    while (atomic_flag_test_and_set_explicit(&tab->lock, memory_order_acquire))
        pw_cpu_relax();
}

static void
unlock(struct pw_local_table *tab)
{
    atomic_flag_clear_explicit(&tab->lock, memory_order_release);
}

static uint32_t
slot_of(uint32_t mask, uintptr_t handle)
{
    /* Handles are pointers into the JVM's handle blocks: 8-byte aligned,
     * spread by Fibonacci hashing. */
    return (uint32_t)PW_HASH_TOP((uint64_t)handle * PW_HASH_GOLDEN, 32) & mask;
}

static void
put(struct pw_local_slot *slots, uint32_t mask, uintptr_t handle, const struct pw_local_info *info)
{
    uint32_t i = slot_of(mask, handle);
    while (slots[i].handle > REMOVED)
        i = (i + 1) & mask;
    slots[i] = (struct pw_local_slot){.handle = handle, .info = *info};
}

/* Under the lock: a table without removed slots, twice as large when more
 * than half of it is live.  False when memory ran out. */
static bool
make_room(struct pw_local_table *tab)
{
    uint32_t live = 0, capacity = tab->slots != NULL ? tab->mask + 1 : 0;
    for (uint32_t i = 0; i < capacity; i++)
        live += tab->slots[i].handle > REMOVED;
    uint32_t fresh = capacity == 0 ? FIRST_CAPACITY : live * 2 >= capacity ? capacity * 2 : capacity;
    struct pw_local_slot *slots = calloc(fresh, sizeof(*slots));
    if (slots == NULL)
        return false;
    for (uint32_t i = 0; i < capacity; i++)
        if (tab->slots[i].handle > REMOVED)
            put(slots, fresh - 1, tab->slots[i].handle, &tab->slots[i].info);
    free(tab->slots);
    tab->slots = slots;
    tab->mask = fresh - 1;
    tab->used = live;
    return true;
}

bool
pw_local_table_insert(struct pw_local_table *tab, uintptr_t handle, const struct pw_local_info *info)
{
    lock(tab);
    bool ok = true;
    if (tab->slots == NULL || (tab->used + 1) * 4 > (tab->mask + 1) * 3)
        ok = make_room(tab);
    if (ok) {
        uint32_t i = slot_of(tab->mask, handle);
        while (tab->slots[i].handle > REMOVED)
            i = (i + 1) & tab->mask;
        tab->used += tab->slots[i].handle == EMPTY;
        tab->slots[i] = (struct pw_local_slot){.handle = handle, .info = *info};
    }
    unlock(tab);
    return ok;
}

bool
pw_local_table_take(struct pw_local_table *tab, uintptr_t handle, struct pw_local_info *out)
{
    if (tab->slots == NULL)
        return false;
    bool found = false;
    lock(tab);
    for (uint32_t i = slot_of(tab->mask, handle); tab->slots[i].handle != EMPTY; i = (i + 1) & tab->mask) {
        if (tab->slots[i].handle == handle) {
            *out = tab->slots[i].info;
            tab->slots[i].handle = REMOVED;
            found = true;
            break;
        }
    }
    unlock(tab);
    return found;
}

void
pw_local_table_visit(struct pw_local_table *tab, pw_local_visit_fn fn, void *arg)
{
    lock(tab);
    for (uint32_t i = 0; tab->slots != NULL && i <= tab->mask; i++) {
        struct pw_local_slot *s = &tab->slots[i];
        if (s->handle > REMOVED && fn(s->handle, &s->info, arg))
            s->handle = REMOVED;
    }
    unlock(tab);
}

size_t
pw_local_table_memory(struct pw_local_table *tab)
{
    lock(tab);
    size_t bytes = tab->slots != NULL ? (size_t)(tab->mask + 1) * sizeof(*tab->slots) : 0;
    unlock(tab);
    return bytes;
}

void
pw_local_table_free(struct pw_local_table *tab)
{
    free(tab->slots);
    tab->slots = NULL;
    tab->mask = tab->used = 0;
}
