/* SPDX-License-Identifier: Apache-2.0 */
#include "base/threads.h"

#include <pthread.h>
#include <signal.h>

int
pw_daemon_spawn(const char *name, size_t stack_size, void *(*fn)(void *arg), void *arg)
{
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, old;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (stack_size > 0)
        pthread_attr_setstacksize(&attr, stack_size);
    /* The JVM routes its signals (SIGQUIT, SIGTERM handlers) to its own
     * threads: ours must never take them.  A thread inherits the mask of
     * its creator, so it is set around the creation only. */
    sigfillset(&all);
    /* pthread_sigmask fails only for a how it does not know (EINVAL,
     * POSIX), and SIG_SETMASK is one it must. */
    (void)pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&thread, &attr, fn, arg);
    (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_setname_np(thread, name);
    return rc;
}
