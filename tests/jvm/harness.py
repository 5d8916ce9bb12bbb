# SPDX-License-Identifier: Apache-2.0
"""Helpers for the pinwatch JVM tests: run a JVM with the agent, read its
JSON Lines reports, check the report invariants and compare rows.

Standard library only.  A failed expectation raises TestFailure; the runner
(cases.py) prints it together with the JVM's command line and output.
"""

import argparse
import json
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

SKIP = 77               # meson's "skipped" exit status
# PW_QEMU_ROOT: the JDK under test is an arm64 one inside this Debian tree, run through
# qemu-user (tests/meson.build sets it for the aarch64 cross build).  Unset: native runs.
QEMU_ROOT = os.environ.get('PW_QEMU_ROOT') or None
# Seconds for any one JVM run: a hang fails, it does not block.  Emulation runs a JVM
# 8-18 times slower, so its limits are longer; what the tests assert is not.
TIME_SCALE = 4 if QEMU_ROOT else 1
JVM_TIMEOUT = 120 * TIME_SCALE
FIXTURE_PKG = 'pinwatch.fixtures.'
REASONS = ('exit', 'jcmd', 'threshold', 'interval', 'command')
# Reasons an application gave io.pinwatch.Pinwatch.dump(): a case that asks
# for one adds it here, so any other reason still fails the check.
APP_REASONS = set()


class Case:
    """One JVM case as an area module lists it (its CASES dict): the function,
    meson's timeout in seconds (each JVM run also has its own limit), and
    whether it runs alone (serial: its figures depend on timing, or it keeps
    many threads busy).  tests/jvm/cases.py --list gives them to meson."""

    def __init__(self, run, timeout, serial=False):
        self.run, self.timeout, self.serial = run, timeout, serial


def jdk_feature(jdk_home):
    """The JDK's feature release (11, 17, 21, ...), from its release
    file: no JVM to start, and it holds under qemu too.  0 when unknown."""
    try:
        with open(os.path.join(jdk_home, 'release'), encoding='utf-8') as f:
            m = re.search(r'^JAVA_VERSION="(\d+)', f.read(), re.M)
    except OSError:
        return 0
    return int(m.group(1)) if m else 0


def native_access_flags(jdk_home):
    """Quiets JDK 24+'s restricted-method warnings; JDK 17 accepts the
    option, JDK 11's launcher refuses to start with it."""
    feature = jdk_feature(jdk_home)
    return ['--enable-native-access=ALL-UNNAMED'] if feature == 0 or feature >= 17 else []


