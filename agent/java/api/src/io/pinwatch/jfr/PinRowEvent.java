// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * One row of pinwatch's pin table at the end of a period: the pins one
 * native method took with one acquire function, summed over its call
 * sites. The figures are those of the JSON report's row at the same moment.
 * A row appears once its method has acquired anything.
 */
@Name("pinwatch.PinRow")
@Label("JNI Pins")
@Category("pinwatch")
@Description("Live JNI pins (Get<Type>ArrayElements, GetStringChars, GetPrimitiveArrayCritical, ...) "
    + "per native method and acquire function")
@Period("10 s")
@StackTrace(false)
public final class PinRowEvent extends jdk.jfr.Event {
    /** The native method, as {@code package.Class.method}. */
    @Label("Native Method")
    @Description("The Java native method that acquired the pins, package.Class.method")
    public String method;

    /** The native method's JNI signature. */
    @Label("Signature")
    @Description("The native method's JNI signature")
    public String signature;

    /** The acquire function, e.g. {@code GetLongArrayElements}. */
    @Label("Function")
    @Description("The JNI acquire function")
    public String function;

    /** Pins live now. */
    @Label("Live Pins")
    @Description("Pins acquired and not released: held by a running native method or leaked")
    public long live;

    /** Bytes the live pins cover. */
    @Label("Live Bytes")
    @Description("Bytes covered by the live pins")
    @DataAmount
    public long bytes;

    /** Live pins whose native method returned without releasing them. */
    @Label("Leaked Pins")
    @Description("Live pins whose native method returned (or whose thread ended) without releasing them")
    public long leaked;

    /** Bytes the leaked pins cover. */
    @Label("Leaked Bytes")
    @Description("Bytes covered by the leaked pins")
    @DataAmount
    public long leakedBytes;

    /** Live pins held by a native method that is still running. */
    @Label("Held Pins")
    @Description("Live pins whose native method is still running")
    public long held;

    /** Change of the live pins since the row's previous event. */
    @Label("Growth")
    @Description("Live pins now less live pins at the row's previous event (this JVM, since the events "
        + "were registered); negative when pins were released")
    public long growth;

    /** Pins acquired since the agent started. */
    @Label("Acquired")
    @Description("Pins acquired since pinwatch started")
    public long acquired;

    /** Pins released since the agent started. */
    @Label("Released")
    @Description("Pins released since pinwatch started")
    public long released;

    /** Created by the agent's periodic hook only. */
    PinRowEvent() {
    }
}
