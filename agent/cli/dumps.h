/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's JSON Lines reports, read into plain structs.  Fields the agent
 * may not write yet (findings, java_stack, file/line) are optional. */
#ifndef PW_CLI_DUMPS_H
#define PW_CLI_DUMPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dump_frame {
    char *address;
    char *symbol;  /* NULL when unknown */
    char *library; /* NULL when unknown */
    char *file;    /* NULL when absent */
    int64_t offset, line;
    bool tail_call;
};

struct pw_jframe {
    char *method;
    char *signature;
    int64_t line; /* < 0 when absent */
};

struct dump_site {
    uint64_t live, live_bytes, acquired, released;
    struct dump_frame *frames; /* native stack, innermost first */
    size_t nframes;
    struct pw_jframe *java; /* Java stack, innermost first */
    size_t njava;
};

struct pw_row {
    char *method, *signature, *function;
    uint64_t acquired, released, live, live_bytes, leaked, held, suppressed, commits, oldest_age_ms;
    uint64_t carried; /* released by a later call after their method returned; 0 in older reports */
    int64_t live_delta;
    struct dump_site *sites;
    size_t nsites;
};

struct pw_finding {
    char *kind, *method, *function;
    uint64_t count;
    struct dump_site *sites;
    size_t nsites;
};

/* A row of the report's references section. */
struct pw_ref_row {
    char *kind, *method, *function;
    uint64_t created, deleted, freed, live;
};

struct pw_totals {
    uint64_t acquired, released, live, live_bytes, leaked, held, suppressed, unmatched_releases, lost;
    uint64_t carried;
};

struct pw_dump {
    const char *file;
    long line; /* where in the file */
    int64_t pid;
    char *host; /* NULL in reports of agents that did not write it */
    char *version, *reason;
    uint64_t time_ms, uptime_ms, since_ms;
    struct pw_totals totals;
    struct pw_row *rows;
    size_t nrows;
    bool has_findings;
    struct pw_finding *findings;
    size_t nfindings;
    bool has_refs; /* the report has a references section (refs=on) */
    struct pw_ref_row *refs;
    size_t nrefs;
};

struct pw_dumps {
    struct pw_dump *items;
    size_t n;
};

/* Reads every report of path.  A line that is not a report is an error naming
 * path:line; a last line cut short (the JVM ended mid-write) is skipped with
 * one warning; the agent's own "[pinwatch] ..." log lines are skipped.  No
 * report at all is an error too.  False after one error line. */
bool pw_dumps_read(const char *path, struct pw_dumps *out);
void pw_dumps_free(struct pw_dumps *d);

/* Reads reports from the text in data (a dump's output), as pw_dumps_read. */
bool pw_dumps_parse(const char *name, const char *data, size_t len, struct pw_dumps *out);

#endif
