/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/return_slot.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Checked once per thread: a shadow stack is switched on per thread. */
static __thread int usable_here __attribute__((tls_model("initial-exec"))) = -1;

#if defined(__x86_64__)

#define ARCH_SHSTK_STATUS 0x5005
#define ARCH_SHSTK_SHSTK (1ULL << 0)

static bool
shadow_stack_on(void)
{
    /* Kernels before 6.6 know no such request (EINVAL): no shadow stack. */
    unsigned long long features = 0;
    return syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features) == 0 && (features & ARCH_SHSTK_SHSTK) != 0;
}

static const char *const shadow_stack_why = "the thread runs with a CET shadow stack";

uintptr_t *
pw_return_slot_find(unw_cursor_t *caller, uintptr_t frame_sp, uintptr_t caller_ip, uintptr_t caller_sp)
{
    /* A call pushes its return address: it is the word just below the
     * caller's stack pointer after the return, and nowhere else. */
    unw_save_loc_t loc;
    if (unw_get_save_loc(caller, UNW_REG_IP, &loc) != 0 || loc.type != UNW_SLT_MEMORY)
        return NULL;
    uintptr_t slot = (uintptr_t)loc.u.addr;
    if (slot != caller_sp - sizeof(uintptr_t) || slot < frame_sp || slot % sizeof(uintptr_t) != 0)
        return NULL;
    uintptr_t *p = (uintptr_t *)slot;
    return *p == caller_ip ? p : NULL;
}

#elif defined(__aarch64__)

#ifndef PR_GET_SHADOW_STACK_STATUS
#define PR_GET_SHADOW_STACK_STATUS 74
#endif
#define PW_SHADOW_STACK_ENABLE (1UL << 0)

static bool
shadow_stack_on(void)
{
    /* Kernels before 6.13 know no such request (EINVAL): no GCS. */
    unsigned long status = 0;
    return prctl(PR_GET_SHADOW_STACK_STATUS, &status, 0, 0, 0) == 0 && (status & PW_SHADOW_STACK_ENABLE) != 0;
}

static const char *const shadow_stack_why = "the thread runs with a guarded control stack (GCS)";

uintptr_t *
pw_return_slot_find(unw_cursor_t *caller, uintptr_t frame_sp, uintptr_t caller_ip, uintptr_t caller_sp)
{
    /* The link register is saved by the frame's prologue wherever its
     * unwind info says, within the frame: [frame_sp, CFA).  A function that
     * keeps it in another register instead is left alone. */
    unw_save_loc_t loc;
    if (unw_get_save_loc(caller, UNW_REG_IP, &loc) != 0 || loc.type != UNW_SLT_MEMORY)
        return NULL;
    uintptr_t slot = (uintptr_t)loc.u.addr;
    if (slot < frame_sp || slot + sizeof(uintptr_t) > caller_sp || slot % sizeof(uintptr_t) != 0)
        return NULL;
    uintptr_t *p = (uintptr_t *)slot;
    /* With pointer authentication (paciasp) the saved value is signed with
     * the CFA as modifier and authenticated before the ret: a plain address
     * put there would fault.  Only a word that holds the plain return
     * address (no PAC bits: unsigned, or PAC off in hardware, where autiasp
     * is a no-op) is replaced. */
    return *p == caller_ip ? p : NULL;
}

#endif

#if defined(__x86_64__) || defined(__aarch64__)

bool
pw_return_slot_usable(const char **why)
{
    if (usable_here < 0)
        usable_here = !shadow_stack_on();
    if (!usable_here)
        *why = shadow_stack_why;
    return usable_here;
}

void
pw_return_slot_redirect(uintptr_t *slot, uintptr_t to)
{
    /* The frame is below us on this thread's own stack and returns only
     * after we do: a plain store, which the compiler must not drop. */
    *(volatile uintptr_t *)slot = to;
}

#else

bool
pw_return_slot_usable(const char **why)
{
    *why = "no return-address variant for this architecture";
    return false;
}

uintptr_t *
pw_return_slot_find(unw_cursor_t *caller, uintptr_t frame_sp, uintptr_t caller_ip, uintptr_t caller_sp)
{
    return NULL;
}

void
pw_return_slot_redirect(uintptr_t *slot, uintptr_t to)
{
}

#endif
