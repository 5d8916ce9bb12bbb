#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Java API's costs (tests/bench/README.md, "The Java API"); prints figures, passes
or fails nothing.

    python3 tests/bench/api_bench.py --build build [--jdk-home DIR]...
    meson compile -C build bench-api

1. Pinwatch.snapshot() with ROWS rows (ROWS/4 generated native methods,
   each leaking four pins with four acquire functions), and with the rows
   of an idle JVM: microseconds per snapshot, the median of 7 trials of
   500 snapshots each after warm-up, and per site.
2. A GetLongArrayElements long[4] Get+Release pair under the agent, in
   fresh JVMs, rotated every round: without the API's jar on the class
   path, and with it (io.pinwatch.Pinwatch loaded and bound, one snapshot
   taken): ns per pair, median over rounds.  The API adds no code to the
   hot path, so the two must agree within the machine's noise.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROWS = 1000

API_BENCH = r'''
import io.pinwatch.Pinwatch;
import io.pinwatch.Snapshot;

public final class ApiBench {
    static native int register(int methods);
%(decls)s
    static void call(int k, long[] l, int[] i, byte[] b, float[] f) {
        switch (k) {
%(cases)s
        default: throw new IllegalArgumentException();
        }
    }

    static int sink;

    static Snapshot first;

    /** mode 0: snapshot(); 1: and its rows; 2: snapshot().minus(first) and its rows. */
    static double trial(int n, int mode) {
        long t0 = System.nanoTime();
        for (int k = 0; k < n; k++) {
            Snapshot s = Pinwatch.snapshot();
            if (mode == 2) {
                s = s.minus(first);
            }
            sink += mode > 0 ? s.pins().size() : s.isDifference() ? 1 : 0;
        }
        return (System.nanoTime() - t0) / 1e3 / n;
    }

    static double median(int rows) {
        for (int w = 0; w < 5; w++) {
            trial(500, rows);
        }
        double[] t = new double[7];
        for (int k = 0; k < t.length; k++) {
            t[k] = trial(500, rows);
        }
        java.util.Arrays.sort(t);
        return t[3];
    }

    static void measure(String label) {
        first = Pinwatch.snapshot();
        double bare = median(0), rows = median(1), diff = median(2);
        Snapshot s = Pinwatch.snapshot();
        int sites = 0;
        for (var r : s.pins()) {
            sites += r.sites().size();
        }
        for (var r : s.references()) {
            sites += r.sites().size();
        }
        System.out.printf(java.util.Locale.ROOT,
                "%%-10s rows %%5d  sites %%5d  snapshot() %%7.1f us, with rows grouped %%7.1f us; snapshot().minus(earlier) with rows %%7.1f us%%n",
                label, s.pins().size() + s.references().size(), sites, bare, rows, diff);
    }

    public static void main(String[] args) {
        System.loadLibrary("pwapibench");
        measure("idle");
        int methods = register(%(methods)d);
        for (int k = 0; k < methods; k++) {
            call(k, new long[1], new int[2], new byte[3], new float[4]);
        }
        measure("%(rows)d-rows");
    }
}
'''

PAIR_BENCH = r'''
public final class PairBench {
    static native void pairs(long[] a, int n);

    public static void main(String[] args) throws Exception {
        System.loadLibrary("pwapibench");
        if (args[0].equals("with-api")) {
            Class<?> c = Class.forName("io.pinwatch.Pinwatch");
            if (!(Boolean) c.getMethod("isLoaded").invoke(null)) {
                throw new AssertionError("the API is not bound");
            }
            c.getMethod("snapshot").invoke(null);
        }
        long[] a = new long[4];
        for (int w = 0; w < 20; w++) {
            pairs(a, 100_000);
        }
        double[] t = new double[7];
        for (int k = 0; k < t.length; k++) {
            long t0 = System.nanoTime();
            pairs(a, 1_000_000);
            t[k] = (System.nanoTime() - t0) / 1e6;
        }
        java.util.Arrays.sort(t);
        System.out.println("PAIR " + t[3]);
    }
}
'''


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)
    if p.returncode != 0:
        sys.exit('failed: %s\n%s%s' % (' '.join(cmd), p.stdout, p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', required=True)
    ap.add_argument('--jdk-home', action='append', default=[])
    ap.add_argument('--rounds', type=int, default=5)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    agent = os.path.join(build, 'agent', 'libpinwatch.so')
    api_jar = os.path.join(build, 'agent', 'java', 'api', 'pinwatch-api.jar')
    libdir = os.path.join(build, 'tests', 'bench')
    jdks = a.jdk_home or ['/usr/lib/jvm/java-17-openjdk-amd64']
    methods = ROWS // 4
    with tempfile.TemporaryDirectory(prefix='pw-apibench-') as tmp:
        decls = ''.join('    static native void m%d(long[] l, int[] i, byte[] b, float[] f);\n' % k
                        for k in range(methods))
        cases = ''.join('        case %d: m%d(l, i, b, f); return;\n' % (k, k) for k in range(methods))
        with open(os.path.join(tmp, 'ApiBench.java'), 'w') as f:
            f.write(API_BENCH % {'decls': decls, 'cases': cases, 'methods': methods, 'rows': ROWS})
        with open(os.path.join(tmp, 'PairBench.java'), 'w') as f:
            f.write(PAIR_BENCH)
        for home in jdks:
            java = os.path.join(home, 'bin', 'java')
            if not os.access(java, os.X_OK):
                print('%s: absent, skipped' % home)
                continue
            classes = os.path.join(tmp, os.path.basename(home))
            run([os.path.join(home, 'bin', 'javac'), '--release', '17', '-cp', api_jar, '-d', classes,
                 os.path.join(tmp, 'ApiBench.java'), os.path.join(tmp, 'PairBench.java')])
            version = run([java, '-version'], stderr=subprocess.STDOUT).splitlines()[0] if False else \
                subprocess.run([java, '-version'], stderr=subprocess.PIPE, universal_newlines=True).stderr.splitlines()[0]
            print('== %s' % version)
            base = [java, '-agentpath:%s=threshold=0' % agent, '-Djava.library.path=' + libdir]
            print(run(base + ['-cp', classes + os.pathsep + api_jar, 'ApiBench']), end='')
            pairs = {'without-api': [], 'with-api': []}
            for r in range(a.rounds):
                order = list(pairs) if r % 2 == 0 else list(reversed(list(pairs)))
                for config in order:
                    cp = classes + (os.pathsep + api_jar if config == 'with-api' else '')
                    out = run(base + ['-cp', cp, 'PairBench', config])
                    pairs[config].append(float(out.split()[-1]))
            for config, ms in pairs.items():
                print('long[4] pair, %-11s %5.1f ns  (rounds: %s)' % (
                    config + ':', statistics.median(ms), ' '.join('%.1f' % m for m in ms)))


if __name__ == '__main__':
    main()
