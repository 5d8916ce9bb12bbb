#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch benchmark: what the agent costs the program it watches.

    python3 tests/bench/run_bench.py --build build [--quick] [--jdk jdk17]
        [--config defaults ...] [--compare before=OLD/libpinwatch.so] [--leak-rounds 0]
    meson compile -C build bench        (or bench-quick)

Measured, on every JDK given, for five configurations -- bare (no agent),
defaults (-agentpath:libpinwatch.so), stack16 (…=stack=16; skipped when the
agent does not know the option), checkjni (-Xcheck:jni, no agent) and
refsoff (…=refs=off: the reference wrappers not installed):

  * ns per Get+Release pair, 1 and 2 threads, for GetLongArrayElements on a
    long[4], GetPrimitiveArrayCritical on a 64 KiB byte[],
    GetByteArrayElements on a 64 KiB byte[] and GetStringUTFChars of a
    32-character string, and the reference pairs NewGlobalRef+DeleteGlobalRef
    and NewLocalRef+DeleteLocalRef (k pairs in one C loop per native call, so the
    Java->native transition is amortised; 2 threads: both run the loop at
    once on arrays of their own, the figure is per pair per thread);
  * ns per call of a native method that pins nothing (the entry thunk's cost);
  * lz4-java (JNI) compressing and decompressing 64 KiB blocks.

--config keeps only the named configurations beside bare; --compare NAME=LIB
adds another build of the agent, at its defaults, as configuration NAME, so
that a change is measured against the build before it in the same rounds;
each such build is printed against defaults round by round, with the
median's 95 % interval (stats.py) and whether the rounds tell them apart.
A target's ratio is printed with its interval too.

Each (round, JDK, configuration) is a fresh JVM; the configurations run in
an order rotated every round, so slow phases of this shared machine fall on
all of them alike.  Inside a JVM a figure is the median of 5 timed trials
(~50 ms each) after warm-up; across JVMs it is the median over rounds, and
a ratio is the median over rounds of the ratio to bare *in the same round*.
Wall time (System.nanoTime) is the figure of record; the thread's CPU time
is printed beside it because it leaves out time spent waiting for a CPU
while other processes ran -- when the two disagree, the machine was busy.

Then, with and without the agent: RSS per pin with 1,000,000 GetLongArrayElements
pins leaked over 1,000 calls (the agent's share is the difference: the JVM's
own malloc'd copies are in both), the same with 1,000,000 pins held inside one
running invocation, and -- with the agent -- the time to write a jcmd dump of
those 1,000,000 live pins (three jcmd JVMTI.data_dump per JVM, sent by the JVM
to itself through the attach mechanism: a jcmd process's own start-up would
take both CPUs of a small machine) and the longest stall of an application
thread doing balanced pairs meanwhile, against its longest stall during
VM.version, the same attach round trip without a dump.

Standard library only.  Prints a table per JDK and, last, one line
"PWBENCH-SUMMARY {json}" with every median.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

from stats import interval_label, median_ci, told_apart

LZ4_JAR = '/usr/share/java/lz4-java.jar'
LZ4_JNI_DIR = '/usr/lib/%s/jni' % (sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu')
MAIN_CLASS = 'pinwatch.bench.Bench'
JVM_TIMEOUT = 300  # seconds for one JVM: a hang ends the run, not the machine's afternoon
JDK17_HOME = '/usr/lib/jvm/java-17-openjdk-amd64'

CONFIGS = ['bare', 'defaults', 'stack16', 'checkjni', 'refsoff']
PAIRS = [('long4', 'GetLongArrayElements long[4]'),
         ('critical64k', 'GetPrimitiveArrayCritical 64 KiB'),
         ('bytes64k', 'GetByteArrayElements 64 KiB'),
         ('utf32', 'GetStringUTFChars 32 chars'),
         ('globalref', 'NewGlobalRef+DeleteGlobalRef'),
         ('localref', 'NewLocalRef+DeleteLocalRef')]
LEAK_PINS = 1_000_000
EMULATED = ('EMULATED: aarch64 under qemu-user, a smoke test of the benchmark; its figures and target '
            'verdicts are not meaningful')
LEAK_PER_CALL = 1000

# The issues' targets, checked against the defaults (and stack16) medians:
# issue 32's for the long[4] and critical pairs with one thread, the earlier
# ones for the rest.
# (label, config, key, kind, limit): kind 'ratio' (x bare), 'added_ns', 'bytes', 'ms'.
TARGETS = [
    ('long[4] 1 thread', 'defaults', ('pair', 'long4', 1), 'ratio', 1.15),
    ('long[4] 2 threads', 'defaults', ('pair', 'long4', 2), 'ratio', 2.0),
    ('critical 64 KiB 1 thread', 'defaults', ('pair', 'critical64k', 1), 'ratio', 1.3),
    ('critical 64 KiB 2 threads', 'defaults', ('pair', 'critical64k', 2), 'ratio', 2.0),
    ('64 KiB element copies 1 thread', 'defaults', ('pair', 'bytes64k', 1), 'ratio', 1.05),
    ('64 KiB element copies 2 threads', 'defaults', ('pair', 'bytes64k', 2), 'ratio', 1.05),
    ('stack=16 long[4] 1 thread', 'stack16', ('pair', 'long4', 1), 'ratio', 2.0),
    ('native call that pins nothing', 'defaults', ('nop', 1), 'added_ns', 5.0),
    ('lz4 64 KiB blocks', 'defaults', ('lz4', 1), 'ratio', 1.03),
    ('global ref pair 1 thread', 'defaults', ('pair', 'globalref', 1), 'ratio', 1.5),
    ('local ref pair 1 thread', 'defaults', ('pair', 'localref', 1), 'ratio', 1.5),
    ('refs=off global ref pair', 'refsoff', ('pair', 'globalref', 1), 'ratio', 1.05),
    ('refs=off local ref pair', 'refsoff', ('pair', 'localref', 1), 'ratio', 1.05),
]


class JvmError(Exception):
    pass


def log(msg=''):
    print(msg, flush=True)


# --------------------------------------------------------------------------
# Running JVMs


class Jdk:
    def __init__(self, name, home, qemu_root=None):
        self.name = name
        self.home = home
        self.java = os.path.join(home, 'bin', 'java')
        # --qemu-root: an arm64 JDK in that Debian tree, run through qemu-user.
        self.launcher = ['qemu-aarch64-static', '-L', qemu_root] if qemu_root else []
        env = dict(os.environ)
        env['PATH'] = os.path.join(home, 'bin') + os.pathsep + env.get('PATH', '')
        env['JAVA_HOME'] = home
        if qemu_root:
            env.update(QEMU_LD_PREFIX=qemu_root, QEMU_CPU='max,pauth-impdef=on')
        # Options from the caller's environment would change what is measured.
        for var in ('JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS'):
            env.pop(var, None)
        self.env = env
        self.version = ''

    def present(self):
        return os.access(self.java, os.X_OK)

    def argv(self, *args):
        return self.launcher + [self.java] + list(args)


class Bench:
    def __init__(self, opts, jdks, tmpdir):
        self.opts = opts
        self.jdks = jdks
        self.tmpdir = tmpdir
        self.counter = 0
        self.stack16 = {}  # jdk name -> bool

    def report_path(self, tag):
        self.counter += 1
        return os.path.join(self.tmpdir, '%03d-%s.jsonl' % (self.counter, tag))

    def argv(self, jdk, config, mode_args, report, jvm_args=()):
        argv = jdk.argv(*jvm_args)
        if config in self.opts.compare:
            # Another build of the agent, at its defaults, in the same rounds.
            argv.append('-agentpath:%s=file=%s,format=json' % (self.opts.compare[config], report))
        elif config in ('defaults', 'stack16', 'refsoff', 'interval'):
            # interval: a report every second (jfr_bench.py's yardstick).
            extra = {'stack16': 'stack=16,', 'refsoff': 'refs=off,', 'interval': 'interval=1,'}.get(config, '')
            argv.append('-agentpath:%s=%sfile=%s,format=json' % (self.opts.agent, extra, report))
        elif config == 'checkjni':
            argv.append('-Xcheck:jni')
        argv += [
            # JDK 24+ warns about System.load without it; JDK 17 accepts it.
            '--enable-native-access=ALL-UNNAMED',
            '-Dpwbench.lib=%s' % self.opts.lib,
            # Debian's lz4-java calls System.loadLibrary("lz4-java") first.
            '-Djava.library.path=%s' % LZ4_JNI_DIR,
            '-cp', self.opts.jar + os.pathsep + LZ4_JAR,
            MAIN_CLASS,
        ]
        return argv + [str(a) for a in mode_args]

    def run(self, jdk, config, mode_args, tag, jvm_args=()):
        report = self.report_path('%s-%s-%s' % (jdk.name, config, tag))
        argv = self.argv(jdk, config, mode_args, report, jvm_args)
        try:
            proc = subprocess.run(argv, env=jdk.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, universal_newlines=True, errors='replace',
                                  timeout=JVM_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise JvmError('%s %s: no exit within %d s: %s' % (jdk.name, config, JVM_TIMEOUT, ' '.join(argv)))
        if proc.returncode != 0:
            raise JvmError('%s %s: exit status %d: %s\n%s' % (jdk.name, config, proc.returncode, ' '.join(argv),
                                                               tail(proc.stderr + proc.stdout)))
        return proc.stdout, proc.stderr, report

    def probe_stack16(self, jdk):
        try:
            self.run(jdk, 'stack16', ['probe'], 'probe')
            return True
        except JvmError as e:
            first = [line for line in str(e).splitlines()[1:] if line.strip()][:1]
            log('stack16: not supported by this agent build (%s: %s)' % (jdk.name, first[0] if first else e))
            return False


def tail(text, lines=15):
    parts = (text or '').strip().splitlines()
    return '\n'.join(parts[-lines:])


def data_lines(stdout):
    """The PWBENCH lines, split; anything else (-Xcheck:jni warnings) is not data."""
    return [line.split()[1:] for line in stdout.splitlines() if line.startswith('PWBENCH ')]


def all_reports(path, reason):
    try:
        with open(path, encoding='utf-8') as f:
            reports = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []
    return [r for r in reports if r.get('reason') == reason]


def last_report(path, reason):
    reports = all_reports(path, reason)
    return reports[-1] if reports else None


def check_agent_saw(report, what):
    """A run 'with the agent' whose agent intercepted nothing would flatter
    it: the exit report must show the bench's native methods and no pin
    left live."""
    if report is None:
        raise JvmError('%s: the agent wrote no report' % what)
    rows = [r for r in report['rows'] if r['method'].startswith('pinwatch.bench.Natives')]
    acquired = sum(r['acquired'] for r in rows)
    if acquired == 0:
        raise JvmError('%s: the agent counted no pins in pinwatch.bench.Natives' % what)
    if report['totals']['live'] != 0:
        raise JvmError('%s: the agent reports %d live pins after balanced pairs'
                       % (what, report['totals']['live']))
    refs = report.get('references')
    if what.endswith('refsoff'):
        if refs is not None:
            raise JvmError('%s: refs=off, yet the report has a references section' % what)
    elif refs is not None:
        made = {r['method']: r for r in refs['rows'] if r['method'].startswith('pinwatch.bench.Natives')}
        for method in ('pinwatch.bench.Natives.globalRefs', 'pinwatch.bench.Natives.localRefs'):
            row = made.get(method)
            if row is None or row['created'] == 0 or row['live'] != 0:
                raise JvmError('%s: the agent did not count %s as balanced reference pairs: %s'
                               % (what, method, row))
    return acquired


# --------------------------------------------------------------------------
# Phase 1: pairs, empty native call, lz4


def main_phase(bench, rounds, trial_ms, trials):
    # results[jdk][config][key] = list over rounds (None: that run failed)
    results = {j.name: {c: {} for c in bench.opts.configs} for j in bench.jdks}
    for r in range(rounds):
        for ji, jdk in enumerate(bench.jdks):
            configs = [c for c in bench.opts.configs if c != 'stack16' or bench.stack16[jdk.name]]
            shift = (r + ji) % len(configs)
            order = configs[shift:] + configs[:shift]
            started = time.monotonic()
            for config in order:
                try:
                    out, _, report = bench.run(jdk, config, ['main', trial_ms, trials, 1], 'r%d' % r)
                    if config in ('defaults', 'stack16', 'refsoff') or config in bench.opts.compare:
                        check_agent_saw(last_report(report, 'exit'), '%s %s' % (jdk.name, config))
                except JvmError as e:
                    log('ERROR round %d: %s' % (r + 1, e))
                    continue
                for fields in data_lines(out):
                    # pair NAME THREADS WALL CPU | nop 1 WALL CPU | lz4 1 WALL CPU
                    if fields[0] == 'pair':
                        key, wall, cpu = ('pair', fields[1], int(fields[2])), fields[3], fields[4]
                    elif fields[0] in ('nop', 'lz4') and fields[1] != 'unavailable':
                        key, wall, cpu = (fields[0], int(fields[1])), fields[2], fields[3]
                    elif fields[0] == 'lz4':
                        if r == 0:
                            log('lz4 (%s %s): %s' % (jdk.name, config, ' '.join(fields[1:])))
                        continue
                    else:
                        continue
                    for k, v in ((key, wall), (('cpu',) + key, cpu)):
                        results[jdk.name][config].setdefault(k, [None] * rounds)[r] = float(v)
            log('round %d/%d %s: %s (%.0f s)' % (r + 1, rounds, jdk.name, ' '.join(order),
                                                time.monotonic() - started))
    return results


def summarise(results):
    """Medians per (config, key); ratios and added ns from same-round pairs."""
    summary = {}
    for jdk, by_config in results.items():
        bare = by_config['bare']
        out = summary[jdk] = {}
        for config, by_key in by_config.items():
            for key, values in by_key.items():
                vals = [v for v in values if v is not None]
                if not vals:
                    continue
                entry = {'median': statistics.median(vals), 'n': len(vals)}
                if config != 'bare' and key in bare:
                    same = [(v, b) for v, b in zip(values, bare[key]) if v is not None and b is not None]
                    if same:
                        entry['ratio'], lo, hi = median_ci([v / b for v, b in same])
                        entry['ratio_ci95'], entry['ratio_n'] = [lo, hi], len(same)
                        entry['added'] = statistics.median(v - b for v, b in same)
                out.setdefault(config, {})[key_name(key)] = entry
    return summary


def print_compared(jdks, results, names):
    """Each --compare build against the agent's defaults in the same rounds:
    per pair and thread count, the per-round ratio of the two builds' wall
    times, its median, its 95 % interval (stats.median_ci) and whether the
    rounds tell the two apart."""
    log('')
    log('Compared with --agent (defaults) in the same rounds (wall time, median of per-round ratios, its 95% CI):')
    for jdk in jdks:
        by_config = results.get(jdk.name, {})
        for name in names:
            for key in sorted(k for k in by_config.get(name, {}) if k[0] in ('pair', 'lz4')):
                ratios = [a / d for a, d in zip(by_config[name][key], by_config.get('defaults', {}).get(key, []))
                          if a is not None and d is not None]
                if not ratios:
                    continue
                ratio, lo, hi = median_ci(ratios)
                verdict = told_apart(len(ratios), lo, hi)
                log('  %-6s %-10s %-24s %.3fx  [%.3fx-%.3fx]  %s' % (
                    jdk.name, name, key_name(key), ratio, lo, hi, verdict))


def key_name(key):
    return '/'.join(str(k) for k in key)


# --------------------------------------------------------------------------
# Phase 2: memory per live pin, dump with 1M live pins


def leak_with_dump(bench, jdk):
    """The agent's run of the leak phase: RSS, then the dumps, then RSS of
    pins held in one invocation."""
    # The JVM sends itself the jcmd commands (Bench.dumpUnderLoad).
    attach = ['-Djdk.attach.allowAttachSelf=true', '--add-exports', 'jdk.attach/sun.tools.attach=ALL-UNNAMED']
    out, _, report = bench.run(jdk, 'defaults', ['leak', LEAK_PINS, LEAK_PER_CALL, 1, 1], 'leak', attach)
    fields = data_lines(out)
    one = {f[0]: f[1:] for f in fields}
    if int(one['leak'][0]) != LEAK_PINS:
        raise JvmError('%s leak run: %s of %d pins taken' % (jdk.name, one['leak'][0], LEAK_PINS))
    base = [(float(f[2]), float(f[3])) for f in fields if f[:2] == ['jcmd', 'VM.version']]
    dumps = [(float(f[2]), float(f[3])) for f in fields if f[:2] == ['jcmd', 'JVMTI.data_dump']]
    reports = all_reports(report, 'jcmd')
    if not dumps or len(reports) != len(dumps):
        raise JvmError('%s leak run: %d dumps asked for, %d jcmd reports in the file'
                       % (jdk.name, len(dumps), len(reports)))
    leaked = min(r['totals']['leaked'] for r in reports)
    if leaked < LEAK_PINS:
        raise JvmError('%s leak run: a dump shows %d leaked pins, expected >= %d' % (jdk.name, leaked, LEAK_PINS))
    return {
        'leak_rss': int(one['leak'][1]),
        'hold_rss': int(one['hold'][1]),
        'live_in_dump': leaked,
        # Round trip of the attach command, i.e. the whole DataDumpRequest
        # callback; the VM.version round trip is what attach alone costs.
        'dump_ms': max(d[0] for d in dumps),
        'version_ms': max(b[0] for b in base),
        'stall_dump_ms': max(d[1] for d in dumps),
        'stall_base_ms': max(b[1] for b in base),
    }


def leak_without(bench, jdk):
    out, _, _ = bench.run(jdk, 'bare', ['leak', LEAK_PINS, LEAK_PER_CALL, 0, 1], 'leak')
    fields = {f[0]: f[1:] for f in data_lines(out)}
    if int(fields['leak'][0]) != LEAK_PINS:
        raise JvmError('%s bare leak run: %s pins taken' % (jdk.name, fields['leak'][0]))
    return {'leak_rss': int(fields['leak'][1]), 'hold_rss': int(fields['hold'][1])}


def leak_phase(bench, rounds):
    per = {j.name: [] for j in bench.jdks}
    for r in range(rounds):
        for ji, jdk in enumerate(bench.jdks):
            runs = [('bare', leak_without), ('defaults', leak_with_dump)]
            if (r + ji) % 2:
                runs.reverse()
            got = {}
            for name, fn in runs:
                try:
                    got[name] = fn(bench, jdk)
                except (JvmError, subprocess.TimeoutExpired, KeyError, IndexError, ValueError) as e:
                    log('ERROR leak round %d: %s' % (r + 1, e))
            if len(got) == 2:
                w, b = got['defaults'], got['bare']
                w['agent_leak_bytes_per_pin'] = (w['leak_rss'] - b['leak_rss']) / LEAK_PINS
                w['agent_hold_bytes_per_pin'] = (w['hold_rss'] - b['hold_rss']) / LEAK_PINS
                w['jvm_bytes_per_pin'] = b['leak_rss'] / LEAK_PINS
                per[jdk.name].append(w)
            log('leak round %d/%d %s done' % (r + 1, rounds, jdk.name))
    summary = {}
    for jdk, rows in per.items():
        if rows:
            summary[jdk] = {k: statistics.median(row[k] for row in rows) for k in rows[0]}
            # The worst dump and the worst stall matter more than the typical ones.
            summary[jdk]['dump_ms_max'] = max(row['dump_ms'] for row in rows)
            summary[jdk]['stall_dump_ms_max'] = max(row['stall_dump_ms'] for row in rows)
            summary[jdk]['stall_base_ms_max'] = max(row['stall_base_ms'] for row in rows)
            summary[jdk]['rounds'] = len(rows)
    return summary


# --------------------------------------------------------------------------
# Output


def fmt_ns(v):
    if v >= 10000:
        return '%.0f' % v
    return '%.1f' % v


def print_tables(jdk, s, stack16, all_configs):
    configs = [c for c in all_configs if c != 'stack16' or stack16]
    log('')
    log('== %s: %s' % (jdk.name, jdk.version))
    for metric, title in (('', 'wall time (System.nanoTime): the figures of record'),
                          ('cpu', 'thread CPU time: leaves out waiting for a CPU on this shared machine')):
        log('ns per Get+Release pair per thread, %s; (x.xx) = median of same-round ratios to bare' % title)
        head = '%-37s %3s  %-9s' % ('', 'thr', 'bare')
        for c in configs[1:]:
            head += '  %-17s' % c
        log(head)
        rows = [(('pair', p, t), label, t) for p, label in PAIRS for t in (1, 2)]
        rows += [(('nop', 1), 'native call, pins nothing (ns/call)', 1),
                 (('lz4', 1), 'lz4 64 KiB compress+decompress', 1)]
        for key, label, threads in rows:
            name = key_name((metric,) + key if metric else key)
            bare = s.get('bare', {}).get(name)
            if bare is None:
                continue
            line = '%-37s %3d  %-9s' % (label, threads, fmt_ns(bare['median']))
            for c in configs[1:]:
                e = s.get(c, {}).get(name)
                if e is None:
                    cell = '-'
                elif key[0] == 'nop':
                    cell = '%s (%+.1f ns)' % (fmt_ns(e['median']), e['added'])
                else:
                    cell = '%s (%.2fx)' % (fmt_ns(e['median']), e['ratio'])
                line += '  %-17s' % cell
            log(line)
        log('')


def print_leak(jdk, m):
    log('')
    log('%s, %d pins (median of %d rounds):' % (jdk.name, LEAK_PINS, m['rounds']))
    log('  agent RSS per leaked pin        %6.1f B   (JVM\'s own copy: %.1f B)'
        % (m['agent_leak_bytes_per_pin'], m['jvm_bytes_per_pin']))
    log('  agent RSS per pin held in one invocation %6.1f B' % m['agent_hold_bytes_per_pin'])
    log('  JVMTI.data_dump with %d live pins: %.0f ms (worst %.0f ms); VM.version for comparison: %.1f ms'
        % (m['live_in_dump'], m['dump_ms'], m['dump_ms_max'], m['version_ms']))
    log('  longest app-thread stall: during a dump %.1f ms (worst %.1f ms); during VM.version %.1f ms '
        '(worst %.1f ms)' % (m['stall_dump_ms'], m['stall_dump_ms_max'], m['stall_base_ms'],
                             m['stall_base_ms_max']))


def check_targets(jdks, summary, leak):
    log('')
    log('Targets (defaults unless named; verdicts on wall time):')
    verdicts = []
    for label, config, key, kind, limit in TARGETS:
        for jdk in jdks:
            by_key = summary.get(jdk.name, {}).get(config, {})
            e, c = by_key.get(key_name(key)), by_key.get(key_name(('cpu',) + key))
            if e is None:
                continue
            field = 'ratio' if kind == 'ratio' else 'added'
            ok = e[field] <= limit
            unit = 'x' if kind == 'ratio' else ' ns'
            verdicts.append(ok)
            ci = '  [%s %.2f-%.2f]' % ((interval_label(e['ratio_n']),) + tuple(e['ratio_ci95'])) if kind == 'ratio' else ''
            log('  %-34s %-6s %7.2f%s  (target <= %g%s)  %-4s  [thread CPU time: %.2f%s]%s'
                % (label, jdk.name, e[field], unit, limit, unit, 'ok' if ok else 'OVER',
                   c[field] if c else float('nan'), unit, ci))
    for jdk in jdks:
        m = leak.get(jdk.name)
        if m is None:
            continue
        for label, value, limit, unit in (
                ('memory per live pin at 1M', m['agent_leak_bytes_per_pin'], 40, ' B'),
                ('dump of 1M live pins', m['dump_ms_max'], 1000, ' ms'),
                ('longest app stall during dump', m['stall_dump_ms_max'], 10, ' ms')):
            ok = value <= limit
            verdicts.append(ok)
            log('  %-34s %-6s %7.1f%s  (target <= %g%s)  %s'
                % (label, jdk.name, value, unit, limit, unit, 'ok' if ok else 'OVER'))
    return verdicts


def sha256(path):
    """Names the agent build that was measured: figures are only comparable
    between runs of the same one."""
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 16), b''):
            h.update(block)
    return h.hexdigest()[:16]


def loadavg():
    """Printed with the figures: on a 2-CPU machine, anything else running
    shows up in them (2-thread figures most)."""
    try:
        with open('/proc/loadavg') as f:
            return ' '.join(f.read().split()[:3])
    except OSError:
        return '?'


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown'


def jdk_version(jdk):
    p = subprocess.run(jdk.argv('-version'), env=jdk.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    lines = p.stdout.splitlines()
    return ' / '.join(lines[:2]) if lines else '?'


# --------------------------------------------------------------------------


def present_jdks(homes, qemu_root=None):
    """The JDKs of (name, home) pairs that have a java, each with its version; a line for each
    that has none, and one more when none is left."""
    jdks = []
    for name, home in homes:
        jdk = Jdk(name, home, qemu_root)
        if jdk.present():
            jdk.version = jdk_version(jdk)
            jdks.append(jdk)
        else:
            log('%s: no java at %s; skipped' % (name, home))
    if not jdks:
        log('no JDK to run on')
    return jdks


def jdk_homes_from_build(build):
    """jdk17_home and temurin_home as configured in the build directory
    (temurin_home `auto`: the newest Temurin, as the build finds it)."""
    jdk17, temurin = JDK17_HOME, 'auto'
    try:
        with open(os.path.join(build, 'meson-info', 'intro-buildoptions.json')) as f:
            for opt in json.load(f):
                if opt['name'] == 'jdk17_home':
                    jdk17 = opt['value']
                elif opt['name'] == 'temurin_home':
                    temurin = opt['value']
    except (OSError, ValueError, KeyError):
        pass
    homes = [('jdk17', jdk17)]
    if temurin == 'auto':
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'checks'))
        import find_temurin
        found = find_temurin.find()
        if found:
            homes.append(found)
    elif temurin:
        homes.append(('temurin', temurin))
    return homes


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', help='the Meson build directory (gives --agent, --lib, --jar, JDK homes)')
    ap.add_argument('--agent', help='libpinwatch.so')
    ap.add_argument('--lib', help='libpwbench.so')
    ap.add_argument('--jar', help='pwbench.jar')
    ap.add_argument('--jdk-home', action='append', default=[], metavar='NAME=HOME',
                    help='a JDK to run on (repeatable; default: the build\'s jdk17_home and temurin_home)')
    ap.add_argument('--jdk', action='append', default=[], metavar='NAME', help='run on this JDK only (repeatable)')
    ap.add_argument('--quick', action='store_true', help='3 rounds, shorter trials, 1 leak round (~1 min)')
    ap.add_argument('--rounds', type=int, help='interleaved rounds (default 7, --quick 3)')
    ap.add_argument('--leak-rounds', type=int,
                    help='rounds of the memory/dump phase (default 3, --quick 1; 0: none)')
    ap.add_argument('--config', action='append', default=[], choices=CONFIGS[1:],
                    help='measure only these configurations beside bare (repeatable; default: all)')
    ap.add_argument('--compare', dest='compare_list', action='append', default=[], metavar='NAME=LIBPINWATCH',
                    help='another agent build, run at its defaults in the same rounds as a '
                    'configuration named NAME (repeatable): before and after a change, measured alike')
    ap.add_argument('--json', metavar='FILE', help='also write every per-round figure to FILE')
    ap.add_argument('--qemu-root', metavar='ROOT',
                    help='the JDKs are arm64 ones in this Debian tree, run through qemu-user: a smoke '
                    'test of the benchmark on aarch64 (1 round, short trials); its figures are not meaningful')
    opts = ap.parse_args()
    if opts.build:
        b = os.path.abspath(opts.build)
        opts.agent = opts.agent or os.path.join(b, 'agent', 'libpinwatch.so')
        opts.lib = opts.lib or os.path.join(b, 'tests', 'bench', 'libpwbench.so')
        opts.jar = opts.jar or os.path.join(b, 'tests', 'bench', 'pwbench.jar')
    missing = [n for n in ('agent', 'lib', 'jar') if not getattr(opts, n)]
    if missing:
        ap.error('give --build, or --%s' % ', --'.join(missing))
    for n in ('agent', 'lib', 'jar'):
        path = os.path.abspath(getattr(opts, n))
        if not os.path.exists(path):
            ap.error('%s not found: %s (build first: ninja -C BUILD)' % (n, path))
        setattr(opts, n, path)
    pairs = [tuple(s.split('=', 1)) for s in opts.jdk_home] if opts.jdk_home else \
        jdk_homes_from_build(opts.build or '')
    opts.jdks = [(n, h) for n, h in pairs if not opts.jdk or n in opts.jdk]
    if not opts.jdks:
        ap.error('no JDK left after --jdk %s' % ' '.join(opts.jdk))
    if opts.qemu_root:
        global LZ4_JAR, LZ4_JNI_DIR
        LZ4_JAR = os.path.join(opts.qemu_root, 'usr/share/java/lz4-java.jar')
        LZ4_JNI_DIR = os.path.join(opts.qemu_root, 'usr/lib/aarch64-linux-gnu/jni')
        opts.quick = True
        opts.rounds = opts.rounds or 1
    opts.rounds = opts.rounds or (3 if opts.quick else 7)
    if opts.leak_rounds is None:
        opts.leak_rounds = 1 if opts.quick else 3
    opts.compare = {}
    for spec in opts.compare_list:
        name, _, path = spec.partition('=')
        if not path or name in CONFIGS or name in opts.compare:
            ap.error('--compare NAME=LIBPINWATCH, NAME new and not one of %s: %s' % (', '.join(CONFIGS), spec))
        if not os.path.exists(path):
            ap.error('--compare %s: no such file: %s' % (name, path))
        opts.compare[name] = os.path.abspath(path)
    opts.configs = ['bare'] + [c for c in CONFIGS[1:] if not opts.config or c in opts.config] + list(opts.compare)
    opts.trial_ms, opts.trials = (25, 3) if opts.quick else (50, 5)
    return opts


def main():
    opts = parse_args()
    jdks = present_jdks(opts.jdks, opts.qemu_root)
    if not jdks:
        return 1
    if not (os.path.exists(LZ4_JAR) and os.path.isdir(LZ4_JNI_DIR)):
        log('lz4-java not installed (%s, %s): the lz4 row will be missing' % (LZ4_JAR, LZ4_JNI_DIR))

    log('pinwatch benchmark')
    if opts.qemu_root:
        log(EMULATED)
    log('CPU: %s, %d CPUs; %s' % (cpu_model(), os.cpu_count() or 0, platform.platform()))
    for jdk in jdks:
        log('%s: %s (%s)' % (jdk.name, jdk.version, jdk.home))
    log('agent: %s (sha256 %s)' % (opts.agent, sha256(opts.agent)))
    log('rounds: %d (trials of %d ms, median of %d per JVM); leak/dump rounds: %d'
        % (opts.rounds, opts.trial_ms, opts.trials, opts.leak_rounds))
    log('load average at start: %s' % loadavg())
    started = time.monotonic()

    tmpdir = tempfile.mkdtemp(prefix='pwbench-')
    try:
        bench = Bench(opts, jdks, tmpdir)
        for jdk in jdks:
            bench.stack16[jdk.name] = 'stack16' in opts.configs and bench.probe_stack16(jdk)
        results = main_phase(bench, opts.rounds, opts.trial_ms, opts.trials)
        summary = summarise(results)
        leak = leak_phase(bench, opts.leak_rounds)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)

    for jdk in jdks:
        print_tables(jdk, summary.get(jdk.name, {}), bench.stack16[jdk.name], opts.configs)
        if jdk.name in leak:
            print_leak(jdk, leak[jdk.name])
    if opts.compare and 'defaults' in opts.configs:
        print_compared(jdks, results, list(opts.compare))
    verdicts = check_targets(jdks, summary, leak)
    log('')
    log('%d of %d targets met; %.0f s; load average at end: %s'
        % (sum(verdicts), len(verdicts), time.monotonic() - started, loadavg()))
    if opts.qemu_root:
        log(EMULATED)

    doc = {
        'cpu': cpu_model(), 'cpus': os.cpu_count(), 'agent_sha256': sha256(opts.agent)[:16],
        'jdks': {j.name: j.version for j in jdks},
        'rounds': opts.rounds, 'leak_rounds': opts.leak_rounds, 'emulated': bool(opts.qemu_root),
        'stack16': bench.stack16,
        'medians': summary, 'memory_dump': leak,
    }
    if opts.json:
        with open(opts.json, 'w') as f:
            json.dump(dict(doc, per_round={j: {c: {key_name(k): v for k, v in by_key.items()}
                                               for c, by_key in by_c.items()}
                                           for j, by_c in results.items()}), f, indent=1)
    log('PWBENCH-SUMMARY ' + json.dumps(doc, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
