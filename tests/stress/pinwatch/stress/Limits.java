// SPDX-License-Identifier: Apache-2.0
package pinwatch.stress;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Limits TOTAL PER_CALL: TOTAL GetLongArrayElements pins of one long[1],
 * PER_CALL per native call, all leaked; then prints LEAKED and waits for a
 * line on stdin (the test takes a dump meanwhile).
 */
public final class Limits {
    private Limits() {
    }

    public static void main(String[] args) throws Exception {
        long total = Long.parseLong(args[0]);
        int perCall = Integer.parseInt(args[1]);
        long[] one = new long[1];
        long start = System.nanoTime();
        long done = 0;
        while (done < total) {
            int n = (int) Math.min(perCall, total - done);
            if (Natives.leak(5, one, n) != n) {
                throw new IllegalStateException("GetLongArrayElements returned NULL after " + done);
            }
            done += n;
        }
        System.out.println("LEAK_MS " + (System.nanoTime() - start) / 1000000);
        System.out.println("RSS " + Natives.rssKiB());
        System.out.println("LEAKED " + done);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        in.readLine();
        System.out.println("DONE");
    }
}
