/* SPDX-License-Identifier: Apache-2.0 */
/* A report's data, copied out of the live tables in one short pass: the
 * formats then work on this copy and make no JVM calls and take no locks
 * the hot path could wait on. */
#ifndef PW_SNAPSHOT_H
#define PW_SNAPSHOT_H

#include "base/options.h"
#include "base/pinwatch.h"
#include "tracking/findings.h"
#include "jvm/java_stack.h"
#include "state/site_table.h"
#include "jvm/symbols.h"

struct pw_snap_frame {
    uintptr_t address; /* a return address, or the function start for a tail call */
    struct pw_location where;
    bool inlined;   /* a function inlined into the frame that follows */
    bool tail_call; /* the native method's last act was the Get */
};

struct pw_snap_stack {
    struct pw_snap_frame *frames; /* innermost first */
    int n;
};

/* A pin site: (native method, acquire function, call site). */
struct pw_snap_site {
    uint32_t site;
    uintptr_t ret;
    uint64_t acquired, released, commits;
    uint64_t live, live_bytes, leaked, suppressed;
    uint64_t carried;      /* released after their method returned holding them */
    uint64_t leaked_bytes; /* of the leaked pins (Java API) */
    uint64_t oldest_age_ms;
    /* Symbolised after the copy: the first stack seen, then any others
     * sampling found. */
    struct pw_snap_stack stacks[PW_SITE_STACKS];
    int nstacks;
    const struct pw_java_stack *java_stack; /* owned by the site, never freed */
};

struct pw_snap_row {
    const char *method, *signature; /* owned by the method records */
    uint32_t fn;                    /* enum pw_function */
    uint64_t acquired, released, commits;
    uint64_t live, live_bytes, leaked, suppressed;
    uint64_t carried;
    uint64_t oldest_age_ms;
    struct pw_snap_site *sites; /* points into pw_snapshot.sites */
    size_t nsites;
    /* Change since the previous report (report.c fills these). */
    int64_t live_delta;
    uint64_t acquired_delta;
    double acquired_per_s;
};

/* A reference site: (native method, kind, the JNI function that made the
 * references, call site). */
struct pw_snap_ref_site {
    uint32_t site;
    uintptr_t ret;
    uint64_t created, deleted;
    uint64_t freed; /* by the JVM: PopLocalFrame, detach, thread end */
    uint64_t live;
    uint64_t oldest_age_ms;
    uint32_t peak;       /* local sites: most locals of one invocation when one was made here */
    uint64_t over_limit; /* local sites: invocations that passed local_limit here */
    /* Symbolised as pin sites are, but in full only where references are
     * live or a call went past local_limit (snapshot.c). */
    struct pw_snap_stack stacks[PW_SITE_STACKS];
    int nstacks;
    const struct pw_java_stack *java_stack; /* owned by the site, never freed */
    bool jdk;                               /* made by the JDK's own code (pw_snap_site_jdk); set where live */
};

struct pw_snap_ref_row {
    const char *method, *signature; /* owned by the method records */
    uint8_t kind;                   /* enum pw_kind: global, weak or local */
    uint32_t fn;                    /* the JNI slot of the function that made them */
    uint64_t created, deleted, freed, live;
    uint64_t oldest_age_ms;
    uint32_t peak;
    uint64_t over_limit;
    struct pw_snap_ref_site *sites; /* points into pw_snapshot.ref_sites */
    size_t nsites;
    /* Change since the previous report (report.c fills these). */
    int64_t live_delta;
    uint64_t created_delta;
    double created_per_s;
};

struct pw_snap_finding {
    const char *kind;
    const char *method, *signature; /* of the pin, or of the critical region */
    const char *function;           /* the pin's acquire function, or the reference's maker; "?" */
    const char *call_function;      /* release or JNI function of the offending call */
    uint64_t count;
    /* long_critical only */
    uint64_t max_ms, p99_ms;
    bool has_site;
    struct pw_snap_stack acquire; /* the pin's (or critical region's) site */
    struct pw_snap_stack call;    /* where the offending call was made */
};

