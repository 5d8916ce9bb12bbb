/* SPDX-License-Identifier: Apache-2.0 */
/* The per-architecture part of tracking an invocation that began without a
 * thunk (a method bound before a late attach): where a native frame keeps
 * its return address, and whether that word may be replaced by
 * pw_native_exit, as the swap-mode entry does at entry.  Everything else
 * (the walk, the shadow frame) is the same on every architecture. */
#ifndef PW_RETURN_SLOT_H
#define PW_RETURN_SLOT_H

#include "base/pinwatch.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/* Whether return addresses on this thread may be replaced at all: not with
 * a hardware shadow stack (x86 CET, arm64 GCS), which would fault at the
 * replaced return; not on an architecture without a variant here.  Says
 * why in *why when it returns false. */
PW_HIDDEN bool pw_return_slot_usable(const char **why);

/* caller: a cursor just stepped (by DWARF unwind info) from a native frame
 * to its caller, whose pc is caller_ip and whose stack pointer is caller_sp
 * (the frame's CFA); frame_sp: the frame's own stack pointer.  The stack
 * word that holds the frame's return address, or NULL unless it is proven
 * to be one: saved in memory where the architecture's ABI puts it, inside
 * the frame, holding exactly caller_ip (on arm64: not signed with pointer
 * authentication). */
PW_HIDDEN uintptr_t *pw_return_slot_find(unw_cursor_t *caller, uintptr_t frame_sp, uintptr_t caller_ip,
                                         uintptr_t caller_sp);

/* Makes the frame return to `to` instead (a slot pw_return_slot_find gave). */
PW_HIDDEN void pw_return_slot_redirect(uintptr_t *slot, uintptr_t to);

#endif
