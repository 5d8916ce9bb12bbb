/* SPDX-License-Identifier: Apache-2.0 */
/* Pins whose native method returned (or whose thread ended) while they were
 * still live: the leaks.  They leave the thread's table at that moment, so
 * a thread's own table stays small however much it leaks.
 *
 * A leaked pin is touched again only when somebody releases it late or a
 * report reads it, so a table sharded by address with a mutex per shard is
 * enough; what matters here is memory, since this is where a million live
 * pins end up. */
#ifndef PW_LEAK_TABLE_H
#define PW_LEAK_TABLE_H

#include "state/pin_table.h"

PW_HIDDEN bool pw_leak_table_insert(uintptr_t key, const struct pw_pin_info *info);
/* Removes a leaked pin.  When it does and note is not NULL, note gets the
 * release (key, site) before the shard's lock is let go, as in
 * pw_pin_table_remove_remote: a second release of the pin, which takes the
 * same lock to look, then finds it. */
PW_HIDDEN bool pw_leak_table_remove(uintptr_t key, struct pw_pin_info *out, struct pw_recent_release *note);
PW_HIDDEN bool pw_leak_table_find(uintptr_t key, struct pw_pin_info *out);

/* Calls fn for every leaked pin, one shard locked at a time; fn's result
 * is ignored (nothing is removed). */
PW_HIDDEN void pw_leak_table_visit(pw_pin_visit_fn fn, void *arg);

/* Bytes held by the table's slot arrays. */
PW_HIDDEN size_t pw_leak_table_memory(void);

#endif
