#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tests of the pinwatch command line.

    clitest.py CASE --pinwatch PROG --srcdir DIR --builddir DIR
               [--jdk-name NAME --jdk-home DIR --agent LIB --classpath CP --libpath LP]

JVM cases drive pinwatch.cli.Driver (tests/cli/pinwatch/cli/Driver.java): on
"train N" it runs N steps of the training example, whose evalStep leaks one
long[2] (16 bytes) every 4th step; on "keep N" it leaks N int[97] (388 bytes)
in Driver.keep.  Every figure asserted below follows from those commands.

Exit status: 0 passed, 1 failed (the reason on stderr), 77 skipped.
Standard library only.
"""

import argparse
import html.parser
import html
import json
import os
import re
import queue
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
EVAL = 'ai.example.TrainingSession.evalStep'
KEEP = 'pinwatch.cli.Driver.keep'
EVAL_BYTES = 16          # long[2]
KEEP_BYTES = 97 * 4      # int[97]
CHROMIUM = '/usr/bin/chromium'
# The arm64 Debian tree of the aarch64 cross build (tests/cli/meson.build), or None.
QEMU_ROOT = os.environ.get('PW_QEMU_ROOT') or None
# Emulation: every wait below is this many times longer (what is asserted is not).
TIME_SCALE = 4 if QEMU_ROOT else 1

# Running as nobody is shared with the JVM cases (tests/jvm/unprivileged.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'jvm'))
from unprivileged import as_nobody, traversable  # noqa: E402


def native_access_flags(jdk_home):
    """Quiets JDK 24+'s restricted-method warnings; JDK 17 accepts the
    option, JDK 11's launcher refuses to start with it (its release file
    says which JDK it is)."""
    try:
        with open(os.path.join(jdk_home or '', 'release'), encoding='utf-8') as f:
            m = re.search(r'^JAVA_VERSION="(\d+)', f.read(), re.M)
    except OSError:
        m = None
    return [] if m and int(m.group(1)) < 17 else ['--enable-native-access=ALL-UNNAMED']


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def expect(cond, fmt, *args):
    if not cond:
        raise Fail(fmt % args if args else fmt)


class Ctx:
    def __init__(self, opts):
        self.o = opts
        self.tmp = tempfile.mkdtemp(prefix='pw-cli-%s-' % opts.case)
        os.chmod(self.tmp, 0o755)
        # No JDK, no jcmd: pinwatch must speak the attach protocol itself.
        self.nopath = os.path.join(self.tmp, 'empty-bin')
        os.mkdir(self.nopath)
        self.env = dict(os.environ, PATH=self.nopath, LC_ALL='C')
        self.env.pop('JAVA_HOME', None)
        self.env.pop('JAVA_TOOL_OPTIONS', None)
        assert shutil.which('jcmd', path=self.env['PATH']) is None
        self.jvms = []
        self.log = []
        self.qemu_bin = None
        self.java = os.path.join(opts.jdk_home or '', 'bin', 'java')
        if QEMU_ROOT:
            self._qemu_launchers()

    def _qemu_launchers(self):
        """The aarch64 cross build (PW_QEMU_ROOT): pinwatch and the arm64
        java run through qemu-user, by exec scripts that keep the pid.
        Scripts, not an argv prefix, so that `pinwatch run -- java` and the
        attach-as-root case start them the same way; in the build dir, not
        in /tmp, which attach-as-root hides from its JVM."""
        bindir = self.qemu_bin = tempfile.mkdtemp(prefix='qemu-bin-%s-' % self.o.case, dir=self.o.builddir)
        os.chmod(bindir, 0o755)
        qemu = shutil.which('qemu-aarch64-static') or '/usr/bin/qemu-aarch64-static'
        for name, prog in (('pinwatch', self.o.pinwatch), ('java', self.java)):
            path = os.path.join(bindir, name)
            with open(path, 'w', encoding='utf-8') as f:
                f.write('#!/bin/sh\nQEMU_LD_PREFIX=%s QEMU_CPU=max,pauth-impdef=on\n'
                        'export QEMU_LD_PREFIX QEMU_CPU\nexec %s %s "$@"\n'
                        % (shlex.quote(QEMU_ROOT), qemu, shlex.quote(os.path.abspath(prog))))
            os.chmod(path, 0o755)
        self.o.pinwatch = os.path.join(bindir, 'pinwatch')
        self.java = os.path.join(bindir, 'java')

    def path(self, name):
        return os.path.join(self.tmp, name)

    def nobody_needs(self):
        """What a program run as nobody must reach: the JDK, and under qemu the
        arm64 tree and the launchers in the build dir."""
        needs = [self.java] if self.o.jdk_home else []
        if QEMU_ROOT:
            needs += [QEMU_ROOT, self.o.builddir]
        return needs

    def pw(self, *args, timeout=30, env=None, prog=None):
        """Runs pinwatch; returns (status, stdout, stderr)."""
        timeout *= TIME_SCALE
        argv = [prog or self.o.pinwatch] + [str(a) for a in args]
        try:
            p = subprocess.run(argv, env=env or self.env, stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Fail('%s: no answer within %d s' % (' '.join(argv), timeout))
        self.log.append('$ %s\n[status %d]\n%s%s' % (' '.join(argv), p.returncode, p.stdout[-3000:],
                                                     p.stderr[-3000:]))
        return p.returncode, p.stdout, p.stderr

    def java_argv(self, extra=(), classpath=None, libpath=None):
        return [self.java, '-XX:+EnableDynamicAgentLoading'] + native_access_flags(self.o.jdk_home) + [
                '-Xshare:auto', '-XX:TieredStopAtLevel=1'] + list(extra) + [
                    '-cp', classpath or self.o.classpath,
                    '-Djava.library.path=' + (libpath or self.o.libpath), 'pinwatch.cli.Driver']

    def world_readable_copy(self):
        """The driver, its libraries and the agent copied where any user can
        read them (the build dir may be under a private home)."""
        where = self.path('shared-build')
        os.mkdir(where)
        os.chmod(where, 0o755)
        jars = []
        for jar in self.o.classpath.split(':'):
            jars.append(shutil.copy(jar, where))
        for d in self.o.libpath.split(':'):
            for name in os.listdir(d):
                if name.endswith('.so'):
                    shutil.copy(os.path.join(d, name), where)
        agent = shutil.copy(self.o.agent, where)
        for name in os.listdir(where):
            os.chmod(os.path.join(where, name), 0o755)
        return ':'.join(jars), where, agent

    def cleanup(self):
        for j in self.jvms:
            j.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.qemu_bin:
            shutil.rmtree(self.qemu_bin, ignore_errors=True)


class Jvm:
    """The driver JVM, directly or under `pinwatch run`, fed commands on stdin."""

    def __init__(self, ctx, argv, cwd=None):
        self.ctx = ctx
        self.argv = argv
        self.err_path = ctx.path('jvm-%d.err' % len(ctx.jvms))
        self.err = open(self.err_path, 'w')
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                  env=ctx.env, text=True, bufsize=1, cwd=cwd)
        ctx.jvms.append(self)
        self.out = []
        # A thread reads stdout: select() on a buffered pipe misses lines
        # already read into the buffer.
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        m = self.wait_for(r'^READY (\d+)$')
        self.pid = int(m.group(1))

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip('\n'))
        self.lines.put(None)

    def wait_for(self, pattern, timeout=30):
        timeout *= TIME_SCALE
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.01, left)) if left > 0 else None
            except queue.Empty:
                line = None
            if line is None:
                break
            self.out.append(line)
            m = rx.match(line)
            if m:
                return m
        raise Fail('JVM %s: no line matching %r within %d s; stdout so far:\n%s\nstderr:\n%s'
                   % (' '.join(self.argv), pattern, timeout, '\n'.join(self.out), self.stderr()))

    def send(self, command):
        self.p.stdin.write(command + '\n')
        self.p.stdin.flush()
        if not command.startswith('exit'):
            self.wait_for('^OK ' + re.escape(command) + '$')

    def finish(self, timeout=30, close_stdin=True):
        """close_stdin=False: the JVM must end on its own (a signal); EOF
        would end the driver with status 0."""
        timeout *= TIME_SCALE
        if close_stdin:
            try:
                self.p.stdin.close()
            except OSError:
                pass
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Fail('JVM did not end within %d s' % timeout)
        self.reader.join(5)
        while not self.lines.empty():
            line = self.lines.get()
            if line is not None:
                self.out.append(line)
        return self.p.returncode

    def stderr(self):
        self.err.flush()
        with open(self.err_path, errors='replace') as f:
            return f.read()[-4000:]

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.err.close()


# ---- checks ----

def one_line_error(status, out, err, pattern, want_status=None):
    lines = err.splitlines()
    expect(status != 0, 'expected a failure, got status 0; stdout: %s', out)
    if want_status is not None:
        expect(status == want_status, 'expected status %d, got %d (%s)', want_status, status, err.strip())
    expect(len(lines) == 1, 'expected one error line, got %d:\n%s', len(lines), err)
    expect(lines[0].startswith('pinwatch: '), 'error line does not start with "pinwatch: ": %s', lines[0])
    expect(re.search(pattern, lines[0]), 'error line %r does not match %r', lines[0], pattern)
    expect(out == '', 'a failed command printed on stdout: %r', out)


def rows(dump, method, function):
    return [r for r in dump['rows'] if r['method'] == method and r['function'] == function]


def expect_row(dump, method, function, **want):
    found = rows(dump, method, function)
    expect(len(found) == 1, 'report reason=%s: expected one %s/%s row, got %d', dump['reason'], method,
           function, len(found))
    for key, value in want.items():
        expect(found[0][key] == value, 'report reason=%s: %s/%s: %s expected %s, got %s', dump['reason'],
               method, function, key, value, found[0][key])
    return found[0]


def expect_figures(dump, evals, keeps, acquired_evals=None):
    """evals: evalStep pins leaked; keeps: Driver.keep pins leaked."""
    want = dict(live=evals, leaked=evals, held=0, live_bytes=evals * EVAL_BYTES)
    if acquired_evals is not None:
        want.update(acquired=acquired_evals, released=acquired_evals - evals)
    expect_row(dump, EVAL, 'GetLongArrayElements', **want)
    if keeps:
        expect_row(dump, KEEP, 'GetIntArrayElements', live=keeps, leaked=keeps, acquired=keeps, released=0,
                   live_bytes=keeps * KEEP_BYTES)
    else:
        expect(not rows(dump, KEEP, 'GetIntArrayElements'), 'unexpected %s row', KEEP)
    t = dump['totals']
    expect(t['live'] == evals + keeps and t['live_bytes'] == evals * EVAL_BYTES + keeps * KEEP_BYTES,
           'report reason=%s: totals live %d / %d bytes, expected %d / %d', dump['reason'], t['live'],
           t['live_bytes'], evals + keeps, evals * EVAL_BYTES + keeps * KEEP_BYTES)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def parse_collapsed(text):
    stacks = {}
    for line in text.splitlines():
        m = re.match(r'^(.+) (\d+)$', line)
        expect(m, 'not a collapsed stack line: %r', line)
        stacks[m.group(1)] = int(m.group(2))
    return stacks


# ---- cases without a JVM ----

def case_usage(ctx):
    status, out, err = ctx.pw('--help')
    expect(status == 0 and err == '', '--help: status %d, stderr %r', status, err)
    for cmd in ('attach', 'dump', 'run', 'report', 'diff', 'help'):
        expect(re.search(r'^  %s\b' % cmd, out, re.M), '--help does not list %s', cmd)
        status, text, err = ctx.pw('help', cmd)
        expect(status == 0 and text.startswith('Usage: pinwatch ' + (cmd if cmd != 'help' else 'COMMAND')),
               'help %s: status %d, text %r', cmd, status, text[:80])
        if cmd != 'help':
            status, text2, _ = ctx.pw(cmd, '--help')
            expect(status == 0 and text2 == text, '%s --help differs from help %s', cmd, cmd)
    status, out, err = ctx.pw('--version')
    expect(status == 0 and re.match(r'^pinwatch \d+\.\d+\.\d+\n$', out), '--version: %r', out)

    bad = [
        ((), 'missing COMMAND'),
        (('frobnicate',), "no command 'frobnicate'"),
        (('--bogus',), "unknown option '--bogus'"),
        (('help', 'nope'), "no command 'nope'"),
        (('attach',), 'attach: missing PID'),
        (('attach', '12x'), "not a process id: '12x'"),
        (('attach', '0'), "not a process id: '0'"),
        (('attach', '1', '2'), "unexpected argument '2'"),
        (('attach', '1', '--bogus'), "unknown option '--bogus'"),
        (('attach', '1', '--format'), "needs a value"),
        # Agent options are checked by the agent's own parser: its words.
        (('attach', '1', '--format', 'xml'), "bad value 'xml' for option 'format' (expected text|json|collapsed|openmetrics)"),
        (('attach', '1', '--exitcode', '0'), "bad value '0' for option 'exitcode'"),
        (('attach', '1', '--exitcode', '256'), "bad value '256' for option 'exitcode'"),
        (('attach', '1', '--threshold', '-1'), "bad value '-1' for option 'threshold'"),
        (('attach', '1', '--interval', '1.2345'), "bad value '1.2345' for option 'interval'"),
        # Under the agent's 10 ms floor: once let through, then refused by the agent.
        (('attach', '1', '--interval', '0.005'), "bad value '0.005' for option 'interval'"),
        (('attach', '1', '--stack', '65'), "bad value '65' for option 'stack'"),
        (('attach', '1', '--critical-ms', 'x'), "bad value 'x' for option 'critical_ms'"),
        (('attach', '1', '--options', 'stack=3,bogus=1'), "unknown option 'bogus'"),
        (('attach', '1', '--options', 'dump'), "'dump' asks a running agent for a report"),
        (('attach', '1', '--format', 'json,stack=3'), 'cannot take a value with a comma'),
        (('attach', '1', '--timeout', '0'), '--timeout takes whole seconds'),
        (('attach', '1', '--file', 'a,b'), 'cannot take a path with a comma'),
        (('dump',), 'dump: missing PID'),
        (('dump', '1', '--format', 'yaml'), "bad value 'yaml' for option 'format' (expected text|json|collapsed|openmetrics)"),
        (('run',), 'missing the java command'),
        (('run', '--exitcode', 'x', '--', 'java'), "bad value 'x' for option 'exitcode'"),
        (('run', '--timeout', '3', '--', 'java'), "unknown option '--timeout'"),
        (('report',), 'missing the JSON Lines file'),
        (('report', 'a.jsonl', '-o'), "needs a value"),
        (('report', 'a', 'b'), 'several inputs: name the page with -o'),
        (('diff',), 'missing the JSON Lines file'),
        (('diff', '--each', 'a'), "unknown option '--each'"),
    ]
    for args, pattern in bad:
        status, out, err = ctx.pw(*args)
        try:
            one_line_error(status, out, err, re.escape(pattern), want_status=2)
        except Fail as e:
            raise Fail('pinwatch %s: %s' % (' '.join(args), e))

    # What the agent accepts passes: run puts -agentpath:...=OPTIONS right
    # after the program, here echo, which prints it.
    for args, flag in (
            (('--format', 'collapsed', '--stack', '4'), 'format=collapsed,stack=4'),
            (('--critical-ms', '5', '--interval', '0.01'), 'critical_ms=5,interval=0.01'),
            (('--javastack', '0', '--options', 'threshold=0'), 'javastack=0,threshold=0')):
        argv = ('run',) + args + ('--', shutil.which('echo') or '/bin/echo')
        status, out, err = ctx.pw(*argv)
        expect(status == 0 and err == '' and out.startswith('-agentpath:') and out.endswith('=' + flag + '\n'),
               'pinwatch %s: status %d, stdout %r, stderr %r (expected -agentpath:...=%s)',
               ' '.join(argv), status, out, err, flag)
    # Every row of the agent's table is offered, with its default as the agent says it.
    status, text, _ = ctx.pw('help', 'attach')
    for key in ('file', 'format', 'stack', 'javastack', 'critical_ms', 'threshold', 'interval', 'exitcode',
                'suppress'):
        expect(re.search(r'^  --%s ' % key, text, re.M), 'help attach does not offer --%s', key)
    expect(re.search(r'--threshold N .*\(default: 10000\)', ' '.join(text.split())),
           'help attach: --threshold without its default 10000')


DIFF_AB = """\
METHOD                              FUNCTION              LIVE BEFORE       AFTER     DELTA   BYTES DELTA  PER SECOND
com.example.Codec.decode            GetIntArrayElements             5          26       +21         +8400       +2.63
com.example.Zip.inflate             GetByteArrayElements            0           1        +1            +8       +0.13
com.example.Pixels.<fill> & "mask"  GetByteArrayElements            3           3         0             0        0.00
com.example.Names.lookup            GetStringUTFChars               1           0        -1           -12       -0.13

