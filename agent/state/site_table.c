/* SPDX-License-Identifier: Apache-2.0 */
#include "state/site_table.h"

#include "state/methods.h"
#include "state/frame_layout.h"
#include "state/suppress.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#define INDEX_SIZE (PW_MAX_SITES * 2)

static struct pw_site sites[PW_MAX_SITES];
static _Atomic uint32_t site_count = 1; /* id 0 is the overflow site */
/* Open-addressed index of site ids; 0 is empty (the overflow site is never
 * indexed).  Readers do not lock: an id is published after its site. */
static _Atomic uint32_t site_index[INDEX_SIZE];
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

/* Counts of a thread that could not get memory for its counters. */
static struct pw_counts lost_sink[PW_COUNT_CHUNK];

static inline uint32_t
site_hash(const struct pw_method *method, uint32_t key, void *ret)
{
    uint64_t h = (uint64_t)(uintptr_t)ret * PW_HASH_GOLDEN;
    h ^= (uint64_t)(uintptr_t)method * PW_HASH_MIX2;
    h ^= key * PW_HASH_MIX3;
    /* Bits from 40 up: mixed by every input bit below them. */
    return (uint32_t)(h >> 40) & (INDEX_SIZE - 1);
}

static inline bool
site_is(const struct pw_site *s, const struct pw_method *method, enum pw_kind kind, uint32_t fn, void *ret)
{
    return s->ret == ret && s->method == method && s->kind == kind && s->fn == fn;
}

/* Decided once, when the site is made, so that the hot path and the
 * threshold count only read a flag. */
static bool
site_suppressed(const struct pw_method *method, enum pw_kind kind, uint32_t fn, void *ret)
{
    Dl_info info;
    const char *library = NULL;
    uintptr_t caller = pw_method_caller(method, (uintptr_t)ret, NULL);
    if (caller != 0 && dladdr((void *)(caller - 1), &info) != 0)
        library = info.dli_fname;
    /* A function: rule names an acquire function, which only pins have. */
    return pw_suppress_match(method != NULL ? pw_method_name(method) : NULL, library,
                             kind == PW_KIND_PIN ? fn : PW_FN_COUNT);
}

uint32_t
pw_site_intern(const struct pw_method *method, enum pw_kind kind, uint32_t fn, void *ret)
{
    uint32_t h = site_hash(method, PW_SITE_KEY(kind, fn), ret);
    for (uint32_t i = h;; i = (i + 1) & (INDEX_SIZE - 1)) {
        uint32_t id = atomic_load_explicit(&site_index[i], memory_order_acquire);
        if (id == 0)
            break;
        if (site_is(&sites[id], method, kind, fn, ret))
            return id;
    }
    uint32_t found = PW_SITE_OVERFLOW;
    pthread_mutex_lock(&intern_lock);
    for (uint32_t i = h;; i = (i + 1) & (INDEX_SIZE - 1)) {
        uint32_t id = atomic_load_explicit(&site_index[i], memory_order_relaxed);
        if (id != 0) {
            if (site_is(&sites[id], method, kind, fn, ret)) {
                found = id;
                break;
            }
            continue;
        }
        uint32_t fresh = atomic_load_explicit(&site_count, memory_order_relaxed);
        if (fresh >= PW_MAX_SITES)
            break; /* charged to the overflow site, which reports say is full */
        sites[fresh].method = method;
        sites[fresh].kind = (uint8_t)kind;
        sites[fresh].fn = fn;
        sites[fresh].ret = ret;
        sites[fresh].suppressed = pw_suppress_any() && site_suppressed(method, kind, fn, ret);
        atomic_store_explicit(&site_count, fresh + 1, memory_order_release);
        atomic_store_explicit(&site_index[i], fresh, memory_order_release);
        found = fresh;
        break;
    }
    pthread_mutex_unlock(&intern_lock);
    return found;
}

struct pw_site *
pw_site_get(uint32_t id)
{
    return &sites[id < PW_MAX_SITES ? id : PW_SITE_OVERFLOW];
}

uint32_t
pw_site_count(void)
{
    return atomic_load_explicit(&site_count, memory_order_acquire);
}

struct pw_counts *
pw_counts_chunk_alloc(struct pw_thread_counts *c, uint32_t chunk)
{
    struct pw_counts *fresh = calloc(PW_COUNT_CHUNK, sizeof(*fresh));
    if (fresh == NULL) {
        pw_count_add(&c->lost, 1);
        return lost_sink;
    }
    /* Published with release so that a report sees zeroed counters. */
    __atomic_store_n(&c->chunks[chunk], fresh, __ATOMIC_RELEASE);
    return fresh;
}

void
pw_thread_counts_add_to(const struct pw_thread_counts *c, struct pw_counts *sums, uint32_t n)
{
    for (uint32_t chunk = 0; chunk * PW_COUNT_CHUNK < n; chunk++) {
        const struct pw_counts *counts = __atomic_load_n(&c->chunks[chunk], __ATOMIC_ACQUIRE);
        if (counts == NULL)
            continue;
        for (uint32_t i = 0; i < PW_COUNT_CHUNK && chunk * PW_COUNT_CHUNK + i < n; i++) {
            struct pw_counts *sum = &sums[chunk * PW_COUNT_CHUNK + i];
            sum->acquired += pw_count_read(&counts[i].acquired);
            sum->released += pw_count_read(&counts[i].released);
            sum->pin.commits += pw_count_read(&counts[i].pin.commits); /* or ref.freed */
            sum->leaked_at_return += pw_count_read(&counts[i].leaked_at_return);
            sum->carried += pw_count_read(&counts[i].carried);
        }
    }
}

void
pw_thread_counts_free(struct pw_thread_counts *c)
{
    for (size_t i = 0; i < PW_MAX_SITES / PW_COUNT_CHUNK; i++) {
        free(c->chunks[i]);
        c->chunks[i] = NULL;
    }
}
