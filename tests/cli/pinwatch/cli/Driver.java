/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * The JVM the cli tests drive: the training example plus one leak of its own,
 * step by step on commands read from stdin, so that every report the tests
 * take holds known figures.
 */
package pinwatch.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

public final class Driver {
    /** Pins this many ints with GetIntArrayElements and returns without releasing. */
    static final int KEEP_INTS = 97;

    private static native void keep(int[] values);

    public static void main(String[] args) throws Exception {
        System.loadLibrary("pwclidriver");
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] cmd = line.trim().split(" ");
            int n = cmd.length > 1 ? Integer.parseInt(cmd[1]) : 0;
            switch (cmd[0]) {
                case "train":
                    // N steps of the example: every 4th leaks one long[2] in evalStep.
                    ai.example.TrainingSession.main(new String[] {Integer.toString(n)});
                    break;
                case "keep":
                    for (int i = 0; i < n; i++) {
                        keep(new int[KEEP_INTS]);
                    }
                    break;
                case "exit":
                    System.exit(n);
                    break;
                default:
                    System.err.println("Driver: unknown command " + line);
                    System.exit(99);
            }
            System.out.println("OK " + line.trim());
            System.out.flush();
        }
    }
}
