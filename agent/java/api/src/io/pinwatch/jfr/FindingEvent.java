// SPDX-License-Identifier: Apache-2.0
package io.pinwatch.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timestamp;

/**
 * One JNI misuse pinwatch saw, as it happened: a double release, a release
 * against the wrong object or through the wrong function, a JNI call inside
 * a critical region, a critical region held too long, a reference deleted
 * twice, or a native method over {@code local_limit}. The event is
 * committed on pinwatch's own thread a moment later; {@link #when} is the
 * moment itself, and {@link #javaStack} the Java stack of the thread that
 * made the call, from the native method's caller outwards. It is empty
 * for a finding made inside a critical region, where the JVM may not be
 * asked for a stack: {@code jni_in_critical}, and {@code long_critical},
 * which is seen as the region is released; and for a thread with no Java
 * caller. The method and the call site still name the code.
 */
@Name("pinwatch.Finding")
@Label("JNI Misuse")
@Category("pinwatch")
@Description("A JNI misuse pinwatch saw: double release, wrong object or function, JNI call inside a critical "
    + "region, long critical region, double delete, local reference limit")
@Period("endChunk") // see Recorder.register: the queue drained as a chunk ends
@StackTrace(false)
public final class FindingEvent extends jdk.jfr.Event {
    /** The kind, as the JSON report's findings name it, e.g. {@code double_release}. */
    @Label("Kind")
    @Description("double_release, wrong_object, wrong_function, jni_in_critical, long_critical, double_delete "
        + "or local_limit")
    public String kind;

    /** The native method, as {@code package.Class.method}. */
    @Label("Native Method")
    @Description("The Java native method whose pin or reference it was, package.Class.method")
    public String method;

    /** The native method's JNI signature. */
    @Label("Signature")
    public String signature;

    /** The function that took the pin or made the reference. */
    @Label("Function")
    @Description("The JNI function that took the pin or made the reference")
    public String function;

    /** The offending call: the release or delete function, or the JNI function called. */
    @Label("Offending Call")
    @Description("The release or delete function used, or the JNI function called inside the critical region")
    public String call;

    /** Where the offending call was made, {@code symbol+0xOFFSET (library) file:line}. */
    @Label("Call Site")
    public String callSite;

    /** The Java frames of the thread that made the call, one per line, innermost first. */
    @Label("Java Stack")
    @Description("The Java stack of the thread that made the call, from the native method's caller outwards")
    public String javaStack;

    /** The name of the Java thread that made the call (empty where the stack is). */
    @Label("Thread")
    @Description("The Java thread that made the call; empty where the Java stack is")
    public String thread;

    /** When the misuse happened (the event is committed a moment later). */
    @Label("When")
    @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
    public long when;

    /** Occurrences of this finding so far: the JSON report's count for it. */
    @Label("Occurrences")
    @Description("How many times this finding (kind, site, call) has happened so far; the report's count")
    public long occurrences;

    /** Created by {@link Recorder} only. */
    FindingEvent() {
    }
}
