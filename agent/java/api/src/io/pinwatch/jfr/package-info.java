// SPDX-License-Identifier: Apache-2.0
/**
 * pinwatch's JDK Flight Recorder events, category "pinwatch": the live pins
 * per native method and function ({@link io.pinwatch.jfr.PinRowEvent}) and
 * the live JNI references per method, kind and function
 * ({@link io.pinwatch.jfr.ReferenceRowEvent}), as periodic events whose
 * period is set in the recording's settings like any periodic JDK event;
 * each JNI misuse as it happens ({@link io.pinwatch.jfr.FindingEvent}); and
 * each report pinwatch writes ({@link io.pinwatch.jfr.ReportEvent},
 * {@link io.pinwatch.jfr.ThresholdEvent}).
 *
 * <p>The agent adds this jar to the system class path and registers the
 * events when the Flight Recorder starts (at launch with
 * {@code -XX:StartFlightRecording}, later with {@code jcmd PID JFR.start},
 * or at once when attached to a JVM where a recording runs). Until a
 * recording enables them they cost nothing: the rows are read from the
 * agent's tables only when a recording asks for the event, and the agent
 * queues findings and reports only while a recording enables them.
 */
package io.pinwatch.jfr;