def case_parser(description, cases):
    """The arguments every case runner (cases.py, real.py) takes: the case,
    and the JDK and agent it runs with; each runner adds its own."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('case', choices=sorted(cases))
    parser.add_argument('--jdk-name', required=True)
    parser.add_argument('--jdk-home', required=True)
    parser.add_argument('--agent', required=True)
    return parser


class TestFailure(Exception):
    """An expectation did not hold; the message says expected vs got."""


class JvmRun:
    """What one JVM run left behind."""

    def __init__(self, argv, returncode, stdout, stderr, report_path):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.report_path = report_path
        self.extra = ''         # e.g. the jcmd commands sent to it, with their output

    def describe(self):
        text = ('command: %s\nexit status: %s\n--- stdout ---\n%s\n--- stderr ---\n%s'
                % (' '.join(self.argv), self.returncode, tail(self.stdout), tail(self.stderr)))
        if self.extra:
            text += '\n--- jcmd ---\n' + tail(self.extra)
        return text


def _no_core_dumps():
    """In the child before exec: a JVM that aborts leaves no core file."""
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def tail(text, lines=60):
    parts = (text or '').splitlines()
    if len(parts) > lines:
        parts = ['... (%d lines cut)' % (len(parts) - lines)] + parts[-lines:]
    return '\n'.join(parts)


class Context:
    """One test case on one JDK: paths, a scratch directory, the runs made."""

    def __init__(self, case, jdk_name, jdk_home, agent, jar, fixture_lib, fixture_src):
        self.case = case
        self.jdk_name = jdk_name
        self.jdk_home = jdk_home
        self.agent = agent
        self.jar = jar
        self.fixture_lib = fixture_lib
        self.fixture_src = fixture_src
        self.java = os.path.join(jdk_home, 'bin', 'java')
        self.jcmd = os.path.join(jdk_home, 'bin', 'jcmd')
        self.tmpdir = tempfile.mkdtemp(prefix='pw-%s-%s-' % (case, jdk_name))
        self.runs = []
        env = dict(os.environ)
        # The JDK under test comes first on PATH, and JAVA_HOME agrees with it.
        bindir = os.path.join(jdk_home, 'bin')
        if QEMU_ROOT and os.access(self.java, os.X_OK):
            bindir = self._qemu_launchers(jdk_home)
            self.java = os.path.join(bindir, 'java')
            self.jcmd = os.path.join(bindir, 'jcmd')
        env['PATH'] = bindir + os.pathsep + env.get('PATH', '')
        env['JAVA_HOME'] = jdk_home
        self.env = env

    def _qemu_launchers(self, jdk_home):
        """java and jcmd scripts that run the arm64 JDK's programs through
        qemu-user without binfmt_misc.  exec keeps the pid, so the pid a
        test knows is the JVM's, for jcmd and the attach protocol.  The
        JVM's own child processes would need binfmt_misc: no case in the
        aarch64 subset starts any."""
        bindir = os.path.join(self.tmpdir, 'qemu-bin')
        os.mkdir(bindir)
        for tool in ('java', 'jcmd'):
            path = os.path.join(bindir, tool)
            with open(path, 'w', encoding='utf-8') as f:
                f.write('#!/bin/sh\n'
                        'QEMU_LD_PREFIX=%s QEMU_CPU=max,pauth-impdef=on\n'
                        'export QEMU_LD_PREFIX QEMU_CPU\n'
                        'exec qemu-aarch64-static %s "$@"\n'
                        % (shlex.quote(QEMU_ROOT), shlex.quote(os.path.join(jdk_home, 'bin', tool))))
            os.chmod(path, 0o755)
        return bindir

    def require_jdk(self):
        # The same line from every test of an absent JDK (meson.build
        # registers them all the same): .ci/run counts them under it.
        if not os.access(self.java, os.X_OK):
            print('SKIP: JDK %s absent%s: not run' % (self.jdk_name,
                                                     ' at ' + self.jdk_home if self.jdk_home else ''))
            raise SystemExit(SKIP)

    def report_path(self, name='pins.jsonl'):
        return os.path.join(self.tmpdir, name)

    def agent_arg(self, options):
        return '-agentpath:%s=%s' % (self.agent, options) if options else '-agentpath:' + self.agent

    def java_argv(self, main, args=(), agent_options=None, jvm_args=(), classpath=None,
                  library_path=None, with_agent=True):
        """The java command line.  agent_options None means the JSON report
        in the scratch directory; with_agent False runs without the agent."""
        argv = [self.java]
        if with_agent:
            if agent_options is None:
                agent_options = 'file=%s,format=json' % self.report_path()
            argv.append(self.agent_arg(agent_options))
        argv += native_access_flags(self.jdk_home) + ['-Xss2m']
        argv.append('-Djava.library.path=%s' % (library_path or os.path.dirname(self.fixture_lib)))
        argv += list(jvm_args)
        argv += ['-cp', classpath or self.jar]
        if main:
            argv.append(main if '.' in main else FIXTURE_PKG + main)
        argv += list(args)
        return argv

    def run_java(self, main, args=(), expect_rc=0, timeout=JVM_TIMEOUT, report_path=None,
                 may_crash=False, wrap=None, **kw):
        """Run a JVM to completion; by default it must exit 0.  report_path:
        the report shown on failure when not the default one.  may_crash:
        the run is expected to die, so it writes no core file and its
        hs_err file goes to the scratch directory.  wrap: a function of the
        command line giving the one to run (unprivileged.as_nobody)."""
        argv = self.java_argv(main, args, **kw)
        report = report_path or self.report_path()
        preexec = None
        if may_crash:
            argv[1:1] = ['-XX:ErrorFile=%s' % os.path.join(self.tmpdir, 'hs_err_%p.log'),
                         '-XX:-CreateCoredumpOnCrash']
            preexec = _no_core_dumps
        if wrap:
            argv = wrap(argv)
        try:
            proc = subprocess.run(argv, env=self.env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=timeout, universal_newlines=True, errors='replace',
                                  preexec_fn=preexec)
            run = JvmRun(argv, proc.returncode, proc.stdout, proc.stderr, report)
        except subprocess.TimeoutExpired as e:
            run = JvmRun(argv, 'timeout after %ss' % timeout, as_text(e.stdout), as_text(e.stderr),
                         report)
            self.runs.append(run)
            raise TestFailure('JVM did not finish within %s s' % timeout)
        self.runs.append(run)
        if expect_rc is not None and run.returncode != expect_rc:
            raise TestFailure('JVM exit status: expected %s, got %s' % (expect_rc, run.returncode))
        return run

    def cleanup(self):
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def print_failure(self, error):
        """What a failed case prints: the failure (or the checker's own crash,
        with its traceback), every JVM run with the tail of its report, and
        where the scratch files were kept."""
        if isinstance(error, TestFailure):
            print('FAIL: %s on %s: %s' % (self.case, self.jdk_name, error))
        else:
            print('FAIL: %s on %s: checker error' % (self.case, self.jdk_name))
            traceback.print_exc(file=sys.stdout)
        for number, run in enumerate(self.runs, 1):
            print('\n=== JVM run %d of %d ===\n%s' % (number, len(self.runs), run.describe()))
            if run.report_path and os.path.exists(run.report_path):
                with open(run.report_path, encoding='utf-8', errors='replace') as f:
                    print('--- report %s ---\n%s' % (run.report_path, tail(f.read(), 20)))
        print('\nscratch files kept in ' + self.tmpdir)


class Session:
    """A JVM the test talks to while it runs: waits for lines on its stdout,
    writes lines to its stdin, sends it jcmd commands.  Use as a context
    manager: a JVM still running at the end is killed."""

    def __init__(self, ctx, argv):
        self.ctx = ctx
        self.err = tempfile.TemporaryFile(dir=ctx.tmpdir)
        self.proc = subprocess.Popen(argv, env=ctx.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, bufsize=0)
        self.pid = self.proc.pid
        self.run = JvmRun(argv, None, '', '', None)
        ctx.runs.append(self.run)
        self.out = b''
        self.seen = 0           # characters of stdout already matched by wait_for

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._sync()
        self.err.close()
        return False

    def _sync(self):
        self.run.returncode = self.proc.returncode
        self.run.stdout = self.out.decode('utf-8', 'replace')
        if not self.err.closed:     # after __exit__ the last copy stands
            self.err.seek(0)
            self.run.stderr = self.err.read().decode('utf-8', 'replace')

    def stdout_text(self):
        self._sync()
        return self.run.stdout

    def stderr_text(self):
        self._sync()
        return self.run.stderr

    def wait_for(self, pattern, timeout=JVM_TIMEOUT):
        """The next match of a multi-line regex on stdout (after the last one)."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            m = re.compile(pattern, re.M).search(self.out.decode('utf-8', 'replace'), self.seen)
            if m:
                self.seen = m.end()
                return m
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(0.0, left))[0] if left > 0 else []
            chunk = os.read(fd, 65536) if ready else b''
            if not chunk:
                raise TestFailure('the JVM never printed a line matching %r (%s)'
                                  % (pattern, 'it exited' if ready else 'timed out'))
            self.out += chunk

    def send(self, line):
        self.proc.stdin.write(line.encode('utf-8') + b'\n')
        self.proc.stdin.flush()

    def jcmd(self, *args):
        """Run jcmd against the JVM; returns its output (stdout + stderr)."""
        return self.command([self.ctx.jcmd, str(self.pid)] + list(args), 'jcmd %s' % ' '.join(args))

    def command(self, argv, what, env=None):
        """Run a command aimed at this JVM (jcmd, pinwatch attach), its
        output kept with the run's; it must exit 0.  Returns its output
        (stdout + stderr)."""
        try:
            done = subprocess.run(argv, env=env or self.ctx.env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60 * TIME_SCALE,
                                  universal_newlines=True, errors='replace')
        except subprocess.TimeoutExpired:
            raise TestFailure("%s did not finish within %d s: %s" % (what, 60 * TIME_SCALE, " ".join(argv)))
        self.run.extra += '$ %s\n(exit status %d)\n%s\n' % (' '.join(argv), done.returncode,
                                                             done.stdout.rstrip())
        expect(done.returncode == 0, '%s exited %d:\n%s', what, done.returncode, tail(done.stdout))
        return done.stdout

    def finish(self, timeout=JVM_TIMEOUT):
        """Close stdin, read the rest of stdout, wait for the exit status."""
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TestFailure('JVM did not finish within %s s' % timeout)
        self.out += out
        self._sync()
        return self.proc.returncode


