/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's option string: comma-separated key=value pairs, as other JVM
 * agents take them.  Parsing never exits: it fills an error line that the
 * entry point prints before refusing to start. */
#ifndef PW_OPTIONS_H
#define PW_OPTIONS_H

#include "base/pinwatch.h"

#include <stdio.h>

enum pw_format { PW_FORMAT_TEXT, PW_FORMAT_JSON, PW_FORMAT_COLLAPSED, PW_FORMAT_OPENMETRICS };

#define PW_PATH_MAX 4096

/* What stack= costs: a site's native stack is taken when the site is new and
 * again at most every PW_SAMPLE_MS, looked at on every PW_SAMPLE_PERIOD-th
 * Get of a thread, so that a site reached along several paths shows them
 * while a hot site costs next to nothing.  Here, below the tracker that
 * samples, so that help can say it. */
#define PW_SAMPLE_PERIOD 64
#define PW_SAMPLE_MS 50

struct pw_options {
    char file[PW_PATH_MAX]; /* empty: stderr; "%p" expands to the pid */
    char log[PW_PATH_MAX];  /* pinwatch's own lines: empty: stderr; "none": nowhere; else a file */
    enum pw_format format;
    uint64_t threshold;         /* live pins that trigger a report; 0: off */
    uint64_t interval_ms;       /* period of reports; 0: off */
    int exitcode;               /* exit status when leaks remain at exit; 0: off */
    char suppress[PW_PATH_MAX]; /* suppression file; empty: none */
    int stack;                  /* native frames per site; 0: the call site only */
    int javastack;              /* Java frames per site; 0: none */
    uint64_t critical_ms;       /* critical regions held longer are findings */
    /* metrics=: where the HTTP endpoint listens; metrics_port 0: no endpoint. */
    char metrics_host[64]; /* a numeric IPv4 or IPv6 address */
    uint16_t metrics_port;
    uint64_t metrics_rows;  /* rows in a metrics exposition before the rest become "other" */
    bool refs;              /* JNI references tracked (refs=on) */
    uint64_t ref_threshold; /* live references that trigger a report; 0: off */
    uint64_t local_limit;   /* locals one invocation may hold before a finding */
    int ref_exitcode;       /* exit status when reference problems remain at exit; 0: off */
    bool help;
    bool dump;      /* command: write a report now (second load only) */
    uint64_t given; /* bit i: the key of row i of the table appeared in the text */
};

/* What a row's value is, for the code that reads the table: the parser's
 * shared setters, pw_options_defaults, and the pinwatch command, which
 * makes paths absolute before it hands them to a JVM elsewhere. */
enum pw_option_kind {
    PW_OPT_WORD,   /* a word of values, or a syntax its own setter parses */
    PW_OPT_UINT,   /* a decimal number in [min, max], at offset (size bytes) */
    PW_OPT_PATH,   /* a file the JVM opens, at offset (a char[size]) */
    PW_OPT_SWITCH, /* on or off, a bool at offset */
};

/* One row of the option table: every key the agent takes, in the order help
 * lists them.  fallback is the default as help shows it; a number's or a
 * switch's is also given to set() by pw_options_defaults, so it is written
 * once, unless it is "off", which names the zeroed field as the other
 * words ("stderr", "none", "text") do.  set is NULL for the bare words
 * (dump, help). */
struct pw_option_spec {
    const char *key;
    const char *values;
    const char *fallback;
    const char *help;
    /* Returns false when value is not acceptable for this key. */
    bool (*set)(struct pw_options *opts, const struct pw_option_spec *spec, const char *value, size_t len);
    enum pw_option_kind kind;
    /* The field the shared setters write (UINT, PATH, SWITCH rows). */
    size_t offset, size;
    uint64_t min, max; /* UINT rows: the values accepted */
};

/* The table, for the pinwatch command, which offers the same keys. */
PW_HIDDEN const struct pw_option_spec *pw_option_specs(size_t *count);

PW_HIDDEN void pw_options_defaults(struct pw_options *opts);

/* Whether key appeared in the parsed text. */
PW_HIDDEN bool pw_options_given(const struct pw_options *opts, const char *key);

/* The first key that appeared in the parsed text and is not in allowed (a
 * NULL-terminated list), or NULL when there is none. */
PW_HIDDEN const char *pw_options_given_outside(const struct pw_options *opts, const char *const *allowed);

/* Returns false and writes one line naming the offending key or value into
 * err when text is not a valid option string.  opts is then unspecified. */
PW_HIDDEN bool pw_options_parse(const char *text, struct pw_options *opts, char *err, size_t errlen);

/* value[0..len) as a decimal integer of digits only, at most max (every
 * number of the option string is read so; the pinwatch command too). */
PW_HIDDEN bool pw_parse_decimal(const char *value, size_t len, uint64_t max, uint64_t *out);

/* Every option, its values and its default, one per line. */
PW_HIDDEN void pw_options_print_help(FILE *out);

#endif
