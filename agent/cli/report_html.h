/* `pinwatch report`: one self-contained HTML page from a JSON Lines file. */
#ifndef PW_CLI_REPORT_HTML_H
#define PW_CLI_REPORT_HTML_H

#include "dumps.h"
#include "util.h"

/* The whole page for the reports of file (in file order) into out. */
void pw_report_html(struct pw_buf *out, const char *file, const struct pw_dumps *dumps);

#endif
