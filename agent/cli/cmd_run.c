/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch run [OPTIONS] -- JAVA ARGS...: start a JVM with the agent. */
#include "agent_args.h"
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_head[] =
    "Usage: pinwatch run [OPTIONS] [--] JAVA [ARGS...]\n"
    "\n"
    "Runs JAVA ARGS... with -agentpath:<agent>=<options> inserted right after JAVA,\n"
    "and exits with the JVM's status (128+N when signal N ended it).  SIGTERM and\n"
    "SIGHUP sent to pinwatch are passed to the JVM; SIGINT and SIGQUIT from the\n"
    "terminal reach the JVM directly and do not end pinwatch.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "Example:\n"
    "  pinwatch run --format json --file pins.jsonl --exitcode 3 -- java -jar app.jar\n";


void
pw_usage_run(FILE *out)
{
    pw_agent_args_usage(out, usage_head, usage_tail);
}

static volatile pid_t run_child;

static void
forward(int sig)
{
    if (run_child > 0)
        kill(run_child, sig);
}

int
pw_cmd_run(int argc, char **argv)
{
    struct pw_agent_args a;
    /* "+": the java command line starts at the first operand. */
    int rc = pw_agent_args_parse("run", argc, argv, "+:h", false, pw_usage_run, &a);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return pw_usage_error("run", "%s", "missing the java command (pinwatch run [OPTIONS] -- java ARGS...)");
    char lib[PATH_MAX];
    if (!pw_agent_path(a.agent, lib, sizeof(lib)))
        return PW_EXIT_FAIL;
    struct pw_buf opts = {0}, flag = {0};
    pw_agent_args_text(&a, &opts);
    pw_buf_printf(&flag, "-agentpath:%s%s%s", lib, opts.len ? "=" : "", opts.data);
    pw_buf_free(&opts);

    int n = argc - optind;
    char **args = pw_xmalloc((size_t)(n + 2) * sizeof(*args));
    args[0] = argv[optind];
    args[1] = flag.data;
    for (int i = 1; i < n; i++)
        args[i + 1] = argv[optind + i];
    args[n + 1] = NULL;

    /* The child reports a failed exec through this pipe (closed on exec). */
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        pw_error("pipe: %s", strerror(errno));
        return PW_EXIT_FAIL;
    }
    struct sigaction fwd = {.sa_handler = forward}, ign = {.sa_handler = SIG_IGN}, oldint, oldquit;
    sigemptyset(&fwd.sa_mask);
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oldint);
    sigaction(SIGQUIT, &ign, &oldquit);
    pid_t child = fork();
    if (child < 0) {
        pw_error("fork: %s", strerror(errno));
        return PW_EXIT_FAIL;
    }
    if (child == 0) {
        sigaction(SIGINT, &oldint, NULL);
        sigaction(SIGQUIT, &oldquit, NULL);
        close(pipefd[0]);
        execvp(args[0], args);
        int err = errno;
        if (!pw_write_all(pipefd[1], &err, sizeof(err)))
            _exit(127);
        _exit(127);
    }
    run_child = child;
    sigaction(SIGTERM, &fwd, NULL);
    sigaction(SIGHUP, &fwd, NULL);
    close(pipefd[1]);
    int err = 0;
    ssize_t got;
    do
        got = read(pipefd[0], &err, sizeof(err));
    while (got < 0 && errno == EINTR);
    close(pipefd[0]);
    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            pw_error("waitpid: %s", strerror(errno));
            return PW_EXIT_FAIL;
        }
    }
    free(args);
    if (got == (ssize_t)sizeof(err)) {
        pw_error("cannot run %s: %s", argv[optind], strerror(err));
        pw_buf_free(&flag);
        return err == ENOENT ? 127 : 126;
    }
    pw_buf_free(&flag);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return PW_EXIT_FAIL;
}
