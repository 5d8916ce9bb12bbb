// SPDX-License-Identifier: Apache-2.0
package com.example;

/** Sums of long[] in native code: one leaks its pin, one is fixed. */
public final class Checksum {
    static {
        System.loadLibrary("checksum");
    }

    private Checksum() {
    }

    /** Sums a; forgets ReleaseLongArrayElements (the bug). */
    public static native long sumLeaky(long[] a);

    /** Sums a, and releases what it took. */
    public static native long sumFixed(long[] a);

    /** Keeps a JNI global reference to o, never deleted (a reference leak). */
    public static native void remember(Object o);

    /** Returns a new JNI global reference to o, never deleted (made by a tail call). */
    public static native Object keepGlobal(Object o);

    /** Sums a while whileHeld runs (with a's elements pinned), then releases them. */
    public static native long sumWhile(long[] a, Runnable whileHeld);
}
