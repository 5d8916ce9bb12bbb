/* SPDX-License-Identifier: Apache-2.0 */
/* `pinwatch report`: one self-contained HTML page from a JSON Lines file.
 * The pages are assembled from the parts in html/ (page shell, growth chart,
 * flame graph, tables); html/file_page.c and html/fleet_page.c build them. */
#ifndef PW_CLI_REPORT_HTML_H
#define PW_CLI_REPORT_HTML_H

#include "dumps.h"
#include "fleet.h"
#include "util.h"

/* The whole page for the reports of file (in file order) into out. */
void pw_report_html(struct pw_buf *out, const char *file, const struct pw_dumps *dumps);

/* One page for the reports of many JVMs: the JVMs, summed growth, each
 * JVM's latest live pins naming host and pid, the rows summed, one flame
 * graph of all. */
void pw_report_html_fleet(struct pw_buf *out, const struct pw_fleet *fleet);

#endif
