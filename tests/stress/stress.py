#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch stress, fault, bad-input, security and limits tests (issue 6).

    stress.py CASE --jdk NAME=HOME --agent libpinwatch.so --jar pwstress.jar --lib libpwstress.so \
              [--limit SECONDS]
    stress.py full --jdk jdk17=HOME --jdk jdk25=HOME ...      the full-size runs (not a test)

Exit status: 0 pass, 1 fail (expected vs got, the JVM command line and its
output), 77 skip (JDK not installed).  The fixtures are in
pinwatch/stress/*.java and pwstress.c; the expected numbers are computed here
from the same schedule, never read back from the fixture.

Sizes: the suite runs STRESS_OPS operations; `full` runs FULL_OPS (and the
10 M live pins of live-10m on both JDKs) and prints the figures.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'jvm'))
from harness import (SKIP, Context, Session, TestFailure, check_invariants,  # noqa: E402
                     exit_dump, expect, expect_row, jcmd_return_code, load_report,
                     modified_utf8_size, read_dumps, row_name, tail)

PKG = 'pinwatch.stress.'
NATIVES = PKG + 'Natives.'
ATTACH_FLAGS = ['-XX:+EnableDynamicAgentLoading']
STRESS_THREADS = 16
STRESS_BATCH = 64
STRESS_OPS = 4000000        # the suite's size: ~1-2 s of workload per variant and JDK on 2 cores
FULL_OPS = 10000000
LIVE_PINS = 10000000
LIVE_PER_CALL = 100000
# One limit a case: meson's timeout for it (--limit, times PW_LIMIT_SCALE
# under a setup that multiplies it).  The long JVM waits end LIMIT_RESERVE
# before it, so a slow machine fails with this script's message and
# figures, not meson's kill.  The full-size runs (no meson) wait FULL_WAIT.
LIMIT_RESERVE = 5
FULL_WAIT = 600
case_deadline = None


def time_left():
    """Seconds a long JVM wait may take: until the case's limit, or FULL_WAIT."""
    if case_deadline is None:
        return FULL_WAIT
    return max(1, case_deadline - time.monotonic())

# enum pw_function order; Natives.targets() gives each family's object.
FUNCTIONS = ['GetBooleanArrayElements', 'GetByteArrayElements', 'GetCharArrayElements',
             'GetShortArrayElements', 'GetIntArrayElements', 'GetLongArrayElements',
             'GetFloatArrayElements', 'GetDoubleArrayElements', 'GetPrimitiveArrayCritical',
             'GetStringChars', 'GetStringUTFChars', 'GetStringCritical']
CRITICAL = (8, 11)
LEAKABLE = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10]
ARRAY_BYTES = [61 * 1, 1001 * 1, 301 * 2, 203 * 2, 151 * 4, 97 * 8, 131 * 4, 89 * 8, 157 * 4]
STRINGS = {9: 'pinwatch-stress-chars-0123456789', 10: 'pinwatch-stress-utf-\u00e9\u20ac'}


def pin_bytes(family):
    """Bytes one pin of a family counts in live_bytes (non-critical ones)."""
    if family < len(ARRAY_BYTES):
        return ARRAY_BYTES[family]
    if family == 9:
        return 2 * len(STRINGS[9])
    if family == 10:
        return modified_utf8_size(STRINGS[10])
    raise ValueError(family)


def schedule(ops, threads, batch):
    """Stress.java's workload: pairs per family made by churn, pins given
    away by give (and released by take on another thread), pins leaked."""
    churn, give, leak = [0] * 12, [0] * 12, [0] * 12
    for t in range(threads):
        mine = ops // threads + (1 if t < ops % threads else 0)
        done = i = 0
        while done < mine:
            f = (t + i) % 12
            if i % 5 == 4 and f not in CRITICAL:
                give[f] += 1
                done += 1
            else:
                n = min(batch, mine - done)
                churn[f] += n
                done += n
            i += 1
        leak[LEAKABLE[t % 10]] += t + 1
    return churn, give, leak


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def main_class(name):
    return PKG + name


def run_plain(ctx, argv, cwd=None, timeout=120, preexec=None, expect_rc=0):
    """A JVM run with its own cwd (hs_err files land there) or a preexec."""
    from harness import JvmRun
    try:
        proc = subprocess.run(argv, env=ctx.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, universal_newlines=True,
                              errors='replace', cwd=cwd or ctx.tmpdir, preexec_fn=preexec)
    except subprocess.TimeoutExpired as e:
        ctx.runs.append(JvmRun(argv, 'timeout', str(e.stdout), str(e.stderr), None))
        raise TestFailure('JVM did not finish within %s s' % timeout)
    run = JvmRun(argv, proc.returncode, proc.stdout, proc.stderr, None)
    ctx.runs.append(run)
    if expect_rc is not None and run.returncode != expect_rc:
        raise TestFailure('JVM exit status: expected %s, got %s' % (expect_rc, run.returncode))
    return run


def errors_of(stderr):
    return [l for l in stderr.splitlines() if l.startswith('[pinwatch] ERROR')]


def json_lines_of(text):
    """Lines of text that are JSON objects (a report written to stderr)."""
    found = []
    for line in text.splitlines():
        if line.startswith('{'):
            found.append(json.loads(line))
        # Anything else on stderr is the JVM's or pinwatch's own lines.
    return found


def agent_load(session, ctx, options):
    out = session.jcmd('JVMTI.agent_load', ctx.agent, '"%s"' % options)
    return jcmd_return_code(out), out


def attach_op(pid, *args):
    """One operation over HotSpot's attach socket (protocol 1, what the
    Attach API sends): ~1 ms instead of a jcmd JVM's second.  The socket
    exists once a jcmd has attached.  Returns the reply text."""
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(60)
        s.connect('/tmp/.java_pid%d' % pid)
        s.sendall(b'1\0' + b''.join(a.encode() + b'\0' for a in (list(args) + [''] * 4)[:4]))
        out = b''
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out.decode('utf-8', 'replace')
            out += chunk


def expect_loaded(code, out, options):
    expect(code in (None, 0) and 'error' not in out.lower(),
           'agent_load "%s": expected success, jcmd said:\n%s', options, tail(out))


def since_chain(dumps, where):
    """Reports of one JVM, in file order: since_ms is exactly the uptime
    since the previous one (0 for the first), so none is missing between."""
    prev = None
    for n, d in enumerate(dumps, 1):
        want = 0 if prev is None else d['uptime_ms'] - prev['uptime_ms']
        expect(d['since_ms'] == want, '%s: report %d of %d (reason %s): since_ms %d, expected %d '
               '(a report missing or out of order)', where, n, len(dumps), d['reason'],
               d['since_ms'], want)
        prev = d


def rss_kib(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class RssWatch:
    """Samples a process's VmRSS every 50 ms; .peak in KiB."""

    def __init__(self, pid):
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self):
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_kib(self.pid))

    def stop(self):
        self._stop.set()
        self._t.join()
        return self.peak


# --------------------------------------------------------------------------
# 1. Stress
# --------------------------------------------------------------------------

def check_stress(ctx, dumps, last, ops, threads, batch, attached):
    """Exact rows of the counted phase; every interval report sound."""
    churn, give, leak = schedule(ops, threads, batch)
    for d in dumps[:-1]:
        check_invariants(d, extended=True)
    since_chain(dumps, ctx.report_path())
    for f, name in enumerate(FUNCTIONS):
        if churn[f]:
            expect_row(last, NATIVES + 'churn', name, acquired=churn[f], released=churn[f],
                       live=0, live_bytes=0)
        if give[f]:
            expect_row(last, NATIVES + 'give', name, acquired=give[f], released=give[f],
                       live=0, live_bytes=0)
        if leak[f]:
            expect_row(last, NATIVES + 'leak', name, acquired=leak[f], released=0, live=leak[f],
                       leaked=leak[f], held=0, live_bytes=leak[f] * pin_bytes(f))
    for method in ('take', 'takeEarly'):
        wrong = [row_name(r) for r in last['rows'] if r['method'] == NATIVES + method]
        expect(not wrong, 'take only releases, yet has rows: %s', wrong)
    for method in ('churnEarly', 'giveEarly'):
        for r in last['rows']:
            if r['method'] == NATIVES + method:
                expect(r['live'] == 0 and r['acquired'] == r['released'],
                       'uncounted phase row %s: acquired %d released %d live %d; every pin the '
                       'agent saw taken was released', row_name(r), r['acquired'], r['released'],
                       r['live'])
    t = last['totals']
    expect(t['live'] == sum(leak), 'totals.live %d, expected the %d leaked pins', t['live'], sum(leak))
    expect(t['leaked'] == sum(leak) and t['held'] == 0, 'totals leaked %d held %d, expected %d / 0',
           t['leaked'], t['held'], sum(leak))
    expect(t['lost'] == 0 and t['double_releases'] == 0, 'totals lost %d double_releases %d, '
           'expected 0', t['lost'], t['double_releases'])
    if not attached:
        expect(t['unmatched_releases'] == 0, 'unmatched_releases %d, expected 0',
               t['unmatched_releases'])
    intervals = [d for d in dumps if d['reason'] == 'interval']
    return intervals


def stress_run(ctx, ops, variant, threads=STRESS_THREADS, batch=STRESS_BATCH):
    """One Stress run; returns the figures."""
    report = ctx.report_path('stress-%s.jsonl' % variant)
    options = 'file=%s,format=json,interval=0.05' % report
    args = [str(ops), str(threads), str(batch), variant]
    # A fixed heap: RSS then measures the agent and the JVM's pin copies.
    heap = ['-Xms256m', '-Xmx256m']
    t0 = time.monotonic()
    if variant == 'agent':
        argv = ctx.java_argv(main_class('Stress'), args, agent_options=options, jvm_args=heap)
        with Session(ctx, argv) as s:
            s.run.report_path = report
            watch = RssWatch(s.pid)
            rc = s.finish(timeout=time_left())
            peak = watch.stop()
    else:
        argv = ctx.java_argv(main_class('Stress'), args, with_agent=False,
                             jvm_args=heap + ATTACH_FLAGS)
        with Session(ctx, argv) as s:
            s.run.report_path = report
            watch = RssWatch(s.pid)
            s.wait_for(r'^PHASE1 (\d+)$')
            # 16 threads are between Gets and Releases while the table is swapped.
            time.sleep(0.3)
            expect_loaded(*agent_load(s, ctx, options), options)
            s.send('attached')
            rc = s.finish(timeout=time_left())
            peak = watch.stop()
    wall = time.monotonic() - t0
    out = s.stdout_text()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    expect('DONE' in out, 'the fixture did not print DONE')
    rss0, rss1 = map(int, re.search(r'^RSS (\d+) (\d+)$', out, re.M).groups())
    elapsed = int(re.search(r'^ELAPSED_MS (\d+)$', out, re.M).group(1))
    dumps, last = load_report(report)
    intervals = check_stress(ctx, dumps, last, ops, threads, batch, variant == 'attach')
    expect(len(intervals) >= max(2, elapsed // 50 // 4), '%d interval reports in %d ms, expected '
           'about one per 50 ms', len(intervals), elapsed)
    figures = {'jdk': ctx.jdk_name, 'variant': variant, 'ops': ops, 'workload_ms': elapsed,
               'ns_per_op': round(elapsed * 1e6 / ops, 1), 'wall_s': round(wall, 1),
               'reports': len(dumps), 'interval_reports': len(intervals),
               'rss_start_kib': rss0, 'rss_end_kib': rss1, 'rss_growth_kib': rss1 - rss0,
               'rss_peak_kib': peak, 'table_bytes_exit': last['totals']['table_bytes'],
               'table_bytes_max': max(d['totals']['table_bytes'] for d in dumps),
               'unmatched_releases': last['totals']['unmatched_releases']}
    # Bounded memory: nothing grows with the number of operations.  The
    # pin tables hold 136 leaked pins at the end; the JVM's RSS may grow by
    # its JIT and metaspace, not by a per-operation leak.
    expect(figures['table_bytes_max'] <= 4 << 20, 'table_bytes reached %d, expected at most 4 MiB '
           'with at most ~%d pins live', figures['table_bytes_max'], threads * 3 + 136)
    expect(figures['table_bytes_exit'] <= 1 << 20, 'table_bytes at exit %d, expected at most 1 MiB',
           figures['table_bytes_exit'])
    if os.environ.get('ASAN_OPTIONS'):
        # ASan keeps freed blocks in its quarantine (256 MiB) and maps shadow
        # memory: the RSS measures them, not the agent.  The plain build
        # checks the bound; here the sanitizers check every access.
        print('VmRSS grew by %d KiB under ASan: not bounded here (its quarantine)' % figures['rss_growth_kib'])
    else:
        expect(figures['rss_growth_kib'] <= 96 * 1024, 'VmRSS grew by %d KiB during %d operations, '
               'expected at most 96 MiB', figures['rss_growth_kib'], ops)
    print('figures: ' + json.dumps(figures))
    return figures


def case_stress_mix(ctx, ops=STRESS_OPS):
    return stress_run(ctx, ops, 'agent')


def case_stress_attach(ctx, ops=STRESS_OPS):
    return stress_run(ctx, ops, 'attach')


# --------------------------------------------------------------------------
# 2. Faults
# --------------------------------------------------------------------------

def exit_with_threads_in_native(ctx, mode):
    report = ctx.report_path()
    run = ctx.run_java(main_class('Faults'), [mode], timeout=60)
    expect('EXITING' in run.stdout, 'the fixture did not reach its exit')
    with open(report, 'rb') as f:
        raw = f.read()
    expect(raw.endswith(b'\n') and raw.count(b'\n') == 1,
           'expected exactly one complete line in %s, got %d newlines, %d bytes', report,
           raw.count(b'\n'), len(raw))
    dumps = read_dumps(report)
    last = exit_dump(dumps)
    # Four threads are mid-pair: acquired - released need not equal live in
    # a report taken while they run, but every other invariant holds.
    check_invariants(last, extended=True)
    spin = [r for r in last['rows'] if r['method'] == NATIVES + 'spin']
    expect(sum(r['acquired'] for r in spin) > 1000, 'the spinning threads made %d pairs, '
           'expected thousands', sum(r['acquired'] for r in spin))
    expect(last['totals']['live'] <= 4, 'live %d at exit, expected at most one per spinning '
           'thread (4)', last['totals']['live'])
    expect(last['totals']['leaked'] == 0, 'leaked %d at exit, expected 0 (pins of running '
           'invocations are held)', last['totals']['leaked'])
    expect(not errors_of(run.stderr), 'pinwatch errors: %s', errors_of(run.stderr))


def case_exit_system(ctx):
    exit_with_threads_in_native(ctx, 'exit-system')


def case_exit_main(ctx):
    exit_with_threads_in_native(ctx, 'exit-main')


def case_thread_end(ctx):
    run = ctx.run_java(main_class('Faults'), ['thread-end'])
    expect('NATIVE 33' in run.stdout, 'the native threads took %s pins, expected 33',
           re.findall(r'NATIVE (\S+)', run.stdout))
    _, last = load_report(ctx.report_path())
    for k in range(5):
        n = 10 + k
        expect_row(last, NATIVES + 'leak', FUNCTIONS[k], acquired=n, released=0, live=n,
                   leaked=n, held=0, live_bytes=n * pin_bytes(k))
    # Natively attached threads: no Java method; their pins were held until
    # each thread ended, then leaked.
    expect_row(last, '<native thread>', 'GetLongArrayElements', acquired=33, released=0, live=33,
               leaked=33, held=0, live_bytes=33 * 7 * 8)
    t = last['totals']
    expect(t['held'] == 0 and t['leaked'] == 33 + sum(range(10, 15)),
           'totals held %d leaked %d, expected 0 / %d', t['held'], t['leaked'], 33 + 60)


def known_leak_rows(dump):
    for k, f in enumerate(LEAKABLE):
        n = 3 + k
        expect_row(dump, NATIVES + 'leak', FUNCTIONS[f], acquired=n, released=0, live=n, leaked=n,
                   held=0, live_bytes=n * pin_bytes(f))


def case_dump_during_dump(ctx):
    report = ctx.report_path()
    # stack=64: reports of tens of KiB, long enough to be mid-write when
    # the next request comes.
    options = 'file=%s,format=json,interval=0.05,stack=64' % report
    argv = ctx.java_argv(main_class('Faults'), ['serve'], agent_options=options)
    rounds = 10
    with Session(ctx, argv) as s:
        s.run.report_path = report
        s.wait_for(r'^READY (\d+)$')
        # Start the attach listener first: two jcmds racing to start it
        # both send SIGQUIT, and the one that comes late is a plain SIGQUIT
        # (a thread dump and one more DataDumpRequest).
        s.jcmd('VM.version')
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            # One pair through jcmd, the rest straight over the attach socket.
            jobs = [pool.submit(s.jcmd, 'JVMTI.data_dump') for _ in range(2)]
            for j in jobs:
                j.result()
            for _ in range(rounds - 1):
                jobs = [pool.submit(attach_op, s.pid, 'jcmd', 'JVMTI.data_dump') for _ in range(2)]
                for j in jobs:
                    expect(j.result().startswith('0'), 'datadump: %r', j.result())
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    dumps, last = load_report(report)
    reasons = [d['reason'] for d in dumps]
    expect(reasons.count('jcmd') == 2 * rounds, 'expected %d reports with reason "jcmd", got %d '
           '(reasons %s)', 2 * rounds, reasons.count('jcmd'), reasons)
    expect(reasons.count('interval') >= 1, 'no interval report came between the dumps')
    expect('Full thread dump' not in s.stdout_text(), 'a SIGQUIT reached the JVM (thread dump)')
    since_chain(dumps, report)
    for d in dumps:
        if d['reason'] != 'interval':       # interval reports may come before the leaks
            known_leak_rows(d)
    expect(len(max(open(report, 'rb'), key=len)) > 16384, 'reports shorter than 16 KiB: the '
           'case needs reports long enough to overlap')


def unwritable_run(ctx, path, what, preexec=None):
    argv = ctx.java_argv(main_class('Faults'), ['thread-end'],
                         agent_options='file=%s,format=json' % path)
    run = run_plain(ctx, argv, preexec=preexec)
    expect('DONE' in run.stdout, '%s: the JVM did not run on', what)
    errors = errors_of(run.stderr)
    expect(len(errors) == 1, '%s: expected one "[pinwatch] ERROR" line, got %d:\n%s', what,
           len(errors), '\n'.join(errors))
    expect(re.match(r'^\[pinwatch\] ERROR cannot (open|write) report file .*; report written to '
                    r'stderr$', errors[0]) and path in errors[0],
           '%s: unexpected error line: %s', what, errors[0])
    reports = json_lines_of(run.stderr)
    expect(len(reports) == 1 and reports[0]['reason'] == 'exit',
           '%s: expected the exit report on stderr, got %d JSON lines', what, len(reports))
    check_invariants(reports[0], at_exit=True, extended=True)
    expect(reports[0]['totals']['leaked'] == 93, '%s: the report on stderr says leaked %d, '
           'expected 93', what, reports[0]['totals']['leaked'])
    return errors[0]


def drop_capabilities():
    """In the child: root without CAP_DAC_OVERRIDE and friends, so that file
    modes bind it (setpriv --bounding-set -all --inh-caps -all does the same)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    PR_CAPBSET_DROP = 24
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    # capset(): clear effective, permitted and inheritable sets.
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    # SYS_capset: 126 on x86_64, 91 on aarch64 (the generic syscall table).
    if libc.syscall(91 if os.uname().machine == 'aarch64' else 126, header, data) != 0:
        raise OSError(ctypes.get_errno(), 'capset')


def case_file_unwritable(ctx):
    lines = []
    missing = os.path.join(ctx.tmpdir, 'no-such-dir', 'r.jsonl')
    lines.append(unwritable_run(ctx, missing, 'missing directory'))
    regular = os.path.join(ctx.tmpdir, 'a-file')
    open(regular, 'w').close()
    lines.append(unwritable_run(ctx, os.path.join(regular, 'r.jsonl'), 'path through a regular file'))
    # No permission, as root: a directory of mode 0500 binds a process
    # without CAP_DAC_OVERRIDE (capabilities dropped in the child).
    locked = os.path.join(ctx.tmpdir, 'locked')
    os.mkdir(locked, 0o500)
    target = os.path.join(locked, 'r.jsonl')
    lines.append(unwritable_run(ctx, target, 'directory mode 0500, no capabilities',
                                preexec=drop_capabilities if os.geteuid() == 0 else None))
    expect(not os.path.exists(target), 'the report was created in the 0500 directory')
    # An immutable directory binds root with all capabilities, where the
    # file system supports it.
    immutable = os.path.join(ctx.tmpdir, 'immutable')
    os.mkdir(immutable)
    if subprocess.run(['chattr', '+i', immutable], stderr=subprocess.DEVNULL).returncode == 0:
        try:
            lines.append(unwritable_run(ctx, os.path.join(immutable, 'r.jsonl'),
                                        'chattr +i directory'))
        finally:
            subprocess.run(['chattr', '-i', immutable])
    else:
        print('note: chattr +i not supported here; that sub-case skipped')
    lines.append(unwritable_run(ctx, '/dev/full', 'disk full (/dev/full)'))
    print('error lines:\n  ' + '\n  '.join(lines))


def case_append_two_jvms(ctx):
    report = ctx.report_path()
    options = 'file=%s,format=json,interval=0.01,stack=64' % report
    argv = ctx.java_argv(main_class('Faults'), ['run', '3000'], agent_options=options)
    procs = [subprocess.Popen(argv, env=ctx.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    from harness import JvmRun
    for p, (out, err) in zip(procs, outs):
        ctx.runs.append(JvmRun(argv, p.returncode, out.decode(errors='replace'),
                               err.decode(errors='replace'), report))
        expect(p.returncode == 0, 'JVM %d exit status %s', p.pid, p.returncode)
    with open(report, 'rb') as f:
        raw = f.read()
    dumps = read_dumps(report)      # every line one JSON object: nothing interleaved
    expect(sum(len(json.dumps(d)) for d in dumps) > 0, 'empty')
    expect(raw.count(b'\n') == len(dumps) and raw.endswith(b'\n'), 'partial line in %s', report)
    by_pid = {}
    for d in dumps:
        by_pid.setdefault(d['pid'], []).append(d)
    expect(sorted(by_pid) == sorted(p.pid for p in procs), 'pids in the report %s, expected %s',
           sorted(by_pid), sorted(p.pid for p in procs))
    for pid, mine in by_pid.items():
        exit_dump(mine)
        since_chain(mine, 'pid %d' % pid)       # every report of each JVM is there
        for d in mine:
            check_invariants(d, extended=True)
        known_leak_rows(mine[-1])
    counts = {pid: len(mine) for pid, mine in by_pid.items()}
    biggest = max(len(l) for l in raw.split(b'\n'))
    expect(biggest > 4096, 'reports of at most %d bytes: not beyond PIPE_BUF, the case proves '
           'little', biggest)
    expect(all(c >= 20 for c in counts.values()), 'too few reports to overlap: %s', counts)
    print('lines per pid: %s (total %d, largest %d bytes)' % (counts, len(dumps), biggest))


def case_load_twice(ctx):
    a, b = ctx.report_path('a.jsonl'), ctx.report_path('b.jsonl')
    first = '-agentpath:%s=file=%s,format=json' % (ctx.agent, a)
    # Twice with start options: the second load is a refused command, and
    # the JVM does not start.
    argv = ctx.java_argv(main_class('Misuse'), ['wrong-family'], with_agent=False,
                         jvm_args=[first, '-agentpath:%s=file=%s,format=json' % (ctx.agent, b)])
    run = run_plain(ctx, argv, expect_rc=1)
    expect('DONE' not in run.stdout, 'the JVM ran with a refused second agent')
    errors = errors_of(run.stderr)
    expect(len(errors) == 1 and 'already runs' in errors[0], 'expected one ERROR line saying '
           'pinwatch already runs, got %s', errors)
    expect(not os.path.exists(b), 'the refused load created %s', b)
    if os.path.exists(a):
        os.unlink(a)
    # The second as a command: one report at load time, and the wrappers
    # are not wrapped twice (counts not doubled, no recursion).
    argv = ctx.java_argv(main_class('Misuse'), ['wrong-family', 'elements-as-critical'],
                         with_agent=False,
                         jvm_args=[first, '-agentpath:%s=dump,file=%s,format=json' % (ctx.agent, b)])
    run = run_plain(ctx, argv)
    expect('DONE' in run.stdout and not errors_of(run.stderr), 'second load as a command: %s',
           errors_of(run.stderr))
    commands = read_dumps(b)
    expect([d['reason'] for d in commands] == ['command'], 'expected one "command" report in %s, '
           'got %s', b, [d['reason'] for d in commands])
    dumps, last = load_report(a)
    expect(len(dumps) == 1, 'expected only the exit report in %s, got %d', a, len(dumps))
    expect_row(last, NATIVES + 'wrongFamily', 'GetLongArrayElements', acquired=9, released=9, live=0)
    expect_row(last, NATIVES + 'elementsAsCritical', 'GetIntArrayElements', acquired=4, released=4,
               live=0)


def case_attach_20(ctx):
    report, command = ctx.report_path(), ctx.report_path('command.jsonl')
    argv = ctx.java_argv(main_class('Faults'), ['serve'], jvm_args=ATTACH_FLAGS)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        s.wait_for(r'^READY (\d+)$')
        opts = 'dump,file=%s,format=json' % command
        # The first through jcmd, 19 more straight over the attach socket
        # (the same "load" operation jcmd's JVMTI.agent_load makes).
        expect_loaded(*agent_load(s, ctx, opts), opts)
        for n in range(19):
            reply = attach_op(s.pid, 'load', ctx.agent, 'true', opts)
            expect(reply.split() == ['0', 'return', 'code:', '0'], 'load %d: reply %r', n + 2, reply)
        # Anything but a dump is refused, and writes nothing.
        reply = attach_op(s.pid, 'load', ctx.agent, 'true', 'threshold=5,file=%s' % command)
        expect(reply.split() == ['0', 'return', 'code:', '1'], 'load threshold=5: reply %r', reply)
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    commands = read_dumps(command)
    expect([d['reason'] for d in commands] == ['command'] * 20, 'expected 20 "command" reports, '
           'got %s', [d['reason'] for d in commands])
    for d in commands:
        check_invariants(d, extended=True)
        known_leak_rows(d)
    dumps, last = load_report(report)
    expect([d['reason'] for d in dumps] == ['exit'], 'expected only the exit report in %s, got %s',
           report, [d['reason'] for d in dumps])
    known_leak_rows(last)
    # The 20 loads did not stack wrappers: every pair still counted once.
    for r in last['rows']:
        if r['method'] == NATIVES + 'spin':
            expect(r['live'] == 0 and r['acquired'] == r['released'], 'row %s: acquired %d '
                   'released %d', row_name(r), r['acquired'], r['released'])


# --------------------------------------------------------------------------
# 3. Bad input
# --------------------------------------------------------------------------

HUGE = '9' * 40
BAD_OPTIONS = []
for _key in ('threshold', 'interval', 'exitcode', 'stack', 'javastack', 'critical_ms'):
    for _value in ('garbage', '', '-1', HUGE, '12x', ' 5', '0x10'):
        BAD_OPTIONS.append(('%s=%s' % (_key, _value), _key))
    BAD_OPTIONS.append((_key, _key))                      # no value at all
BAD_OPTIONS += [
    ('threshold=1099511627777', 'threshold'),             # 2^40 + 1
    ('interval=0.001', 'interval'), ('interval=0.0005', 'interval'), ('interval=1.', 'interval'),
    ('interval=604801', 'interval'), ('exitcode=0', 'exitcode'), ('exitcode=256', 'exitcode'),
    ('stack=65', 'stack'), ('javastack=65', 'javastack'), ('critical_ms=4294967297', 'critical_ms'),
    ('format=', 'format'), ('format=xml', 'format'), ('format=JSON', 'format'),
    ('format=-1', 'format'), ('format=' + 'j' * 5000, 'format'),
    ('file=', 'file'), ('file=' + 'f' * 5000, 'file'),
    ('suppress=', 'suppress'), ('suppress=' + 's' * 5000, 'suppress'),
    ('suppress=/nonexistent/pinwatch.supp', '/nonexistent/pinwatch.supp'),
    ('bogus=1', 'bogus'), ('=1', 'unknown option'), ('threshold=5,,format=json', 'empty option'),
    ('x' * 65536, 'unknown option'),                      # 64 KiB
    ('file=' + 'a' * 65531, 'file'),                      # 64 KiB, one value
    ('threshold=5,' * 5461 + 'bogus', 'bogus'),           # 64 KiB of valid items, then a bad one
]


def bad_option_run(ctx, options, name):
    cwd = os.path.join(ctx.tmpdir, 'cwd-%d' % abs(hash(options)))
    os.mkdir(cwd)
    argv = ctx.java_argv(main_class('Misuse'), [], agent_options=options)
    run = run_plain(ctx, argv, cwd=cwd, expect_rc=None)
    shown = options if len(options) < 60 else options[:50] + '...(%d chars)' % len(options)
    problems = []
    if run.returncode != 1:
        problems.append('exit status %s, expected 1' % run.returncode)
    if 'DONE' in run.stdout:
        problems.append('main ran')
    errors = errors_of(run.stderr)
    if len(errors) != 1:
        problems.append('%d "[pinwatch] ERROR" lines, expected 1' % len(errors))
    elif name not in errors[0]:
        problems.append('the error line does not name %r: %s' % (name, errors[0][:300]))
    elif len(errors[0]) > 400:
        problems.append('the error line is %d characters long' % len(errors[0]))
    if any(f.startswith('hs_err') or f.startswith('core') for f in os.listdir(cwd)):
        problems.append('crash files left: %s' % os.listdir(cwd))
    if '# A fatal error' in run.stderr or 'SIGSEGV' in run.stderr:
        problems.append('the JVM crashed')
    return shown, problems, errors[0] if errors else ''


def case_bad_options(ctx):
    failures = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c: bad_option_run(ctx, *c), BAD_OPTIONS))
    for shown, problems, line in results:
        if problems:
            failures.append('%r: %s' % (shown, '; '.join(problems)))
    expect(not failures, '%d of %d bad option strings mishandled:\n  %s', len(failures),
           len(results), '\n  '.join(failures))
    # A suppression file with garbage.
    supp = ctx.report_path('bad.supp')
    with open(supp, 'wb') as f:
        f.write(b'method:ok.*\n\x00\xff\xfe garbage without a colon\n')
    shown, problems, line = bad_option_run(ctx, 'suppress=%s' % supp, 'line 2')
    expect(not problems, 'suppress file with garbage: %s', '; '.join(problems))
    ctx.runs.clear()        # hundreds of runs: keep a failure's log readable
    print('%d bad option strings refused with one line each' % (len(results) + 1))


def case_bad_releases(ctx):
    safe = ['unmatched', 'null-bytes', 'null-utf', 'null-chars', 'wrong-family']
    # First without the agent: these are the releases HotSpot tolerates.
    run = ctx.run_java(main_class('Misuse'), safe, with_agent=False)
    expect('DONE' in run.stdout, 'without the agent: the fixture did not finish')
    run = ctx.run_java(main_class('Misuse'), safe + ['elements-as-critical'])
    expect('DONE' in run.stdout, 'with the agent: the fixture did not finish')
    _, last = load_report(ctx.report_path())
    # p + 8 was released: unknown to the agent, so p stays live in its books.
    expect_row(last, NATIVES + 'unmatchedCritical', 'GetPrimitiveArrayCritical', acquired=5,
               released=0, live=5, live_bytes=5 * 211 * 4)
    expect_row(last, NATIVES + 'wrongFamily', 'GetLongArrayElements', acquired=9, released=9, live=0)
    expect_row(last, NATIVES + 'elementsAsCritical', 'GetIntArrayElements', acquired=4, released=4,
               live=0)
    findings = {(f['kind'], f['method'], f['call']): f['count'] for f in last['findings']}
    want = {('wrong_function', NATIVES + 'wrongFamily', 'ReleaseIntArrayElements'): 9,
            ('wrong_function', NATIVES + 'elementsAsCritical', 'ReleasePrimitiveArrayCritical'): 4}
    for key, count in want.items():
        expect(findings.get(key) == count, 'finding %s: count %s, expected %d (findings %s)', key,
               findings.get(key), count, findings)
    # NULL was never handed out: 3 x 7 releases of a pointer the agent never
    # saw, counted and passed on (HotSpot frees NULL), not double releases.
    t = last['totals']
    doubles = {k: v for k, v in findings.items() if k[0] == 'double_release'}
    expect(t['unmatched_releases'] == 5 + 21 and not doubles and t['double_releases'] == 0,
           'releases of NULL: unmatched_releases %d (expected 5 + 21), double_releases %d '
           '(expected 0), double_release findings %s', t['unmatched_releases'],
           t['double_releases'], doubles)


# --------------------------------------------------------------------------
# 5. Limits
# --------------------------------------------------------------------------

def live_pins(ctx, total=LIVE_PINS, per_call=LIVE_PER_CALL):
    report = ctx.report_path()
    argv = ctx.java_argv(main_class('Limits'), [str(total), str(per_call)],
                         agent_options='file=%s,format=json' % report)
    t0 = time.monotonic()
    with Session(ctx, argv) as s:
        s.run.report_path = report
        m = s.wait_for(r'^LEAKED (\d+)$', timeout=time_left())
        leak_s = time.monotonic() - t0
        rss = rss_kib(s.pid)
        t1 = time.monotonic()
        s.jcmd('JVMTI.data_dump')
        dump_s = time.monotonic() - t1
        s.send('go')
        rc = s.finish(timeout=time_left())
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    expect(int(m.group(1)) == total, 'the fixture leaked %s pins, expected %d', m.group(1), total)
    dumps, last = load_report(report)
    jcmd = [d for d in dumps if d['reason'] == 'jcmd']
    expect(len(jcmd) == 1, 'expected one jcmd report, got %d', len(jcmd))
    for d in jcmd + [last]:
        expect_row(d, NATIVES + 'leak', 'GetLongArrayElements', acquired=total, released=0,
                   live=total, leaked=total, held=0, live_bytes=total * 8)
        expect(d['totals']['live'] == total and d['totals']['lost'] == 0,
               'reason %s: totals.live %d lost %d, expected %d / 0', d['reason'],
               d['totals']['live'], d['totals']['lost'], total)
    per_pin = last['totals']['table_bytes'] / total
    expect(per_pin <= 40, 'table_bytes %d for %d live pins: %.1f B a pin, expected at most 40',
           last['totals']['table_bytes'], total, per_pin)
    figures = {'jdk': ctx.jdk_name, 'live_pins': total, 'leak_s': round(leak_s, 1),
               'jcmd_dump_s': round(dump_s, 2), 'table_bytes': last['totals']['table_bytes'],
               'table_bytes_per_pin': round(per_pin, 1), 'rss_kib': rss,
               'reports': [d['reason'] for d in dumps].count('threshold')}
    print('figures: ' + json.dumps(figures))
    return figures


def case_live_10m(ctx):
    return live_pins(ctx)


# --------------------------------------------------------------------------
# 6. Security
# --------------------------------------------------------------------------

def case_symlink_mode_noexec(ctx):
    main = [main_class('Misuse'), ['wrong-family']]
    # A symlink planted where the report goes, to a file it must not touch.
    precious = ctx.report_path('precious.txt')
    with open(precious, 'w') as f:
        f.write('precious\n')
    os.utime(precious, (1000000000, 1000000000))
    link = ctx.report_path('link.jsonl')
    os.symlink(precious, link)
    dangling_target = ctx.report_path('created-through-link.jsonl')
    dangling = ctx.report_path('dangling.jsonl')
    os.symlink(dangling_target, dangling)
    for path, what in ((link, 'symlink to a file'), (dangling, 'dangling symlink')):
        argv = ctx.java_argv(*main, agent_options='file=%s,format=json' % path)
        run = run_plain(ctx, argv)
        errors = errors_of(run.stderr)
        expect(len(errors) == 1 and path in errors[0] and errors[0].endswith('; report written to '
               'stderr'), '%s: expected one error line naming %s, got %s', what, path, errors)
        expect([d['reason'] for d in json_lines_of(run.stderr)] == ['exit'],
               '%s: expected the exit report on stderr', what)
    with open(precious) as f:
        expect(f.read() == 'precious\n', 'the symlink target was written to')
    expect(os.stat(precious).st_mtime == 1000000000, 'the symlink target was modified')
    expect(not os.path.exists(dangling_target), 'a file was created through the dangling symlink')

    # Mode 0600 whatever the umask.
    report = ctx.report_path('mode.jsonl')
    argv = ctx.java_argv(*main, agent_options='file=%s,format=json' % report)
    run_plain(ctx, argv, preexec=lambda: os.umask(0))
    mode = stat.S_IMODE(os.stat(report).st_mode)
    expect(mode == 0o600, 'report file mode %o, expected 600 (umask 0)', mode)

    # Nothing in the options is run by a shell.
    names = ['r-$(id -u).jsonl', 'r-`id -u`.jsonl', 'r-$(touch pwned-1).jsonl', 'r-;touch pwned-2']
    for name in names:
        argv = ctx.java_argv(*main, agent_options='file=%s,format=json' % ctx.report_path(name))
        run_plain(ctx, argv)
        expect(os.path.exists(ctx.report_path(name)), 'no file named literally %r', name)
    argv = ctx.java_argv(*main, agent_options='suppress=$(touch pwned-3)')
    run = run_plain(ctx, argv, expect_rc=1)
    expect(len(errors_of(run.stderr)) == 1, 'suppress=$(...): expected one error line')
    # The same through jcmd: the attach protocol hands the string over as is.
    argv = ctx.java_argv(main_class('Faults'), ['serve'], jvm_args=ATTACH_FLAGS)
    with Session(ctx, argv) as s:
        s.wait_for(r'^READY (\d+)$')
        opts = 'dump,file=%s,format=json' % ctx.report_path('c-$(id -u).jsonl')
        expect_loaded(*agent_load(s, ctx, opts), opts)
        s.send('go')
        expect(s.finish() == 0, 'JVM exit status not 0')
    expect(os.path.exists(ctx.report_path('c-$(id -u).jsonl')), 'jcmd: no file named literally')
    for d in (ctx.tmpdir, os.getcwd(), '/tmp'):
        pwned = [f for f in os.listdir(d) if f.startswith('pwned')]
        expect(not pwned, 'files created by running the options: %s in %s', pwned, d)
    expanded = [f for f in os.listdir(ctx.tmpdir) if f in ('r-0.jsonl', 'c-0.jsonl')]
    expect(not expanded, 'a shell expanded a file name: %s', expanded)


# --------------------------------------------------------------------------

CASES = {
    'stress-mix': case_stress_mix,
    'stress-attach': case_stress_attach,
    'exit-system': case_exit_system,
    'exit-main': case_exit_main,
    'thread-end': case_thread_end,
    'dump-during-dump': case_dump_during_dump,
    'file-unwritable': case_file_unwritable,
    'append-two-jvms': case_append_two_jvms,
    'load-twice': case_load_twice,
    'attach-20': case_attach_20,
    'bad-options': case_bad_options,
    'bad-releases': case_bad_releases,
    'symlink-mode-noexec': case_symlink_mode_noexec,
    'live-10m': case_live_10m,
}


def make_ctx(case, jdk, args):
    name, home = jdk.split('=', 1)
    ctx = Context(case, name, home, os.path.abspath(args.agent), os.path.abspath(args.jar),
                  os.path.abspath(args.lib), None)
    return ctx


def run_case(case, fn, ctx):
    try:
        ctx.require_jdk()
        result = fn(ctx)
    except SystemExit:
        ctx.cleanup()
        raise
    except Exception as e:
        if isinstance(e, TestFailure):
            print('FAIL: %s on %s: %s' % (case, ctx.jdk_name, e))
        else:
            print('FAIL: %s on %s: checker error' % (case, ctx.jdk_name))
            traceback.print_exc(file=sys.stdout)
        for number, run in enumerate(ctx.runs, 1):
            print('\n=== JVM run %d of %d ===\n%s' % (number, len(ctx.runs), run.describe()))
            if run.report_path and os.path.exists(run.report_path):
                with open(run.report_path, encoding='utf-8', errors='replace') as f:
                    print('--- report %s (tail) ---\n%s' % (run.report_path, tail(f.read(), 5)[-3000:]))
        print('\nscratch files kept in ' + ctx.tmpdir)
        return False, None
    ctx.cleanup()
    print('PASS: %s on %s' % (case, ctx.jdk_name))
    return True, result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('case', choices=sorted(CASES) + ['full'])
    parser.add_argument('--jdk', action='append', required=True, help='NAME=HOME')
    parser.add_argument('--agent', required=True)
    parser.add_argument('--jar', required=True)
    parser.add_argument('--lib', required=True)
    parser.add_argument('--ops', type=int, help='operations for the stress cases')
    parser.add_argument('--limit', type=float, help="meson's timeout for the case, in seconds")
    args = parser.parse_args()
    if args.limit:
        global case_deadline
        scale = float(os.environ.get('PW_LIMIT_SCALE') or 1)
        case_deadline = time.monotonic() + args.limit * scale - LIMIT_RESERVE
    if args.case != 'full':
        ctx = make_ctx(args.case, args.jdk[0], args)
        fn = CASES[args.case]
        if args.ops and args.case.startswith('stress-'):
            fn = lambda c, f=fn: f(c, args.ops)     # noqa: E731
        ok, _ = run_case(args.case, fn, ctx)
        return 0 if ok else 1
    # The full-size runs: FULL_OPS operations in each stress variant and
    # LIVE_PINS live pins, on every JDK given.
    ops = args.ops or FULL_OPS
    results, failed = [], 0
    for jdk in args.jdk:
        for case, fn in (('stress-mix', lambda c: case_stress_mix(c, ops)),
                         ('stress-attach', lambda c: case_stress_attach(c, ops)),
                         ('live-10m', case_live_10m)):
            ok, figures = run_case(case, fn, make_ctx(case, jdk, args))
            failed += not ok
            if figures:
                results.append(figures)
    print('\nfull-size figures:')
    for r in results:
        print('  ' + json.dumps(r))
    print('%d runs, %d failed' % (len(results) + failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
