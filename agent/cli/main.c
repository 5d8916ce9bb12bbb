/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch: the command line for the pinwatch agent.  main() finds the
 * command; each command's parser, usage text and work are in cmd_NAME.c. */
#include "commands.h"
#include "util.h"

#include <errno.h>
#include <string.h>

static const char usage_main[] =
    "Usage: pinwatch COMMAND [ARGS...]\n"
    "\n"
    "pinwatch counts JNI pins (Get<Type>ArrayElements, GetPrimitiveArrayCritical,\n"
    "GetString[UTF]Chars, GetStringCritical) per Java native method and finds the\n"
    "ones never released.  This program drives the pinwatch agent and reads its\n"
    "JSON Lines reports.\n"
    "\n"
    "Commands:\n"
    "  attach PID [OPTIONS]          load the agent into a running HotSpot JVM\n"
    "  dump PID [OPTIONS]            ask the agent in a JVM for a report now\n"
    "  run [OPTIONS] -- JAVA ARGS... start a JVM with the agent\n"
    "  report FILE|DIR... [-o OUT]   write a self-contained HTML report\n"
    "  diff FILE|DIR...              live pins between reports, per JVM\n"
    "  help [COMMAND]                this text, or a command's\n"
    "\n"
    "Options of every command: -h, --help.  pinwatch --version prints the version.\n"
    "\n"
    "Exit status: 0 on success, 1 when the command failed, 2 for a bad command line\n"
    "(run: the JVM's own status).  Every error is one line on stderr starting with\n"
    "\"pinwatch: \".\n"
    "\n"
    "Run 'pinwatch help COMMAND' for the details of a command.\n";

static void
usage_help(FILE *out)
{
    fputs(usage_main, out);
}

static int cmd_help(int argc, char **argv);

static const struct pw_command commands[] = {
    {"attach", pw_cmd_attach, pw_usage_attach}, {"dump", pw_cmd_dump, pw_usage_dump},
    {"run", pw_cmd_run, pw_usage_run},          {"report", pw_cmd_report, pw_usage_report},
    {"diff", pw_cmd_diff, pw_usage_diff},       {"help", cmd_help, usage_help},
};

static const struct pw_command *
find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int
cmd_help(int argc, char **argv)
{
    if (argc > 2)
        return pw_usage_error("help", "unexpected argument '%s'", argv[2]);
    if (argc < 2 || strcmp(argv[1], "help") == 0) {
        fputs(usage_main, stdout);
        return PW_EXIT_OK;
    }
    const struct pw_command *c = find_command(argv[1]);
    if (c == NULL)
        return pw_usage_error(NULL, "no command '%s'", argv[1]);
    c->usage(stdout);
    return PW_EXIT_OK;
}

int
main(int argc, char **argv)
{
    if (argc < 2)
        return pw_usage_error(NULL, "%s", "missing COMMAND (attach, dump, run, report, diff or help)");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage_main, stdout);
        return PW_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("pinwatch %s\n", PINWATCH_VERSION);
        return PW_EXIT_OK;
    }
    const struct pw_command *c = find_command(argv[1]);
    if (c == NULL) {
        if (argv[1][0] == '-')
            return pw_usage_error(NULL, "unknown option '%s'", argv[1]);
        return pw_usage_error(NULL, "no command '%s'", argv[1]);
    }
    /* getopt sees the command as argv[0]. */
    int rc = c->run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 && rc == PW_EXIT_OK) {
        pw_error("cannot write to stdout: %s", strerror(errno));
        rc = PW_EXIT_FAIL;
    }
    return rc;
}