total: live 9 -> 30 (+21), bytes +8396, +2.63 per second; 1 row with no live pins in either not shown
"""

DIFF_A = """\
METHOD                              FUNCTION              LIVE BEFORE       AFTER     DELTA   BYTES DELTA  PER SECOND
com.example.Codec.decode            GetIntArrayElements             2           5        +3         +1200       +1.50
com.example.Pixels.<fill> & "mask"  GetByteArrayElements            0           3        +3          +300       +1.50
com.example.Names.lookup            GetStringUTFChars               1           1         0             0        0.00

total: live 3 -> 9 (+6), bytes +1500, +3.00 per second; 1 row with no live pins in either not shown
"""


def case_diff(ctx):
    a = os.path.join(ctx.o.srcdir, 'diff-a.jsonl')
    b = os.path.join(ctx.o.srcdir, 'diff-b.jsonl')
    # Last of A (uptime 3000 ms) against B (11000 ms); the two signatures of
    # Codec.decode add up; rates over 8 s, rounded half away from zero.
    status, out, err = ctx.pw('diff', a, b)
    expect(status == 0 and err == '', 'diff A B: status %d, stderr %r', status, err)
    head = ('before: %s:2  pid 4242  reason interval  uptime 3000 ms\n'
            'after:  %s:1  pid 4242  reason exit  uptime 11000 ms\ninterval: 8000 ms\n\n' % (a, b))
    expect(out == head + DIFF_AB, 'diff A B: expected\n%s\ngot\n%s', head + DIFF_AB, out)
    # First against last of one file, over 2 s.
    status, out, err = ctx.pw('diff', a)
    head = ('before: %s:1  pid 4242  reason interval  uptime 1000 ms\n'
            'after:  %s:2  pid 4242  reason interval  uptime 3000 ms\ninterval: 2000 ms\n\n' % (a, a))
    expect(status == 0 and out == head + DIFF_A, 'diff A: expected\n%s\ngot (status %d)\n%s%s',
           head + DIFF_A, status, out, err)
    # One report is not enough for a one-file diff.
    status, out, err = ctx.pw('diff', b)
    one_line_error(status, out, err, r'holds one report', want_status=1)
    # Reports of two different JVMs: no rate.
    other = ctx.path('other.jsonl')
    with open(b) as f:
        report = json.loads(f.readline())
    report['pid'] = 99
    with open(other, 'w') as f:
        f.write(json.dumps(report) + '\n')
    status, out, err = ctx.pw('diff', a, other)
    expect(status == 0 and 'interval: unknown (two different JVMs); no rates' in out
           and re.search(r'^com\.example\.Codec\.decode +GetIntArrayElements +5 +26 +\+21 +\+8400 +-$', out, re.M),
           'diff of two JVMs: status %d\n%s%s', status, out, err)
    # A finding's sites carry a role and frames, not a row site's counts
    # (README, "Findings"): a report with findings is read all the same.
    with_finding = ctx.path('finding.jsonl')
    with open(b) as f:
        report = json.loads(f.readline())
    report['findings'] = [{
        'kind': 'long_critical', 'method': 'com.example.Codec.decode', 'signature': '([I)V',
        'function': 'GetPrimitiveArrayCritical', 'call': 'ReleasePrimitiveArrayCritical', 'count': 1,
        'max_ms': 40, 'p99_ms': 40,
        'sites': [{'role': 'acquire', 'frames': [{'address': '0x1000', 'symbol': 'Java_x', 'offset': 4,
                                                  'library': '/lib/x.so'}]}]}]
    with open(with_finding, 'w') as f:
        f.write(json.dumps(report) + '\n')
    status, out, err = ctx.pw('diff', a, with_finding)
    expect(status == 0 and err == '', 'diff of a report with a finding: status %d\n%s%s', status, out, err)

    # The references sections, when the reports have them: live references
    # per (method, function), 10 -> 30 over 2 s.
    with open(a) as f:
        first, second = (json.loads(line) for line in f.read().splitlines()[:2])
    for report, live in ((first, 10), (second, 30)):
        report['references'] = {'totals': {'live': live}, 'rows': [
            {'kind': 'global', 'method': 'com.example.Cache.put', 'signature': '(Ljava/lang/Object;)V',
             'function': 'NewGlobalRef', 'created': live + 5, 'deleted': 5, 'freed': 0, 'live': live,
             'sites': []},
            {'kind': 'local', 'method': 'com.example.Codec.decode', 'signature': '([I)V',
             'function': 'NewStringUTF', 'created': 7, 'deleted': 0, 'freed': 0, 'live': 0, 'sites': []}]}
    refs = ctx.path('refs.jsonl')
    with open(refs, 'w') as f:
        f.write(json.dumps(first) + '\n' + json.dumps(second) + '\n')
    status, out, err = ctx.pw('diff', refs)
    expect(status == 0 and out.startswith(head.replace(a, refs) + DIFF_A)
           and re.search(r'^references:\n', out, re.M)
           and re.search(r'^com\.example\.Cache\.put +NewGlobalRef +10 +30 +\+20 +\+10\.00$', out, re.M)
           and 'NewStringUTF' not in out
           and 'total: live references 10 -> 30 (+20), +10.00 per second' in out,
           'diff with references: status %d\n%s%s', status, out, err)


def case_fleet(ctx):
    """Reports of six JVMs on two hosts (and one of an agent that wrote no
    host) in a directory: per-JVM rows naming HOST:PID, the sums, the page."""
    a1, a2 = [json.loads(line) for line in open(os.path.join(ctx.o.srcdir, 'diff-a.jsonl'))]
    b, = [json.loads(line) for line in open(os.path.join(ctx.o.srcdir, 'diff-b.jsonl'))]

    def jvm(report, host, pid, later_ms=0):
        r = json.loads(json.dumps(report))
        r['pid'] = pid
        if host is None:
            r.pop('host', None)
        else:
            r['host'] = host
        r['time_ms'] += later_ms
        return json.dumps(r)
    d = ctx.path('fleet')
    os.mkdir(d)
    files = {
        'exec-1.jsonl': [jvm(a1, 'h1', 10), jvm(a2, 'h1', 10)],
        'exec-2.jsonl': [jvm(b, 'h2', 10)],
        # Two JVMs appending to one file.
        'shared.jsonl': [jvm(a1, 'h1', 11), jvm(a1, 'h1', 12), jvm(a2, 'h1', 11), jvm(a2, 'h1', 12)],
        # h1's pid 10 again, an hour later: another JVM.
        'reuse.jsonl': [jvm(a2, 'h1', 10, later_ms=3600 * 1000)],
        'old.json': [jvm(b, None, 77)],
        'notes.txt': ['not a report'],
    }
    for name, lines in files.items():
        with open(os.path.join(d, name), 'w') as f:
            f.write(''.join(line + '\n' for line in lines))

    status, out, err = ctx.pw('diff', d)
    expect(status == 0 and err == '', 'diff DIR: status %d, stderr %r', status, err)
    expect(out.startswith('JVMs: 6 on 2 hosts, 9 reports in 5 files\n'), 'diff DIR header:\n%s', out)
    table = out.split('\n\n')[1].splitlines()
    CODEC, FILL, NAMES, ZIP = ('com.example.Codec.decode', 'com.example.Pixels.<fill> & "mask"',
                               'com.example.Names.lookup', 'com.example.Zip.inflate')
    # (JVM, method, before, after, delta, bytes delta, per second), most growth first.
    want = [
        ('77', CODEC, 0, 26, '+26', '+10400', '+2.36'),
        ('h2:10', CODEC, 0, 26, '+26', '+10400', '+2.36'),
        ('h1:10', CODEC, 0, 5, '+5', '+2000', '+1.67'),        # the later JVM, from its start
        ('h1:10', CODEC, 2, 5, '+3', '+1200', '+1.50'),
        ('h1:11', CODEC, 2, 5, '+3', '+1200', '+1.50'),
        ('h1:12', CODEC, 2, 5, '+3', '+1200', '+1.50'),
        ('77', FILL, 0, 3, '+3', '+300', '+0.27'),
        ('h1:10', FILL, 0, 3, '+3', '+300', '+1.50'),
        ('h1:10', FILL, 0, 3, '+3', '+300', '+1.00'),
        ('h1:11', FILL, 0, 3, '+3', '+300', '+1.50'),
        ('h1:12', FILL, 0, 3, '+3', '+300', '+1.50'),
        ('h2:10', FILL, 0, 3, '+3', '+300', '+0.27'),
        ('h1:10', NAMES, 0, 1, '+1', '+12', '+0.33'),
        ('77', ZIP, 0, 1, '+1', '+8', '+0.09'),
        ('h2:10', ZIP, 0, 1, '+1', '+8', '+0.09'),
        ('h1:10', NAMES, 1, 1, '0', '0', '0.00'),
        ('h1:11', NAMES, 1, 1, '0', '0', '0.00'),
        ('h1:12', NAMES, 1, 1, '0', '0', '0.00'),
    ]
    got = [tuple(re.split(r'  +', line.strip())) for line in table[1:]]
    expect(table[0].split() == ['JVM', 'METHOD', 'FUNCTION', 'LIVE', 'BEFORE', 'AFTER', 'DELTA', 'BYTES', 'DELTA',
                                'PER', 'SECOND'], 'diff DIR table head: %r', table[0])
    expect([(g[0], g[1], int(g[3]), int(g[4]), g[5], g[6], g[7]) for g in got] == want,
           'diff DIR per-JVM rows:\n%s\nexpected\n%s', '\n'.join(table), '\n'.join(map(str, want)))
    summed = out.split('all JVMs:\n')[1].split('\n\n')[0].splitlines()[1:]
    want_sum = [(CODEC, 6, 6, 72, '+66', '+26400'), (FILL, 6, 0, 18, '+18', '+1800'),
                (ZIP, 2, 0, 2, '+2', '+16'), (NAMES, 4, 3, 4, '+1', '+12')]
    got_sum = [re.split(r'  +', line.strip()) for line in summed]
    expect([(g[0], int(g[2]), int(g[3]), int(g[4]), g[5], g[6]) for g in got_sum] == want_sum,
           'diff DIR summed rows:\n%s', '\n'.join(summed))
    expect(out.endswith('\ntotal: live 9 -> 96 (+87), bytes +28228, over 6 JVMs\n'), 'diff DIR total:\n%s', out)

    # One file two JVMs appended to: per JVM too.
    status, out, err = ctx.pw('diff', os.path.join(d, 'shared.jsonl'))
    expect(status == 0 and out.startswith('JVMs: 2 on 1 host, 4 reports in 1 file\n')
           and re.search(r'^h1:11 +%s +GetIntArrayElements +2 +5 +\+3 +\+1200 +\+1\.50$' % re.escape(CODEC), out, re.M)
           and re.search(r'^h1:12 +%s +GetIntArrayElements +2 +5 +\+3 +\+1200 +\+1\.50$' % re.escape(CODEC), out, re.M),
           'diff of a shared file: status %d\n%s%s', status, out, err)
    # Two files of one JVM each keep their meaning; --per-jvm asks for rows per JVM.
    e1, e2 = os.path.join(d, 'exec-1.jsonl'), os.path.join(d, 'exec-2.jsonl')
    status, out, err = ctx.pw('diff', e1, e2)
    expect(status == 0 and out.startswith('before: %s:2  pid 10' % e1), 'diff A B of two hosts:\n%s%s', out, err)
    status, out, err = ctx.pw('diff', '--per-jvm', e1, e2)
    expect(status == 0 and out.startswith('JVMs: 2 on 2 hosts, 3 reports in 2 files\n'), 'diff --per-jvm:\n%s', out)

    # The page.
    page = ctx.path('fleet.html')
    status, out, err = ctx.pw('report', d, '-o', page)
    expect(status == 0 and err == '' and out == '%s: 9 reports of 6 JVMs\n' % page, 'report DIR: %d %r %r',
           status, out, err)
    dom = Dom()
    with open(page, encoding='utf-8') as f:
        dom.feed(f.read())
    jvms = [row for row in dom.find('tr', cls='pw-jvm')]
    expect(len(jvms) == 6, 'page: %d JVM rows', len(jvms))
    leaks = [row for row in dom.find('tr', cls='pw-row')]
    sums = [row for row in dom.find('tr', cls='pw-sum')]
    expect(len(leaks) == 4 * 3 + 2 * 4, 'page: %d live rows', len(leaks))
    # The page's rows are (method, signature, function), as in its one-JVM form:
    # Codec.decode has two signatures in diff-b.
    expect(len(sums) == 5, 'page: %d summed rows', len(sums))
    def text(tr):
        """A table row's cells, space-separated (a card's text as it is)."""
        if tr['tag'] != 'tr':
            return re.sub(r'\s+', ' ', tr['text']).strip()
        i = dom.elements.index(tr) + 1
        cells = []
        while i < len(dom.elements) and dom.elements[i]['tag'] != 'tr':
            if dom.elements[i]['tag'] == 'td':
                cells.append(re.sub(r'\s+', ' ', dom.elements[i]['text']).strip())
            i += 1
        return ' '.join(cells)
    # Host, pid, reports, uptime, latest report, live, bytes, leaked, growth, findings.
    expect(text(jvms[0]) == '? 77 1 11.0 s exit \u00b7 %s/old.json:1 27 10,708 27 +27 0' % d, 'first JVM row: %r',
           text(jvms[0]))
    expect(text(jvms[1]) == 'h1 10 2 3.0 s interval \u00b7 %s/exec-1.jsonl:2 9 2,312 9 +6 3' % d, 'h1:10 row: %r',
           text(jvms[1]))
    expect(text(jvms[2]) == 'h1 10 1 3.0 s interval \u00b7 %s/reuse.jsonl:1 9 2,312 9 +9 3' % d,
           'the later h1:10 row: %r', text(jvms[2]))
    expect([text(r).split()[:2] for r in jvms[3:]] == [['h1', '11'], ['h1', '12'], ['h2', '10']],
           'JVM rows: %s', [text(r) for r in jvms])
    # Live, live bytes, leaked and acquired of each JVM's latest report, summed.
    expect([text(r) for r in sums] == [
        '%s GetIntArrayElements 6 70 28,000 70 %d' % (CODEC, 4 * 25 + 2 * 90),
        '%s GetByteArrayElements 6 18 1,800 18 %d' % (FILL, 4 * 10 + 2 * 40),
        '%s GetIntArrayElements 2 2 800 2 %d' % (CODEC, 2 * 1),
        '%s GetStringUTFChars 4 4 48 4 %d' % (NAMES, 4 * 20),
        '%s GetByteArrayElements 2 2 16 2 %d' % (ZIP, 2 * 9)], 'summed rows:\n%s', '\n'.join(text(r) for r in sums))
    # The card sums the reports' totals (diff-b's say 27 live).
    expect(text(dom.find(id='total-live')[0]) == '%dlive pins, all JVMs' % (4 * 9 + 2 * 27), 'total live card: %r',
           text(dom.find(id='total-live')[0]))
    expect(text(leaks[0]).startswith('? 77 %s GetIntArrayElements 25 10,000' % CODEC), 'largest live row: %r',
           text(leaks[0]))

    # Bad inputs name themselves.
    empty = ctx.path('empty-dir')
    os.mkdir(empty)
    status, out, err = ctx.pw('diff', empty)
    one_line_error(status, out, err, re.escape('%s: no .jsonl or .json file in it' % empty), want_status=1)
    status, out, err = ctx.pw('report', d, ctx.path('missing.jsonl'), '-o', page)
    one_line_error(status, out, err, re.escape('cannot open %s' % ctx.path('missing.jsonl')), want_status=1)


def case_bad_input(ctx):
    good = open(os.path.join(ctx.o.srcdir, 'diff-a.jsonl')).read().splitlines()
    missing = ctx.path('missing.jsonl')
    for cmd in (('report', missing), ('diff', missing)):
        status, out, err = ctx.pw(*cmd)
        one_line_error(status, out, err, re.escape('cannot open %s: No such file' % missing), want_status=1)

    cases = [
        ('malformed.jsonl', [good[0], '{"tool":"pinwatch",,}', good[1]], r':2: malformed JSON'),
        ('notjson.jsonl', ['hello world', good[0]], r':1: malformed JSON'),
        ('othertool.jsonl', [good[0], good[1], '{"tool":"other"}'], r':3: not a pinwatch report: "tool" is "other"'),
        ('norows.jsonl', [good[0].replace('"rows":[', '"rows":{"x":[').replace('}]}', '}]}}', 1)],
         r':1: (malformed JSON|not a pinwatch report)'),
        ('badrow.jsonl', [re.sub(r'"live":2,', '"live":"two",', good[0], count=1)],
         r':1: not a pinwatch report: "live" of rows\[0\] is not int'),
        ('negative.jsonl', [good[0].replace('"uptime_ms":1000', '"uptime_ms":-5')],
         r':1: not a pinwatch report: "uptime_ms" of the report is negative'),
        ('array.jsonl', ['[1,2,3]'], r':1: not a pinwatch report: the line is JSON but not an object'),
        ('empty.jsonl', [], r'no pinwatch report in it'),
        # Cut short but not the last line: an error, not a warning.
        ('cutmiddle.jsonl', [good[0][:200], good[1]], r':1: malformed JSON'),
    ]
    for name, lines, pattern in cases:
        path = ctx.path(name)
        with open(path, 'w') as f:
            f.write(''.join(line + '\n' for line in lines))
        for cmd in ('report', 'diff'):
            status, out, err = ctx.pw(cmd, path, *(['-o', ctx.path('x.html')] if cmd == 'report' else []))
            try:
                one_line_error(status, out, err, re.escape(path) + pattern if ':' in pattern[:3] else pattern,
                               want_status=1)
            except Fail as e:
                raise Fail('%s %s: %s' % (cmd, name, e))
        expect(not os.path.exists(ctx.path('x.html')), 'report %s wrote a page', name)

    # No such process; a process that is no JVM (and must survive: no
    # SIGQUIT for it); one of another user.
    dead = subprocess.Popen(['/bin/true'])
    dead.wait()
    for cmd in ('attach', 'dump'):
        status, out, err = ctx.pw(cmd, dead.pid)
        one_line_error(status, out, err, r'no process with pid %d$' % dead.pid, want_status=1)
    sleeper = subprocess.Popen(['/bin/sleep', '60'])
    try:
        for cmd in ('attach', 'dump'):
            status, out, err = ctx.pw(cmd, sleeper.pid)
            one_line_error(status, out, err, r'process %d is not a HotSpot JVM' % sleeper.pid, want_status=1)
        time.sleep(0.2)
        expect(sleeper.poll() is None, 'pinwatch killed the non-JVM process %d', sleeper.pid)
        # A copy nobody can run, wherever the build dir is.
        prog = ctx.path('pinwatch')
        shutil.copy(ctx.o.pinwatch, prog)
        with traversable(ctx.nobody_needs()):
            for cmd in ('attach', 'dump'):
                if os.geteuid() == 0:
                    argv = as_nobody([prog, cmd, sleeper.pid])
                else:
                    argv = [prog, cmd, 1]
                status, out, err = ctx.pw(*argv[1:], prog=argv[0])
                one_line_error(status, out, err, r'permission denied', want_status=1)
    finally:
        sleeper.kill()
        sleeper.wait()


def case_truncated(ctx):
    good = open(os.path.join(ctx.o.srcdir, 'diff-a.jsonl')).read().splitlines()
    path = ctx.path('killed.jsonl')
    # Agent log lines among the reports (a captured stderr) are skipped; the
    # third report was cut off with the JVM.
    with open(path, 'w') as f:
        f.write('[pinwatch] UNRELEASED some log line\n' + good[0] + '\n' + good[1] + '\n' + good[1][:777])
    warning = 'pinwatch: warning: %s:4: the last line is cut short (the JVM ended while writing it?); skipped' % path
    page = ctx.path('killed.html')
    status, out, err = ctx.pw('report', path, '-o', page)
    expect(status == 0 and err.splitlines() == [warning], 'report: status %d, stderr %r (expected one warning)',
           status, err)
    expect(out == '%s: 2 reports\n' % page, 'report stdout: %r', out)
    status, out, err = ctx.pw('diff', path)
    expect(status == 0 and err.splitlines() == [warning], 'diff: status %d, stderr %r', status, err)
    expect(re.search(r'^com\.example\.Codec\.decode +GetIntArrayElements +2 +5 +\+3 +\+1200 +\+1\.50$', out, re.M),
           'diff after the cut line:\n%s', out)
    # A cut line ending in a newline (the write was torn, the newline came
    # from a later line) is still the last one.
    with open(path, 'w') as f:
        f.write(good[0] + '\n' + good[1][:500] + '\n\n')
    status, out, err = ctx.pw('report', path, '-o', page)
    expect(status == 0 and len(err.splitlines()) == 1 and ':2: the last line is cut short' in err,
           'report with a torn last line: status %d, stderr %r', status, err)


# ---- JVM cases ----

def case_attach(ctx):
    report = ctx.path('attached.jsonl')
    dumped = ctx.path('dumped.jsonl')
    # Three JVMs at once: the one we attach to, one for the refusals, one
    # whose attach mechanism is off.
    jvm = Jvm(ctx, ctx.java_argv())
    other = Jvm(ctx, ctx.java_argv())
    deaf = Jvm(ctx, ctx.java_argv(['-XX:+DisableAttachMechanism']))

    jvm.send('train 8')   # 2 leaks before the attach: not seen
    status, out, err = ctx.pw('attach', jvm.pid, '--format', 'json', '--file', report, '--threshold', '0')
    expect(status == 0, 'attach: status %d: %s', status, err)
    expect(re.match(r'^JVM %d: agent .*libpinwatch\.so loaded, return code 0: ' % jvm.pid, out),
           'attach stdout: %r', out)
    jvm.send('train 40')  # 10 leaks
    jvm.send('keep 7')

    status, out, err = ctx.pw('dump', jvm.pid, '--format', 'json')
    expect(status == 0 and err == '', 'dump: status %d, stderr %r', status, err)
    lines = out.splitlines()
    expect(len(lines) == 1, 'dump --format json: expected one JSON line, got %d', len(lines))
    d = json.loads(lines[0])
    expect(d['reason'] == 'command' and d['pid'] == jvm.pid, 'dump: reason %s pid %s', d['reason'], d['pid'])
    expect_figures(d, 10, 7, acquired_evals=40)
    # Only this JVM's: the other JDK's twin of this test dumps at the same time.
    leftovers = [n for n in os.listdir('/tmp') if n.startswith('pinwatch-dump-%d-' % jvm.pid)]

    # A second attach is refused here, before it reaches the JVM.
    status, out, err = ctx.pw('attach', jvm.pid)
    one_line_error(status, out, err, r'JVM %d already runs pinwatch .*pinwatch dump %d' % (jvm.pid, jvm.pid), 1)

    status, out, err = ctx.pw('dump', jvm.pid, '--file', dumped, '--format', 'json')
    expect(status == 0 and out == '', 'dump --file: status %d, stdout %r, stderr %r', status, out, err)
    dumps = read_jsonl(dumped)
    expect(len(dumps) == 1, '%s: expected one report, got %d', dumped, len(dumps))
    expect_figures(dumps[0], 10, 7, acquired_evals=40)

    jvm.send('exit 0')
    rc = jvm.finish()
    expect(rc == 0, 'JVM exit status %s', rc)
    dumps = read_jsonl(report)
    expect([x['reason'] for x in dumps] == ['exit'], '%s: reasons %s', report, [x['reason'] for x in dumps])
    expect_figures(dumps[0], 10, 7, acquired_evals=40)
    expect(leftovers == [], 'dump left temporary files in /tmp: %s', leftovers)

    # No agent there yet: dump refuses.  A bad option is refused here, by the
    # agent's own parser, before the JVM is touched; a suppression file the
    # JVM cannot read passes here and is refused there: the agent's code 1.
    status, out, err = ctx.pw('dump', other.pid)
    one_line_error(status, out, err, r'pinwatch is not running in JVM %d' % other.pid, 1)
    status, out, err = ctx.pw('attach', other.pid, '--options', 'bogus=1')
    one_line_error(status, out, err, r"unknown option 'bogus'", 2)
    expect('[pinwatch]' not in other.stderr(), 'a refused command line reached the JVM: %s', other.stderr())
    status, out, err = ctx.pw('attach', other.pid, '--suppress', ctx.path('no-such-rules.txt'))
    one_line_error(status, out, err, r'JVM %d: the agent returned 1: bad options' % other.pid, 1)
    expect('[pinwatch] ERROR' in other.stderr(), 'no [pinwatch] ERROR line on the JVM\'s stderr')
    # The refused agent left nothing behind: a good attach still works.
    status, out, err = ctx.pw('attach', other.pid, '--format', 'json', '--file', ctx.path('other.jsonl'))
    expect(status == 0, 'attach after a refused one: %d %s', status, err)
    other.send('keep 2')
    status, out, err = ctx.pw('dump', other.pid, '--format', 'json')
    expect(status == 0, 'dump: %d %s', status, err)
    d = json.loads(out)
    expect_row(d, KEEP, 'GetIntArrayElements', live=2, live_bytes=2 * KEEP_BYTES)
    other.send('exit 0')
    expect(other.finish() == 0, 'second JVM failed')

    # Attach mechanism off: no socket comes; pinwatch gives up in time.  A
    # socket file nobody listens on (a JVM killed with SIGKILL whose pid this
    # one now has) does not stand in the way: removed, the answer is the same.
    stale = '/tmp/.java_pid%d' % deaf.pid
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(stale)
    started = time.monotonic()
    status, out, err = ctx.pw('attach', deaf.pid, '--timeout', '1')
    took = time.monotonic() - started
    one_line_error(status, out, err, r'process %d did not open its attach socket .* within 1000 ms' % deaf.pid, 1)
    expect(took < 10, 'attach --timeout 1 took %.1f s', took)
    expect(not os.path.exists(stale), 'the stale socket %s is still there', stale)
    deaf.send('keep 1')   # still alive and well
    deaf.send('exit 0')
    expect(deaf.finish() == 0, 'the JVM without attach failed')


def run_argv(ctx, *opts):
    return [ctx.o.pinwatch, 'run', '--agent', ctx.o.agent] + list(opts) + ['--'] + ctx.java_argv()


def case_dump(ctx):
    report = ctx.path('run.jsonl')
    jvm = Jvm(ctx, run_argv(ctx, '--format', 'json', '--file', report, '--threshold', '0'))
    jvm.send('train 40')
    jvm.send('keep 3')

    # Text by default, to stdout.
    status, out, err = ctx.pw('dump', jvm.pid)
    expect(status == 0 and err == '', 'dump: status %d, stderr %r', status, err)
    expect(not out.lstrip().startswith('{'), 'dump without --format is not text: %.100s', out)
    for method, function, live, nbytes in ((EVAL, 'GetLongArrayElements', 10, 10 * EVAL_BYTES),
                                           (KEEP, 'GetIntArrayElements', 3, 3 * KEEP_BYTES)):
        found = [line for line in out.splitlines() if method in line and function in line]
        expect(found and re.match(r'^\s*%d\s+%d\s' % (live, nbytes), found[0]),
               'text dump: no %s row with %d live, %d bytes:\n%s', method, live, nbytes, out)

    # Collapsed stacks (the agent's own format=collapsed): the Java callers
    # outermost, then the native method, its native frames, and the JNI
    # function last; the value is the live bytes.
    status, out, err = ctx.pw('dump', jvm.pid, '--format', 'collapsed')
    expect(status == 0 and err == '', 'dump collapsed: status %d, stderr %r', status, err)
    stacks = parse_collapsed(out)
    expect(len(stacks) == 2, 'collapsed: expected 2 stacks, got %s', stacks)
    by_method = {}
    for s, v in stacks.items():
        frames = s.split(';')
        methods = [f for f in frames if f in (EVAL, KEEP)]
        expect(len(methods) == 1, 'collapsed: stack without exactly one native method: %s', s)
        expect(frames[0] not in (EVAL, KEEP), 'collapsed: no Java caller before %s: %s', methods[0], s)
        by_method[methods[0]] = (frames[frames.index(methods[0]):], v)
    expect(set(by_method) == {EVAL, KEEP}, 'collapsed: native methods %s', sorted(by_method))
    frames, value = by_method[EVAL]
    expect(value == 10 * EVAL_BYTES and frames[-1] == 'GetLongArrayElements'
           and frames[1].startswith('Java_ai_example_TrainingSession_evalStep'),
           'collapsed evalStep stack: %s %d', frames, value)
    frames, value = by_method[KEEP]
    expect(value == 3 * KEEP_BYTES and frames[-1] == 'GetIntArrayElements', 'collapsed keep: %s %d', frames, value)
    collapsed = ctx.path('stacks.txt')
    status, out2, err = ctx.pw('dump', jvm.pid, '--format', 'collapsed', '--file', collapsed)
    expect(status == 0 and out2 == '', 'dump collapsed --file: %d %r %r', status, out2, err)
    with open(collapsed) as f:
        expect(parse_collapsed(f.read()) == stacks, 'collapsed --file differs from stdout')

    # Relative --file: relative to pinwatch's directory, not the JVM's.
    status, _, err = subprocess.run([ctx.o.pinwatch, 'dump', str(jvm.pid), '--file', 'rel.jsonl', '--format',
                                     'json'], cwd=ctx.tmp, env=ctx.env, capture_output=True, text=True,
                                    timeout=30).returncode, None, None
    expect(status == 0 and os.path.exists(ctx.path('rel.jsonl')), 'dump --file rel.jsonl: status %d', status)
    expect_figures(read_jsonl(ctx.path('rel.jsonl'))[0], 10, 3)

    jvm.send('exit 0')
    rc = jvm.finish()
    expect(rc == 0, 'pinwatch run: status %s', rc)
    dumps = read_jsonl(report)
    expect([x['reason'] for x in dumps] == ['exit'], 'run report reasons: %s', [x['reason'] for x in dumps])
    expect_figures(dumps[0], 10, 3, acquired_evals=40)
    # The JVM is gone: nothing to dump.
    status, out, err = ctx.pw('dump', jvm.pid)
    one_line_error(status, out, err, r'no process with pid %d|is not a HotSpot JVM' % jvm.pid, 1)


def case_run(ctx):
    # exitcode=3 and pins leaked: 3, whatever the program returned.
    report = ctx.path('exitcode.jsonl')
    jvm = Jvm(ctx, run_argv(ctx, '--exitcode', '3', '--format', 'json', '--file', report))
    expect(jvm.pid != jvm.p.pid, 'run exec\'d the JVM: expected a child process')
    jvm.send('train 40')
    jvm.send('exit 0')
    rc = jvm.finish()
    expect(rc == 3, 'run --exitcode 3 with 10 leaks: expected status 3, got %s', rc)
    dumps = read_jsonl(report)
    expect([x['reason'] for x in dumps] == ['exit'], 'reasons %s', [x['reason'] for x in dumps])
    expect_figures(dumps[0], 10, 0, acquired_evals=40)

    # The program's own status passes through.
    jvm = Jvm(ctx, run_argv(ctx, '--exitcode', '3'))
    jvm.send('exit 7')
    rc = jvm.finish()
    expect(rc == 7, 'System.exit(7) under run: got %s', rc)

    # A JVM killed by a signal: 128 + the signal.
    jvm = Jvm(ctx, run_argv(ctx))
    os.kill(jvm.pid, signal.SIGKILL)
    rc = jvm.finish(close_stdin=False)
    expect(rc == 128 + signal.SIGKILL, 'JVM killed by SIGKILL: expected %d, got %s', 128 + signal.SIGKILL, rc)

    # SIGTERM to pinwatch reaches the JVM, which exits 143 (128 + SIGTERM).
    jvm = Jvm(ctx, run_argv(ctx))
    jvm.p.send_signal(signal.SIGTERM)
    rc = jvm.finish(close_stdin=False)
    expect(rc == 128 + signal.SIGTERM, 'SIGTERM to pinwatch run: expected %d, got %s', 128 + signal.SIGTERM, rc)

    # Failures before any JVM runs.
    status, out, err = ctx.pw('run', '--', ctx.path('no-such-java'))
    one_line_error(status, out, err, r'cannot run .*no-such-java: No such file or directory', 127)
    status, out, err = ctx.pw('run', '--agent', ctx.path('nope.so'), '--', 'java')
    one_line_error(status, out, err, r'--agent .*nope\.so: No such file', 1)


class Dom(html.parser.HTMLParser):
    """The elements of a page with their attributes and text."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        el = {'tag': tag, 'attrs': dict(attrs), 'text': ''}
        self.elements.append(el)
        if tag not in ('circle', 'rect', 'line', 'polyline', 'meta', 'br', 'i'):
            self.stack.append(el)

    def handle_endtag(self, tag):
        while self.stack:
            el = self.stack.pop()
            if el['tag'] == tag:
                break

    def handle_data(self, data):
        for el in self.stack:
            el['text'] += data

    def find(self, tag=None, cls=None, **attrs):
        out = []
        for el in self.elements:
            if tag and el['tag'] != tag:
                continue
            if cls and cls not in (el['attrs'].get('class') or '').split():
                continue
            if any(el['attrs'].get(k.replace('_', '-')) != v for k, v in attrs.items()):
                continue
            out.append(el)
        return out


