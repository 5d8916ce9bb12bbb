// SPDX-License-Identifier: Apache-2.0
package pinwatch.bench.real;

import com.github.luben.zstd.Zstd;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.xerial.snappy.Snappy;

/**
 * One real library's JNI calls, timed in this JVM: what a user of the library
 * feels of an agent.  Run by run_real.py, one workload per JVM:
 *
 * <pre>
 *   java ... pinwatch.bench.real.Real WORKLOAD TRIAL_MS TRIALS
 * </pre>
 *
 * prints {@code PWREAL WORKLOAD NS_WALL NS_CPU OPS}: the medians of TRIALS
 * timed trials of about TRIAL_MS each, after a warm-up that lets the JIT
 * compile the loop whole.  Inputs are 1 KiB (64 B for JNA's memcpy): small,
 * so that a per-call cost shows.  Every operation's result is checked once
 * before timing, so a library that silently fell back to Java is not measured.
 */
public final class Real {
    private Real() {
    }

    /** libc's memcpy through a JNA {@code Library} interface. */
    public interface CLib extends Library {
        /**
         * memcpy(3) with {@code byte[]} arguments, which JNA pins around the call.
         *
         * @param dst where to copy to
         * @param src what to copy
         * @param n how many bytes
         * @return {@code dst}'s native copy (unused)
         */
        Pointer memcpy(byte[] dst, byte[] src, long n);
    }

    /** One operation of a workload; returns something the loop folds into a sink. */
    interface Op {
        long run() throws Exception;
    }

    static volatile long sink;

    /** 1 KiB of text-like bytes that every compressor shrinks. */
    static byte[] input(int size) {
        byte[] b = new byte[size];
        String words = "pinwatch counts every live JNI pin and reference per native method; ";
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (r.nextInt(8) == 0 ? 'a' + r.nextInt(26) : words.charAt(i % words.length()));
        }
        return b;
    }

    static Op workload(String name) throws Exception {
        final byte[] in = input(1024);
        final byte[] out = new byte[4096];
        final byte[] back = new byte[1024];
        switch (name) {
            case "jna": {
                CLib c = Native.load("c", CLib.class);
                final byte[] src = Arrays.copyOf(in, 64);
                final byte[] dst = new byte[64];
                return () -> {
                    c.memcpy(dst, src, 64);
                    return dst[63];
                };
            }
            case "lz4": {
                LZ4Factory f = LZ4Factory.nativeInstance();
                final LZ4Compressor comp = f.fastCompressor();
                final LZ4SafeDecompressor dec = f.safeDecompressor();
                if (!comp.toString().contains("JNI")) {
                    throw new IllegalStateException("not lz4-java's JNI compressor: " + comp);
                }
                return () -> {
                    int n = comp.compress(in, 0, in.length, out, 0, out.length);
                    return dec.decompress(out, 0, n, back, 0, back.length);
                };
            }
            case "snappy": {
                // Offsets into larger arrays: snappy-java's byte[]-with-offsets calls.
                final byte[] src = new byte[in.length + 16];
                System.arraycopy(in, 0, src, 8, in.length);
                return () -> {
                    int n = Snappy.compress(src, 8, in.length, out, 4);
                    return Snappy.uncompress(out, 4, n, back, 0);
                };
            }
            case "zip": {
                final Deflater def = new Deflater(1);
                final Inflater inf = new Inflater();
                return () -> {
                    def.reset();
                    def.setInput(in);
                    def.finish();
                    int n = def.deflate(out);
                    inf.reset();
                    inf.setInput(out, 0, n);
                    try {
                        return inf.inflate(back);
                    } catch (DataFormatException e) {
                        throw new IllegalStateException(e);
                    }
                };
            }
            case "zstd": {
                return () -> {
                    long n = Zstd.compressByteArray(out, 0, out.length, in, 0, in.length, 1);
                    return Zstd.decompressByteArray(back, 0, back.length, out, 0, (int) n);
                };
            }
            default:
                throw new IllegalArgumentException("unknown workload " + name);
        }
    }

    /** The operation once, its result compared with what it should give. */
    static void check(String name, Op op) throws Exception {
        byte[] in = input(1024);
        long r = op.run();
        if (name.equals("jna")) {
            if (r != in[63]) {
                throw new AssertionError("jna: memcpy copied nothing");
            }
        } else if (r != 1024) {
            throw new AssertionError(name + ": round trip gave " + r + " bytes, not 1024");
        }
    }

    static long loop(Op op, int n) throws Exception {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            acc += op.run();
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        String name = args[0];
        long trialNs = Long.parseLong(args[1]) * 1_000_000L;
        int trials = Integer.parseInt(args[2]);
        Op op = workload(name);
        check(name, op);
        // Warm-up: the loop compiled as a whole method, then calibrated.
        int n = 1000;
        long warmEnd = System.nanoTime() + 4 * trialNs;
        while (System.nanoTime() < warmEnd) {
            sink += loop(op, n);
        }
        for (;;) {
            long t0 = System.nanoTime();
            sink += loop(op, n);
            long t = System.nanoTime() - t0;
            if (t >= trialNs / 4 || n >= 1 << 28) {
                n = (int) Math.max(1, Math.min(1L << 28, n * (trialNs / (double) Math.max(t, 1))));
                break;
            }
            n *= 4;
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] wall = new double[trials];
        double[] cpu = new double[trials];
        for (int t = 0; t < trials; t++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            sink += loop(op, n);
            long t1 = System.nanoTime();
            long c1 = mx.getCurrentThreadCpuTime();
            wall[t] = (t1 - t0) / (double) n;
            cpu[t] = (c1 - c0) / (double) n;
        }
        check(name, op);
        System.out.println(String.format(Locale.ROOT, "PWREAL %s %.1f %.1f %d", name, median(wall), median(cpu), n));
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
