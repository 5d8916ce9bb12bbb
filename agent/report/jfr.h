/* Flight Recorder events (agent/java/api, package io.pinwatch.jfr): the
 * agent puts the API jar on the system class path and has the JFR side
 * register its events when the recorder starts.  Runs at VMInit or at a
 * late attach, never on the hot path. */
#ifndef PW_JFR_H
#define PW_JFR_H

#include "pinwatch.h"
#include "snapshot.h"

/* Appends pinwatch-api.jar (found next to this library, in the build tree
 * or the installed tree) to the system class path and calls
 * io.pinwatch.jfr.Recorder.start().  A warning line, not a failure, when
 * the jar or the JDK's jdk.jfr is missing: pins are counted regardless. */
PW_HIDDEN void pw_jfr_start(jvmtiEnv *jvmti, JNIEnv *jni);

/* A report was written: commits pinwatch.Report (and pinwatch.Threshold
 * for reason "threshold", threshold being the threshold= option) through
 * io.pinwatch.jfr.Recorder.report.  Called by the report thread, which it
 * attaches to the JVM as a daemon the first time, after the report is
 * written and with no lock held; nothing before pw_jfr_start succeeded.
 * The Java side does nothing until a recording enables the events. */
PW_HIDDEN void pw_jfr_report(const char *reason, const struct pw_snap_totals *totals, uint64_t threshold);

#endif
