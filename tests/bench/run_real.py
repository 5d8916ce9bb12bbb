#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch on real libraries: what a user of JNA, lz4-java, snappy-java,
java.util.zip and zstd-jni feels of the agent.

    python3 tests/bench/run_real.py --build build [--rounds 5] [--jdk jdk17]
    meson compile -C build bench-real

Five workloads on 1 KiB inputs, from Debian's packages (libjna-java,
liblz4-java, libsnappy-java, libzstd-jni-java; the JDK's own zip):

  jna     libc memcpy of 64 B through a JNA Library interface, byte[] arguments
  lz4     lz4-java: fast compress + safe decompress
  snappy  snappy-java: compress + uncompress, byte[] with offsets
  zip     java.util.zip: Deflater(1) + Inflater
  zstd    zstd-jni: compressByteArray level 1 + decompressByteArray

Each (round, JDK, workload, configuration) is a fresh JVM running one workload
(tests/bench/real/.../Real.java, compiled here against the installed jars);
configurations are bare, pinwatch (defaults), refsoff (refs=off) and checkjni
(-Xcheck:jni, no agent), and any other agent build given with --compare, in
an order rotated every round.  A JVM's figure is
the median of its timed trials; across rounds, ns/op is the median and a
ratio the median of the per-round ratios to bare of the same round.  A run
with the agent must show the workload's native methods with pins counted and
none left live, or it is an error, not a figure.

Prints a table per JDK, the target (each workload <= 1.03x with pinwatch, with
the median's 95 % confidence interval and the lowest and highest of the
per-round ratios beside it), each --compare build against the agent in the
same rounds (their per-round ratio, its interval, and whether the rounds tell
the two apart), the load average at start and end, and one line
"PWREAL-SUMMARY {json}".
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import shutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402  (Jdk, JvmError, reports, machine facts)
from stats import interval_label, median_ci, told_apart  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'real', 'pinwatch', 'bench', 'real', 'Real.java')
MAIN = 'pinwatch.bench.real.Real'
JARS = ['/usr/share/java/jna.jar', '/usr/share/java/lz4-java.jar', '/usr/share/java/snappy-java.jar',
        '/usr/share/java/zstd-jni.jar']
# Debian's JNI libraries (lz4-java, snappy-java, JNA's dispatch) are in jni/,
# zstd-jni's in the multiarch directory; Temurin's default path has neither.
LIB_PATH = '/usr/lib/x86_64-linux-gnu/jni:/usr/lib/x86_64-linux-gnu'
# (name, label, the native methods' class prefix in the agent's report)
WORKLOADS = [
    ('jna', 'JNA: libc memcpy 64 B, byte[] args', 'com.sun.jna.'),
    ('lz4', 'lz4-java: compress + decompress', 'net.jpountz.'),
    ('snappy', 'snappy-java: compress + uncompress', 'org.xerial.snappy.'),
    ('zip', 'java.util.zip: Deflater(1) + Inflater', 'java.util.zip.'),
    ('zstd', 'zstd-jni: level 1 + decompress', 'com.github.luben.zstd.'),
]
CONFIGS = ['bare', 'pinwatch', 'refsoff', 'checkjni']
TARGET = 1.03
JVM_TIMEOUT = 300


def log(msg=''):
    print(msg, flush=True)


def compile_real(javac, outdir):
    subprocess.run([javac, '--release', '17', '-Xlint:all', '-Werror', '-d', outdir, '-cp', os.pathsep.join(JARS),
                    SRC], check=True)


