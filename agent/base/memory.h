/* SPDX-License-Identifier: Apache-2.0 */
/* Large tables (a leak table shard, a thread's pin table that grew) are
 * mapped and unmapped whole.  From malloc they would stay in the process
 * after being replaced by a larger table: glibc raises its mmap threshold
 * after the first large free, and later large blocks come from the heap,
 * which does not shrink. */
#ifndef PW_MEMORY_H
#define PW_MEMORY_H

#include "base/pinwatch.h"

/* Zeroed memory; NULL when none is left. */
PW_HIDDEN void *pw_table_alloc(size_t bytes);
PW_HIDDEN void pw_table_free(void *p, size_t bytes);

#endif
