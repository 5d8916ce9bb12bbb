/* pinwatch diff A.jsonl [B.jsonl]: live pins between two reports. */
#include "commands.h"
#include "diff.h"
#include "dumps.h"
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
    "most growth first.  Counts are exact integers.\n";

void
pw_usage_diff(FILE *out)
{
    fputs(usage, out);
}

int
pw_cmd_diff(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            pw_usage_diff(stdout);
            return PW_EXIT_OK;
        }
        return pw_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
    }
    int files = argc - optind;
    if (files < 1 || files > 2)
        return pw_usage_error("diff", "%s", files < 1 ? "missing the JSON Lines file(s)" : "more than two files");
    struct pw_dumps a, b;
    if (!pw_dumps_read(argv[optind], &a))
        return PW_EXIT_FAIL;
    if (files == 1) {
        if (a.n < 2) {
            pw_error("%s holds one report; diff compares its first and last, or the last of two files",
                     argv[optind]);
            pw_dumps_free(&a);
            return PW_EXIT_FAIL;
        }
        pw_diff(stdout, &a.items[0], &a.items[a.n - 1]);
        pw_dumps_free(&a);
        return PW_EXIT_OK;
    }
    if (!pw_dumps_read(argv[optind + 1], &b)) {
        pw_dumps_free(&a);
        return PW_EXIT_FAIL;
    }
    pw_diff(stdout, &a.items[a.n - 1], &b.items[b.n - 1]);
    pw_dumps_free(&a);
    pw_dumps_free(&b);
    return PW_EXIT_OK;
}
