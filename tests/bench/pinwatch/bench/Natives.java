// SPDX-License-Identifier: Apache-2.0
package pinwatch.bench;

/** The benchmark's JNI methods (pwbench.c); the runner passes the library's path. */
final class Natives {
    private Natives() {
    }

    static {
        // An absolute path: java.library.path is left to lz4-java's library.
        System.load(System.getProperty("pwbench.lib"));
    }

    static native long longElements(long[] array, int pairs);

    static native long byteElements(byte[] array, int pairs);

    static native long critical(byte[] array, int pairs);

    static native long stringUtf(String string, int pairs);

    static native long globalRefs(Object o, int pairs);

    static native long localRefs(Object o, int pairs);

    static native int nop(int x);

    static native int leakLong(long[] array, int pins);

    static native long holdLong(long[] array, int pins);

    static native long rss();
}
