/* pinwatch: the command line for the pinwatch agent.  Each command is one
 * function here; the work is in attach.c (the JVM's attach protocol),
 * dumps.c (reading reports), report_html.c, diff.c and stacks.c. */
#include "attach.h"
#include "diff.h"
#include "fleet.h"
#include "dumps.h"
#include "report_html.h"
#include "stacks.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- usage ---- */

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

#define AGENT_OPTIONS_HELP                                                                                       \
    "Agent options (passed to the agent as key=value; see -agentpath:...=help):\n"                          \
    "  --file PATH         append reports to PATH (%p: the JVM's pid), default the\n"                        \
    "                      JVM's stderr\n"                                                                     \
    "  --format text|json  report format, default text; json for report and diff\n"                         \
    "  --threshold N       a report when N live pins are reached, again at 2N...;\n"                         \
    "                      0: never (default 10000)\n"                                                         \
    "  --interval SECONDS  a report every SECONDS (0.01 and up; default: never)\n"                            \
    "  --exitcode N        end the JVM with status N (1-255) if pins leaked\n"                               \
    "  --suppress FILE     rules for pins kept on purpose (method:GLOB, library:GLOB,\n"                     \
    "                      function:NAME)\n"                                                                   \
    "  --options TEXT      more agent options, as the agent takes them (a,b=c)\n"                            \
    "  --agent PATH        the agent library (default: the one installed with\n"                             \
    "                      pinwatch, " "or ../libpinwatch.so next to an uninstalled build)\n"

static const char usage_attach[] =
    "Usage: pinwatch attach PID [OPTIONS]\n"
    "\n"
    "Loads the pinwatch agent into the running HotSpot JVM PID (JDK 17 or later) and\n"
    "prints the agent's return code.  pinwatch speaks the JVM's attach protocol\n"
    "itself: no jcmd, no JDK needed.  It tracks pins taken from then on.\n"
    "\n"
    "A JVM in a container (another mount and PID namespace) is reached through\n"
    "/proc/PID/root; when the agent is not visible at the same path there, it is\n"
    "copied into the container's /tmp.  Run as root, pinwatch takes the JVM's\n"
    "uid and gid, as the JVM accepts only its owner; otherwise you must be the\n"
    "JVM's owner.  JDK 21 and later warn about a dynamically loaded agent unless\n"
    "the JVM runs with -XX:+EnableDynamicAgentLoading.\n"
    "\n"
    "Relative --file and --suppress paths are made absolute here, so that the JVM,\n"
    "whose working directory may differ, writes where you expect.\n"
    "\n" AGENT_OPTIONS_HELP
    "  --timeout SECONDS   wait at most this long for the JVM's attach listener\n"
    "                      (default 5)\n"
    "\n"
    "Return codes of the agent: 0 tracking, 1 bad options (the JVM's stderr has a\n"
    "[pinwatch] ERROR line), 2 the JVM refused JVMTI, 3 help printed.\n"
    "\n"
    "Exit status: 0 when the agent returned 0; 1 when it did not, or the JVM could\n"
    "not be reached; 2 for a bad command line.\n"
    "\n"
    "Example:\n"
    "  pinwatch attach 4242 --format json --file /tmp/pins-%p.jsonl --interval 10\n";

static const char usage_dump[] =
    "Usage: pinwatch dump PID [--file PATH] [--format text|json|collapsed]\n"
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
    "                      sees it; relative: to pinwatch's working directory)\n"
    "  --format FORMAT     text (default), json (one JSON line) or collapsed\n"
    "                      (\"frame;frame;... BYTES\" per stack with live bytes,\n"
    "                      for flame graph tools)\n"
    "  --agent PATH        load this library instead of the one the JVM mapped\n"
    "  --timeout SECONDS   wait at most this long for the attach listener (5)\n"
    "\n"
    "Exit status: 0 when a report was written, 1 when not (pinwatch not running in\n"
    "that JVM, JVM not reachable), 2 for a bad command line.\n";

static const char usage_run[] =
    "Usage: pinwatch run [OPTIONS] [--] JAVA [ARGS...]\n"
    "\n"
    "Runs JAVA ARGS... with -agentpath:<agent>=<options> inserted right after JAVA,\n"
    "and exits with the JVM's status (128+N when signal N ended it).  SIGTERM and\n"
    "SIGHUP sent to pinwatch are passed to the JVM; SIGINT and SIGQUIT from the\n"
    "terminal reach the JVM directly and do not end pinwatch.\n"
    "\n" AGENT_OPTIONS_HELP
    "\n"
    "Example:\n"
    "  pinwatch run --format json --file pins.jsonl --exitcode 3 -- java -jar app.jar\n";

