/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's own thread: it serves what application threads ask for
 * (tracking/requests.h: threshold reports, UNRELEASED lines) and writes the
 * interval reports, so that no application thread formats or writes. */
#ifndef PW_REPORT_THREAD_H
#define PW_REPORT_THREAD_H

#include "base/options.h"

/* Starts the thread; its reports use a copy of o.  False, with an error
 * line, when it could not be started. */
PW_HIDDEN bool pw_report_thread_start(const struct pw_options *o);

/* At VM death, before the exit report: the UNRELEASED lines still queued
 * are written now, those the thread is writing are waited for. */
PW_HIDDEN void pw_report_thread_flush_notes(void);

#endif
