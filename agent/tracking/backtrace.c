/* SPDX-License-Identifier: Apache-2.0 */
#include "tracking/backtrace.h"
#include "base/cpu.h"
#include "base/log.h"
#include "state/frame_layout.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

void
pw_backtrace_init(void)
{
    /* As heaptrack does (src/track/trace_libunwind.cpp): without the
     * per-thread cache every stack taken is slower, never wrong. */
    int rc = unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    if (rc != 0)
        pw_log_warn("libunwind refused per-thread caching (error %d): native stacks cost more to take", rc);
}

int
pw_backtrace(void *ret, uintptr_t *ips, int max, bool bounded)
{
    unw_context_t uc;
    unw_cursor_t cursor;
    if (max <= 0 || unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0)
        return 0;
    int n = 0;
    bool started = false;
    /* Our own frames (the hook and the tracker) come first: skip them up
     * to the Get's caller, whose frame holds ret. */
    for (int skipped = 0; n < max; skipped++) {
        unw_word_t ip;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0)
            break;
        /* A return address saved by code built with pointer
         * authentication may still carry its signature. */
        ip = (unw_word_t)(uintptr_t)pw_strip_pac((void *)(uintptr_t)ip);
        if (pw_is_native_return((uintptr_t)ip))
            break;
        if (!started && ip == (unw_word_t)(uintptr_t)ret)
            started = true;
        if (!started && skipped > 8)
            break; /* ret never met: an inlined or odd frame layout */
        if (started)
            ips[n++] = (uintptr_t)ip;
        if (started && !bounded && n == 1)
            break;
        if (unw_step(&cursor) <= 0)
            break;
    }
    if (n == 0 && max > 0) {
        ips[0] = (uintptr_t)ret;
        n = 1;
    }
    return n;
}
