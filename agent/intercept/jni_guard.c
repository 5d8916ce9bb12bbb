/* SPDX-License-Identifier: Apache-2.0 */
/* Installs the jni_guard.S thunks in the JNI function table: every slot
 * but the reserved ones, the critical functions themselves (nesting them is
 * allowed) and the slots the pin hooks own (they check for themselves). */
#include "base/cpu.h"
#include "intercept/jni_guard.h"
#include "intercept/hook.h"
#include "jvm/jni_table.h"
#include "intercept/native_entry.h"
#include "state/thread_state.h"

#include <stddef.h>

_Static_assert(offsetof(struct pw_thread, critical) == PW_T_CRITICAL, "jni_guard.S reads critical here");

/* The thunk has seen the thread's critical count above zero. */
void
pw_jni_guard_hit(uint32_t slot, void *call)
{
    pw_hook_check(pw_tls_self, slot, pw_strip_pac(call));
}

void
pw_jni_guard_install(void **slots, uint32_t nslots)
{
    if (nslots > PW_JNI_SLOTS)
        nslots = PW_JNI_SLOTS;
    for (size_t i = PW_JNI_SLOT(GetVersion); i < nslots; i++) {
        if (i == PW_JNI_SLOT(GetPrimitiveArrayCritical) || i == PW_JNI_SLOT(ReleasePrimitiveArrayCritical) ||
            i == PW_JNI_SLOT(GetStringCritical) || i == PW_JNI_SLOT(ReleaseStringCritical))
            continue;
        if (slots[i] == NULL)
            continue;
        pw_jni_guard_next[i] = slots[i];
        slots[i] = pw_jni_guard_thunks[i];
    }
}