def chromium(ctx, *args):
    profile = tempfile.mkdtemp(prefix='pw-chromium-', dir=ctx.tmp)
    argv = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
            '--disable-component-update', '--disable-sync', '--no-first-run', '--hide-scrollbars',
            '--user-data-dir=' + profile] + list(args)
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=40, env=dict(os.environ, HOME=profile))
    except subprocess.TimeoutExpired:
        raise Fail('chromium did not finish within 40 s: %s' % ' '.join(argv))
    expect(p.returncode == 0, 'chromium failed (%d): %s', p.returncode, p.stderr[-2000:])
    return p.stdout


def case_report(ctx):
    report = ctx.path('training.jsonl')
    jvm = Jvm(ctx, run_argv(ctx, '--format', 'json', '--file', report, '--threshold', '0'))
    # Five reports: four dumps and the exit report.
    plan = ((40, 3), (40, 5), (80, 0), (40, 2), (80, 0))
    figures = []
    evals = keeps = 0
    for i, (train, keep) in enumerate(plan):
        jvm.send('train %d' % train)
        if keep:
            jvm.send('keep %d' % keep)
        evals += train // 4
        keeps += keep
        figures.append((evals, keeps))
        if i + 1 < len(plan):
            status, _, err = ctx.pw('dump', jvm.pid, '--format', 'json', '--file', report)
            expect(status == 0, 'dump %d: %s', i + 1, err)
    jvm.send('exit 0')
    expect(jvm.finish() == 0, 'JVM failed')
    dumps = read_jsonl(report)
    expect([x['reason'] for x in dumps] == ['command'] * 4 + ['exit'], 'reasons %s',
           [x['reason'] for x in dumps])
    for d, (evals, keeps) in zip(dumps, figures):
        expect_figures(d, evals, keeps)

    # diff over the file: first against last.
    status, out, err = ctx.pw('diff', report)
    expect(status == 0 and err == '', 'diff: %d %r', status, err)
    ms = dumps[-1]['uptime_ms'] - dumps[0]['uptime_ms']
    expect(re.search(r'^%s +GetLongArrayElements +10 +70 +\+60 +\+960 +\+\d+\.\d\d$' % re.escape(EVAL), out, re.M)
           and re.search(r'^%s +GetIntArrayElements +3 +10 +\+7 +\+%d +\+\d+\.\d\d$' % (re.escape(KEEP),
                                                                                      7 * KEEP_BYTES), out, re.M)
           and 'interval: %d ms' % ms in out,
           'diff of the training run:\n%s', out)
    lines = [line for line in out.splitlines() if line.startswith((EVAL, KEEP))]
    expect(lines[0].startswith(EVAL), 'diff: evalStep grew most and is not first:\n%s', out)

    page = ctx.path('training.html')
    status, out, err = ctx.pw('report', report, '-o', page)
    expect(status == 0 and err == '' and out == '%s: 5 reports\n' % page, 'report: %d %r %r', status, out, err)
    with open(page) as f:
        source = f.read()
    # Self-contained: nothing fetched from anywhere.
    expect(not re.search(r'\b(src|href)\s*=|https?:|@import|url\(', source, re.I),
           'the page refers to something outside itself')
    # The references section: one row per reference row live in the last
    # report (the JDK's own natives keep a few global references).
    live_refs = [r for r in dumps[-1]['references']['rows'] if r['live'] > 0]
    expect('<section id="references">' in source and
           source.count('<tr class="pw-ref">') == len(live_refs) and
           all(('<td class="method">%s</td>' % html.escape(r['method'], quote=True)) in source
               for r in live_refs),
           'the page should list the %d live reference rows of the last report, found %d',
           len(live_refs), source.count('<tr class="pw-ref">'))

    if not os.access(CHROMIUM, os.X_OK):
        # .ci/run installs it: under CI its absence is a broken set-up.
        if os.environ.get('CI'):
            raise Fail('%s not installed (Debian package chromium): .ci/run installs it' % CHROMIUM)
        raise Skip('%s not installed (Debian package chromium): the page was not rendered' % CHROMIUM)
    dom = Dom()
    dom.feed(chromium(ctx, '--dump-dom', 'file://' + page))
    for chart in ('live', 'bytes'):
        series = dom.find('g', cls='pw-series', data_chart=chart)
        methods = sorted(s['attrs']['data-method'] for s in series)
        expect(methods == sorted([EVAL, KEEP]), 'chart %s: expected one series per leaking method, got %s',
               chart, methods)
    expect(len(dom.find('polyline')) == 4, 'expected 4 polylines (2 charts x 2 methods), got %d',
           len(dom.find('polyline')))
    table = dom.find('table', id='leaks')
    expect(len(table) == 1, 'no leak table')
    trs = dom.find('tr', cls='pw-row')
    expect(len(trs) == 2, 'leak table: expected 2 rows, got %d', len(trs))
    idx = dom.elements.index(trs[0])
    cells = [el for el in dom.elements[idx:] if el['tag'] == 'td'][:7]
    # Sorted by live bytes: Driver.keep (10 x 388) before evalStep (70 x 16).
    expect(cells[0]['text'] == KEEP and cells[1]['text'] == 'GetIntArrayElements'
           and cells[2]['attrs'].get('data-v') == '10' and cells[3]['attrs'].get('data-v') == str(10 * KEEP_BYTES)
           and cells[6]['text'] == '+7',
           'first table row: %s', [(c['text'], c['attrs'].get('data-v')) for c in cells])
    idx = dom.elements.index(trs[1])
    cells = [el for el in dom.elements[idx:] if el['tag'] == 'td'][:7]
    expect(cells[0]['text'] == EVAL and cells[2]['attrs'].get('data-v') == '70'
           and cells[3]['attrs'].get('data-v') == str(70 * EVAL_BYTES) and cells[6]['text'] == '+60',
           'second table row: %s', [(c['text'], c['attrs'].get('data-v')) for c in cells])
    frames = {f['attrs']['data-name'] for f in dom.find('g', cls='pw-frame')}
    expect({EVAL, KEEP, 'GetLongArrayElements', 'GetIntArrayElements'} <= frames,
           'flame graph frames: %s', sorted(frames))
    total = dom.find(id='total-live')
    expect(total and total[0]['text'].startswith('80'), 'total live card: %r', total and total[0]['text'])

    name = 'report-screenshot.png' if ctx.o.jdk_name == 'jdk17' else 'report-screenshot-%s.png' % ctx.o.jdk_name
    shot = os.path.join(ctx.o.builddir, name)
    if os.path.exists(shot):
        os.unlink(shot)
    chromium(ctx, '--screenshot=' + shot, '--window-size=1200,900', 'file://' + page)
    with open(shot, 'rb') as f:
        head = f.read(24)
    expect(head[:8] == b'\x89PNG\r\n\x1a\n', '%s is not a PNG', shot)
    width, height = int.from_bytes(head[16:20], 'big'), int.from_bytes(head[20:24], 'big')
    expect((width, height) == (1200, 900), 'screenshot is %dx%d, expected 1200x900', width, height)
    print('screenshot: %s' % shot)


