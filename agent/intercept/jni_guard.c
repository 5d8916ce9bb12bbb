/* SPDX-License-Identifier: Apache-2.0 */
/* Installs the jni_guard.S thunks in the JNI function table: every slot
 * but the reserved ones, the critical functions themselves (nesting them is
 * allowed) and the slots the pin hooks own (they check for themselves). */
#include "base/cpu.h"
#include "tracking/findings.h"
#include "intercept/jni_guard.h"
#include "jvm/jni_table.h"
#include "intercept/native_entry.h"
#include "state/thread_state.h"

#include <stddef.h>

_Static_assert(PW_GUARD_SLOTS == PW_JNI_MAX_SLOTS, "jni_guard.S stamps one thunk per known slot");
_Static_assert(offsetof(struct pw_thread, critical) == PW_T_CRITICAL, "jni_guard.S reads critical here");

#define SLOT(name) (offsetof(struct JNINativeInterface_, name) / sizeof(void *))

void
pw_jni_guard_hit(uint32_t slot, void *call)
{
    struct pw_thread *t = pw_tls_self;
    pw_finding(PW_FINDING_JNI_IN_CRITICAL, t != NULL ? t->critical_site : 0, pw_strip_pac(call), slot);
}

void
pw_jni_guard_install(void **slots, uint32_t nslots)
{
    if (nslots > PW_GUARD_SLOTS)
        nslots = PW_GUARD_SLOTS;
    for (size_t i = SLOT(GetVersion); i < nslots; i++) {
        if (i == SLOT(GetPrimitiveArrayCritical) || i == SLOT(ReleasePrimitiveArrayCritical) ||
            i == SLOT(GetStringCritical) || i == SLOT(ReleaseStringCritical))
            continue;
        if (slots[i] == NULL)
            continue;
        pw_jni_guard_next[i] = slots[i];
        slots[i] = pw_jni_guard_thunks[i];
    }
}
