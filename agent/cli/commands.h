/* SPDX-License-Identifier: Apache-2.0 */
/* The pinwatch commands, one file each (cmd_*.c), and the argument helpers
 * they share (args.c).  main.c dispatches on the first argument. */
#ifndef PW_CLI_COMMANDS_H
#define PW_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* A command: its parser and work, and its usage text (-h, help NAME). */
struct pw_command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
};

int pw_cmd_attach(int argc, char **argv);
void pw_usage_attach(FILE *out);
int pw_cmd_dump(int argc, char **argv);
void pw_usage_dump(FILE *out);
int pw_cmd_run(int argc, char **argv);
void pw_usage_run(FILE *out);
int pw_cmd_report(int argc, char **argv);
void pw_usage_report(FILE *out);
int pw_cmd_diff(int argc, char **argv);
void pw_usage_diff(FILE *out);

/* "pinwatch: CMD: MESSAGE (see 'pinwatch help CMD')"; returns PW_EXIT_USAGE. */
int pw_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* False after a usage error. */
bool pw_parse_pid(const char *cmd, const char *s, pid_t *out);
/* The one operand of attach and dump, argv[optind]: -1 with *pid set, or
 * PW_EXIT_USAGE after a usage error. */
int pw_pid_operand(const char *cmd, int argc, char **argv, pid_t *pid);
bool pw_parse_timeout(const char *cmd, const char *s, int *ms);

/* The agent library: given (made absolute) or the one next to this program.
 * False after one error line. */
bool pw_agent_path(const char *given, char *out, size_t len);

/* path for a JVM whose working directory may not be ours; same_ns: the JVM
 * sees our files at our paths.  False after one error line (opt names the
 * option in it). */
bool pw_absolute(const char *cmd, const char *opt, const char *path, bool same_ns, char *out, size_t len);

/* What the agent's return code means. */
const char *pw_code_meaning(int code);

/* The attach listener's answer in one line. */
void pw_one_line(char *s);

/* --timeout when none is given; usage texts print PW_DEFAULT_TIMEOUT_TEXT. */
#define PW_DEFAULT_TIMEOUT_S 5
#define PW_DEFAULT_TIMEOUT_MS (PW_DEFAULT_TIMEOUT_S * 1000)
#define PW_CLI_STR_(x) #x
#define PW_CLI_STR(x) PW_CLI_STR_(x)
#define PW_DEFAULT_TIMEOUT_TEXT PW_CLI_STR(PW_DEFAULT_TIMEOUT_S)

#endif
