/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the pinwatch commands: one-line diagnostics, checked
 * allocation, a growable string and small parsers. */
#ifndef PW_CLI_UTIL_H
#define PW_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/io.h"          /* pw_write_all, shared with the agent (agent/base) */
#include "pinwatch/version.h" /* PINWATCH_VERSION: --version, the HTML report */

/* Exit statuses of the commands (the JVM's own status for `run`). */
enum {
    PW_EXIT_OK = 0,
    PW_EXIT_FAIL = 1,  /* the command could not do its work */
    PW_EXIT_USAGE = 2, /* bad command line */
};

/* "pinwatch: MESSAGE" on stderr, one line. */
void pw_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "pinwatch: warning: MESSAGE" on stderr, one line. */
void pw_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *pw_xmalloc(size_t n);
void *pw_xrealloc(void *p, size_t n);
char *pw_xstrdup(const char *s);

struct pw_buf {
    char *data;
    size_t len, cap;
};

void pw_buf_add(struct pw_buf *b, const char *s, size_t n);
void pw_buf_puts(struct pw_buf *b, const char *s);
void pw_buf_printf(struct pw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pw_buf_free(struct pw_buf *b);

/* A decimal integer made of digits only, at most max. */
bool pw_parse_uint(const char *s, uint64_t max, uint64_t *out);


/* Formats n with a sign ("+3", "-2", "0"). */
const char *pw_signed(int64_t n, char *out, size_t len);

#endif
