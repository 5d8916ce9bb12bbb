/* A report's data, copied out of the live tables in one short pass: the
 * formats then work on this copy and make no JVM calls and take no locks
 * the hot path could wait on. */
#ifndef PW_SNAPSHOT_H
#define PW_SNAPSHOT_H

#include "pinwatch.h"
#include "symbols.h"

struct pw_snap_site {
    uint32_t site;
    uintptr_t ret;
    uint64_t acquired, released, commits;
    uint64_t live, live_bytes, leaked, suppressed;
    uint64_t oldest_age_ms;
    struct pw_location where; /* symbolised after the copy */
    bool tail_call;           /* the native method's last act was the Get */
};

struct pw_snap_row {
    const char *method, *signature; /* owned by the method records */
    uint32_t fn;
    uint64_t acquired, released, commits;
    uint64_t live, live_bytes, leaked, suppressed;
    uint64_t oldest_age_ms;
    struct pw_snap_site *sites; /* points into pw_snapshot.sites */
    size_t nsites;
    /* Change since the previous report (report.c fills these). */
    int64_t live_delta;
    uint64_t acquired_delta;
    double acquired_per_s;
};

struct pw_snap_totals {
    uint64_t acquired, released, commits, live, live_bytes, leaked, suppressed;
    uint64_t leaked_unsuppressed; /* what exitcode= looks at */
    uint64_t unmatched_releases, lost;
    uint64_t methods;
};

struct pw_snapshot {
    const char *reason;
    long pid;
    uint64_t uptime_ms, time_ms;
    uint64_t since_ms; /* since the previous report; 0 for the first */
    struct pw_snap_totals totals;
    struct pw_snap_row *rows;
    size_t nrows;
    struct pw_snap_site *sites;
    size_t nsites;
    struct pw_symbols *symbols;
};

/* Returns false when memory ran out (nothing to free then). */
PW_HIDDEN bool pw_snapshot_take(struct pw_snapshot *snap, const char *reason);
PW_HIDDEN void pw_snapshot_free(struct pw_snapshot *snap);

#endif
