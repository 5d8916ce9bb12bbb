// SPDX-License-Identifier: Apache-2.0
package pinwatch.stress;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * THREADS threads mix every pair family; some pins are handed to the next
 * thread (pointer + global reference through a queue) and released there.
 *
 *   Stress OPS THREADS BATCH agent|attach
 *
 * The schedule is a pure function of (OPS, THREADS, BATCH): stress.py
 * computes the same counts.  Thread t does OPS/THREADS operations (the
 * first OPS%THREADS one more); step i uses family (t + i) % 12 and, when i
 * % 5 == 4 and the family is not a critical, gives one pin away (one
 * operation), else makes min(BATCH, left) Get/Release pairs.  Afterwards
 * a thread leaks t + 1 pins of family LEAKABLE[t % 10] and ends.
 *
 * attach: first an uncounted phase (the *Early natives) runs until stdin
 * says "attached", and 300 ms more; all its pins are released before the
 * counted phase starts.
 */
public final class Stress {
    private Stress() {
    }

    static volatile boolean stopEarly;

    public static void main(String[] args) throws Exception {
        final long ops = Long.parseLong(args[0]);
        final int threads = Integer.parseInt(args[1]);
        final int batch = Integer.parseInt(args[2]);
        final boolean attach = args[3].equals("attach");
        final Object[] targets = Natives.targets();
        @SuppressWarnings({"unchecked", "rawtypes"})
        final ConcurrentLinkedQueue<Long>[] queues = new ConcurrentLinkedQueue[threads];
        for (int t = 0; t < threads; t++) {
            queues[t] = new ConcurrentLinkedQueue<>();
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

        if (attach) {
            Thread[] early = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                final int me = t;
                early[t] = new Thread(() -> {
                    for (int i = 0; !stopEarly; i++) {
                        int f = (me + i) % Natives.FAMILIES;
                        if (i % 5 == 4 && !Natives.critical(f)) {
                            queues[(me + 1) % threads].add(Natives.giveEarly(f, targets[f]));
                        } else {
                            Natives.churnEarly(f, targets[f], 16);
                        }
                        Long h;
                        while ((h = queues[me].poll()) != null) {
                            Natives.takeEarly(h);
                        }
                    }
                }, "early-" + t);
                early[t].start();
            }
            System.out.println("PHASE1 " + ProcessHandle.current().pid());
            String line = in.readLine();
            if (!"attached".equals(line)) {
                throw new IllegalStateException("expected 'attached', got " + line);
            }
            Thread.sleep(300);
            stopEarly = true;
            for (Thread t : early) {
                t.join();
            }
            for (ConcurrentLinkedQueue<Long> q : queues) {
                Long h;
                while ((h = q.poll()) != null) {
                    Natives.takeEarly(h);
                }
            }
        }

        long rssStart = Natives.rssKiB();
        long start = System.nanoTime();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int me = t;
            final long mine = ops / threads + (me < ops % threads ? 1 : 0);
            workers[t] = new Thread(() -> {
                long done = 0;
                for (int i = 0; done < mine; i++) {
                    int f = (me + i) % Natives.FAMILIES;
                    if (i % 5 == 4 && !Natives.critical(f)) {
                        queues[(me + 1) % threads].add(Natives.give(f, targets[f]));
                        done++;
                    } else {
                        int n = (int) Math.min(batch, mine - done);
                        Natives.churn(f, targets[f], n);
                        done += n;
                    }
                    Long h;
                    while ((h = queues[me].poll()) != null) {
                        Natives.take(h);
                    }
                }
            }, "stress-" + t);
            workers[t].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        // Pins still queued for threads that had finished: released here, on
        // yet another thread.
        for (ConcurrentLinkedQueue<Long> q : queues) {
            Long h;
            while ((h = q.poll()) != null) {
                Natives.take(h);
            }
        }
        long elapsed = System.nanoTime() - start;
        long rssEnd = Natives.rssKiB();
        Thread[] leakers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int me = t;
            final int f = Natives.LEAKABLE[me % 10];
            leakers[t] = new Thread(() -> Natives.leak(f, targets[f], me + 1), "leaker-" + t);
            leakers[t].start();
        }
        for (Thread t : leakers) {
            t.join();
        }
        awaitOsThreadsGone("stress-", "leaker-");
        System.out.println("RSS " + rssStart + " " + rssEnd);
        System.out.println("ELAPSED_MS " + elapsed / 1000000);
        System.out.println("DONE");
    }

    /**
     * join() returns when a Java thread has terminated, before its OS thread
     * has run its exit path, where pinwatch retires the thread's pin table:
     * waits (up to 5 s) until no OS thread of this process has a name with
     * one of these prefixes, so that the exit report's table_bytes counts the
     * JVM's own threads only, however loaded the machine is.
     */
    static void awaitOsThreadsGone(String... prefixes) throws InterruptedException {
        long until = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < until) {
            boolean any = false;
            java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
            for (java.io.File task : tasks != null ? tasks : new java.io.File[0]) {
                String name;
                try {
                    name = new String(java.nio.file.Files.readAllBytes(new java.io.File(task, "comm").toPath()),
                        java.nio.charset.StandardCharsets.UTF_8).trim();
                } catch (java.io.IOException gone) {
                    continue;
                }
                for (String p : prefixes) {
                    any |= name.startsWith(p);
                }
            }
            if (!any) {
                return;
            }
            Thread.sleep(10);
        }
    }
}