JCMD_RETURN_CODE = re.compile(r'^return code: (-?\d+)\s*$', re.M)


def jcmd_return_code(output):
    """The agent's return code from a JVMTI.agent_load reply, or None."""
    codes = JCMD_RETURN_CODE.findall(output)
    return int(codes[-1]) if codes else None


def as_text(data):
    if data is None:
        return ''
    if isinstance(data, bytes):
        return data.decode('utf-8', 'replace')
    return data


# --------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------

def read_dumps(path):
    """Every line of a JSON Lines report, parsed; a line that is not one JSON
    object is a failure (format=json promises exactly one line per dump)."""
    if not os.path.exists(path):
        raise TestFailure('no report file at %s' % path)
    dumps = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                raise TestFailure('%s:%d: empty line in a JSON Lines report' % (path, number))
            try:
                dump = json.loads(line)
            except ValueError as e:
                raise TestFailure('%s:%d: not JSON (%s): %.200s' % (path, number, e, line))
            if not isinstance(dump, dict):
                raise TestFailure('%s:%d: JSON value is not an object' % (path, number))
            dumps.append(dump)
    if not dumps:
        raise TestFailure('report %s is empty' % path)
    return dumps


def exit_dump(dumps):
    """The single dump with reason "exit", which must be the last line."""
    exits = [i for i, d in enumerate(dumps) if d.get('reason') == 'exit']
    if len(exits) != 1:
        raise TestFailure('expected exactly one dump with reason "exit", got %d (reasons %s)'
                          % (len(exits), [d.get('reason') for d in dumps]))
    if exits[0] != len(dumps) - 1:
        raise TestFailure('the "exit" dump is line %d of %d, expected the last line'
                          % (exits[0] + 1, len(dumps)))
    return dumps[-1]