def case_attach_as_root(ctx):
    """Root attaching to a JVM of another user."""
    if os.geteuid() != 0:
        raise Skip('needs root')

    # Another user, working in a directory it cannot write: the attach file
    # goes to /tmp, the socket is that user's.
    shared = ctx.path('shared')
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    report = os.path.join(shared, 'nobody.jsonl')

    classpath, libpath, agent = ctx.world_readable_copy()
    # The JVM may load a library of its own at any time (the attach listener's):
    # its directories stay traversable until it has ended.
    with traversable(ctx.nobody_needs()):
        jvm = Jvm(ctx, as_nobody(ctx.java_argv(classpath=classpath, libpath=libpath)), cwd='/')
        status, out, err = ctx.pw('attach', jvm.pid, '--agent', agent, '--format', 'json', '--file', report)
        expect(status == 0, 'attach to a JVM of nobody: %d %s', status, err)
        jvm.send('keep 4')
        status, out, err = ctx.pw('dump', jvm.pid, '--format', 'json')
        expect(status == 0, 'dump of a JVM of nobody: %d %s', status, err)
        d = json.loads(out)
        expect_row(d, KEEP, 'GetIntArrayElements', live=4, live_bytes=4 * KEEP_BYTES)
        jvm.send('exit 0')
        expect(jvm.finish() == 0, 'JVM of nobody failed: %s', jvm.stderr())
    expect(os.stat(report).st_uid == 65534, 'the report was not written by the JVM as nobody')
    expect_row(read_jsonl(report)[0], KEEP, 'GetIntArrayElements', live=4)
    expect(geteuid_is_root(), 'pinwatch changed our uid')


