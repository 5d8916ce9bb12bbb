/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch report FILE|DIR... [-o OUT]: one HTML page from the agent's reports,
 * of one JVM or of many. */
#include "commands.h"
#include "dumps.h"
#include "fleet.h"
#include "report_html.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>

static const char usage[] =
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

void
pw_usage_report(FILE *out)
{
    fputs(usage, out);
}

int
pw_cmd_report(int argc, char **argv)
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
        case 'h': pw_usage_report(stdout); return PW_EXIT_OK;
        case ':': return pw_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
        default: return pw_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return pw_usage_error("report", "%s", "missing the JSON Lines file");
    /* Several files or a directory: reports of many JVMs (fleet.c). */
    int inputs = argc - optind;
    if (inputs > 1 && output == NULL)
        return pw_usage_error("report", "%s", "several inputs: name the page with -o");
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