def _num(obj, key, where):
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TestFailure('%s: field "%s" should be a non-negative integer, got %r'
                          % (where, key, value))
    return value


def row_name(row):
    return '%s%s %s' % (row.get('method'), row.get('signature', ''), row.get('function'))


def check_invariants(dump, at_exit=False, extended=False):
    """The invariants every dump must satisfy (and, at exit, the balance of
    every row).  The leaked/held/suppressed fields and the deltas are checked
    when extended is true or the dump has them.  Returns the dump."""
    where = 'dump reason=%s' % dump.get('reason')
    if dump.get('tool') != 'pinwatch':
        raise TestFailure('%s: "tool" expected "pinwatch", got %r' % (where, dump.get('tool')))
    if dump.get('reason') not in REASONS and dump.get('reason') not in APP_REASONS:
        raise TestFailure('%s: unexpected reason (expected one of %s)'
                          % (where, ', '.join(REASONS + tuple(sorted(APP_REASONS)))))
    _num(dump, 'pid', where)
    if not isinstance(dump.get('host'), str):
        raise TestFailure('%s: "host" should be a string, got %r' % (where, dump.get('host')))
    _num(dump, 'uptime_ms', where)
    totals = dump.get('totals')
    rows = dump.get('rows')
    if not isinstance(totals, dict) or not isinstance(rows, list):
        raise TestFailure('%s: "totals" object and "rows" list required' % where)
    for key in ('acquired', 'released', 'live', 'live_bytes', 'unmatched_releases', 'commits'):
        _num(totals, key, where + ' totals')

    for row in rows:
        rwhere = '%s row %s' % (where, row_name(row))
        for key in ('method', 'signature', 'function'):
            if not isinstance(row.get(key), str):
                raise TestFailure('%s: "%s" should be a string' % (rwhere, key))
        for key in ('acquired', 'released', 'live', 'live_bytes', 'commits', 'oldest_age_ms'):
            _num(row, key, rwhere)
        sites = row.get('sites')
        if not isinstance(sites, list):
            raise TestFailure('%s: "sites" should be a list' % rwhere)
        site_live = sum(_num(s, 'live', rwhere + ' site') for s in sites)
        if site_live != row['live']:
            raise TestFailure('%s: live %d but its sites add up to %d'
                              % (rwhere, row['live'], site_live))
        if at_exit and row['acquired'] - row['released'] != row['live']:
            raise TestFailure('%s: acquired %d - released %d != live %d'
                              % (rwhere, row['acquired'], row['released'], row['live']))

    for key in ('live', 'live_bytes'):
        total = sum(r[key] for r in rows)
        if totals[key] != total:
            raise TestFailure('%s: totals.%s is %d but the rows add up to %d'
                              % (where, key, totals[key], total))
    for a, b in zip(rows, rows[1:]):
        if a['live_bytes'] < b['live_bytes']:
            raise TestFailure('%s: rows not sorted by live_bytes descending: %s (%d) before %s (%d)'
                              % (where, row_name(a), a['live_bytes'], row_name(b), b['live_bytes']))
    if at_exit and totals['acquired'] - totals['released'] != totals['live']:
        raise TestFailure('%s: totals acquired %d - released %d != live %d'
                          % (where, totals['acquired'], totals['released'], totals['live']))
    if extended or 'since_ms' in dump:
        check_extended(dump)
    return dump


