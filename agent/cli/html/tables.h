/* SPDX-License-Identifier: Apache-2.0 */
/* The page's sortable tables (report.js sorts them by column): a file's live
 * pins, references and findings; a fleet's JVMs, their live pins and the
 * pins summed over them. */
#ifndef PW_CLI_HTML_TABLES_H
#define PW_CLI_HTML_TABLES_H

#include "dumps.h"
#include "fleet.h"
#include "util.h"

/* The latest report's live pins, with their growth since the first. */
void pw_html_leak_table(struct pw_buf *b, const struct pw_dumps *d);
/* The latest report's live JNI references (refs=on), with their growth
 * since the first report; nothing when the reports have no references. */
void pw_html_references_section(struct pw_buf *b, const struct pw_dumps *d);
/* Nothing when the report has no findings section. */
void pw_html_findings_section(struct pw_buf *b, const struct pw_dump *last);

void pw_html_jvms_table(struct pw_buf *b, const struct pw_fleet *f);
/* Each JVM's latest live pins, naming host and pid. */
void pw_html_fleet_leak_table(struct pw_buf *b, const struct pw_fleet *f);
/* The latest live pins of every JVM, summed per (method, signature,
 * function). */
void pw_html_summed_table(struct pw_buf *b, const struct pw_fleet *f);

#endif
