/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's options as options of attach and run: every row of the
 * agent's own table (agent/base/options.c) is a --KEY VALUE option here,
 * checked by the agent's own parser, so the command accepts exactly what the
 * agent accepts and a row added to the agent is offered here unchanged. */
#ifndef PW_CLI_AGENT_ARGS_H
#define PW_CLI_AGENT_ARGS_H

#include "util.h"

#include <stdbool.h>
#include <stdio.h>

#define PW_AGENT_ROWS_MAX 64

struct pw_agent_args {
    /* The value of --KEY for row i of the agent's table; NULL: not given. */
    const char *value[PW_AGENT_ROWS_MAX];
    /* Absolute copies of path values (pw_agent_args_absolute). */
    char *owned[PW_AGENT_ROWS_MAX];
    const char *options; /* --options TEXT, passed on as it is */
    const char *agent;   /* --agent PATH */
    int timeout_ms;      /* --timeout, when the command takes it */
};

/* Parses attach's or run's command line with getopt_long (shortopts: "+:h"
 * for run, which stops at the java command).  Returns -1 when the options
 * are fine and optind points at the operands, else the exit status (0 after
 * --help, PW_EXIT_USAGE after one error line). */
int pw_agent_args_parse(const char *cmd, int argc, char **argv, const char *shortopts, bool timeout,
                        void (*usage)(FILE *), struct pw_agent_args *a);

/* Makes the path values absolute for a JVM elsewhere (see pw_absolute). */
bool pw_agent_args_absolute(const char *cmd, struct pw_agent_args *a, bool same_ns);

/* The option string for the agent: key=value in the table's order, then
 * --options.  "" when there is none. */
void pw_agent_args_text(const struct pw_agent_args *a, struct pw_buf *b);

void pw_agent_args_free(struct pw_agent_args *a);

/* "  --KEY VALUES   help (default: D)" for each row, wrapped to 79 columns. */
void pw_agent_args_help(FILE *out);

/* A command's usage: head, the agent options, tail. */
void pw_agent_args_usage(FILE *out, const char *head, const char *tail);

/* The help of one row (for a command that takes a few of them); false when
 * the agent has no such row. */
bool pw_agent_args_help_row(FILE *out, const char *key);

/* Runs the agent's parser on text; false after a usage error naming cmd. */
bool pw_agent_args_check(const char *cmd, const char *text, bool *dump);

#endif