def _int(obj, key, where):
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TestFailure('%s: field "%s" should be an integer, got %r' % (where, key, value))
    return value


def check_extended(dump):
    """The leaked/held/suppressed split and the per-report deltas: present
    in every dump, consistent within one dump."""
    where = 'dump reason=%s' % dump.get('reason')
    _num(dump, 'since_ms', where)
    totals = dump['totals']
    for key in ('leaked', 'held', 'suppressed'):
        _num(totals, key, where + ' totals')
    for row in dump['rows']:
        rwhere = '%s row %s' % (where, row_name(row))
        leaked, held, suppressed = (_num(row, k, rwhere) for k in ('leaked', 'held', 'suppressed'))
        if leaked + held != row['live']:
            raise TestFailure('%s: leaked %d + held %d != live %d'
                              % (rwhere, leaked, held, row['live']))
        if suppressed > row['live']:
            raise TestFailure('%s: suppressed %d > live %d' % (rwhere, suppressed, row['live']))
        _int(row, 'live_delta', rwhere)
        delta = _num(row, 'acquired_delta', rwhere)
        if delta > row['acquired']:
            raise TestFailure('%s: acquired_delta %d > acquired %d'
                              % (rwhere, delta, row['acquired']))
        rate = row.get('acquired_per_s')
        if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not rate >= 0:
            raise TestFailure('%s: "acquired_per_s" should be a non-negative number, got %r'
                              % (rwhere, rate))
    for row in dump['rows']:
        rwhere = '%s row %s' % (where, row_name(row))
        carried = _num(row, 'carried', rwhere)
        if carried > row['released']:
            raise TestFailure('%s: carried %d > released %d' % (rwhere, carried, row['released']))
    _num(totals, 'carried', where + ' totals')
    for key in ('leaked', 'held', 'suppressed', 'carried'):
        total = sum(r[key] for r in dump['rows'])
        if totals[key] != total:
            raise TestFailure('%s: totals.%s is %d but the rows add up to %d'
                              % (where, key, totals[key], total))
    if totals['held'] != totals['live'] - totals['leaked']:
        raise TestFailure('%s: totals.held %d != live %d - leaked %d'
                          % (where, totals['held'], totals['live'], totals['leaked']))
    return dump


def row_key(row):
    return (row.get('method'), row.get('signature'), row.get('function'))


