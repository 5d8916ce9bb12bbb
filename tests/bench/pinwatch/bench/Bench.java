// SPDX-License-Identifier: Apache-2.0
package pinwatch.bench;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One JVM's share of the benchmark; tests/bench/run_bench.py starts a fresh
 * JVM per configuration and round and reads the "PWBENCH ..." lines it
 * prints (anything else on stdout, such as -Xcheck:jni warnings, is not
 * data).
 *
 *   probe                                  start and stop (does the agent accept its options?)
 *   main TRIAL_MS TRIALS LZ4               pairs on 1 and 2 threads, empty native call, lz4
 *   leak PINS PER_CALL DUMP HOLD           RSS per leaked pin, then jcmd dumps under load
 */
public final class Bench {
    private Bench() {
    }

    /** Keeps results alive so that no loop is optimised away. */
    static volatile long sink;

    /** A timed body: does `n` units of work. */
    interface Body {
        long run(int n);
    }

    /** Makes one thread's Body with arrays of its own. */
    interface BodyFactory {
        Body make();
    }

    static final String[] PAIRS = {"long4", "critical64k", "bytes64k", "utf32", "globalref", "localref"};

    static BodyFactory pairFactory(String pair) {
        switch (pair) {
            case "long4":
                return () -> {
                    long[] a = {1, 2, 3, 4};
                    return n -> Natives.longElements(a, n);
                };
            case "critical64k":
                return () -> {
                    byte[] a = filled(64 * 1024);
                    return n -> Natives.critical(a, n);
                };
            case "bytes64k":
                return () -> {
                    byte[] a = filled(64 * 1024);
                    return n -> Natives.byteElements(a, n);
                };
            case "utf32":
                return () -> {
                    // A fresh String per thread; 32 ASCII characters.
                    String s = new String("pinwatch-bench-utf-0123456789abc".toCharArray());
                    if (s.length() != 32) {
                        throw new AssertionError("string length " + s.length());
                    }
                    return n -> Natives.stringUtf(s, n);
                };
            case "globalref":
                return () -> {
                    Object o = new long[4];
                    return n -> Natives.globalRefs(o, n);
                };
            case "localref":
                return () -> {
                    Object o = new long[4];
                    return n -> Natives.localRefs(o, n);
                };
            default:
                throw new IllegalArgumentException(pair);
        }
    }

    static byte[] filled(int size) {
        byte[] a = new byte[size];
        for (int i = 0; i < size; i++) {
            a[i] = (byte) (i * 31 + 7);
        }
        return a;
    }

    static void out(String line) {
        System.out.println("PWBENCH " + line);
        System.out.flush();
    }

