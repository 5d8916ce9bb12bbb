/* SPDX-License-Identifier: Apache-2.0 */
#include "intercept/native_entry.h"
#include "state/methods.h"

void
pw_native_entry_init(void)
{
    pw_native_returns[0] = (uintptr_t)pw_native_exit;
    pw_native_returns[1] = (uintptr_t)pw_native_return;
    pw_methods_set_entries((void *)pw_native_entry, (void *)pw_native_entry_call,
                           (void *)pw_native_entry_call_stack);
}