def check_series(dumps, first_of_jvm=True, check_since=True):
    """The deltas of consecutive dumps of one JVM: since_ms is the time since
    the previous dump (0 in the first), live_delta and acquired_delta are the
    changes since the previous dump (the whole value for a new row), and
    acquired_per_s is acquired_delta per second of since_ms.  check_since
    False: a report not in the list came between two (only the deltas are
    compared)."""
    prev = None
    for number, dump in enumerate(dumps, 1):
        where = 'dump %d (reason=%s)' % (number, dump.get('reason'))
        check_extended(dump)
        since = dump['since_ms']
        if prev is None and first_of_jvm and check_since:
            expect(since == 0, '%s: since_ms expected 0 in the first report, got %d', where, since)
        if prev is not None and check_since:
            gap = dump['uptime_ms'] - prev['uptime_ms']
            expect(abs(since - gap) <= 50, '%s: since_ms %d, but uptime_ms moved by %d since '
                   'the previous report', where, since, gap)
        before = {}
        if prev is not None:
            keys = [row_key(r) for r in prev['rows']]
            before = {row_key(r): r for r in prev['rows'] if keys.count(row_key(r)) == 1}
        keys = [row_key(r) for r in dump['rows']]
        for row in dump['rows']:
            if keys.count(row_key(row)) != 1:
                continue            # e.g. several <native thread> rows: no pairing
            old = before.get(row_key(row))
            if prev is None and not first_of_jvm:
                continue
            want_live = row['live'] - (old['live'] if old else 0)
            want_acq = row['acquired'] - (old['acquired'] if old else 0)
            expect(row['live_delta'] == want_live and row['acquired_delta'] == want_acq,
                   '%s row %s: live_delta %d / acquired_delta %d, expected %d / %d (live %d, '
                   'acquired %d; previous report %s)', where, row_name(row), row['live_delta'],
                   row['acquired_delta'], want_live, want_acq, row['live'], row['acquired'],
                   'live %d, acquired %d' % (old['live'], old['acquired']) if old else 'no row')
            rate = row['acquired_per_s']
            if prev is None:
                expect(rate == 0, '%s row %s: acquired_per_s expected 0 in the first report, '
                       'got %r', where, row_name(row), rate)
            elif since > 0 and check_since:
                want = row['acquired_delta'] * 1000.0 / since
                expect(abs(rate - want) <= 0.02 * want + 1.0, '%s row %s: acquired_per_s %r, '
                       'expected about %.1f (acquired_delta %d over since_ms %d)',
                       where, row_name(row), rate, want, row['acquired_delta'], since)
        prev = dump
    return dumps


def load_report(path, extended=True):
    """Read a report, check every dump, return (all dumps, the exit dump).
    extended: the dumps must carry the leaked/held/suppressed fields and the
    deltas too (every report of the current agent does)."""
    dumps = read_dumps(path)
    last = exit_dump(dumps)
    for dump in dumps:
        check_invariants(dump, at_exit=dump is last, extended=extended)
    return dumps, last


def rows_of(dump, method):
    return [r for r in dump['rows'] if r.get('method') == method]


def find_row(dump, method, function):
    """The one row for (method, function); failure lists what the method has."""
    if method[:1].isupper():          # "Pairs.leakInt": a fixture class
        method = FIXTURE_PKG + method
    found = [r for r in dump['rows'] if r.get('method') == method and r.get('function') == function]
    if len(found) == 1:
        return found[0]
    if found:
        raise TestFailure('%d rows for %s %s, expected one' % (len(found), method, function))
    others = [row_name(r) for r in rows_of(dump, method)]
    raise TestFailure('no row for method %s function %s in dump reason=%s; rows of that method: %s'
                      % (method, function, dump.get('reason'), others or 'none'))


def expect_row(dump, method, function, signature=None, **expected):
    """Compare the named fields of a row exactly; report all mismatches."""
    row = find_row(dump, method, function)
    wrong = []
    if signature is not None and row.get('signature') != signature:
        wrong.append('signature: expected %r, got %r' % (signature, row.get('signature')))
    for key, value in expected.items():
        if row.get(key) != value:
            wrong.append('%s: expected %r, got %r' % (key, value, row.get(key)))
    if wrong:
        raise TestFailure('row %s %s (dump reason=%s):\n  %s'
                          % (row.get('method'), function, dump.get('reason'), '\n  '.join(wrong)))
    return row


