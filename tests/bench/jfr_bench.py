#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a Flight Recorder recording of pinwatch's events costs the program,
against what the report thread costs it.

    python3 tests/bench/jfr_bench.py --build build [--rounds 5] [--jdk-home NAME=HOME ...]
    meson compile -C build bench-jfr

Three configurations of the agent, each a fresh JVM of pwbench.jar's
`main` mode (tests/bench/pinwatch/bench/Bench.java), in an order rotated
every round:

  defaults   the agent alone;
  interval   interval=1: a report every second (the report thread's cost);
  jfr        a recording (-XX:StartFlightRecording) with the JDK's default
             settings and pinwatch.PinRow and pinwatch.ReferenceRow every
             second: a snapshot of the tables each second for each, plus
             findings and reports as they come.

Printed per JDK: the median over rounds of the ns per pair on 1 thread of
the long[4] GetLongArrayElements pair (25 million pairs a second here) and
of the global and local reference pairs, wall and thread CPU time.  Standard
library only.
"""

import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402  (the pair benchmark's JVM runner and its output format)

CONFIGS = ('defaults', 'interval', 'jfr')
PAIRS = ('long4', 'globalref', 'localref')


def jfc(jdk_home, path):
    """The JDK's default.jfc with pinwatch's row events every second."""
    with open(os.path.join(jdk_home, 'lib', 'jfr', 'default.jfc'), encoding='utf-8') as f:
        text = f.read()
    ours = ''.join('  <event name="%s"><setting name="enabled">true</setting>'
                   '<setting name="period">1 s</setting></event>\n' % t
                   for t in ('pinwatch.PinRow', 'pinwatch.ReferenceRow'))
    end = text.rindex('</configuration>')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text[:end] + ours + text[end:])


def run(a, bench, jdk, config, tmp, settings):
    """{pair: (wall ns, CPU ns)} on 1 thread, from one JVM of run_bench's."""
    jvm_args = ()
    if config == 'jfr':
        jvm_args = ('-XX:StartFlightRecording:filename=%s,settings=%s' % (os.path.join(tmp, 'rec.jfr'), settings),)
    stdout, _, _ = bench.run(jdk, 'defaults' if config == 'jfr' else config,
                             ['main', a.trial_ms, a.trials, 0], config, jvm_args)
    # pair NAME THREADS WALL_NS CPU_NS
    return {f[1]: (float(f[3]), float(f[4])) for f in run_bench.data_lines(stdout)
            if len(f) == 5 and f[0] == 'pair' and f[1] in PAIRS and f[2] == '1'}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--build', required=True)
    p.add_argument('--jdk-home', action='append', default=[], metavar='NAME=HOME')
    p.add_argument('--rounds', type=int, default=5)
    p.add_argument('--trial-ms', type=int, default=100)
    p.add_argument('--trials', type=int, default=5)
    a = p.parse_args()
    a.build = os.path.abspath(a.build)
    a.agent = os.path.join(a.build, 'agent', 'libpinwatch.so')
    a.lib = os.path.join(a.build, 'tests', 'bench', 'libpwbench.so')
    a.jar = os.path.join(a.build, 'tests', 'bench', 'pwbench.jar')
    jdks = [j.split('=', 1) for j in a.jdk_home] or [('jdk17', run_bench.JDK17_HOME)]
    print('load average at start: %.2f %.2f %.2f' % os.getloadavg())
    for name, home in jdks:
        if not os.path.exists(os.path.join(home, 'bin', 'jfr')):
            print('%s: no JDK with JFR at %s: not measured' % (name, home))
            continue
        jdk = run_bench.Jdk(name, home)
        with tempfile.TemporaryDirectory(prefix='pwjfrbench-') as tmp:
            bench = run_bench.Bench(a, [jdk], tmp)
            settings = os.path.join(tmp, 'rows.jfc')
            jfc(home, settings)
            got = {c: {p: [] for p in PAIRS} for c in CONFIGS}
            for r in range(a.rounds):
                for config in CONFIGS[r % 3:] + CONFIGS[:r % 3]:
                    for pair, fig in run(a, bench, jdk, config, tmp, settings).items():
                        got[config][pair].append(fig)
        print('\n%s, ns per pair on 1 thread, median of %d rounds (wall / thread CPU):' % (name, a.rounds))
        print('| pair | ' + ' | '.join(CONFIGS) + ' |')
        print('|---|' + '---|' * len(CONFIGS))
        for pair in PAIRS:
            cells = ['%.1f / %.1f' % (statistics.median(w for w, _ in got[c][pair]),
                                      statistics.median(u for _, u in got[c][pair])) for c in CONFIGS]
            print('| %s | %s |' % (pair, ' | '.join(cells)))
    print('load average at end: %.2f %.2f %.2f' % os.getloadavg())
    return 0


if __name__ == '__main__':
    sys.exit(main())