static const char usage_report[] =
    "Usage: pinwatch report FILE.jsonl [-o OUT.html]\n"
    "       pinwatch report FILE.jsonl|DIR... -o OUT.html\n"
    "\n"
    "Writes one self-contained HTML page (no network access, no external files)\n"
    "from the agent's JSON Lines reports in FILE: the growth of live pins and live\n"
    "bytes per native method across the reports, the live pins of the latest\n"
    "report as a table (click a header to sort), the agent's findings, and a flame\n"
    "graph of live bytes by stack.\n"
    "\n"
    "A malformed line is an error naming FILE:LINE; a last line cut short (the JVM\n"
    "ended while writing it) is skipped with a warning; the agent's \"[pinwatch]\"\n"
    "log lines are skipped, so a captured stderr works too.\n"
    "\n"
    "Reports of several JVMs (several files, a directory of .jsonl/.json files,\n"
    "or one file that several JVMs appended to) make one page for them all: a\n"
    "table of the JVMs (host and pid), the growth of live pins summed over them,\n"
    "the live pins of each JVM's latest report with its host and pid, the same\n"
    "rows summed, and one flame graph of all their live bytes.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT    the page to write (default FILE or DIR without .jsonl,\n"
    "                      plus .html; needed with several inputs); - for stdout\n";

static const char usage_diff[] =
    "Usage: pinwatch diff A.jsonl B.jsonl\n"
    "       pinwatch diff FILE.jsonl\n"
    "\n"
    "Compares the last report of A with the last report of B, or the first report\n"
    "of FILE with its last.  For each (native method, JNI function) with live pins\n"
    "in either: live pins before and after, the change, the change in live bytes,\n"
    "and the change per second of JVM uptime (when both reports come from one JVM),\n"
    "most growth first.  Counts are exact integers.\n"
    "\n"
    "       pinwatch diff [--per-jvm] FILE|DIR...\n"
    "\n"
    "Reports of many JVMs (a directory of .jsonl/.json files, more than two files,\n"
    "a file several JVMs appended to, or --per-jvm): each JVM's first report\n"
    "against its last (against its start when it wrote one), one row per JVM and\n"
    "(method, function) naming the JVM as HOST:PID, most growth first across all;\n"
    "then the same rows summed over the JVMs, and the total.  JVMs are told apart\n"
    "by host, pid and start time.\n";

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
};

static int cmd_attach(int argc, char **argv);
static int cmd_dump(int argc, char **argv);
static int cmd_run(int argc, char **argv);
static int cmd_report(int argc, char **argv);
static int cmd_diff(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"attach", cmd_attach, usage_attach}, {"dump", cmd_dump, usage_dump},
    {"run", cmd_run, usage_run},          {"report", cmd_report, usage_report},
    {"diff", cmd_diff, usage_diff},       {"help", cmd_help, usage_main},
};

static const struct command *
find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int __attribute__((format(printf, 2, 3)))
usage_error(const char *cmd, const char *fmt, ...)
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

/* ---- shared option handling ---- */

static bool
parse_pid(const char *cmd, const char *s, pid_t *out)
{
    uint64_t v;
    if (!pw_parse_uint(s, INT_MAX, &v) || v == 0) {
        usage_error(cmd, "not a process id: '%s'", s);
        return false;
    }
    *out = (pid_t)v;
    return true;
}

static bool
parse_timeout(const char *cmd, const char *s, int *ms)
{
    uint64_t v;
    if (!pw_parse_uint(s, 3600, &v) || v == 0) {
        usage_error(cmd, "--timeout takes whole seconds from 1 to 3600, not '%s'", s);
        return false;
    }
    *ms = (int)v * 1000;
    return true;
}

