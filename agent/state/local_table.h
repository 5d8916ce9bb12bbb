/* SPDX-License-Identifier: Apache-2.0 */
/* The live local references of one natively attached thread, made outside
 * any native method, by handle (refs=on).  The JVM frees them at the
 * PopLocalFrame of the frame they were made in, or when the thread
 * detaches; until then they are the thread's to delete.
 *
 * Only the owning thread inserts and removes; a report reads the table
 * from another thread.  Every operation takes the table's spinlock: these
 * are the slow path of references (a thread outside native methods), and
 * the lock is then only ever contended by a report. */
#ifndef PW_LOCAL_TABLE_H
#define PW_LOCAL_TABLE_H

#include "base/pinwatch.h"

#include <stdatomic.h>

/* What is known of one local reference besides its handle. */
struct pw_local_info {
    uint32_t site;  /* site_table id of the call that made it */
    uint32_t depth; /* the thread's PushLocalFrame depth when it was made */
    uint32_t t_ms;  /* pw_clock_ms() when made, modulo 2^32 */
};

struct pw_local_slot {
    uintptr_t handle; /* 0: empty, 1: removed */
    struct pw_local_info info;
};

/* Zero is an empty table; its slots are allocated on the first insert. */
struct pw_local_table {
    struct pw_local_slot *slots;
    uint32_t mask; /* capacity - 1 */
    uint32_t used; /* live + removed slots */
    atomic_flag lock;
};

/* Owner only.  False when memory ran out (the reference is not kept). */
PW_HIDDEN bool pw_local_table_insert(struct pw_local_table *tab, uintptr_t handle,
                                     const struct pw_local_info *info);

/* Owner only: removes the reference with this handle into *out; false
 * when the table has none. */
PW_HIDDEN bool pw_local_table_take(struct pw_local_table *tab, uintptr_t handle, struct pw_local_info *out);

/* Calls fn for every reference, under the lock; a reference for which fn
 * returns true is removed (only the owner may remove). */
typedef bool (*pw_local_visit_fn)(uintptr_t handle, const struct pw_local_info *info, void *arg);
PW_HIDDEN void pw_local_table_visit(struct pw_local_table *tab, pw_local_visit_fn fn, void *arg);

/* Bytes of the slot array. */
PW_HIDDEN size_t pw_local_table_memory(struct pw_local_table *tab);

/* When the thread is gone: no one else can hold the table any more. */
PW_HIDDEN void pw_local_table_free(struct pw_local_table *tab);

#endif
