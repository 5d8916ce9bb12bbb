/* SPDX-License-Identifier: Apache-2.0 */
#include "agent_args.h"
#include "commands.h"

#include "base/options.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long values: row i of the agent's table is ROW + i. */
enum {
    OPT_OPTIONS = 1000,
    OPT_AGENT,
    OPT_TIMEOUT,
    OPT_ROW = 2000,
};

/* The command's own options; an agent row of the same name is not offered. */
static bool
own_name(const char *key)
{
    return strcmp(key, "options") == 0 || strcmp(key, "agent") == 0 || strcmp(key, "timeout") == 0 ||
           strcmp(key, "help") == 0;
}

static bool
offered(const struct pw_option_spec *spec)
{
    return spec->set != NULL && !own_name(spec->key);
}

/* A row whose value is a file the JVM opens: made absolute for attach. */
static bool
is_path(const struct pw_option_spec *spec)
{
    return spec->kind == PW_OPT_PATH;
}

/* "critical_ms" is also taken as --critical-ms, the usual spelling of a
 * long option; the buffer lives as long as the option table. */
static char dashed[PW_AGENT_ROWS_MAX][48];

static struct option *
long_options(bool timeout, size_t *rows)
{
    size_t n;
    const struct pw_option_spec *specs = pw_option_specs(&n);
    if (n > PW_AGENT_ROWS_MAX)
        n = PW_AGENT_ROWS_MAX;
    *rows = n;
    struct option *o = pw_xmalloc((2 * n + 5) * sizeof(*o));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!offered(&specs[i]))
            continue;
        o[k++] = (struct option){specs[i].key, required_argument, NULL, OPT_ROW + (int)i};
        if (strchr(specs[i].key, '_') != NULL && strlen(specs[i].key) < sizeof(dashed[i])) {
            snprintf(dashed[i], sizeof(dashed[i]), "%s", specs[i].key);
            for (char *p = dashed[i]; *p != '\0'; p++)
                if (*p == '_')
                    *p = '-';
            o[k++] = (struct option){dashed[i], required_argument, NULL, OPT_ROW + (int)i};
        }
    }
    o[k++] = (struct option){"options", required_argument, NULL, OPT_OPTIONS};
    o[k++] = (struct option){"agent", required_argument, NULL, OPT_AGENT};
    if (timeout)
        o[k++] = (struct option){"timeout", required_argument, NULL, OPT_TIMEOUT};
    o[k++] = (struct option){"help", no_argument, NULL, 'h'};
    o[k] = (struct option){NULL, 0, NULL, 0};
    return o;
}

bool
pw_agent_args_check(const char *cmd, const char *text, bool *dump)
{
    struct pw_options parsed;
    char err[512];
    if (!pw_options_parse(text, &parsed, err, sizeof(err))) {
        pw_usage_error(cmd, "the agent would refuse '%s': %s", text, err);
        return false;
    }
    if (dump != NULL)
        *dump = parsed.dump;
    return true;
}

int
pw_agent_args_parse(const char *cmd, int argc, char **argv, const char *shortopts, bool timeout,
                    void (*usage)(FILE *), struct pw_agent_args *a)
{
    memset(a, 0, sizeof(*a));
    a->timeout_ms = PW_DEFAULT_TIMEOUT_MS;
    size_t rows;
    const struct pw_option_spec *specs = pw_option_specs(&rows);
    struct option *longopts = long_options(timeout, &rows);
    int c, rc = -1;
    opterr = 0;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c >= OPT_ROW && c < OPT_ROW + (int)rows) {
            const struct pw_option_spec *spec = &specs[c - OPT_ROW];
            /* The agent splits its options at commas. */
            if (strchr(optarg, ',') != NULL) {
                pw_error("%s: --%s %s: the agent cannot take a %s with a comma", cmd, spec->key, optarg,
                         is_path(spec) ? "path" : "value");
                rc = PW_EXIT_USAGE;
            }
            a->value[c - OPT_ROW] = optarg;
            continue;
        }
        switch (c) {
        case OPT_OPTIONS: a->options = optarg; break;
        case OPT_AGENT: a->agent = optarg; break;
        case OPT_TIMEOUT:
            if (!pw_parse_timeout(cmd, optarg, &a->timeout_ms))
                rc = PW_EXIT_USAGE;
            break;
        case 'h':
            usage(stdout);
            rc = PW_EXIT_OK;
            break;
        case ':': rc = pw_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]); break;
        default: rc = pw_usage_error(cmd, "unknown option '%s'", argv[optind - 1]); break;
        }
    }
    free(longopts);
    if (rc >= 0)
        return rc;
    /* Checked as the agent will check them, so that what passes here the
     * agent takes, and what it would refuse is refused before any JVM is
     * touched. */
    struct pw_buf text = {0};
    pw_agent_args_text(a, &text);
    bool dump = false;
    if (!pw_agent_args_check(cmd, text.data, &dump))
        rc = PW_EXIT_USAGE;
    else if (dump)
        rc = pw_usage_error(cmd, "%s", "'dump' asks a running agent for a report: use 'pinwatch dump PID'");
    pw_buf_free(&text);
    return rc;
}

