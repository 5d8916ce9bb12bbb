/* SPDX-License-Identifier: Apache-2.0 */
/* Writing a report: take a snapshot, format it, append it to the report
 * file (or stderr) in one write.  Reports are serialised: a report asked
 * for while another is being written waits for it. */
#ifndef PW_REPORT_H
#define PW_REPORT_H

#include "base/options.h"
#include "report/snapshot.h"
#include "base/strbuf.h"

/* The formats, one file each. */
PW_HIDDEN void pw_report_text(const struct pw_snapshot *snap, struct pw_strbuf *out);
PW_HIDDEN void pw_report_json(const struct pw_snapshot *snap, struct pw_strbuf *out);
PW_HIDDEN void pw_report_collapsed(const struct pw_snapshot *snap, struct pw_strbuf *out);

struct pw_metrics_style {
    size_t rows;      /* rows named; the rest are summed as "other" */
    bool openmetrics; /* OpenMetrics 1.0.0; false: Prometheus text 0.0.4 */
    bool pid_label;   /* every sample labelled pid= (textfile collector) */
};
PW_HIDDEN void pw_report_openmetrics(const struct pw_snapshot *snap, struct pw_strbuf *out,
                                     const struct pw_metrics_style *style);

/* Writes one report; file and format come from opts.  The report's totals
 * go to totals when it is not NULL; false when no report could be made. */
PW_HIDDEN bool pw_report_write(const char *reason, const struct pw_options *opts, struct pw_snap_totals *totals);

/* The current figures as metrics into out, for a scrape: serialised with
 * the reports but leaves their "change since the previous report" alone,
 * and symbolises nothing.  False when memory ran out. */
PW_HIDDEN bool pw_report_metrics(const struct pw_options *opts, bool openmetrics, struct pw_strbuf *out);

#endif
