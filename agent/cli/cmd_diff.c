/* SPDX-License-Identifier: Apache-2.0 */
/* pinwatch diff A.jsonl [B.jsonl] | FILE|DIR...: live pins between two reports,
 * or per JVM across many. */
#include "commands.h"
#include "diff.h"
#include "dumps.h"
#include "fleet.h"
#include "util.h"

#include <getopt.h>

static const char usage[] =
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

void
pw_usage_diff(FILE *out)
{
    fputs(usage, out);
}

int
pw_cmd_diff(int argc, char **argv)
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
            pw_usage_diff(stdout);
            return PW_EXIT_OK;
        }
        if (c == 'j') {
            per_jvm = true;
            continue;
        }
        return pw_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
    }
    int files = argc - optind;
    if (files < 1)
        return pw_usage_error("diff", "%s", "missing the JSON Lines file(s)");
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