    /** Grows n until one run takes about trialNs (this also warms up). */
    static int calibrate(Body body, long trialNs) {
        int n = 64;
        for (;;) {
            long t0 = System.nanoTime();
            sink += body.run(n);
            long dt = System.nanoTime() - t0;
            if (dt >= trialNs / 4 || n >= (1 << 28)) {
                double scaled = (double) n * trialNs / Math.max(dt, 1);
                return (int) Math.max(1, Math.min(scaled, (double) Integer.MAX_VALUE / 2));
            }
            n = dt < trialNs / 64 ? n * 8 : n * 2;
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }

    /**
     * ns per unit per thread: `threads` threads, each with its own Body, run
     * n units at the same moment (a barrier before every trial); a trial's
     * figure is the mean over the threads, the result the median over the
     * trials.  The first trial is a warm-up and is dropped.
     *
     * Returns {wall, cpu}: wall from System.nanoTime; cpu from the thread's
     * own CPU time, which leaves out the time the thread waited for a CPU
     * while other processes ran (this machine is shared), but also leaves
     * out any time spent blocked, so wall is the figure of record.
     */
    static double[] measure(BodyFactory factory, int threads, int n, int trials) throws Exception {
        double[][][] ns = new double[2][trials + 1][threads];
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Thread> workers = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Body body = factory.make();
            Thread w = new Thread(() -> {
                try {
                    for (int trial = 0; trial <= trials; trial++) {
                        barrier.await();
                        long c0 = mx.getCurrentThreadCpuTime();
                        long t0 = System.nanoTime();
                        sink += body.run(n);
                        long t1 = System.nanoTime();
                        long c1 = mx.getCurrentThreadCpuTime();
                        ns[0][trial][id] = (double) (t1 - t0) / n;
                        ns[1][trial][id] = (double) (c1 - c0) / n;
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    barrier.reset();
                }
            }, "pwbench-" + t);
            workers.add(w);
        }
        for (Thread w : workers) {
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure[0] != null) {
            throw new RuntimeException(failure[0]);
        }
        double[] result = new double[2];
        for (int clock = 0; clock < 2; clock++) {
            double[] perTrial = new double[trials];
            for (int trial = 1; trial <= trials; trial++) {
                double sum = 0;
                for (double v : ns[clock][trial]) {
                    sum += v;
                }
                perTrial[trial - 1] = sum / threads;
            }
            result[clock] = median(perTrial);
        }
        return result;
    }

    static String figures(double[] wallCpu) {
        return String.format(Locale.ROOT, "%.3f %.3f", wallCpu[0], wallCpu[1]);
    }

    static int nopLoop(int n) {
        int acc = 0;
        for (int i = 0; i < n; i++) {
            acc = Natives.nop(acc);
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "probe":
                out("probe ok");
                break;
            case "main":
                mainMode(Long.parseLong(args[1]) * 1_000_000L, Integer.parseInt(args[2]),
                        args[3].equals("1"));
                break;
            case "leak":
                leakMode(Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[3].equals("1"),
                        args[4].equals("1"));
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    static void mainMode(long trialNs, int trials, boolean lz4) throws Exception {
        for (String pair : PAIRS) {
            BodyFactory f = pairFactory(pair);
            int n = calibrate(f.make(), trialNs);
            for (int threads = 1; threads <= 2; threads++) {
                out(String.format(Locale.ROOT, "pair %s %d ", pair, threads) + figures(measure(f, threads, n, trials)));
            }
        }

        // A Java loop around a native call that pins nothing: compiled as a
        // whole method (not only on-stack replaced) before it is timed.
        Body nop = n -> nopLoop(n);
        for (int i = 0; i < 20; i++) {
            sink += nopLoop(100_000);
        }
        int n = calibrate(nop, trialNs);
        out("nop 1 " + figures(measure(() -> nop, 1, n, trials)));

        if (lz4) {
            lz4(trialNs, trials);
        }
    }

    /**
     * lz4-java's JNI compressor and decompressor on 64 KiB blocks, reached by
     * reflection so that the bench jar builds without lz4-java.  Output
     * buffers are preallocated: the figure is compression, not allocation.
     */
    static void lz4(long trialNs, int trials) throws Exception {
        Object compressor;
        Object decompressor;
        Method compress;
        Method decompress;
        try {
            Class<?> factoryClass = Class.forName("net.jpountz.lz4.LZ4Factory");
            Object factory = factoryClass.getMethod("nativeInstance").invoke(null);
            compressor = factoryClass.getMethod("fastCompressor").invoke(factory);
            decompressor = factoryClass.getMethod("safeDecompressor").invoke(factory);
            compress = Class.forName("net.jpountz.lz4.LZ4Compressor").getMethod("compress",
                    byte[].class, int.class, int.class, byte[].class, int.class, int.class);
            decompress = Class.forName("net.jpountz.lz4.LZ4SafeDecompressor").getMethod("decompress",
                    byte[].class, int.class, int.class, byte[].class, int.class, int.class);
        } catch (ReflectiveOperationException | LinkageError e) {
            out("lz4 unavailable " + e.toString().replace('\n', ' '));
            return;
        }
        if (!compressor.toString().contains("JNI")) {
            out("lz4 unavailable not the JNI compressor: " + compressor);
            return;
        }
        final int size = 64 * 1024;
        // Eight compressible, different blocks (runs of a few byte values).
        java.util.Random random = new java.util.Random(42);
        byte[][] blocks = new byte[8][size];
        for (int b = 0; b < blocks.length; b++) {
            for (int i = 0; i < size; i++) {
                blocks[b][i] = (byte) ((i / (1 + b)) % 17 + random.nextInt(3));
            }
        }
        byte[] packed = new byte[size + size / 255 + 16];
        byte[] back = new byte[size];
        int packedLen = (Integer) compress.invoke(compressor, blocks[0], 0, size, packed, 0, packed.length);
        int backLen = (Integer) decompress.invoke(decompressor, packed, 0, packedLen, back, 0, size);
        if (backLen != size || !Arrays.equals(back, blocks[0])) {
            throw new AssertionError("lz4 round trip failed");
        }
        final Object c = compressor;
        final Object d = decompressor;
        final Method cm = compress;
        final Method dm = decompress;
        Body body = n -> {
            long acc = 0;
            try {
                for (int i = 0; i < n; i++) {
                    byte[] src = blocks[i & 7];
                    int len = (Integer) cm.invoke(c, src, 0, size, packed, 0, packed.length);
                    acc += (Integer) dm.invoke(d, packed, 0, len, back, 0, size);
                }
            } catch (ReflectiveOperationException e) {
                throw new RuntimeException(e);
            }
            return acc;
        };
        int n = calibrate(body, trialNs);
        out("lz4 1 " + figures(measure(() -> body, 1, n, trials)));
    }

    /**
     * RSS per leaked pin: `pins` GetLongArrayElements pins of a long[1], never
     * released, `perCall` per native invocation (pinwatch moves them to its
     * leak table when each invocation returns).  Then, with DUMP, reports of
     * those pins under load (dumpUnderLoad).  Then, with HOLD, `pins` pins
     * held at once inside one invocation.
     */
    static void leakMode(int pins, int perCall, boolean dump, boolean hold) throws Exception {
        long[] one = {42};
        // Compile the calling loop and settle class loading before the first reading.
        for (int i = 0; i < 5000; i++) {
            sink += Natives.leakLong(one, 0);
        }
        Thread.sleep(300);
        long before = Natives.rss();
        long got = 0;
        for (int done = 0; done < pins; done += perCall) {
            got += Natives.leakLong(one, Math.min(perCall, pins - done));
        }
        long after = Natives.rss();
        out(String.format(Locale.ROOT, "leak %d %d", got, after - before));

        if (dump) {
            dumpUnderLoad();
        }

        if (hold) {
            out(String.format(Locale.ROOT, "hold %d %d", pins, Natives.holdLong(one, pins)));
        }
    }

    static final int DUMPS = 3;

    /**
     * A thread doing balanced long[4] pairs (64 per native call) times its
     * longest gap between calls while this thread asks its own JVM, through
     * the attach mechanism jcmd uses, for VM.version (the baseline: the same
     * attach round trip without a dump) and then JVMTI.data_dump.  The
     * command is sent from inside the JVM rather than by a jcmd process
     * because jcmd's own JVM start-up takes both CPUs of this machine for
     * most of a second and would be measured as the dump's stall.
     */
    static void dumpUnderLoad() throws Exception {
        Object vm = Class.forName("com.sun.tools.attach.VirtualMachine").getMethod("attach", String.class)
                .invoke(null, Long.toString(ProcessHandle.current().pid()));
        Method jcmd = Class.forName("sun.tools.attach.HotSpotVirtualMachine").getMethod("executeJCmd",
                String.class);
        AtomicLong maxGap = new AtomicLong();
        long[] mine = {1, 2, 3, 4};
        Thread app = new Thread(() -> {
            long last = System.nanoTime();
            while (!Thread.currentThread().isInterrupted()) {
                sink += Natives.longElements(mine, 64);
                long now = System.nanoTime();
                long gap = now - last;
                last = now;
                if (gap > maxGap.get()) {
                    maxGap.accumulateAndGet(gap, Math::max);
                }
            }
        }, "pwbench-app");
        app.setDaemon(true);
        app.start();
        // The first command starts the JVM's Attach Listener thread: not timed.
        jcmd(vm, jcmd, "VM.version");
        Thread.sleep(300);
        for (String command : new String[] {"VM.version", "JVMTI.data_dump"}) {
            for (int i = 0; i < DUMPS; i++) {
                maxGap.set(0);
                long t0 = System.nanoTime();
                jcmd(vm, jcmd, command);
                long t1 = System.nanoTime();
                // The window ends 100 ms after the reply, the same for both commands.
                Thread.sleep(100);
                out(String.format(Locale.ROOT, "jcmd %s %.3f %.3f", command, (t1 - t0) / 1e6, maxGap.getAndSet(0) / 1e6));
            }
        }
        app.interrupt();
        app.join();
        vm.getClass().getMethod("detach").invoke(vm);
    }

    static void jcmd(Object vm, Method jcmd, String command) throws Exception {
        try (InputStream in = (InputStream) jcmd.invoke(vm, command)) {
            in.readAllBytes();
        }
    }
}
