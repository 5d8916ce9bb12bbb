/* SPDX-License-Identifier: Apache-2.0 */
/* Argument helpers shared by the commands: usage errors, process ids,
 * timeouts, the agent library's path, paths for a JVM elsewhere. */
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
pw_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pw_error("%s%s%s (see 'pinwatch help%s%s')", cmd ? cmd : "", cmd ? ": " : "", msg, cmd ? " " : "",
             cmd ? cmd : "");
    return PW_EXIT_USAGE;
}

bool
pw_parse_pid(const char *cmd, const char *s, pid_t *out)
{
    uint64_t v;
    if (!pw_parse_uint(s, INT_MAX, &v) || v == 0) {
        pw_usage_error(cmd, "not a process id: '%s'", s);
        return false;
    }
    *out = (pid_t)v;
    return true;
}

int
pw_pid_operand(const char *cmd, int argc, char **argv, pid_t *pid)
{
    if (optind >= argc)
        return pw_usage_error(cmd, "%s", "missing PID");
    if (optind + 1 < argc)
        return pw_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    return pw_parse_pid(cmd, argv[optind], pid) ? -1 : PW_EXIT_USAGE;
}

bool
pw_parse_timeout(const char *cmd, const char *s, int *ms)
{
    uint64_t v;
    if (!pw_parse_uint(s, 3600, &v) || v == 0) {
        pw_usage_error(cmd, "--timeout takes whole seconds from 1 to 3600, not '%s'", s);
        return false;
    }
    *ms = (int)v * 1000;
    return true;
}

/* The agent library next to this program: installed, in a release archive
 * (bin/pinwatch, lib/libpinwatch.so), then in a build dir. */
static bool
default_agent(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        pw_error("cannot find this program's path (/proc/self/exe): %s; pass --agent PATH", strerror(errno));
        return false;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    const char *candidates[] = {PW_AGENT_INSTALLED_REL, "../lib/libpinwatch.so", PW_AGENT_BUILD_REL,
                                PW_AGENT_INSTALLED_ABS};
    struct pw_buf tried = {0};
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        char path[PATH_MAX + 16];
        if (candidates[i][0] == '\0')
            continue;
        if (candidates[i][0] == '/')
            snprintf(path, sizeof(path), "%s", candidates[i]);
        else
            snprintf(path, sizeof(path), "%s/%s", exe, candidates[i]);
        char real[PATH_MAX];
        if (access(path, R_OK) == 0 && realpath(path, real) != NULL) {
            snprintf(out, len, "%s", real);
            pw_buf_free(&tried);
            return true;
        }
        pw_buf_printf(&tried, "%s%s", tried.len ? ", " : "", path);
    }
    pw_error("no agent library at %s; pass --agent PATH", tried.data != NULL ? tried.data : "(none known)");
    pw_buf_free(&tried);
    return false;
}

bool
pw_agent_path(const char *given, char *out, size_t len)
{
    if (given == NULL)
        return default_agent(out, len);
    char real[PATH_MAX];
    if (access(given, R_OK) != 0 || realpath(given, real) == NULL) {
        pw_error("--agent %s: %s", given, strerror(errno));
        return false;
    }
    snprintf(out, len, "%s", real);
    return true;
}

bool
pw_absolute(const char *cmd, const char *opt, const char *path, bool same_ns, char *out, size_t len)
{
    if (path[0] == '/') {
        snprintf(out, len, "%s", path);
        return true;
    }
    if (!same_ns) {
        pw_usage_error(cmd, "%s needs an absolute path (as the JVM in its container sees it)", opt);
        return false;
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        pw_error("cannot find the working directory: %s", strerror(errno));
        return false;
    }
    snprintf(out, len, "%s/%s", cwd, path);
    return true;
}

const char *
pw_code_meaning(int code)
{
    switch (code) {
    case 0: return "pinwatch is tracking pins";
    case 1: return "bad options; the JVM's stderr has the agent's [pinwatch] ERROR line";
    case 2: return "the JVM refused a JVMTI environment or capability; see the JVM's stderr";
    case 3: return "the agent printed its options on the JVM's stderr and did not start";
    default: return "not a pinwatch return code";
    }
}

void
pw_one_line(char *s)
{
    for (char *p = s; *p != '\0'; p++)
        if (*p == '\n')
            *p = ';';
}