/* The agent library next to this program: installed, then in a build dir. */
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
    const char *candidates[] = {PW_AGENT_INSTALLED_REL, PW_AGENT_BUILD_REL, PW_AGENT_INSTALLED_ABS};
    struct pw_buf tried = {0};
    for (size_t i = 0; i < 3; i++) {
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

static bool
agent_path(const char *given, char *out, size_t len)
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

/* A path for a JVM whose working directory may not be ours. */
static bool
absolute(const char *cmd, const char *opt, const char *path, bool same_ns, char *out, size_t len)
{
    if (path[0] == '/') {
        snprintf(out, len, "%s", path);
        return true;
    }
    if (!same_ns) {
        usage_error(cmd, "%s needs an absolute path (as the JVM in its container sees it)", opt);
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

enum {
    OPT_FILE = 1000,
    OPT_FORMAT,
    OPT_THRESHOLD,
    OPT_INTERVAL,
    OPT_EXITCODE,
    OPT_SUPPRESS,
    OPT_OPTIONS,
    OPT_AGENT,
    OPT_TIMEOUT,
};

static const struct option agent_longopts[] = {
    {"file", required_argument, NULL, OPT_FILE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"exitcode", required_argument, NULL, OPT_EXITCODE},
    {"suppress", required_argument, NULL, OPT_SUPPRESS},
    {"options", required_argument, NULL, OPT_OPTIONS},
    {"agent", required_argument, NULL, OPT_AGENT},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct agent_args {
    const char *file, *format, *threshold, *interval, *exitcode, *suppress, *options, *agent;
    int timeout_ms;
};

static bool
valid_seconds(const char *s)
{
    const char *dot = strchr(s, '.');
    size_t whole = dot != NULL ? (size_t)(dot - s) : strlen(s);
    if (whole == 0 && dot == NULL)
        return false;
    for (size_t i = 0; i < whole; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    if (dot != NULL) {
        size_t frac = strlen(dot + 1);
        if (frac == 0 || frac > 3 || strspn(dot + 1, "0123456789") != frac)
            return false;
    }
    return true;
}

/* Parses the agent options of attach and run; returns the exit status on
 * an error, -1 when parsing went fine.  timeout: whether --timeout applies. */
static int
parse_agent_args(const char *cmd, int argc, char **argv, const char *shortopts, bool timeout, struct agent_args *a)
{
    memset(a, 0, sizeof(*a));
    a->timeout_ms = 5000;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, shortopts, agent_longopts, NULL)) != -1) {
        uint64_t v;
        switch (c) {
        case OPT_FILE: a->file = optarg; break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
                return usage_error(cmd, "--format takes text or json, not '%s'", optarg);
            a->format = optarg;
            break;
        case OPT_THRESHOLD:
            if (!pw_parse_uint(optarg, UINT64_C(1) << 40, &v))
                return usage_error(cmd, "--threshold takes a count of pins, not '%s'", optarg);
            a->threshold = optarg;
            break;
        case OPT_INTERVAL:
            if (!valid_seconds(optarg))
                return usage_error(cmd, "--interval takes seconds (up to three decimals), not '%s'", optarg);
            a->interval = optarg;
            break;
        case OPT_EXITCODE:
            if (!pw_parse_uint(optarg, 255, &v) || v == 0)
                return usage_error(cmd, "--exitcode takes a status from 1 to 255, not '%s'", optarg);
            a->exitcode = optarg;
            break;
        case OPT_SUPPRESS: a->suppress = optarg; break;
        case OPT_OPTIONS: a->options = optarg; break;
        case OPT_AGENT: a->agent = optarg; break;
        case OPT_TIMEOUT:
            if (!timeout)
                return usage_error(cmd, "unknown option '%s'", "--timeout");
            if (!parse_timeout(cmd, optarg, &a->timeout_ms))
                return PW_EXIT_USAGE;
            break;
        case 'h': fputs(find_command(cmd)->usage, stdout); return PW_EXIT_OK;
        case ':': return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *paths[] = {a->file, a->suppress};
    const char *names[] = {"--file", "--suppress"};
    for (size_t i = 0; i < 2; i++) {
        if (paths[i] == NULL)
            continue;
        if (paths[i][0] == '\0')
            return usage_error(cmd, "%s needs a path", names[i]);
        /* The agent splits its options at commas. */
        if (strchr(paths[i], ',') != NULL) {
            pw_error("%s: %s %s: the agent cannot take a path with a comma", cmd, names[i], paths[i]);
            return PW_EXIT_USAGE;
        }
    }
    return -1;
}

static void
add_option(struct pw_buf *b, const char *key, const char *value)
{
    if (value == NULL)
        return;
    if (b->len > 0)
        pw_buf_puts(b, ",");
    pw_buf_puts(b, key);
    if (key[0] != '\0')
        pw_buf_puts(b, "=");
    pw_buf_puts(b, value);
}

static void
agent_option_text(const struct agent_args *a, const char *file, const char *suppress, struct pw_buf *b)
{
    add_option(b, "file", file);
    add_option(b, "format", a->format);
    add_option(b, "threshold", a->threshold);
    add_option(b, "interval", a->interval);
    add_option(b, "exitcode", a->exitcode);
    add_option(b, "suppress", suppress);
    if (a->options != NULL && a->options[0] != '\0')
        add_option(b, "", a->options);
    if (b->data == NULL)
        pw_buf_puts(b, "");
}

static const char *
code_meaning(int code)
{
    switch (code) {
    case 0: return "pinwatch is tracking pins";
    case 1: return "bad options; the JVM's stderr has the agent's [pinwatch] ERROR line";
    case 2: return "the JVM refused a JVMTI environment or capability; see the JVM's stderr";
    case 3: return "the agent printed its options on the JVM's stderr and did not start";
    default: return "not a pinwatch return code";
    }
}

/* The attach listener's answer in one line. */
static void
one_line(char *s)
{
    for (char *p = s; *p != '\0'; p++)
        if (*p == '\n')
            *p = ';';
}

/* ---- attach ---- */

static int
cmd_attach(int argc, char **argv)
{
    struct agent_args a;
    int rc = parse_agent_args("attach", argc, argv, ":h", true, &a);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return usage_error("attach", "%s", "missing PID");
    if (optind + 1 < argc)
        return usage_error("attach", "unexpected argument '%s'", argv[optind + 1]);
    pid_t pid;
    if (!parse_pid("attach", argv[optind], &pid))
        return PW_EXIT_USAGE;
    struct pw_target t;
    if (!pw_target_open(pid, &t))
        return PW_EXIT_FAIL;
    char lib[PATH_MAX];
    if (!agent_path(a.agent, lib, sizeof(lib)))
        return PW_EXIT_FAIL;
    if (t.loaded[0] != '\0') {
        pw_error("JVM %ld already runs pinwatch (%s); 'pinwatch dump %ld' asks it for a report", (long)pid,
                 t.loaded, (long)pid);
        return PW_EXIT_FAIL;
    }
    bool same_ns = t.root[0] == '\0';
    char file[PATH_MAX + 256], suppress[PATH_MAX + 256];
    if (a.file != NULL && !absolute("attach", "--file", a.file, same_ns, file, sizeof(file)))
        return PW_EXIT_USAGE;
    if (a.suppress != NULL && !absolute("attach", "--suppress", a.suppress, same_ns, suppress, sizeof(suppress)))
        return PW_EXIT_USAGE;
    struct pw_buf opts = {0};
    agent_option_text(&a, a.file ? file : NULL, a.suppress ? suppress : NULL, &opts);

    rc = PW_EXIT_FAIL;
    char staged[PATH_MAX];
    struct pw_load_result r;
    if (!pw_target_enter(&t))
        goto out;
    bool ok = pw_target_stage_library(&t, lib, staged, sizeof(staged)) &&
              pw_attach_load(&t, staged, opts.data, a.timeout_ms, &r);
    pw_target_leave(&t);
    if (!ok)
        goto out;
    if (r.status != 0) {
        one_line(r.text);
        pw_error("JVM %ld could not load %s: status %d: %s", (long)pid, staged, r.status,
                 r.text[0] ? r.text : "(no message)");
    } else if (!r.has_code) {
        one_line(r.text);
        pw_error("JVM %ld loaded %s but gave no return code: %s", (long)pid, staged, r.text);
    } else if (r.code != 0) {
        pw_error("JVM %ld: the agent returned %d: %s", (long)pid, r.code, code_meaning(r.code));
    } else {
        printf("JVM %ld: agent %s loaded, return code 0: %s\n", (long)pid, staged, code_meaning(0));
        rc = PW_EXIT_OK;
    }
out:
    pw_buf_free(&opts);
    return rc;
}

/* ---- dump ---- */

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

static int
cmd_dump(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"file", required_argument, NULL, OPT_FILE},   {"format", required_argument, NULL, OPT_FORMAT},
        {"agent", required_argument, NULL, OPT_AGENT}, {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0},
    };
    const char *file = NULL, *format = "text", *agent = NULL;
    int timeout_ms = 5000, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_FILE: file = optarg; break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0 && strcmp(optarg, "collapsed") != 0)
                return usage_error("dump", "--format takes text, json or collapsed, not '%s'", optarg);
            format = optarg;
            break;
        case OPT_AGENT: agent = optarg; break;
        case OPT_TIMEOUT:
            if (!parse_timeout("dump", optarg, &timeout_ms))
                return PW_EXIT_USAGE;
            break;
        case 'h': fputs(usage_dump, stdout); return PW_EXIT_OK;
        case ':': return usage_error("dump", "option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("dump", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("dump", "%s", "missing PID");
    if (optind + 1 < argc)
        return usage_error("dump", "unexpected argument '%s'", argv[optind + 1]);
    if (file != NULL && (file[0] == '\0' || strchr(file, ',') != NULL))
        return usage_error("dump", "--file needs a path without commas, not '%s'", file);
    pid_t pid;
    if (!parse_pid("dump", argv[optind], &pid))
        return PW_EXIT_USAGE;

    struct pw_target t;
    if (!pw_target_open(pid, &t))
        return PW_EXIT_FAIL;
    char lib[PATH_MAX];
    if (agent != NULL) {
        if (!agent_path(agent, lib, sizeof(lib)))
            return PW_EXIT_FAIL;
    } else if (t.loaded[0] == '\0') {
        pw_error("pinwatch is not running in JVM %ld; start it with 'pinwatch attach %ld' or 'pinwatch run'",
                 (long)pid, (long)pid);
        return PW_EXIT_FAIL;
    } else if (t.loaded_deleted) {
        pw_error("the pinwatch library of JVM %ld (%s) was replaced or removed since it was loaded; a dump would "
                 "load a second copy",
                 (long)pid, t.loaded);
        return PW_EXIT_FAIL;
    } else {
        snprintf(lib, sizeof(lib), "%s", t.loaded);
    }

    bool to_temp = file == NULL;
    char target_file[PATH_MAX + 256], our_file[PATH_MAX + 320] = "";
    if (file != NULL &&
        !absolute("dump", "--file", file, t.root[0] == '\0', target_file, sizeof(target_file)))
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
        one_line(r.text);
        pw_error("JVM %ld could not load %s: status %d: %s", (long)pid, lib, r.status,
                 r.text[0] ? r.text : "(no message)");
        goto out;
    }
    if (!r.has_code || r.code != 0) {
        one_line(r.text);
        if (r.has_code && r.code == 1)
            pw_error("JVM %ld: the agent refused the dump (return code 1): pinwatch is not running there, or %s is "
                     "another copy of it; see the JVM's stderr",
                     (long)pid, lib);
        else
            pw_error("JVM %ld: the agent did not write a report: %s", (long)pid, r.has_code ? code_meaning(r.code) : r.text);
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

/* ---- run ---- */

static volatile pid_t run_child;

static void
forward(int sig)
{
    if (run_child > 0)
        kill(run_child, sig);
}

static int
cmd_run(int argc, char **argv)
{
    struct agent_args a;
    /* "+": the java command line starts at the first operand. */
    int rc = parse_agent_args("run", argc, argv, "+:h", false, &a);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return usage_error("run", "%s", "missing the java command (pinwatch run [OPTIONS] -- java ARGS...)");
    char lib[PATH_MAX];
    if (!agent_path(a.agent, lib, sizeof(lib)))
        return PW_EXIT_FAIL;
    struct pw_buf opts = {0}, flag = {0};
    agent_option_text(&a, a.file, a.suppress, &opts);
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

/* ---- report ---- */

static int
cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'h': fputs(usage_report, stdout); return PW_EXIT_OK;
        case ':': return usage_error("report", "option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("report", "%s", "missing the JSON Lines file");
    /* Several files or a directory: reports of many JVMs (fleet.c). */
    int inputs = argc - optind;
    if (inputs > 1 && output == NULL)
        return usage_error("report", "%s", "several inputs: name the page with -o");
    const char *input = argv[optind];
    struct pw_fleet fleet;
    if (!pw_fleet_read(argv + optind, inputs, &fleet))
        return PW_EXIT_FAIL;
    bool one_jvm = fleet.nfiles == 1 && fleet.nprocs == 1 && !fleet.had_directory;
    char derived[PATH_MAX];
    if (output == NULL) {
        size_t len = strlen(input);
        while (len > 1 && input[len - 1] == '/')
            len--;
        size_t stem = len;
        if (len > 6 && strncmp(input + len - 6, ".jsonl", 6) == 0)
            stem = len - 6;
        else if (len > 5 && strncmp(input + len - 5, ".json", 5) == 0)
            stem = len - 5;
        snprintf(derived, sizeof(derived), "%.*s.html", (int)stem, input);
        output = derived;
    }
    struct pw_buf page = {0};
    if (one_jvm)
        pw_report_html(&page, input, &fleet.files[0]);
    else
        pw_report_html_fleet(&page, &fleet);
    int rc = PW_EXIT_OK;
    if (strcmp(output, "-") == 0) {
        if (fwrite(page.data, 1, page.len, stdout) != page.len || fflush(stdout) != 0) {
            pw_error("cannot write the page to stdout: %s", strerror(errno));
            rc = PW_EXIT_FAIL;
        }
    } else {
        FILE *f = fopen(output, "we");
        if (f == NULL || fwrite(page.data, 1, page.len, f) != page.len || fclose(f) != 0) {
            pw_error("cannot write %s: %s", output, strerror(errno));
            rc = PW_EXIT_FAIL;
        } else if (one_jvm) {
            printf("%s: %zu report%s\n", output, fleet.ndumps, fleet.ndumps == 1 ? "" : "s");
        } else {
            printf("%s: %zu report%s of %zu JVM%s\n", output, fleet.ndumps, fleet.ndumps == 1 ? "" : "s",
                   fleet.nprocs, fleet.nprocs == 1 ? "" : "s");
        }
    }
    pw_buf_free(&page);
    pw_fleet_free(&fleet);
    return rc;
}

/* ---- diff ---- */

static int
cmd_diff(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"per-jvm", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool per_jvm = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hj", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_diff, stdout);
            return PW_EXIT_OK;
        }
        if (c == 'j') {
            per_jvm = true;
            continue;
        }
        return usage_error("diff", "unknown option '%s'", argv[optind - 1]);
    }
    int files = argc - optind;
    if (files < 1)
        return usage_error("diff", "%s", "missing the JSON Lines file(s)");
    struct pw_fleet f;
    if (!pw_fleet_read(argv + optind, files, &f))
        return PW_EXIT_FAIL;
    /* One JVM per file and at most two files: as ever, the first report
     * against the last, or A's last against B's.  Anything else (fleet.c). */
    bool each = per_jvm || f.had_directory || f.nfiles > 2;
    for (size_t i = 0; i < f.nfiles && !each; i++)
        each = !pw_fleet_file_single(&f, i);
    if (each) {
        pw_diff_fleet(stdout, &f);
    } else if (f.nfiles == 1) {
        const struct pw_dumps *a = &f.files[0];
        if (a->n < 2) {
            pw_error("%s holds one report; diff compares its first and last, or the last of two files",
                     argv[optind]);
            pw_fleet_free(&f);
            return PW_EXIT_FAIL;
        }
        pw_diff(stdout, &a->items[0], &a->items[a->n - 1]);
    } else {
        pw_diff(stdout, &f.files[0].items[f.files[0].n - 1], &f.files[1].items[f.files[1].n - 1]);
    }
    pw_fleet_free(&f);
    return PW_EXIT_OK;
}

/* ---- help ---- */

static int
cmd_help(int argc, char **argv)
{
    if (argc > 2)
        return usage_error("help", "unexpected argument '%s'", argv[2]);
    if (argc < 2 || strcmp(argv[1], "help") == 0) {
        fputs(usage_main, stdout);
        return PW_EXIT_OK;
    }
    const struct command *c = find_command(argv[1]);
    if (c == NULL)
        return usage_error(NULL, "no command '%s'", argv[1]);
    fputs(c->usage, stdout);
    return PW_EXIT_OK;
}

int
main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error(NULL, "%s", "missing COMMAND (attach, dump, run, report, diff or help)");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage_main, stdout);
        return PW_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("pinwatch %s\n", PW_CLI_VERSION);
        return PW_EXIT_OK;
    }
    const struct command *c = find_command(argv[1]);
    if (c == NULL) {
        if (argv[1][0] == '-')
            return usage_error(NULL, "unknown option '%s'", argv[1]);
        return usage_error(NULL, "no command '%s'", argv[1]);
    }
    /* getopt sees the command as argv[0]. */
    int rc = c->run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 && rc == PW_EXIT_OK) {
        pw_error("cannot write to stdout: %s", strerror(errno));
        rc = PW_EXIT_FAIL;
    }
    return rc;
}
