/* SPDX-License-Identifier: Apache-2.0 */
/* Reports of many JVMs read together: several files or directories, each
 * file holding the reports of one JVM or of several (a shared file=), told
 * apart by host, pid and start time. */
#ifndef PW_CLI_FLEET_H
#define PW_CLI_FLEET_H

#include "dumps.h"

/* One JVM: its reports from every input, in uptime order. */
struct pw_process {
    const char *host; /* "" when its reports name none */
    int64_t pid;
    uint64_t start_ms; /* wall clock at the JVM's start, from its first report */
    const struct pw_dump **dumps;
    size_t n;
};

struct pw_fleet {
    struct pw_dumps *files; /* one per file read */
    char **paths;           /* their names (reports point into these) */
    size_t nfiles;
    struct pw_process *procs; /* by host, then pid, then start */
    size_t nprocs;
    size_t ndumps;
    size_t nhosts; /* distinct hosts named */
    bool had_directory;
};

/* Reads each argument: a file, or a directory whose *.jsonl and *.json
 * files are read in name order.  False after one error line. */
bool pw_fleet_read(char *const *args, int nargs, struct pw_fleet *out);
void pw_fleet_free(struct pw_fleet *f);

/* Whether every report of files[file] is of one JVM. */
bool pw_fleet_file_single(const struct pw_fleet *f, size_t file);

/* "host:pid", or "pid" when the reports name no host. */
const char *pw_process_name(const struct pw_process *p, char *out, size_t len);

#endif
