/* pinwatch report FILE.jsonl [-o OUT]: one HTML page from the agent's reports. */
#include "commands.h"
#include "dumps.h"
#include "report_html.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>

static const char usage[] =
    "Usage: pinwatch report FILE.jsonl [-o OUT.html]\n"
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
    "Options:\n"
    "  -o, --output OUT    the page to write (default FILE without .jsonl, plus\n"
    "                      .html); - for stdout\n";

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
    if (optind + 1 < argc)
        return pw_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
    const char *input = argv[optind];
    struct pw_dumps d;
    if (!pw_dumps_read(input, &d))
        return PW_EXIT_FAIL;
    char derived[PATH_MAX];
    if (output == NULL) {
        size_t len = strlen(input);
        size_t stem = len;
        if (len > 6 && strcmp(input + len - 6, ".jsonl") == 0)
            stem = len - 6;
        else if (len > 5 && strcmp(input + len - 5, ".json") == 0)
            stem = len - 5;
        snprintf(derived, sizeof(derived), "%.*s.html", (int)stem, input);
        output = derived;
    }
    struct pw_buf page = {0};
    pw_report_html(&page, input, &d);
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
        } else {
            printf("%s: %zu report%s\n", output, d.n, d.n == 1 ? "" : "s");
        }
    }
    pw_buf_free(&page);
    pw_dumps_free(&d);
    return rc;
}
