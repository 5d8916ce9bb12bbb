/* Writing a report: take a snapshot, format it, append it to the report
 * file (or stderr) in one write.  Reports are serialised: a report asked
 * for while another is being written waits for it. */
#ifndef PW_REPORT_H
#define PW_REPORT_H

#include "options.h"
#include "snapshot.h"
#include "strbuf.h"

/* The formats, one file each. */
PW_HIDDEN void pw_report_text(const struct pw_snapshot *snap, struct pw_strbuf *out);
PW_HIDDEN void pw_report_json(const struct pw_snapshot *snap, struct pw_strbuf *out);
PW_HIDDEN void pw_report_collapsed(const struct pw_snapshot *snap, struct pw_strbuf *out);

/* Writes one report; file and format come from opts.  The report's totals
 * go to totals when it is not NULL; false when no report could be made. */
PW_HIDDEN bool pw_report_write(const char *reason, const struct pw_options *opts, struct pw_snap_totals *totals);

#endif
