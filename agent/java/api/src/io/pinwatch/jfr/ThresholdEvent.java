// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timestamp;

/**
 * The live pins reached pinwatch's {@code threshold=} (or twice, four
 * times ... that): the report that follows is a {@link ReportEvent} with
 * reason {@code threshold}.
 */
@Name("pinwatch.Threshold")
@Label("Pin Threshold Crossed")
@Category("pinwatch")
@Description("The live JNI pins reached threshold=N, 2N, 4N, ...")
@StackTrace(false)
public final class ThresholdEvent extends jdk.jfr.Event {
    /** The agent's {@code threshold=} option. */
    @Label("Threshold")
    @Description("The agent's threshold= option, N")
    public long threshold;

    /** The highest of N, 2N, 4N, ... that the live pins have reached. */
    @Label("Level")
    @Description("The highest of N, 2N, 4N, ... reached by the live pins")
    public long level;

    /** Live pins when the report was written. */
    @Label("Live Pins")
    public long live;

    /** Bytes the live pins cover. */
    @Label("Live Bytes")
    @DataAmount
    public long bytes;

    /** When the threshold report was written. */
    @Label("Written")
    @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
    public long when;

    /** Created by the agent only. */
    ThresholdEvent() {
    }
}