struct pw_snap_totals {
    uint64_t acquired, released, commits, live, live_bytes, leaked, suppressed;
    uint64_t carried;
    uint64_t leaked_unsuppressed; /* what exitcode= looks at */
    uint64_t unmatched_releases, lost, double_releases, findings;
    uint64_t methods;
    uint64_t table_bytes; /* the agent's pin tables: leak table and threads' tables */
    /* References (ref_exitcode= looks at these two). */
    uint64_t ref_live;     /* live global, weak and attached-thread local references */
    uint64_t ref_findings; /* double_delete and local_limit findings */
};

/* The references section.  Pin rows and totals never include references. */
struct pw_snap_ref_totals {
    uint64_t created, deleted, freed;
    uint64_t live, live_global, live_weak, live_local;
    uint64_t unknown_global_deletes, unknown_weak_deletes, unknown_local_deletes;
    uint64_t double_deletes, local_limit, lost;
    uint64_t table_bytes;
};

/* Every kind of finding with its count, zero or not: a metric that exists
 * from the start lets rate() and increase() see the first one. */
struct pw_snap_kind {
    const char *kind;
    uint64_t count;
};

struct pw_snapshot {
    const char *reason;
    long pid;
    char host[256]; /* gethostname(); empty when it failed */
    uint64_t uptime_ms, time_ms;
    uint64_t since_ms;      /* since the previous report; 0 for the first */
    bool after_report;      /* a previous report exists: its deltas mean growth since it */
    uint64_t ref_threshold; /* the option: a reference row holding this many is a suspect; 0: off */
    struct pw_snap_totals totals;
    struct pw_snap_row *rows;
    size_t nrows;
    struct pw_snap_site *sites; /* the pin sites, grouped by row */
    size_t nsites;
    /* References: rows of kinds global, weak and local, and their sites. */
    struct pw_snap_ref_row *refs;
    size_t nrefs;
    struct pw_snap_ref_site *ref_sites;
    size_t nref_sites;
    struct pw_snap_ref_totals ref_totals;
    bool refs_on;
    struct pw_snap_finding *findings;
    size_t nfindings;
    struct pw_snap_kind kinds[PW_FINDING_KINDS];
    size_t nkinds;
    struct pw_symbols *symbols;
};

/* "global", "weak" or "local" for a reference row's kind. */
PW_HIDDEN const char *pw_snap_ref_kind(uint8_t kind);
/* The JNI function that made a reference row's references. */
PW_HIDDEN const char *pw_snap_ref_function_name(uint32_t fn);
/* The function a site names: a pin's acquire function, or the JNI function
 * that made a reference. */
PW_HIDDEN const char *pw_snap_site_function(const struct pw_site *site);
/* Whether the site's call lies in the JDK's own native code: the JVM and
 * the libraries of the JDK it runs in (libjvm.so's lib directory, that is
 * java.home/lib).  Such references are the JDK's caches, never a test's
 * or a library's leak (README, "References"). */
PW_HIDDEN bool pw_snap_site_jdk(const struct pw_site *site);

/* A finding's names as the reports give them (kind, method, signature,
 * function, offending call, has_site; the rest of *f zeroed), for a
 * finding of kind at site_id (0 or unknown: "<unknown>") with detail as
 * pw_finding's.  Returns the site, or NULL. */
PW_HIDDEN const struct pw_site *pw_snap_finding_names(enum pw_finding_kind kind, uint32_t site_id,
                                                      uint32_t detail, struct pw_snap_finding *f);

/* refs= from o: whether reports carry a references section. */
PW_HIDDEN void pw_snapshot_start(const struct pw_options *o);

/* Returns false when memory ran out (nothing to free then). */
PW_HIDDEN bool pw_snapshot_take(struct pw_snapshot *snap, const char *reason);
/* The figures alone: no stack is symbolised (sites' stacks and findings'
 * sites are empty), so a metrics scrape costs a pass over the tables and
 * nothing more. */
PW_HIDDEN bool pw_snapshot_take_figures(struct pw_snapshot *snap, const char *reason);
/* Less still, for the Java API (java_api.c): the sites' figures and the
 * totals, pin sites and reference sites each in site order, without rows,
 * findings or the host name.  The same locked pass over the tables as a report's, no more. */
PW_HIDDEN bool pw_snapshot_take_sites(struct pw_snapshot *snap);
PW_HIDDEN void pw_snapshot_free(struct pw_snapshot *snap);

#endif