def expect(condition, message, *args):
    if not condition:
        raise TestFailure(message % args if args else message)


def source_line(path, marker):
    """1-based line of the unique marker comment in a fixture source."""
    with open(path, encoding='utf-8') as f:
        hits = [n for n, line in enumerate(f, 1) if marker in line]
    if len(hits) != 1:
        raise TestFailure('marker %r found %d times in %s' % (marker, len(hits), path))
    return hits[0]


def modified_utf8_size(text):
    """Bytes of JNI modified UTF-8 plus the terminating NUL (BMP text)."""
    size = 1
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            size += 6      # a surrogate pair, 3 bytes per half
        elif cp == 0 or cp > 0x7FF:
            size += 2 if cp == 0 else 3
        elif cp > 0x7F:
            size += 2
        else:
            size += 1
    return size


# --------------------------------------------------------------------------
# Self-test (suite "unit"): the checker must reject broken dumps, or every
# JVM test built on it could pass vacuously.
# --------------------------------------------------------------------------

def _sample_dump():
    def row(method, function, acquired, released, live, nbytes):
        return {'method': method, 'signature': '([I)V', 'function': function,
                'acquired': acquired, 'released': released, 'live': live,
                'live_bytes': nbytes, 'commits': 0, 'oldest_age_ms': 3,
                'leaked': live, 'held': 0, 'carried': 0, 'suppressed': 0, 'live_delta': live,
                'acquired_delta': acquired, 'acquired_per_s': 0,
                'sites': [{'live': live, 'acquired': acquired,
                           'frames': [{'address': '0x1', 'symbol': 'f'}]}]}
    rows = [row('a.B.c', 'GetIntArrayElements', 5, 2, 3, 300),
            row('a.B.d', 'GetByteArrayElements', 4, 3, 1, 10),
            row('a.B.e', 'GetStringChars', 9, 9, 0, 0)]
    rows[2]['carried'] = 2
    return {'tool': 'pinwatch', 'version': '0.1.0', 'pid': 1, 'host': 'h1', 'reason': 'exit', 'uptime_ms': 5,
            'since_ms': 0,
            'totals': {'acquired': 18, 'released': 14, 'live': 4, 'live_bytes': 310,
                       'unmatched_releases': 0, 'commits': 0,
                       'leaked': 4, 'held': 0, 'carried': 2, 'suppressed': 0},
            'rows': rows}


def _later_dump():
    """_sample_dump 400 ms later: a.B.c acquired 4 more and released 1."""
    import copy
    dump = copy.deepcopy(_sample_dump())
    dump.update(uptime_ms=405, since_ms=400)
    c = dump['rows'][0]
    c.update(acquired=9, released=3, live=6, live_bytes=600, leaked=5, held=1, live_delta=3,
             acquired_delta=4, acquired_per_s=10.0)
    c['sites'][0].update(live=6, acquired=9)
    for r in dump['rows'][1:]:
        r.update(live_delta=0, acquired_delta=0)
    dump['totals'].update(acquired=22, released=15, live=7, live_bytes=610, leaked=5, held=2)
    dump['rows'][1].update(leaked=0, held=1)
    return dump


