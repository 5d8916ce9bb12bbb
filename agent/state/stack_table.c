/* SPDX-License-Identifier: Apache-2.0 */
#include "state/stack_table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACKS 65536
#define INDEX_SIZE (MAX_STACKS * 2)

struct stack {
    uint64_t hash;
    int n;
    uintptr_t *ips;
};

static struct stack stacks[MAX_STACKS];
static _Atomic uint32_t nstacks = 1; /* id 0 is "no stack" */
static _Atomic uint32_t index_[INDEX_SIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a's 64-bit offset basis and prime, a word at a time. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t
hash_stack(const uintptr_t *ips, int n)
{
    uint64_t h = FNV_OFFSET ^ (uint64_t)n;
    for (int i = 0; i < n; i++)
        h = (h ^ ips[i]) * FNV_PRIME;
    return h ^ (h >> 31);
}

static bool
same(const struct stack *s, uint64_t h, const uintptr_t *ips, int n)
{
    return s->hash == h && s->n == n && memcmp(s->ips, ips, (size_t)n * sizeof(*ips)) == 0;
}

uint32_t
pw_stack_intern(const uintptr_t *ips, int n)
{
    if (n <= 0)
        return PW_NO_STACK;
    uint64_t h = hash_stack(ips, n);
    uint32_t i = (uint32_t)h & (INDEX_SIZE - 1);
    uint32_t found = PW_NO_STACK;
    pthread_mutex_lock(&lock);
    for (;; i = (i + 1) & (INDEX_SIZE - 1)) {
        uint32_t id = atomic_load_explicit(&index_[i], memory_order_relaxed);
        if (id == 0)
            break;
        if (same(&stacks[id], h, ips, n)) {
            found = id;
            goto out;
        }
    }
    uint32_t id = atomic_load_explicit(&nstacks, memory_order_relaxed);
    uintptr_t *copy = id < MAX_STACKS ? malloc((size_t)n * sizeof(*copy)) : NULL;
    if (copy == NULL)
        goto out;
    memcpy(copy, ips, (size_t)n * sizeof(*copy));
    stacks[id] = (struct stack){.hash = h, .n = n, .ips = copy};
    atomic_store_explicit(&nstacks, id + 1, memory_order_release);
    atomic_store_explicit(&index_[i], id, memory_order_release);
    found = id;
out:
    pthread_mutex_unlock(&lock);
    return found;
}

const uintptr_t *
pw_stack_get(uint32_t id, int *n)
{
    if (id == PW_NO_STACK || id >= atomic_load_explicit(&nstacks, memory_order_acquire)) {
        *n = 0;
        return NULL;
    }
    *n = stacks[id].n;
    return stacks[id].ips;
}
