/* SPDX-License-Identifier: Apache-2.0 */
/* What every wrapper in intercept/ does on entry; private to this layer.
 * The JNI specification allows no JNI call but the critical functions
 * themselves while a thread holds a critical region
 * (GetPrimitiveArrayCritical or GetStringCritical not yet released): such
 * a call is a jni_in_critical finding at the region's site, made here
 * whether the call came through a wrapper or through a guard thunk
 * (jni_guard_<arch>.S, for the slots no wrapper owns). */
#ifndef PW_HOOK_H
#define PW_HOOK_H

#include "state/thread_state.h"
#include "tracking/findings.h"

/* The call through slot, made from ret, on the thread whose state is t
 * (NULL: none): a finding when t holds a critical region. */
static inline void
pw_hook_check(const struct pw_thread *t, uint32_t slot, void *ret)
{
    if (PW_UNLIKELY(t != NULL && t->critical != 0))
        pw_finding(PW_FINDING_JNI_IN_CRITICAL, t->critical_site, ret, slot);
}

/* A wrapper's first act, once the JVM's function has run: the calling
 * thread's state (created on first use; NULL only when memory ran out),
 * checked as above. */
static inline struct pw_thread *
pw_hook_enter(uint32_t slot, void *ret)
{
    struct pw_thread *t = pw_thread_self();
    pw_hook_check(t, slot, ret);
    return t;
}

#endif
