/* SPDX-License-Identifier: Apache-2.0 */
/* HotSpot's attach mechanism on Linux, as the JDK's own client speaks it:
 *
 *   1. the JVM listens on the UNIX socket /tmp/.java_pid<pid> once its attach
 *      listener runs; it starts it on SIGQUIT when a file .attach_pid<pid>
 *      exists in its working directory or in /tmp;
 *   2. a request is NUL-terminated strings: protocol "1", the command, and
 *      exactly three arguments ("load": library, "true" for an absolute path,
 *      the agent's options), the options as one string: jcmd's
 *      JVMTI.agent_load goes through the diagnostic command parser instead,
 *      which ends an argument at '=' unless it is quoted (src/hotspot/share/
 *      services/diagnosticFramework.cpp DCmdArgIter::next), hence the quotes
 *      jcmd needs and this program does not;
 *   3. the answer is a status line, then the command's output (for "load",
 *      the Agent_OnAttach result: "N" up to JDK 20, "return code: N" after).
 *
 * <pid> is the JVM's pid in its own PID namespace, and the paths are in its
 * mount namespace: for a JVM in a container we go through /proc/PID/root.
 * The listener accepts a peer with the JVM's effective uid and gid, or root. */
#include "attach.h"
#include "util.h"

#include "base/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static bool
read_status(struct pw_target *t)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/status", (long)t->pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        if (errno == ENOENT)
            pw_error("no process with pid %ld", (long)t->pid);
        else
            pw_error("cannot read %s: %s", path, strerror(errno));
        return false;
    }
    char line[512];
    bool uid = false, gid = false;
    t->nspid = t->pid;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long real, eff;
        if (sscanf(line, "Uid: %lu %lu", &real, &eff) == 2) {
            t->uid = (uid_t)eff;
            uid = true;
        } else if (sscanf(line, "Gid: %lu %lu", &real, &eff) == 2) {
            t->gid = (gid_t)eff;
            gid = true;
        } else if (strncmp(line, "NSpid:", 6) == 0) {
            /* Outermost first: the last one is the pid inside the JVM's
             * own namespace. */
            char *last = NULL, *save = NULL;
            for (char *tok = strtok_r(line + 6, " \t\n", &save); tok != NULL;
                 tok = strtok_r(NULL, " \t\n", &save))
                last = tok;
            if (last != NULL)
                t->nspid = (pid_t)atol(last);
        }
    }
    fclose(f);
    if (!uid || !gid) {
        pw_error("%s names no Uid/Gid: not a Linux process status", path);
        return false;
    }
    return true;
}

/* Finds libjvm.so and a loaded pinwatch library in the process's mappings. */
static bool
read_maps(struct pw_target *t)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/maps", (long)t->pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        if (errno == EACCES || errno == EPERM)
            pw_error(
                "permission denied reading %s: process %ld belongs to uid %lu; run pinwatch as "
                "that user or as root",
                path, (long)t->pid, (unsigned long)t->uid);
        else
            pw_error("cannot read %s: %s", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *file = strchr(line, '/');
        if (file == NULL)
            continue;
        bool deleted = false;
        size_t flen = strlen(file);
        static const char del[] = " (deleted)";
        if (flen > sizeof(del) - 1 && strcmp(file + flen - (sizeof(del) - 1), del) == 0) {
            deleted = true;
            file[flen - (sizeof(del) - 1)] = '\0';
        }
        const char *base = strrchr(file, '/') + 1;
        if (strcmp(base, "libjvm.so") == 0)
            t->is_jvm = true;
        else if (strncmp(base, "libpinwatch", 11) == 0 && strstr(base, ".so") != NULL && t->loaded[0] == '\0') {
            snprintf(t->loaded, sizeof(t->loaded), "%s", file);
            t->loaded_deleted = deleted;
        }
    }
    free(line);
    fclose(f);
    return true;
}

