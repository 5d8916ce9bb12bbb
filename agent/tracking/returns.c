/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/returns.h"
#include "state/leak_table.h"
#include "tracking/refs.h"
#include "tracking/requests.h"

#include <stdatomic.h>

#define NOTED_PER_RETURN 8

struct returned {
    struct pw_thread *thread;
    uint32_t serial;
    /* The sites this return leaks at that have no UNRELEASED line yet. */
    struct {
        uint32_t site;
        uint64_t pins, bytes;
    } first[NOTED_PER_RETURN];
    size_t nfirst;
};

static void
note_first_leak(struct returned *r, const struct pw_pin_info *info)
{
    struct pw_site *site = pw_site_get(info->site);
    if (atomic_load_explicit(&site->leak_noted, memory_order_relaxed))
        return;
    for (size_t i = 0; i < r->nfirst; i++) {
        if (r->first[i].site == info->site) {
            r->first[i].pins++;
            r->first[i].bytes += info->size;
            return;
        }
    }
    if (r->nfirst < NOTED_PER_RETURN) {
        r->first[r->nfirst].site = info->site;
        r->first[r->nfirst].pins = 1;
        r->first[r->nfirst].bytes = info->size;
        r->nfirst++;
    }
}

static bool
leaked_by_invocation(uintptr_t key, const struct pw_pin_info *info, void *arg)
{
    struct returned *r = arg;
    if (info->serial != r->serial)
        return false;
    if (!pw_leak_table_insert(key, info))
        pw_count_add(&r->thread->sites.counts.lost, 1);
    pw_count_add(&pw_counts_of(&r->thread->sites.counts, info->site)->leaked_at_return, 1);
    note_first_leak(r, info);
    return true;
}

void
pw_invocation_returned(struct pw_thread *t, struct pw_frame *f)
{
    struct returned r = {.thread = t, .serial = f->serial};
    /* The lock keeps a report or another thread's release out of the table
     * while pins leave it; the owner's own hot path never waits on it. */
    pw_pin_table_lock(&t->pins.table);
    pw_pin_table_visit(&t->pins.table, leaked_by_invocation, &r);
    pw_pin_table_unlock(&t->pins.table);
    f->live = 0;
    /* A leak is a step change worth seeing at once in the threshold count. */
    pw_requests_publish(t);
    for (size_t i = 0; i < r.nfirst; i++) {
        struct pw_site *site = pw_site_get(r.first[i].site);
        if (!atomic_exchange(&site->leak_noted, true))
            pw_requests_leak_note(r.first[i].site, r.first[i].pins, r.first[i].bytes);
    }
}

void
pw_thread_ending(struct pw_thread *t)
{
    /* A thread's local references die with it. */
    pw_refs_thread_detached(t);
    pw_requests_refs_publish(t);
    pw_requests_publish(t);
}
