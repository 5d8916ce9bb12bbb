// SPDX-License-Identifier: Apache-2.0
package pinwatch.stress;

/** The JNI methods of libpwstress (pwstress.c); families are numbered as
 *  enum pw_function: 0-7 Get&lt;Boolean..Double&gt;ArrayElements, 8
 *  GetPrimitiveArrayCritical, 9 GetStringChars, 10 GetStringUTFChars, 11
 *  GetStringCritical. */
final class Natives {
    private Natives() {
    }

    static final int FAMILIES = 12;

    static {
        System.loadLibrary("pwstress");
    }

    static native long churn(int family, Object target, int count);
    static native long give(int family, Object target);
    static native void take(long handle);
    static native long churnEarly(int family, Object target, int count);
    static native long giveEarly(int family, Object target);
    static native void takeEarly(long handle);
    static native int leak(int family, Object target, int count);
    static native long spin(int family, Object target, long count);
    static native int nativeThreads(long[] array, int threads, int base);
    static native void unmatchedCritical(int[] a, int count);
    static native void releaseNull(int kind, Object target, int count);
    static native void wrongFamily(long[] a, int count);
    static native void elementsAsCritical(int[] a, int count);

    /** The families that can be leaked (not the criticals). */
    static final int[] LEAKABLE = {0, 1, 2, 3, 4, 5, 6, 7, 9, 10};

    static boolean critical(int family) {
        return family == 8 || family == 11;
    }

    /** The array or string each family pins; distinct lengths per family. */
    static Object[] targets() {
        return new Object[] {
            new boolean[61], new byte[1001], new char[301], new short[203], new int[151], new long[97],
            new float[131], new double[89], new int[157],
            "pinwatch-stress-chars-0123456789", "pinwatch-stress-utf-\u00e9\u20ac",
            "pinwatch-stress-critical-\u4e2d\u6587",
        };
    }

    static long rssKiB() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
        return -1;
    }
}
