/* SPDX-License-Identifier: Apache-2.0 */
#include "state/pin_table.h"
#include "base/barrier.h"
#include "base/cpu.h"
#include "base/memory.h"

#include <stdlib.h>

#define INITIAL_BITS 4

struct pw_pin_slot pw_pin_no_slot; /* key PW_KEY_EMPTY, never written */

bool pw_pin_table_asymmetric;

bool
pw_pin_table_start(bool barrier)
{
    pw_pin_table_asymmetric = barrier && pw_barrier_init();
    return pw_pin_table_asymmetric;
}

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
    atomic_init(&tab->releasing, NULL);
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

/* Removal protocol.  A remote releaser (another thread, under the table's
 * lock, so one at a time) takes a pin in two steps: a compare-and-swap of
 * the key to BUSY, then, once it knows it has the pin, its fields read and
 * a store of TOMB.  BUSY is neither a pin nor free: the owner never finds
 * it as a pin and never reuses its slot, and the owner reuses a slot only
 * once it reads TOMB.
 *
 * Without the barrier (pw_pin_table_asymmetric false) the owner takes a pin
 * with a compare-and-swap, key -> TOMB: whichever swap lands first takes the
 * pin and the other fails, so BUSY always stays the remote's.
 *
 * With it, the owner's take (pw_pin_table_take_slot) is, in program order:
 *   O1 releasing = s;  O2 k = s->key;  if k == key: O3 s->key = TOMB;
 *   O4 releasing = NULL (and O3 is seen before O4: a release store);
 *   else releasing = NULL, and the pin is not the owner's to take;
 * with no barrier instruction between O1 and O2.  The remote's, after its
 * R1 swap key -> BUSY: R2 pw_barrier_process(); R3 wait while releasing == s;
 * R4 if s->key is still BUSY the pin is the remote's (fields, TOMB), else
 * the owner's O3 overwrote BUSY and the remote's release is the second.
 *
 * R2 runs a full barrier on the owner at some point B of its program order.
 * Every interleaving counts the pin once:
 *   - B before O1 (or the owner is not in a take): R1 is globally visible
 *     before B, so O2 reads BUSY (or TOMB): the owner does not take it, and
 *     O3 never overwrites the remote's BUSY.  The remote reads BUSY at R4.
 *   - B after O2, or between O1 and O2: O1 is visible to the remote when R2
 *     returns.  If O2 read the pin (it ran before R1 in the key's order),
 *     R3 sees releasing == s and waits until O4, and since O3 is seen
 *     before O4, R4 reads TOMB: the owner's.  Reading NULL at R3 can then
 *     only be O4 itself (O1 is visible), so the same holds.  If O2 read
 *     BUSY the owner stores nothing and R4 reads BUSY: the remote's.
 *   - A later take by the owner of the same slot (its O1 after B) reads
 *     BUSY, as in the first case; a pin the owner took and then put back in
 *     the slot (after O3, a new insert) makes R4 read no BUSY either, which
 *     is right: the remote's pin was the owner's.
 * The owner never waits inside O1..O4, so R3 is short.  The remote reads
 * the fields only after R4, when no owner store can come any more. */

bool
pw_pin_table_taken_meanwhile(struct pw_pin_slot *s)
{
    /* A remote releaser that swapped the key to BUSY has the pin (the owner
     * stored nothing): wait until it is done, so that the caller's next look
     * finds the table as it will stay. */
    while (atomic_load_explicit(&s->key, memory_order_acquire) == PW_KEY_BUSY)
        pw_cpu_relax();
    return false;
}

static bool
take_remote(struct pw_pin_table *tab, struct pw_pin_slot *s, uintptr_t key, struct pw_pin_info *out)
{
    uintptr_t expected = key;
    if (!atomic_compare_exchange_strong_explicit(&s->key, &expected, PW_KEY_BUSY, memory_order_acq_rel,
                                                 memory_order_relaxed))
        return false;
    if (pw_pin_table_asymmetric) {
        pw_barrier_process();
        while (atomic_load_explicit(&tab->releasing, memory_order_acquire) == s)
            pw_cpu_relax();
        if (atomic_load_explicit(&s->key, memory_order_acquire) != PW_KEY_BUSY)
            return false; /* the owner took it first */
    }
    if (out != NULL)
        *out = s->info;
    atomic_store_explicit(&s->key, PW_KEY_TOMB, memory_order_release);
    return true;
}

const struct pw_pin_slot *
pw_pin_table_take(struct pw_pin_table *tab, uintptr_t key)
{
    struct pw_pin_slot *s;
    /* A slot another thread took meanwhile now reads TOMB: the next look
     * finds the next pin with this key, if there is one. */
    while ((s = pw_pin_table_slot(tab, key)) != NULL && !pw_pin_table_take_slot(tab, s, key))
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
        if (k == key && take_remote(tab, s, key, out))
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
            (void)pw_pin_table_take_slot(tab, s, key);
    }
}

size_t
pw_pin_table_memory(const struct pw_pin_table *tab)
{
    return tab->slots != NULL ? ((size_t)tab->mask + 1) * sizeof(struct pw_pin_slot) : 0;
}
