/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch dump PID: ask the agent in a JVM for a report now, by loading
 * the library it runs from once more (the agent takes that as a command). */
#include "agent_args.h"
#include "attach.h"
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_FILE = 1000, OPT_FORMAT, OPT_AGENT, OPT_TIMEOUT };

static const char usage_head[] =
    "Usage: pinwatch dump PID [--file PATH] [--format FORMAT]\n"
    "\n"
    "Asks the pinwatch agent running in JVM PID (attached, or started with\n"
    "-agentpath) for a report now (reason \"command\").  It loads the very library\n"
    "the JVM mapped once more, which the agent takes as a command.\n"
    "\n"
    "Without --file the report is written to a fresh file in the JVM's /tmp\n"
    "(created by pinwatch, as the JVM's owner), printed on stdout and removed.\n"
    "\n"
    "Options:\n"
    "  --file PATH         append the report to PATH instead (a path as the JVM\n"
    "                      sees it; relative: to pinwatch's working directory)\n";

static const char usage_tail[] =
    "  --agent PATH        load this library instead of the one the JVM mapped\n"
    "  --timeout SECONDS   wait at most this long for the attach listener (" PW_DEFAULT_TIMEOUT_TEXT
    ")\n"
    "\n"
    "Exit status: 0 when a report was written, 1 when not (pinwatch not running in\n"
    "that JVM, JVM not reachable), 2 for a bad command line.\n";

void
pw_usage_dump(FILE *out)
{
    fputs(usage_head, out);
    /* format= as the agent describes it: a format added there is offered here. */
    pw_agent_args_help_row(out, "format");
    fputs(usage_tail, out);
}

static bool
read_whole(const char *path, struct pw_buf *b)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof(chunk))) > 0)
        pw_buf_add(b, chunk, (size_t)n);
    int saved = errno;
    close(fd);
    errno = saved;
    return n == 0;
}

int
pw_cmd_dump(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"file", required_argument, NULL, OPT_FILE},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"agent", required_argument, NULL, OPT_AGENT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *file = NULL, *format = "text", *agent = NULL;
    int timeout_ms = PW_DEFAULT_TIMEOUT_MS, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_FILE: file = optarg; break;
        case OPT_FORMAT: format = optarg; break;
        case OPT_AGENT: agent = optarg; break;
        case OPT_TIMEOUT:
            if (!pw_parse_timeout("dump", optarg, &timeout_ms))
                return PW_EXIT_USAGE;
            break;
        case 'h': pw_usage_dump(stdout); return PW_EXIT_OK;
        case ':': return pw_usage_error("dump", "option '%s' needs a value", argv[optind - 1]);
        default: return pw_usage_error("dump", "unknown option '%s'", argv[optind - 1]);
        }
    }
    pid_t pid;
    int arg_rc = pw_pid_operand("dump", argc, argv, &pid);
    if (arg_rc >= 0)
        return arg_rc;
    if (file != NULL && (file[0] == '\0' || strchr(file, ',') != NULL))
        return pw_usage_error("dump", "--file needs a path without commas, not '%s'", file);
    if (strchr(format, ',') != NULL)
        return pw_usage_error("dump", "--format takes one format, not '%s'", format);
    /* The agent's own parser on the command's own words, so that a format
     * the agent takes is taken here and no other. */
    struct pw_buf check = {0};
    pw_buf_printf(&check, "dump,format=%s", format);
    bool valid = pw_agent_args_check("dump", check.data, NULL);
    pw_buf_free(&check);
    if (!valid)
        return PW_EXIT_USAGE;

    struct pw_target t;
    if (!pw_target_open(pid, &t))
        return PW_EXIT_FAIL;
    char lib[PATH_MAX];
    if (agent != NULL) {
        if (!pw_agent_path(agent, lib, sizeof(lib)))
            return PW_EXIT_FAIL;
    } else if (t.loaded[0] == '\0') {
        pw_error("pinwatch is not running in JVM %ld; start it with 'pinwatch attach %ld' or 'pinwatch run'",
                 (long)pid, (long)pid);
        return PW_EXIT_FAIL;
    } else if (t.loaded_deleted) {
        pw_error(
            "the pinwatch library of JVM %ld (%s) was replaced or removed since it was loaded; a dump would "
            "load a second copy",
            (long)pid, t.loaded);
        return PW_EXIT_FAIL;
    } else {
        snprintf(lib, sizeof(lib), "%s", t.loaded);
    }

    bool to_temp = file == NULL;
    char target_file[PATH_MAX + 256], our_file[PATH_MAX + 320] = "";
    if (file != NULL && !pw_absolute("dump", "--file", file, t.root[0] == '\0', target_file, sizeof(target_file)))
        return PW_EXIT_USAGE;

    int rc = PW_EXIT_FAIL;
    struct pw_buf opts = {0}, body = {0};
    if (!pw_target_enter(&t))
        return PW_EXIT_FAIL;
    if (to_temp) {
        /* Named after the JVM, so that one dump's file is told from
         * another's while both exist. */
        char pattern[64];
        snprintf(pattern, sizeof(pattern), "/tmp/pinwatch-dump-%ld-XXXXXX", (long)pid);
        pw_target_path(&t, pattern, our_file, sizeof(our_file));
        int fd = mkstemp(our_file);
        if (fd < 0) {
            pw_error("cannot create a file for the report in %s/tmp: %s", t.root, strerror(errno));
            pw_target_leave(&t);
            return PW_EXIT_FAIL;
        }
        close(fd);
        snprintf(target_file, sizeof(target_file), "%s", our_file + strlen(t.root));
    }
    pw_buf_printf(&opts, "dump,file=%s,format=%s", target_file, format);
    struct pw_load_result r;
    bool ok = pw_attach_load(&t, lib, opts.data, timeout_ms, &r);
    bool read_ok = true;
    if (to_temp) {
        read_ok = read_whole(our_file, &body);
        unlink(our_file);
    }
    pw_target_leave(&t);
    if (!ok)
        goto out;
    if (r.status != 0) {
        pw_one_line(r.text);
        pw_error("JVM %ld could not load %s: status %d: %s", (long)pid, lib, r.status,
                 r.text[0] ? r.text : "(no message)");
        goto out;
    }
    if (!r.has_code || r.code != 0) {
        pw_one_line(r.text);
        if (r.has_code && r.code == 1)
            pw_error(
                "JVM %ld: the agent refused the dump (return code 1): pinwatch is not running there, or %s is "
                "another copy of it; see the JVM's stderr",
                (long)pid, lib);
        else
            pw_error("JVM %ld: the agent did not write a report: %s", (long)pid,
                     r.has_code ? pw_code_meaning(r.code) : r.text);
        goto out;
    }
    if (!to_temp) {
        fprintf(stderr, "pinwatch: JVM %ld appended a report to %s\n", (long)pid, target_file);
        rc = PW_EXIT_OK;
        goto out;
    }
    if (!read_ok || body.len == 0) {
        pw_error("JVM %ld wrote no report to %s (it could not open it? see the JVM's stderr)", (long)pid,
                 target_file);
        goto out;
    }
    fwrite(body.data, 1, body.len, stdout);
    rc = PW_EXIT_OK;
out:
    pw_buf_free(&opts);
    pw_buf_free(&body);
    return rc;
}
