/* SPDX-License-Identifier: Apache-2.0 */
/* Live global and weak global references by handle.
 *
 * A global reference is usually made on one thread and deleted on another
 * (a cache filled by one call, emptied by another), so this table is shared:
 * 64 shards keyed by the handle's hash, each an open-addressed array under
 * its own spinlock.  An insert or a removal locks one shard for a few
 * instructions; two threads meet only when their handles hash to one shard.
 * A record is 16 bytes: the handle, its site and when it was made.
 *
 * A delete leaves its record as a tombstone, site kept: a second delete of
 * the handle finds it, on whatever thread the first one ran, and the JVM's
 * next handout of that handle (which reuses freed handles first) takes the
 * slot back.  Tombstones go when a shard is rebuilt at 3/4 full, so the
 * memory of deletes is at least (3/4 capacity - live) per shard. */
#ifndef PW_REF_TABLE_H
#define PW_REF_TABLE_H

#include "base/pinwatch.h"

struct pw_ref_info {
    uint32_t site;
    uint32_t t_ms; /* pw_clock_ms() when made, modulo 2^32 */
};

/* Records handle (never 0).  A handle the table holds already was deleted
 * behind pinwatch's back (reused by the JVM): its old record is replaced
 * and returned in *old with true.  Returns false in *stored when memory
 * ran out (the reference is then not tracked). */
PW_HIDDEN bool pw_ref_table_insert(uintptr_t handle, const struct pw_ref_info *info, struct pw_ref_info *old,
                                   bool *stored);

enum pw_ref_removal {
    PW_REF_REMOVED, /* it was live: *out is its record */
    PW_REF_DELETED, /* deleted before and not made since: *out names its site */
    PW_REF_UNKNOWN, /* never seen (or forgotten): remembered as deleted from now on */
};

/* A delete of handle, before the JVM's delete runs. */
PW_HIDDEN enum pw_ref_removal pw_ref_table_remove(uintptr_t handle, struct pw_ref_info *out);

/* Calls fn for every record, one shard locked at a time. */
PW_HIDDEN void pw_ref_table_visit(void (*fn)(uintptr_t handle, const struct pw_ref_info *info, void *arg),
                                  void *arg);

/* Bytes of the shards' arrays. */
PW_HIDDEN size_t pw_ref_table_memory(void);

#endif