bool
pw_agent_args_absolute(const char *cmd, struct pw_agent_args *a, bool same_ns)
{
    size_t rows;
    const struct pw_option_spec *specs = pw_option_specs(&rows);
    for (size_t i = 0; i < rows && i < PW_AGENT_ROWS_MAX; i++) {
        if (a->value[i] == NULL || !is_path(&specs[i]))
            continue;
        char opt[64], path[PATH_MAX + 256];
        snprintf(opt, sizeof(opt), "--%s", specs[i].key);
        if (!pw_absolute(cmd, opt, a->value[i], same_ns, path, sizeof(path)))
            return false;
        free(a->owned[i]);
        a->owned[i] = pw_xstrdup(path);
        a->value[i] = a->owned[i];
    }
    return true;
}

void
pw_agent_args_text(const struct pw_agent_args *a, struct pw_buf *b)
{
    size_t rows;
    const struct pw_option_spec *specs = pw_option_specs(&rows);
    for (size_t i = 0; i < rows && i < PW_AGENT_ROWS_MAX; i++)
        if (a->value[i] != NULL)
            pw_buf_printf(b, "%s%s=%s", b->len > 0 ? "," : "", specs[i].key, a->value[i]);
    if (a->options != NULL && a->options[0] != '\0')
        pw_buf_printf(b, "%s%s", b->len > 0 ? "," : "", a->options);
    if (b->data == NULL)
        pw_buf_puts(b, "");
}

void
pw_agent_args_free(struct pw_agent_args *a)
{
    for (size_t i = 0; i < PW_AGENT_ROWS_MAX; i++) {
        free(a->owned[i]);
        a->owned[i] = NULL;
    }
}

/* text from column col on, words wrapped before column 79, continuation
 * lines indented to col. */
static void
wrap(FILE *out, const char *text, int col, int at)
{
    const int width = 79;
    const char *p = text;
    while (*p != '\0') {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len == 0)
            break;
        if (at > col && at + 1 + (int)len > width) {
            fprintf(out, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', out);
            at++;
        }
        fprintf(out, "%.*s", (int)len, p);
        at += (int)len;
        p += len;
    }
    fputc('\n', out);
}

static void
help_row(FILE *out, const struct pw_option_spec *spec)
{
    const int col = 22;
    char left[80], text[1024];
    int n = snprintf(left, sizeof(left), "  --%s %s", spec->key, spec->values);
    fputs(left, out);
    if (n + 2 > col)
        fprintf(out, "\n%*s", col, "");
    else
        fprintf(out, "%*s", col - n, "");
    if (spec->fallback[0] != '\0')
        snprintf(text, sizeof(text), "%s (default: %s)", spec->help, spec->fallback);
    else
        snprintf(text, sizeof(text), "%s", spec->help);
    wrap(out, text, col, col);
}

bool
pw_agent_args_help_row(FILE *out, const char *key)
{
    size_t rows;
    const struct pw_option_spec *specs = pw_option_specs(&rows);
    for (size_t i = 0; i < rows; i++) {
        if (strcmp(specs[i].key, key) == 0 && specs[i].set != NULL) {
            help_row(out, &specs[i]);
            return true;
        }
    }
    return false;
}

void
pw_agent_args_help(FILE *out)
{
    fputs(
        "Agent options (the agent's own, from its table; -agentpath:...=help lists them\n"
        "the agent's way, as key=value):\n",
        out);
    size_t rows;
    const struct pw_option_spec *specs = pw_option_specs(&rows);
    for (size_t i = 0; i < rows && i < PW_AGENT_ROWS_MAX; i++)
        if (offered(&specs[i]))
            help_row(out, &specs[i]);
    fputs(
        "  --options TEXT      more agent options, as the agent takes them (a,b=c)\n"
        "  --agent PATH        the agent library (default: the one installed with\n"
        "                      pinwatch, ../lib/libpinwatch.so in a release archive, or\n"
        "                      ../libpinwatch.so next to an uninstalled build)\n",
        out);
}

void
pw_agent_args_usage(FILE *out, const char *head, const char *tail)
{
    fputs(head, out);
    pw_agent_args_help(out);
    fputs(tail, out);
}
