// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timestamp;

/**
 * A report pinwatch wrote (threshold, interval, a dump asked for through
 * the Java API or {@code pinwatch dump}), with its totals: the same figures
 * as the JSON report's {@code totals}. Committed by the agent's report
 * thread just after the report is written; the report at the JVM's exit
 * comes after the Flight Recorder has stopped and is never an event.
 */
@Name("pinwatch.Report")
@Label("pinwatch Report")
@Category("pinwatch")
@Description("A report pinwatch wrote, with its reason and totals")
@Period("endChunk") // see Recorder.register: the queue drained as a chunk ends
@StackTrace(false)
public final class ReportEvent extends jdk.jfr.Event {
    /** Why the report was written: threshold, interval, command or a dump's reason. */
    @Label("Reason")
    @Description("threshold, interval, command, or the reason given to Pinwatch.dump")
    public String reason;

    /** Live pins. */
    @Label("Live Pins")
    public long live;

    /** Bytes the live pins cover. */
    @Label("Live Bytes")
    @DataAmount
    public long bytes;

    /** Leaked pins. */
    @Label("Leaked Pins")
    public long leaked;

    /** Pins held by running native methods. */
    @Label("Held Pins")
    public long held;

    /** Pins acquired since pinwatch started. */
    @Label("Acquired")
    public long acquired;

    /** Pins released since pinwatch started. */
    @Label("Released")
    public long released;

    /** JNI misuse findings so far. */
    @Label("Findings")
    @Description("Double releases, wrong objects or functions, JNI calls in critical regions, ...")
    public long findings;

    /** Live global, weak and attached-thread local references. */
    @Label("Live References")
    public long liveReferences;

    /** When the report was written (the event is committed a moment later). */
    @Label("Written")
    @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
    public long when;

    /** Findings and reports that found pinwatch's event queue full, so far. */
    @Label("Events Dropped")
    @Description("pinwatch events (findings, reports) that found the queue to this recording full, since "
        + "the start; the reports still count every finding")
    public long eventsDropped;

    /** Created by the agent only. */
    ReportEvent() {
    }
}
