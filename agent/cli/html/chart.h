/* SPDX-License-Identifier: Apache-2.0 */
/* The growth section: live pins and live bytes per native method over time,
 * two SVG line charts and their legend. */
#ifndef PW_CLI_HTML_CHART_H
#define PW_CLI_HTML_CHART_H

#include "dumps.h"
#include "util.h"

#include <stddef.h>
#include <stdint.h>

/* One native method's line: its live pins and bytes at each point. */
struct pw_html_series {
    const char *method;
    uint64_t *live, *bytes; /* one per point, zeroed */
};

/* The series of method in s[0..*n), added with npoints zeroed points when
 * it is not there yet. */
struct pw_html_series *pw_html_series_for(struct pw_html_series **s, size_t *n, const char *method,
                                          size_t npoints);
/* One series per method that holds a live pin in any report of d, one point
 * per report: every row of the method counts (all its functions and
 * signatures). */
size_t pw_html_series_of(const struct pw_dumps *d, struct pw_html_series **out);
void pw_html_series_free(struct pw_html_series *s, size_t n);

/* The whole section: points gives each point's reason, xs[i] its time in
 * ms from the first; note is HTML. */
void pw_html_growth_section(struct pw_buf *b, const char *heading, const char *note,
                            const struct pw_dumps *points, const struct pw_html_series *s, size_t ns,
                            const uint64_t *xs, uint64_t xmax);

#endif
