/* SPDX-License-Identifier: Apache-2.0 */
/* Talking to a running HotSpot JVM through its attach mechanism: find the
 * process (and its namespaces and owner), wake the attach listener, and ask
 * it to load an agent library. */
#ifndef PW_CLI_ATTACH_H
#define PW_CLI_ATTACH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct pw_target {
    pid_t pid;   /* as this process sees it */
    pid_t nspid; /* in the JVM's own PID namespace: names its attach files */
    uid_t uid;   /* effective ids of the JVM: HotSpot accepts only these (or root) */
    gid_t gid;
    /* "" when the JVM shares our mount namespace, else "/proc/PID/root":
     * prefixed to every path we open on the JVM's behalf. */
    char root[64];
    bool is_jvm; /* libjvm.so is mapped */
    /* The pinwatch library mapped into the JVM, as the JVM names it; "" if
     * none, or if its agent refused to start (JDK 11 keeps such a library
     * mapped: no thread of the agent's runs).  A dump must load that very file: another path is another copy. */
    char loaded[PATH_MAX];
    bool loaded_deleted; /* replaced or removed since it was loaded */
    /* Our ids while we act as the JVM's owner (see pw_target_enter). */
    bool entered;
    uid_t saved_uid;
    gid_t saved_gid;
};

/* Looks the process up; false after one error line. */
bool pw_target_open(pid_t pid, struct pw_target *t);

/* Running as root: take the JVM's effective uid and gid, so that the files we
 * create are the JVM's and its listener accepts our connection.  False after
 * one error line. */
bool pw_target_enter(struct pw_target *t);
void pw_target_leave(struct pw_target *t);

/* PATH as seen by the JVM, rewritten into a path we can open. */
void pw_target_path(const struct pw_target *t, const char *path, char *out, size_t len);

/* The agent library at a path the JVM can open: lib itself when the JVM sees
 * the same file there, else a copy in the JVM's /tmp.  Call between enter
 * and leave.  False after one error line. */
bool pw_target_stage_library(struct pw_target *t, const char *lib, char *out, size_t len);

struct pw_load_result {
    int status;    /* the attach listener's status: 0 when the library was loaded */
    bool has_code; /* the agent's Agent_OnAttach result is known */
    int code;
    char text[2048]; /* what the JVM answered after the status line */
};

/* Sends "load LIB true OPTIONS" to the JVM, starting its attach listener if
 * needed (waiting at most wait_ms for it).  Call between enter and leave.
 * False after one error line; true when the JVM answered (see r). */
bool pw_attach_load(const struct pw_target *t, const char *lib, const char *options, int wait_ms,
                    struct pw_load_result *r);

#endif
