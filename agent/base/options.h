/* The agent's option string: comma-separated key=value pairs, as other JVM
 * agents take them.  Parsing never exits: it fills an error line that the
 * entry point prints before refusing to start. */
#ifndef PW_OPTIONS_H
#define PW_OPTIONS_H

#include "pinwatch.h"

#include <stdio.h>

enum pw_format { PW_FORMAT_TEXT, PW_FORMAT_JSON, PW_FORMAT_COLLAPSED };

#define PW_PATH_MAX 4096

struct pw_options {
    char file[PW_PATH_MAX]; /* empty: stderr; "%p" expands to the pid */
    enum pw_format format;
    uint64_t threshold;      /* live pins that trigger a report; 0: off */
    uint64_t interval_ms;    /* period of reports; 0: off */
    int exitcode;            /* exit status when leaks remain at exit; 0: off */
    char suppress[PW_PATH_MAX]; /* suppression file; empty: none */
    int stack;               /* native frames per site; 0: the call site only */
    int javastack;           /* Java frames per site; 0: none */
    uint64_t critical_ms;    /* critical regions held longer are findings */
    bool refs;               /* JNI references tracked (refs=on) */
    uint64_t ref_threshold;  /* live references that trigger a report; 0: off */
    uint64_t local_limit;    /* locals one invocation may hold before a finding */
    int ref_exitcode;        /* exit status when reference problems remain at exit; 0: off */
    bool help;
    bool dump;               /* command: write a report now (second load only) */
    bool format_set;         /* format= was given (a command keeps the running one otherwise) */
};

PW_HIDDEN void pw_options_defaults(struct pw_options *opts);

/* Returns false and writes one line naming the offending key or value into
 * err when text is not a valid option string.  opts is then unspecified. */
PW_HIDDEN bool pw_options_parse(const char *text, struct pw_options *opts, char *err, size_t errlen);

/* Every option, its values and its default, one per line. */
PW_HIDDEN void pw_options_print_help(FILE *out);

PW_HIDDEN const char *pw_format_name(enum pw_format format);

#endif
