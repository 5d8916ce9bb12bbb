/* SPDX-License-Identifier: Apache-2.0 */
/* Native stacks, stored once each however many sites or samples share them,
 * and named by a dense id.  Written only on the slow path (a new site or a
 * sample), read by reports. */
#ifndef PW_STACK_TABLE_H
#define PW_STACK_TABLE_H

#include "base/pinwatch.h"

#define PW_NO_STACK 0

/* The id of this stack, storing it on first sight; PW_NO_STACK when the
 * table is full or memory ran out. */
PW_HIDDEN uint32_t pw_stack_intern(const uintptr_t *ips, int n);

/* The frames of a stack id (innermost first); n is set to their number. */
PW_HIDDEN const uintptr_t *pw_stack_get(uint32_t id, int *n);

#endif
