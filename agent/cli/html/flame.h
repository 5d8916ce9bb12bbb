/* SPDX-License-Identifier: Apache-2.0 */
/* The flame graph section: a report's live bytes by stack, outermost frame
 * on top, zoomed by report.js. */
#ifndef PW_CLI_HTML_FLAME_H
#define PW_CLI_HTML_FLAME_H

#include "dumps.h"
#include "util.h"

void pw_html_flame_section(struct pw_buf *b, const char *heading, const struct pw_dump *latest);

#endif
