// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * One row of pinwatch's reference table at the end of a period: the JNI
 * references of one kind one native method made with one function (with
 * {@code refs=} on, the agent's default). The figures are those of the JSON
 * report's {@code references} row at the same moment.
 */
@Name("pinwatch.ReferenceRow")
@Label("JNI References")
@Category("pinwatch")
@Description("Live JNI references (global, weak global, local) per native method, kind and function")
@Period("10 s")
@StackTrace(false)
public final class ReferenceRowEvent extends jdk.jfr.Event {
    /** The native method, as {@code package.Class.method}. */
    @Label("Native Method")
    @Description("The Java native method that made the references, package.Class.method")
    public String method;

    /** The native method's JNI signature. */
    @Label("Signature")
    @Description("The native method's JNI signature")
    public String signature;

    /** {@code global}, {@code weak} or {@code local}. */
    @Label("Kind")
    @Description("global, weak or local")
    public String kind;

    /** The function that made them, e.g. {@code NewGlobalRef}. */
    @Label("Function")
    @Description("The JNI function that made the references")
    public String function;

    /** References live now. */
    @Label("Live References")
    @Description("References made and not deleted")
    public long live;

    /** Live references whose native method returned (global and weak only). */
    @Label("Leaked References")
    @Description("Live references whose native method returned")
    public long leaked;

    /** Live references whose native method is still running. */
    @Label("Held References")
    @Description("Live references whose native method is still running")
    public long held;

    /** Change of the live references since the row's previous event. */
    @Label("Growth")
    @Description("Live references now less live references at the row's previous event")
    public long growth;

    /** References made since the agent started. */
    @Label("Created")
    @Description("References made since pinwatch started")
    public long created;

    /** References deleted since the agent started. */
    @Label("Deleted")
    @Description("References deleted since pinwatch started")
    public long deleted;

    /** Created by the agent's periodic hook only. */
    ReferenceRowEvent() {
    }
}