def self_test():
    import copy
    check_invariants(_sample_dump(), at_exit=True)

    def breaks(mutate, what):
        dump = copy.deepcopy(_sample_dump())
        mutate(dump)
        try:
            check_invariants(dump, at_exit=True)
        except TestFailure:
            return
        raise AssertionError('checker accepted a dump with ' + what)

    breaks(lambda d: d['totals'].update(live=5), 'totals.live != sum of rows')
    breaks(lambda d: d['totals'].update(live_bytes=1), 'totals.live_bytes != sum of rows')
    breaks(lambda d: d['rows'][0]['sites'][0].update(live=2), 'row live != sum of sites')
    breaks(lambda d: d['rows'][0].update(released=1), 'acquired - released != live')
    breaks(lambda d: d['rows'].reverse(), 'rows out of order')
    breaks(lambda d: d['totals'].update(released=13), 'totals acquired - released != live')
    breaks(lambda d: d.update(tool='other'), 'a wrong tool name')
    breaks(lambda d: d['rows'][1].pop('live'), 'a missing field')
    breaks(lambda d: d['rows'][1].update(live=True), 'a boolean count')
    breaks(lambda d: d.update(reason='sometimes'), 'an unknown reason')
    breaks(lambda d: d['rows'][0].update(held=1), 'leaked + held != live')
    breaks(lambda d: d['rows'][0].update(suppressed=4), 'suppressed > live')
    breaks(lambda d: d['totals'].update(suppressed=1), 'totals.suppressed != sum of rows')
    breaks(lambda d: d['totals'].update(leaked=3, held=1), 'totals.leaked != sum of rows')
    breaks(lambda d: d['totals'].update(carried=3), 'totals.carried != sum of rows')
    breaks(lambda d: d['rows'][1].update(carried=4), 'carried > released')
    breaks(lambda d: d['rows'][2].pop('carried'), 'a missing carried')
    breaks(lambda d: d['rows'][2].update(acquired_per_s='0'), 'a rate that is not a number')
    breaks(lambda d: d['rows'][2].update(acquired_delta=10), 'acquired_delta > acquired')
    breaks(lambda d: d['rows'][2].pop('live_delta'), 'a missing live_delta')
    for reason in REASONS:
        check_invariants(dict(_sample_dump(), reason=reason))
    old = {k: v for k, v in _sample_dump().items() if k != 'since_ms'}
    check_invariants(old)         # without the new fields: checked only on request
    try:
        check_invariants(old, extended=True)
    except TestFailure:
        pass
    else:
        raise AssertionError('extended check accepted a dump without since_ms')

    check_series([_sample_dump(), _later_dump()])

    def series_breaks(mutate, what):
        later = _later_dump()
        mutate(later)
        try:
            check_series([_sample_dump(), later])
        except TestFailure:
            return
        raise AssertionError('check_series accepted ' + what)

    series_breaks(lambda d: d['rows'][0].update(live_delta=6), 'live_delta = live, not the change')
    series_breaks(lambda d: d['rows'][0].update(acquired_delta=9, acquired_per_s=22.5),
                  'acquired_delta = acquired, not the change')
    series_breaks(lambda d: d['rows'][0].update(acquired_per_s=4.0), 'a rate per since_ms')
    series_breaks(lambda d: d.update(since_ms=40), 'since_ms not matching uptime')
    try:
        check_series([_later_dump()])
    except TestFailure:
        pass
    else:
        raise AssertionError('check_series accepted a first report with since_ms > 0')

    dump = _sample_dump()
    dump['rows'][2]['method'] = FIXTURE_PKG + 'Pairs$Strings.leakUtf'
    find_row(dump, 'Pairs$Strings.leakUtf', 'GetStringChars')
    expect_row(dump, 'a.B.c', 'GetIntArrayElements', '([I)V', live=3, live_bytes=300)
    for wrong in ({'live': 4}, {'live_bytes': 301}):
        try:
            expect_row(dump, 'a.B.c', 'GetIntArrayElements', **wrong)
        except TestFailure:
            continue
        raise AssertionError('expect_row accepted %r' % wrong)
    try:
        find_row(dump, 'a.B.c', 'GetByteArrayElements')
    except TestFailure:
        pass
    else:
        raise AssertionError('find_row matched on method alone')

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'r.jsonl')
        jcmd = dict(_sample_dump(), reason='jcmd')
        with open(path, 'w') as f:
            f.write(json.dumps(_sample_dump()) + '\n' + json.dumps(jcmd) + '\n')
        try:
            load_report(path)
        except TestFailure:
            pass
        else:
            raise AssertionError('accepted an "exit" dump that is not the last line')
        with open(path, 'w') as f:
            f.write(json.dumps(jcmd) + '\n' + json.dumps(_sample_dump()) + '\n')
        dumps, last = load_report(path)
        assert len(dumps) == 2 and last['reason'] == 'exit'

    assert modified_utf8_size('pw-utf-\u00e9\u00e8\u20ac\u4e2d-end') == 22
    assert modified_utf8_size('a\0') == 4
    print('PASS: harness self-test')


if __name__ == '__main__':
    self_test()
