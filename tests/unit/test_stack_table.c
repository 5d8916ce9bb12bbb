/* SPDX-License-Identifier: Apache-2.0 */
/* The stack table (agent/state/stack_table.c), as the agent built it: a
 * stack stored once under a dense id, equal stacks one id however they are
 * passed, stacks that differ in one frame, in length or in order apart, the
 * frames read back exactly, and PW_NO_STACK for an empty stack and once the
 * table is full. */
#include "state/stack_table.h"
#include "unit_check.h"

#include <string.h>

#define NSTACKS 2000
#define DEPTH 12

static void
stack_of(uint32_t k, uintptr_t *ips, int n)
{
    for (int i = 0; i < n; i++)
        ips[i] = unit_key(0x400000, k * DEPTH + (uint32_t)i);
}

static uint32_t ids[NSTACKS];

static void
check_frames(uint32_t id, const uintptr_t *want, int n)
{
    int got_n = -1;
    const uintptr_t *got = pw_stack_get(id, &got_n);
    CHECK(got != NULL && got_n == n && memcmp(got, want, (size_t)n * sizeof(*want)) == 0,
          "stack %u: frames differ (%d read, %d stored)", id, got_n, n);
}

int
main(void)
{
    uintptr_t ips[DEPTH + 1];
    int n = 0;
    CHECK(pw_stack_intern(ips, 0) == PW_NO_STACK, "an empty stack has an id");
    CHECK(pw_stack_get(PW_NO_STACK, &n) == NULL && n == 0, "PW_NO_STACK has frames");

    /* Dense ids from 1, in the order of first sight. */
    for (uint32_t k = 0; k < NSTACKS; k++) {
        int depth = 1 + (int)(k % DEPTH);
        stack_of(k, ips, depth);
        ids[k] = pw_stack_intern(ips, depth);
        CHECK(ids[k] == k + 1, "stack %u: id %u, expected %u", k, ids[k], k + 1);
    }
    /* Equal stacks, from another buffer: the same id and the same frames. */
    for (uint32_t k = 0; k < NSTACKS; k++) {
        int depth = 1 + (int)(k % DEPTH);
        uintptr_t copy[DEPTH];
        stack_of(k, copy, depth);
        CHECK(pw_stack_intern(copy, depth) == ids[k], "stack %u interned again: another id", k);
        check_frames(ids[k], copy, depth);
    }
    CHECK(pw_stack_get(NSTACKS + 1, &n) == NULL && n == 0, "an id not yet given has frames");

    /* One frame more, one frame less, one frame changed, two frames swapped:
     * each a stack of its own. */
    stack_of(5, ips, DEPTH + 1);
    uint32_t longer = pw_stack_intern(ips, 1 + 5 % DEPTH + 1);
    uint32_t shorter = pw_stack_intern(ips, 5 % DEPTH);
    stack_of(5, ips, DEPTH);
    ips[2] ^= 0x10;
    uint32_t changed = pw_stack_intern(ips, 1 + 5 % DEPTH);
    stack_of(5, ips, DEPTH);
    uintptr_t first = ips[0];
    ips[0] = ips[1];
    ips[1] = first;
    uint32_t swapped = pw_stack_intern(ips, 1 + 5 % DEPTH);
    uint32_t apart[] = {ids[5], longer, shorter, changed, swapped};
    for (int a = 0; a < 5; a++) {
        CHECK(apart[a] != PW_NO_STACK, "variant %d: no id", a);
        for (int b = a + 1; b < 5; b++)
            CHECK(apart[a] != apart[b], "variants %d and %d: one id %u", a, b, apart[a]);
    }
    check_frames(swapped, ips, 1 + 5 % DEPTH);

    /* Full: a new stack has no id, known ones keep theirs. */
    uint32_t last = swapped;
    for (uint32_t k = NSTACKS + 100;; k++) {
        stack_of(k, ips, 1);
        uint32_t id = pw_stack_intern(ips, 1);
        if (id == PW_NO_STACK)
            break;
        CHECK(id == last + 1, "filling: id %u after %u", id, last);
        last = id;
    }
    for (uint32_t j = 0; j < NSTACKS; j++) {
        int depth = 1 + (int)(j % DEPTH);
        stack_of(j, ips, depth);
        CHECK(pw_stack_intern(ips, depth) == ids[j], "stack %u lost its id when the table filled", j);
    }
    printf("PASS: stack table (full at id %u)\n", last);
    return 0;
}