def namespaces(unshare):
    """The unshare argv that makes new mount and PID namespaces here, and
    how.  Root makes them directly; where that is refused (a container
    without CAP_SYS_ADMIN), an unprivileged user namespace that maps root to
    root may still be allowed.  A chroot, as in ../shared/fresh/check-fresh,
    can have neither: the kernel refuses a user namespace to a chrooted
    process, and unshare cannot make / private where / is not a mount point.
    PW_TEST_NAMESPACES=user tries the user namespace alone."""
    tries = [('in a user namespace', [unshare, '--user', '--map-root-user'])]
    if os.environ.get('PW_TEST_NAMESPACES') != 'user':
        tries.insert(0, ('as root', [unshare]))
    refused = []
    for how, prefix in tries:
        argv = prefix + ['--mount', '--pid', '--fork', '--mount-proc']
        probe = subprocess.run(argv + ['true'], capture_output=True)
        if probe.returncode == 0:
            return how, argv
        refused.append('%s: %s' % (' '.join(argv[1:]), probe.stderr.decode(errors='replace').strip()))
    raise Skip('cannot create namespaces here (%s)' % '; '.join(refused))


def case_attach_container(ctx):
    """Root attaching to a JVM in other mount and PID namespaces (a container
    without the agent's directory).  A case of its own: where namespaces
    cannot be made (namespaces()) it skips alone, saying why, and
    attach-as-root still runs."""
    if os.geteuid() != 0:
        raise Skip('needs root')
    # New mount and PID namespaces, the agent's directory hidden under a
    # tmpfs, and a private /tmp when the build is not in /tmp.
    agent_dir = os.path.dirname(ctx.o.agent)
    build_in_tmp = any(os.path.realpath(p).startswith('/tmp/')
                       for p in [ctx.o.agent] + ctx.o.classpath.split(':') + ctx.o.libpath.split(':'))
    mounts = '/bin/mount -t tmpfs pwhide %s' % shlex_quote(agent_dir)
    if not build_in_tmp:
        mounts += ' && /bin/mount -t tmpfs pwtmp /tmp'
    unshare = shutil.which('unshare', path='/usr/bin:/bin')
    if unshare is None:
        raise Skip('no unshare(1) (Debian package util-linux)')
    how, argv = namespaces(unshare)
    print('namespaces made %s' % how)
    argv += ['--propagation', 'private', '/bin/sh', '-c', '%s && exec "$@"' % mounts, 'sh'] + ctx.java_argv()
    jvm = Jvm(ctx, argv)
    expect(jvm.pid == 1, 'the JVM in the new PID namespace says pid %d, expected 1', jvm.pid)
    host_pid = find_child_java(jvm.p.pid)
    status, out, err = ctx.pw('attach', host_pid, '--format', 'json', '--file', '/tmp/in-container.jsonl')
    expect(status == 0, 'attach into the container: %d %s', status, err)
    expect(re.search(r'agent copied to /tmp/pinwatch\.\w+/libpinwatch\.so', err),
           'the agent was not copied into the container: %r', err)
    jvm.send('keep 5')
    jvm.send('train 4')
    status, out, err = ctx.pw('dump', host_pid, '--format', 'json')
    expect(status == 0, 'dump in the container: %d %s', status, err)
    d = json.loads(out)
    expect(d['pid'] == 1, 'the agent in the container reports pid %s, expected 1', d['pid'])
    expect_figures(d, 1, 5)
    jvm.send('exit 0')
    expect(jvm.finish() == 0, 'containerised JVM failed: %s', jvm.stderr())


