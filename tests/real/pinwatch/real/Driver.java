// SPDX-License-Identifier: Apache-2.0
package pinwatch.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * What the three library drivers share: the command line and, for a late
 * attach, the hand-shake on stdin/stdout.
 *
 *   java ... pinwatch.real.X CALLS            CALLS calls, then exit
 *   java ... pinwatch.real.X CALLS --wait     set up, WARM calls, print READY,
 *                                              wait for a line, CALLS calls,
 *                                              print DONE, wait for stdin to close
 *
 * The warm-up calls in --wait mode come before the agent is there: they
 * must not be counted by a late-attached agent.
 */
final class Driver {
    /** Calls made before READY in --wait mode. */
    static final int WARM = 3;

    interface Call {
        /** One call of the library's public API; returns a check value. */
        long call(int i) throws Exception;
    }

    private Driver() {}

    static void run(String[] args, Call call) throws Exception {
        int calls = Integer.parseInt(args[0]);
        boolean wait = args.length > 1 && args[1].equals("--wait");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long check = 0;
        if (wait) {
            for (int i = 0; i < WARM; i++) {
                check += call.call(i);
            }
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            if (in.readLine() == null) {
                throw new IllegalStateException("stdin closed before the go line");
            }
        }
        for (int i = 0; i < calls; i++) {
            check += call.call(i);
        }
        System.out.println("DONE " + calls + " " + check);
        System.out.flush();
        if (wait) {
            while (in.readLine() != null) {
                // until the test closes stdin
            }
        }
    }
}
