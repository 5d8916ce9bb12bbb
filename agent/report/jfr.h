/* SPDX-License-Identifier: Apache-2.0 */
/* Flight Recorder events (agent/java/api, package io.pinwatch.jfr).  The
 * agent puts the API jar on the system class path and starts its
 * io.pinwatch.jfr.Recorder, which registers the events when the recorder
 * initialises and runs a Java thread of its own that commits them: the
 * periodic row events from a snapshot (the Java API's), findings and
 * reports from tracking/events.c's queue, handed over by the native here.
 * No thread of the agent's ever runs Java code or attaches to the JVM. */
#ifndef PW_JFR_H
#define PW_JFR_H

#include "base/pinwatch.h"
#include "report/snapshot.h"

/* Finds io.pinwatch.jfr.Recorder on the class path, or else appends
 * pinwatch-api.jar (found next to this library, in the build tree or the
 * installed tree) to the system class path; binds Recorder's natives and
 * calls Recorder.start().  At VMInit or after a late attach, on that
 * thread.  A warning line, not a failure, when the jar or the JDK's jdk.jfr
 * is missing: pins are counted regardless. */
PW_HIDDEN void pw_jfr_start(jvmtiEnv *jvmti, JNIEnv *jni);

/* A report was written: a Report event (and a Threshold event for reason
 * "threshold") is queued, if a recording wants them.  Never waits. */
PW_HIDDEN void pw_jfr_report(const char *reason, const struct pw_snap_totals *totals, uint64_t threshold);

#endif