def geteuid_is_root():
    return os.geteuid() == 0


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


def find_child_java(root_pid, timeout=10):
    """The host pid of the java under unshare -> sh (exec'd into java)."""
    timeout *= TIME_SCALE
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending, seen = [root_pid], []
        while pending:
            pid = pending.pop()
            seen.append(pid)
            try:
                with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
                    pending += [int(x) for x in f.read().split()]
            except OSError:
                pass
        for pid in seen:
            try:
                with open('/proc/%d/comm' % pid) as f:
                    # Under qemu-user the kernel knows the JVM as qemu (comm is cut at 15).
                    if f.read().strip() == ('qemu-aarch64-st' if QEMU_ROOT else 'java'):
                        return pid
            except OSError:
                pass
        time.sleep(0.05)
    raise Fail('no java process under %d' % root_pid)


CASES = {
    'usage': case_usage,
    'diff': case_diff,
    'fleet': case_fleet,
    'bad-input': case_bad_input,
    'truncated': case_truncated,
    'attach': case_attach,
    'dump': case_dump,
    'run': case_run,
    'report': case_report,
    'attach-as-root': case_attach_as_root,
    'attach-container': case_attach_container,
}
JVM_CASES = {'attach', 'dump', 'run', 'report', 'attach-as-root', 'attach-container'}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('case', choices=sorted(CASES))
    ap.add_argument('--pinwatch', required=True)
    ap.add_argument('--srcdir', required=True)
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--jdk-name')
    ap.add_argument('--jdk-home')
    ap.add_argument('--agent')
    ap.add_argument('--classpath')
    ap.add_argument('--libpath')
    opts = ap.parse_args()
    if opts.case in JVM_CASES and not os.access(os.path.join(opts.jdk_home or '', 'bin', 'java'), os.X_OK):
        print('SKIP: JDK %s absent%s: not run' % (opts.jdk_name,
                                                 ' at ' + opts.jdk_home if opts.jdk_home else ''))
        return SKIP
    ctx = Ctx(opts)
    started = time.monotonic()
    try:
        CASES[opts.case](ctx)
    except Skip as e:
        print('SKIP: %s' % e)
        return SKIP
    except Fail as e:
        print('FAIL: %s: %s' % (opts.case, e), file=sys.stderr)
        print('--- pinwatch commands ---\n%s' % '\n'.join(ctx.log[-12:]), file=sys.stderr)
        for j in ctx.jvms:
            print('--- JVM %s ---\nstdout:\n%s\nstderr:\n%s' % (' '.join(j.argv), '\n'.join(j.out[-20:]),
                                                                 j.stderr()), file=sys.stderr)
        return 1
    finally:
        ctx.cleanup()
    print('PASS: %s in %.1f s' % (opts.case, time.monotonic() - started))
    return 0


if __name__ == '__main__':
    sys.exit(main())