def run_one(opts, jdk, workload, config, classes, tmpdir, tag):
    report = os.path.join(tmpdir, '%s-%s-%s-%s.jsonl' % (jdk.name, workload, config, tag))
    argv = jdk.argv()
    if config == 'pinwatch':
        argv.append('-agentpath:%s=file=%s,format=json' % (opts.agent, report))
    elif config in opts.compare:
        argv.append('-agentpath:%s=file=%s,format=json' % (opts.compare[config], report))
    elif config == 'refsoff':
        argv.append('-agentpath:%s=refs=off,file=%s,format=json' % (opts.agent, report))
    elif config == 'checkjni':
        argv.append('-Xcheck:jni')
    argv += ['--enable-native-access=ALL-UNNAMED', '-Djava.library.path=' + LIB_PATH,
             '-cp', os.pathsep.join([classes] + JARS), MAIN, workload, str(opts.trial_ms), str(opts.trials)]
    try:
        p = subprocess.run(argv, env=jdk.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, errors='replace', timeout=JVM_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise run_bench.JvmError('%s %s %s: no exit within %d s' % (jdk.name, workload, config, JVM_TIMEOUT))
    if p.returncode != 0:
        raise run_bench.JvmError('%s %s %s: exit status %d: %s\n%s' % (
            jdk.name, workload, config, p.returncode, ' '.join(argv), run_bench.tail(p.stderr + p.stdout)))
    got = [line.split() for line in p.stdout.splitlines() if line.startswith('PWREAL ')]
    if len(got) != 1:
        raise run_bench.JvmError('%s %s %s: no PWREAL line:\n%s' % (jdk.name, workload, config,
                                                                   run_bench.tail(p.stdout + p.stderr)))
    if config in ('pinwatch', 'refsoff') or config in opts.compare:
        check_counted(run_bench.last_report(report, 'exit'), workload, '%s %s %s' % (jdk.name, workload, config))
    return float(got[0][2]), float(got[0][3])


def check_counted(report, workload, what):
    """A run whose agent counted nothing of the library would flatter it."""
    if report is None:
        raise run_bench.JvmError('%s: the agent wrote no report' % what)
    prefix = [w[2] for w in WORKLOADS if w[0] == workload][0]
    rows = [r for r in report['rows'] if r['method'].startswith(prefix)]
    if sum(r['acquired'] for r in rows) == 0:
        raise run_bench.JvmError('%s: the agent counted no pins in %s*' % (what, prefix))
    live = sum(r['live'] for r in rows)
    if live:
        raise run_bench.JvmError('%s: %d pins of %s* left live' % (what, live, prefix))


def compared_with_defaults(jdks, workloads, names, res, summary):
    """Each --compare build against pinwatch's own in the same rounds: the
    per-round ratio of the two JVMs' wall times, its median and interval, and
    whether the rounds tell the two apart (the interval leaves out 1)."""
    log('')
    log('Compared with --agent in the same rounds (wall time, median of per-round ratios, its 95% CI):')
    for jdk in jdks:
        for w, _, _ in workloads:
            by = res[jdk.name][w]
            for name in names:
                ratios = [a[0] / p[0] for a, p in zip(by[name], by['pinwatch']) if a and p]
                if not ratios:
                    continue
                ratio, lo, hi = median_ci(ratios)
                verdict = told_apart(len(ratios), lo, hi)
                summary[jdk.name][w]['%s/pinwatch' % name] = {'ratio': ratio, 'ratio_ci95': [lo, hi],
                                                              'n': len(ratios)}
                log('  %-8s %-6s %-12s %.3fx  [%.3fx-%.3fx]  %s' % (w, jdk.name, name, ratio, lo, hi, verdict))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', help='the Meson build directory (gives --agent and the JDK homes)')
    ap.add_argument('--agent', help='libpinwatch.so')
    ap.add_argument('--jdk-home', action='append', default=[], metavar='NAME=HOME')
    ap.add_argument('--jdk', action='append', default=[], metavar='NAME', help='run on this JDK only')
    ap.add_argument('--workload', action='append', default=[], choices=[w[0] for w in WORKLOADS])
    ap.add_argument('--config', action='append', default=[], choices=CONFIGS,
                    help='configurations to run (bare is always run)')
    ap.add_argument('--compare', action='append', default=[], metavar='NAME=LIBPINWATCH',
                    help='another agent build, run with its defaults as configuration NAME in the same '
                    'rounds (say, the build before a change: paired rounds see the same machine)')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--trial-ms', type=int, default=100)
    ap.add_argument('--trials', type=int, default=5)
    opts = ap.parse_args()
    if opts.build:
        opts.agent = opts.agent or os.path.join(os.path.abspath(opts.build), 'agent', 'libpinwatch.so')
    if not opts.agent or not os.path.exists(opts.agent):
        ap.error('no agent: give --build or --agent (built?)')
    missing = [j for j in JARS if not os.path.exists(j)]
    if missing:
        log('bench-real needs Debian\'s libjna-java, liblz4-java, libsnappy-java and libzstd-jni-java '
            '(.ci/run installs them); missing: %s' % ' '.join(missing))
        return 1
    homes = [tuple(s.split('=', 1)) for s in opts.jdk_home] if opts.jdk_home else \
        run_bench.jdk_homes_from_build(opts.build or '')
    jdks = run_bench.present_jdks([(name, home) for name, home in homes
                                   if not opts.jdk or name in opts.jdk])
    if not jdks:
        return 1
    workloads = [w for w in WORKLOADS if not opts.workload or w[0] in opts.workload]
    configs = ['bare'] + [c for c in CONFIGS[1:] if not opts.config or c in opts.config]
    opts.compare = dict(c.split('=', 1) for c in opts.compare)
    for name, path in opts.compare.items():
        if name in CONFIGS or not os.path.exists(path):
            ap.error('--compare %s=%s: a new name and an existing library, please' % (name, path))
    configs[2:2] = list(opts.compare)

    log('pinwatch on real libraries (1 KiB inputs)')
    log('CPU: %s, %d CPUs' % (run_bench.cpu_model(), os.cpu_count() or 0))
    for jdk in jdks:
        log('%s: %s (%s)' % (jdk.name, jdk.version, jdk.home))
    log('agent: %s (sha256 %s)' % (opts.agent, run_bench.sha256(opts.agent)))
    for name, path in opts.compare.items():
        log('compared: %s = %s (sha256 %s)' % (name, path, run_bench.sha256(path)))
    log('rounds: %d; per JVM the median of %d trials of %d ms' % (opts.rounds, opts.trials, opts.trial_ms))
    log('load average at start: %s' % run_bench.loadavg())
    started = time.monotonic()
    tmpdir = tempfile.mkdtemp(prefix='pwreal-')
    # res[jdk][workload][config] = [(wall, cpu) or None per round]
    res = {j.name: {w[0]: {c: [None] * opts.rounds for c in configs} for w in workloads} for j in jdks}
    errors = 0
    try:
        classes = os.path.join(tmpdir, 'classes')
        compile_real(os.path.join(jdks[0].home, 'bin', 'javac'), classes)
        for r in range(opts.rounds):
            for ji, jdk in enumerate(jdks):
                t0 = time.monotonic()
                for wi, (w, _, _) in enumerate(workloads):
                    shift = (r + ji + wi) % len(configs)
                    for config in configs[shift:] + configs[:shift]:
                        try:
                            res[jdk.name][w][config][r] = run_one(opts, jdk, w, config, classes, tmpdir, 'r%d' % r)
                        except run_bench.JvmError as e:
                            errors += 1
                            log('ERROR round %d: %s' % (r + 1, e))
                log('round %d/%d %s (%.0f s, load average %s)' % (r + 1, opts.rounds, jdk.name,
                                                                 time.monotonic() - t0, run_bench.loadavg()))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)

    summary = {}
    verdicts = []
    for jdk in jdks:
        log('')
        log('== %s: %s' % (jdk.name, jdk.version))
        for idx, metric in ((0, 'wall time'), (1, 'thread CPU time')):
            log('ns/op by %s; (x.xx) = median of per-round ratios to bare' % metric)
            log('%-38s %9s' % ('', 'bare') + ''.join('  %-16s' % c for c in configs[1:]))
            for w, label, _ in workloads:
                by = res[jdk.name][w]
                bare = [v[idx] if v else None for v in by['bare']]
                if not any(bare):
                    continue
                line = '%-38s %9s' % (label, run_bench.fmt_ns(statistics.median(b for b in bare if b)))
                for c in configs[1:]:
                    vals = [v[idx] if v else None for v in by[c]]
                    pairs = [(v, b) for v, b in zip(vals, bare) if v and b]
                    if not pairs:
                        line += '  %-16s' % '-'
                        continue
                    med = statistics.median(v for v, _ in pairs)
                    ratios = [v / b for v, b in pairs]
                    ratio, lo, hi = median_ci(ratios)
                    summary.setdefault(jdk.name, {}).setdefault(w, {})['%s/%s' % (c, metric.split()[0])] = \
                        {'ns': med, 'ratio': ratio, 'bare': statistics.median(b for _, b in pairs), 'n': len(pairs),
                         'ratio_min': min(ratios), 'ratio_max': max(ratios), 'ratio_ci95': [lo, hi]}
                    line += '  %-16s' % ('%s (%.2fx)' % (run_bench.fmt_ns(med), ratio))
                log(line)
            log('')
    if 'pinwatch' in configs:
        log('Target: each workload <= %.2fx with pinwatch (wall time; thread CPU time beside)' % TARGET)
        for jdk in jdks:
            for w, label, _ in workloads:
                e = summary.get(jdk.name, {}).get(w, {})
                wall, cpu = e.get('pinwatch/wall'), e.get('pinwatch/thread')
                if wall is None:
                    continue
                ok = wall['ratio'] <= TARGET
                verdicts.append(ok)
                # The median's interval and the rounds' spread beside it (median_ci).
                log('  %-8s %-6s %.2fx  %-4s  [%s %.2fx-%.2fx] [rounds %.2fx-%.2fx] '
                    '[thread CPU time %.2fx]' % (
                        w, jdk.name, wall['ratio'], 'ok' if ok else 'OVER', interval_label(wall['n']),
                        wall['ratio_ci95'][0], wall['ratio_ci95'][1], wall['ratio_min'], wall['ratio_max'],
                        cpu['ratio'] if cpu else float('nan')))
    if 'pinwatch' in configs and opts.compare:
        compared_with_defaults(jdks, workloads, list(opts.compare), res, summary)
    log('')
    log('%d of %d targets met; %d JVM errors; %.0f s; load average at end: %s' % (
        sum(verdicts), len(verdicts), errors, time.monotonic() - started, run_bench.loadavg()))
    log('PWREAL-SUMMARY ' + run_bench.json.dumps({'jdks': {j.name: j.version for j in jdks}, 'rounds': opts.rounds,
                                                  'medians': summary}, sort_keys=True))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