/* Whether a thread of the agent's own runs in the process: the clock and
 * the report thread start once the agent has started (entry/agent.c).  A
 * library whose Agent_OnAttach refused (bad options) has none: JDK 11 keeps
 * such a library mapped (later JDKs unload it), and it tracks nothing. */
static bool
agent_threads_run(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return true; /* cannot tell: believe the mappings */
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char comm_path[128], comm[32] = "";
        snprintf(comm_path, sizeof(comm_path), "%s/%s/comm", path, e->d_name);
        FILE *f = fopen(comm_path, "re");
        if (f == NULL)
            continue;
        if (fgets(comm, sizeof(comm), f) != NULL) {
            comm[strcspn(comm, "\n")] = '\0';
            found = strcmp(comm, "pinwatch-clock") == 0 || strcmp(comm, "pinwatch") == 0;
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

static bool
same_mount_ns(pid_t pid)
{
    char path[64];
    struct stat self, other;
    snprintf(path, sizeof(path), "/proc/%ld/ns/mnt", (long)pid);
    /* When we may not look, we could not use /proc/PID/root either. */
    if (stat("/proc/self/ns/mnt", &self) != 0 || stat(path, &other) != 0)
        return true;
    return self.st_ino == other.st_ino && self.st_dev == other.st_dev;
}

bool
pw_target_open(pid_t pid, struct pw_target *t)
{
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    if (pid <= 0) {
        pw_error("no process with pid %ld", (long)pid);
        return false;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) {
        pw_error("no process with pid %ld", (long)pid);
        return false;
    }
    if (!read_status(t))
        return false;
    if (geteuid() != 0 && geteuid() != t->uid) {
        pw_error(
            "permission denied: process %ld belongs to uid %lu and you are uid %lu; run pinwatch as "
            "that user or as root",
            (long)pid, (unsigned long)t->uid, (unsigned long)geteuid());
        return false;
    }
    if (!read_maps(t))
        return false;
    if (t->loaded[0] != '\0' && !agent_threads_run(pid))
        t->loaded[0] = '\0';
    if (!t->is_jvm) {
        /* SIGQUIT would end a process that does not handle it: ask no
         * process that maps no JVM. */
        pw_error("process %ld is not a HotSpot JVM (it maps no libjvm.so)", (long)pid);
        return false;
    }
    if (!same_mount_ns(pid))
        snprintf(t->root, sizeof(t->root), "/proc/%ld/root", (long)pid);
    return true;
}

bool
pw_target_enter(struct pw_target *t)
{
    t->saved_uid = geteuid();
    t->saved_gid = getegid();
    if (t->saved_uid != 0 || t->uid == 0 || t->entered)
        return true;
    /* The group first: without root's uid we could not change it. */
    if (setegid(t->gid) != 0) {
        pw_error("cannot take gid %lu of process %ld: %s", (unsigned long)t->gid, (long)t->pid, strerror(errno));
        return false;
    }
    if (seteuid(t->uid) != 0) {
        pw_error("cannot take uid %lu of process %ld: %s", (unsigned long)t->uid, (long)t->pid, strerror(errno));
        if (setegid(t->saved_gid) != 0)
            pw_warn("cannot return to gid %lu: %s", (unsigned long)t->saved_gid, strerror(errno));
        return false;
    }
    t->entered = true;
    return true;
}

void
pw_target_leave(struct pw_target *t)
{
    if (!t->entered)
        return;
    if (seteuid(t->saved_uid) != 0 || setegid(t->saved_gid) != 0)
        pw_warn("cannot return to uid %lu gid %lu: %s", (unsigned long)t->saved_uid, (unsigned long)t->saved_gid,
                strerror(errno));
    t->entered = false;
}

void
pw_target_path(const struct pw_target *t, const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s%s", t->root, path);
}

static bool
copy_file(const char *from, const char *to)
{
    bool ok = false;
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
    if (in >= 0 && out >= 0) {
        char chunk[65536];
        ssize_t n;
        while ((n = read(in, chunk, sizeof(chunk))) > 0)
            if (!pw_write_all(out, chunk, (size_t)n))
                break;
        ok = n == 0;
    }
    int saved = errno;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        ok = false;
    errno = saved;
    return ok;
}

bool
pw_target_stage_library(struct pw_target *t, const char *lib, char *out, size_t len)
{
    snprintf(out, len, "%s", lib);
    if (t->root[0] == '\0')
        return true;
    char there[PATH_MAX + 64];
    struct stat mine, theirs;
    pw_target_path(t, lib, there, sizeof(there));
    if (stat(lib, &mine) == 0 && stat(there, &theirs) == 0 && mine.st_dev == theirs.st_dev &&
        mine.st_ino == theirs.st_ino)
        return true;
    /* The JVM's /tmp, as the JVM's owner: the directory is private to it and
     * stays, as the JVM maps the library until it ends. */
    char dir[PATH_MAX + 64];
    pw_target_path(t, "/tmp/pinwatch.XXXXXX", dir, sizeof(dir));
    if (mkdtemp(dir) == NULL) {
        pw_error("the JVM runs in another mount namespace and cannot see %s; copying it to %s failed: %s", lib,
                 dir, strerror(errno));
        return false;
    }
    char copy[PATH_MAX + 96];
    snprintf(copy, sizeof(copy), "%s/libpinwatch.so", dir);
    if (!copy_file(lib, copy)) {
        pw_error("the JVM runs in another mount namespace and cannot see %s; copying it to %s failed: %s", lib,
                 copy, strerror(errno));
        return false;
    }
    snprintf(out, len, "%s", copy + strlen(t->root));
    fprintf(stderr, "pinwatch: the JVM runs in another mount namespace: agent copied to %s there\n", out);
    return true;
}

/* The listener's socket, if it is there and is the JVM owner's. */
static bool
socket_ready(const struct pw_target *t, const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == t->uid;
}

/* Creates .attach_pid<nspid> where the JVM looks for it, sends SIGQUIT and
 * waits for the socket.  The file goes in the JVM's working directory, else
 * its /tmp. */
static bool
start_listener(const struct pw_target *t, const char *sock, int wait_ms)
{
    char trigger[PATH_MAX];
    snprintf(trigger, sizeof(trigger), "/proc/%ld/cwd/.attach_pid%ld", (long)t->pid, (long)t->nspid);
    int fd = open(trigger, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0660);
    if (fd < 0) {
        char tmp[128];
        snprintf(tmp, sizeof(tmp), "/tmp/.attach_pid%ld", (long)t->nspid);
        pw_target_path(t, tmp, trigger, sizeof(trigger));
        fd = open(trigger, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0660);
    }
    if (fd < 0) {
        pw_error("cannot create %s to start the JVM's attach listener: %s", trigger, strerror(errno));
        return false;
    }
    close(fd);

    bool ok = false;
    if (kill(t->pid, SIGQUIT) != 0) {
        pw_error("cannot signal process %ld: %s", (long)t->pid, strerror(errno));
        goto out;
    }
    int64_t deadline = pw_clock_monotonic_ms() + wait_ms;
    int pause = 10;
    while (!(ok = socket_ready(t, sock)) && pw_clock_monotonic_ms() < deadline) {
        struct timespec ts = {0, (long)pause * 1000000L};
        nanosleep(&ts, NULL);
        if (pause < 100)
            pause += 10;
    }
    if (!ok)
        pw_error(
            "process %ld did not open its attach socket %s within %d ms: not a HotSpot JVM, started with "
            "-XX:+DisableAttachMechanism, or too busy",
            (long)t->pid, sock, wait_ms);
out:
    unlink(trigger);
    return ok;
}

/* A connected socket to path, or -1 with errno set. */
static int
connect_to(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

static bool
send_request(int fd, const char *const *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!pw_write_all(fd, parts[i], strlen(parts[i]) + 1))
            return false;
    return true;
}

/* Reads the whole answer (the JVM closes the connection after it). */
static bool
read_answer(int fd, char *out, size_t len, int timeout_ms)
{
    size_t n = 0;
    int64_t deadline = pw_clock_monotonic_ms() + timeout_ms;
    for (;;) {
        int left = (int)(deadline - pw_clock_monotonic_ms());
        if (left <= 0) {
            errno = ETIMEDOUT;
            return false;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ETIMEDOUT;
            return false;
        }
        char chunk[1024];
        ssize_t got = read(fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return false;
        if (got == 0)
            break;
        size_t keep = (size_t)got < len - 1 - n ? (size_t)got : len - 1 - n;
        memcpy(out + n, chunk, keep);
        n += keep;
    }
    out[n] = '\0';
    return true;
}

static void
parse_answer(const char *answer, struct pw_load_result *r)
{
    char *end;
    r->status = (int)strtol(answer, &end, 10);
    const char *rest = end;
    while (*rest == '\n' || *rest == '\r')
        rest++;
    snprintf(r->text, sizeof(r->text), "%s", rest);
    size_t n = strlen(r->text);
    while (n > 0 && (r->text[n - 1] == '\n' || r->text[n - 1] == ' '))
        r->text[--n] = '\0';
    /* "return code: N" (JDK 21+) or a bare "N" (JDK 17): the agent's result. */
    const char *code = r->text;
    if (strncmp(code, "return code: ", 13) == 0)
        code += 13;
    long v = strtol(code, &end, 10);
    r->has_code = r->status == 0 && end != code && (*end == '\0' || *end == '\n');
    r->code = r->has_code ? (int)v : 0;
}

bool
pw_attach_load(const struct pw_target *t, const char *lib, const char *options, int wait_ms,
               struct pw_load_result *r)
{
    memset(r, 0, sizeof(*r));
    char name[64], sock[PATH_MAX];
    snprintf(name, sizeof(name), "/tmp/.java_pid%ld", (long)t->nspid);
    pw_target_path(t, name, sock, sizeof(sock));
    if (!socket_ready(t, sock) && !start_listener(t, sock, wait_ms))
        return false;
    if (strlen(sock) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        pw_error("attach socket path too long: %s", sock);
        return false;
    }
    int fd = connect_to(sock);
    if (fd < 0 && errno == ECONNREFUSED) {
        /* A socket file nobody listens on: left by a JVM killed with
         * SIGKILL whose pid this process now has, or by one whose listener
         * stopped.  HotSpot's listener starts only when no socket file is
         * there: remove it and ask for a listener as if there were none. */
        if (unlink(sock) != 0) {
            pw_error("cannot remove the stale attach socket %s (nothing listens on it): %s", sock,
                     strerror(errno));
            return false;
        }
        if (!start_listener(t, sock, wait_ms))
            return false;
        fd = connect_to(sock);
    }
    if (fd < 0) {
        pw_error("cannot connect to %s: %s", sock, strerror(errno));
        return false;
    }
    /* A JVM that drops us mid-request must not kill us with SIGPIPE. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    const char *request[] = {"1", "load", lib, "true", options};
    char answer[4096];
    bool sent = send_request(fd, request, sizeof(request) / sizeof(request[0]));
    int saved = errno;
    sigaction(SIGPIPE, &old, NULL);
    if (!sent) {
        pw_error("cannot send the load request to %s: %s", sock, strerror(saved));
        close(fd);
        return false;
    }
    /* The agent runs Agent_OnAttach (and a dump) before the JVM answers. */
    if (!read_answer(fd, answer, sizeof(answer), 60000)) {
        pw_error("no answer from JVM %ld on %s: %s", (long)t->pid, sock, strerror(errno));
        close(fd);
        return false;
    }
    close(fd);
    if (answer[0] == '\0') {
        /* HotSpot closes without a word on a peer whose uid/gid it refuses. */
        pw_error(
            "JVM %ld closed the attach connection without an answer (it accepts only uid %lu gid %lu or "
            "root)",
            (long)t->pid, (unsigned long)t->uid, (unsigned long)t->gid);
        return false;
    }
    parse_answer(answer, r);
    return true;
}
