// SPDX-License-Identifier: Apache-2.0
package pinwatch.stress;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The fault cases (stress.py says what each checks):
 *
 *   Faults exit-system    4 threads inside native pin loops; System.exit(0)
 *   Faults exit-main      4 daemon threads inside native pin loops; main returns
 *   Faults thread-end     Java and natively attached threads end holding pins
 *   Faults serve          known leaks, 2 threads churning until stdin says "go"
 *   Faults run MS         known leaks, 2 threads churning for MS milliseconds
 */
public final class Faults {
    private Faults() {
    }

    static volatile boolean stop;

    /** Leaks of the serve and run modes: family LEAKABLE[k] leaks 3 + k pins. */
    static void knownLeaks(Object[] targets) {
        for (int k = 0; k < 10; k++) {
            int f = Natives.LEAKABLE[k];
            Natives.leak(f, targets[f], 3 + k);
        }
    }

    static Thread[] churners(Object[] targets, int n, boolean daemon, long perCall) {
        Thread[] ts = new Thread[n];
        for (int k = 0; k < n; k++) {
            final int me = k;
            ts[k] = new Thread(() -> {
                for (int i = 0; !stop; i++) {
                    int f = (me * 5 + i) % Natives.FAMILIES;
                    Natives.spin(f, targets[f], perCall);
                }
            }, "churn-" + k);
            ts[k].setDaemon(daemon);
            ts[k].start();
        }
        return ts;
    }

    public static void main(String[] args) throws Exception {
        Object[] targets = Natives.targets();
        switch (args[0]) {
        case "exit-system":
        case "exit-main": {
            boolean system = args[0].equals("exit-system");
            // Long loops: the threads are inside a native method, between a
            // Get and its Release, most of the time.
            churners(targets, 4, !system, 1L << 40);
            Thread.sleep(400);
            System.out.println("EXITING");
            System.out.flush();
            if (system) {
                System.exit(0);
            }
            return;
        }
        case "thread-end": {
            Thread[] ts = new Thread[5];
            for (int k = 0; k < 5; k++) {
                final int me = k;
                ts[k] = new Thread(() -> Natives.leak(me, targets[me], 10 + me), "ending-" + k);
                ts[k].start();
            }
            for (Thread t : ts) {
                t.join();
            }
            int taken = Natives.nativeThreads(new long[7], 6, 3);
            System.out.println("NATIVE " + taken);
            System.out.println("DONE");
            return;
        }
        case "serve":
        case "run": {
            // Every family once, so every row exists before the first dump.
            for (int f = 0; f < Natives.FAMILIES; f++) {
                Natives.churn(f, targets[f], 1);
            }
            knownLeaks(targets);
            Thread[] ts = churners(targets, 2, false, 4096);
            if (args[0].equals("serve")) {
                System.out.println("READY " + ProcessHandle.current().pid());
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !line.equals("go")) {
                    // wait
                }
            } else {
                Thread.sleep(Long.parseLong(args[1]));
            }
            stop = true;
            for (Thread t : ts) {
                t.join();
            }
            System.out.println("DONE");
            return;
        }
        default:
            throw new IllegalArgumentException(args[0]);
        }
    }
}
