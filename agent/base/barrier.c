/* SPDX-License-Identifier: Apache-2.0 */
#include "base/barrier.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc has no wrapper before 2.36 (and the agent builds on 2.31). */
static long
membarrier(int cmd)
{
#ifdef SYS_membarrier
    return syscall(SYS_membarrier, cmd, 0u, 0);
#else
    (void)cmd;
    return -1;
#endif
}

bool
pw_barrier_init(void)
{
    /* QUERY first: a kernel that does not know the command may fail the
     * registration with EINVAL, or seccomp with EPERM or ENOSYS; any of
     * them means no barrier. */
    long cmds = membarrier(MEMBARRIER_CMD_QUERY);
    if (cmds < 0 || (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ||
        (cmds & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
        return false;
    return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void
pw_barrier_process(void)
{
    /* Registered, the command fails only with EINVAL for an unknown one
     * (membarrier(2)): there is nothing to handle. */
    (void)membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}
