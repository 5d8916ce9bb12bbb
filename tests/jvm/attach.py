# SPDX-License-Identifier: Apache-2.0
"""JVM cases: jcmd mid-run dumps and late attach (jcmd JVMTI.agent_load and
`pinwatch attach`), natives bound before the attach.

Run through tests/jvm/cases.py, which holds the list; the expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import os
import re
import select
import subprocess
import time

from harness import (Case, JVM_TIMEOUT, JvmRun, QEMU_ROOT, Session, TIME_SCALE, TestFailure, check_series,
                     expect, expect_row, load_report, read_dumps, row_name, rows_of, tail)
from common import (ATTACH_FLAGS, EXIT_STATUS_LINE, _agent_load, _dumps_so_far, _exit_status_lines,
                    _expect_loaded, _wait_for_dump)


def _read_until(fd, pattern, deadline):
    """Read raw bytes from fd until a line matches pattern; returns (match, text)."""
    data = b''
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        m = re.search(pattern, data.decode('utf-8', 'replace'), re.M)
        if m:
            return m, data.decode('utf-8', 'replace')
    return None, data.decode('utf-8', 'replace')


def case_jcmd_midrun(ctx):
    pattern = os.path.join(ctx.tmpdir, 'pins-%p.jsonl')
    argv = ctx.java_argv('JcmdMidrun', agent_options='file=%s,format=json' % pattern)
    stderr_path = os.path.join(ctx.tmpdir, 'stderr.txt')
    stdout = ''
    with open(stderr_path, 'w+b') as err:
        proc = subprocess.Popen(argv, env=ctx.env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, bufsize=0)
        run = JvmRun(argv, None, '', '', None)
        ctx.runs.append(run)
        try:
            m, stdout = _read_until(proc.stdout.fileno(), r'^READY (\d+)$',
                                    time.monotonic() + JVM_TIMEOUT)
            expect(m, 'fixture never printed READY')
            pid = int(m.group(1))
            expect(pid == proc.pid, 'fixture pid %d is not the java process %d', pid, proc.pid)
            report = pattern.replace('%p', str(pid))
            run.report_path = report
            time.sleep(0.5)                    # so the pins have a measurable age
            jcmd = subprocess.run([ctx.jcmd, str(pid), 'JVMTI.data_dump'], env=ctx.env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=60 * TIME_SCALE,
                                  universal_newlines=True, errors='replace')
            expect(jcmd.returncode == 0, 'jcmd exited %d:\n%s', jcmd.returncode, tail(jcmd.stdout))
            deadline = time.monotonic() + 30 * TIME_SCALE
            while not _dumps_so_far(report, 'jcmd') and time.monotonic() < deadline:
                time.sleep(0.05)
            expect(_dumps_so_far(report, 'jcmd'), 'no dump with reason "jcmd" in %s within %d s of jcmd',
                   report, 30 * TIME_SCALE)
            out, _ = proc.communicate(input=b'go\n', timeout=JVM_TIMEOUT)
            stdout += out.decode('utf-8', 'replace')
        except subprocess.TimeoutExpired:
            raise TestFailure('JVM did not finish within %s s' % JVM_TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            err.seek(0)
            run.returncode = proc.returncode
            run.stdout = stdout
            run.stderr = err.read().decode('utf-8', 'replace')
    expect(proc.returncode == 0, 'JVM exit status: expected 0, got %s', proc.returncode)

    dumps, last = load_report(report)
    jcmds = [d for d in dumps if d['reason'] == 'jcmd']
    expect(len(jcmds) == 1, 'expected exactly one "jcmd" dump, got %d', len(jcmds))
    for dump in dumps:
        expect(dump['pid'] == pid, 'dump reason=%s: pid expected %d, got %r',
               dump['reason'], pid, dump['pid'])
    row = expect_row(jcmds[0], 'JcmdMidrun.hold', 'GetShortArrayElements', '([S)V',
                     acquired=23, released=0, live=23, live_bytes=23 * 199 * 2)
    expect(row['oldest_age_ms'] >= 400, 'jcmd dump: oldest_age_ms expected >= 400 (pins held '
           'for 0.5 s before jcmd), got %d', row['oldest_age_ms'])
    expect_row(last, 'JcmdMidrun.hold', 'GetShortArrayElements', '([S)V',
               acquired=32, released=0, live=32, live_bytes=32 * 199 * 2)


def _expect_refused(code, out, options):
    expect(code is not None and code != 0,
           'agent_load "%s": expected a non-zero return code, jcmd said:\n%s', options, tail(out))


def case_late_attach(ctx):
    report = ctx.report_path('attached.jsonl')
    command = ctx.report_path('command.jsonl')
    text = ctx.report_path('command.txt')
    argv = ctx.java_argv('LateAttach', with_agent=False, jvm_args=ATTACH_FLAGS)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        m = s.wait_for(r'^READY (\d+)$')
        expect(int(m.group(1)) == s.pid, 'fixture pid %s is not the java process %d',
               m.group(1), s.pid)
        opts = 'file=%s,format=json' % report
        _expect_loaded(*_agent_load(s, ctx, opts), opts)
        # A second load may only ask for a dump.  Refused before the leaks
        # below: had it been applied, they would cross threshold 5.
        _expect_refused(*_agent_load(s, ctx, 'threshold=5'), 'threshold=5')
        # A dump with a key a running agent cannot honour is refused by that
        # key's name, not done with the key ignored (it would add a
        # "command" report to the report file, which ends with only "exit").
        for opts in ('dump,stack=4', 'dump,critical_ms=1', 'dump,format=json,javastack=2'):
            _expect_refused(*_agent_load(s, ctx, opts), opts)
        s.send('attached')
        s.wait_for(r'^LEAKED$')
        opts = 'dump,file=%s,format=json' % command
        _expect_loaded(*_agent_load(s, ctx, opts), opts)
        _wait_for_dump(command, 'command', 'agent_load "%s"' % opts)
        # format applies to that one report: the exit report stays JSON.
        opts = 'dump,file=%s,format=text' % text
        _expect_loaded(*_agent_load(s, ctx, opts), opts)
        deadline = time.monotonic() + 30 * TIME_SCALE
        while not (os.path.exists(text) and os.path.getsize(text)) and time.monotonic() < deadline:
            time.sleep(0.05)
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s (a fixture check failure shows in '
           'stderr)', rc)
    expect('DONE' in s.stdout_text(), 'fixture did not print DONE')
    for key in ('threshold', 'stack', 'critical_ms', 'javastack'):
        want = "'%s' cannot change a running agent" % key
        lines = [l for l in s.run.stderr.splitlines() if l.startswith('[pinwatch] ERROR') and want in l]
        expect(len(lines) == 1, 'the JVM\'s stderr: expected one [pinwatch] ERROR line with "%s", got %d',
               want, len(lines))

    commands = read_dumps(command)
    expect([d.get('reason') for d in commands] == ['command'],
           '%s: expected one report with reason "command", got reasons %s',
           command, [d.get('reason') for d in commands])
    dumps, last = load_report(report, extended=True)
    expect([d['reason'] for d in dumps] == ['exit'],
           '%s: expected only the exit report (the command report went to its own file), '
           'got reasons %s', report, [d['reason'] for d in dumps])
    expect(os.path.exists(text), 'agent_load "dump,format=text" wrote no %s', text)
    with open(text, encoding='utf-8', errors='replace') as f:
        body = f.read()
    expect(body.strip() and not body.lstrip().startswith('{') and 'command' in body,
           'agent_load "dump,format=text": expected a text report naming reason "command" in '
           '%s, got: %.300s', text, body)
    # The JSON command report is the first of this JVM; the text one came
    # between it and the exit report, so the exit report's since_ms is the
    # uptime since the text report, which that report shows in tenths of a
    # second (rounded down).  Both may fall in one millisecond: 0 is allowed.
    check_series(commands)
    check_series(commands + dumps, check_since=False)
    m = re.search(r'\(reason: command, pid \d+, uptime (\d+)\.(\d) s', body)
    expect(m, 'agent_load "dump,format=text": no "(reason: command, pid N, uptime S.T s" in '
           '%s: %.300s', text, body)
    text_ms = int(m.group(1)) * 1000 + int(m.group(2)) * 100
    gap = last['uptime_ms'] - commands[0]['uptime_ms']
    low, high = max(0, last['uptime_ms'] - text_ms - 99), min(gap, last['uptime_ms'] - text_ms)
    expect(low <= last['since_ms'] <= high, 'exit report: since_ms %d, expected the uptime since '
           'the text command report (uptime %s.%s s), %d..%d, and at most %d (the uptime since '
           'the JSON command report)', last['since_ms'], m.group(1), m.group(2), low, high, gap)
    for dump in (commands[0], last):
        # 3 pins of early() before the attach are not seen; the 37 after are.
        expect_row(dump, 'LateAttach.early', 'GetIntArrayElements', '([I)V', acquired=37,
                   released=0, live=37, leaked=37, held=0, live_bytes=37 * 211 * 4)
        expect_row(dump, 'LateAttach.late', 'GetIntArrayElements', '([I)V', acquired=23,
                   released=0, live=23, leaked=23, held=0, live_bytes=23 * 223 * 4)
        unmatched = dump['totals']['unmatched_releases']
        expect(unmatched >= 100, 'dump reason=%s: unmatched_releases expected >= 100 (pins '
               'taken before the attach), got %d', dump['reason'], unmatched)
        for name in ('grab', 'releaseAll'):
            wrong = [row_name(r) for r in rows_of(dump, 'pinwatch.fixtures.LateAttach.' + name)
                     if r['acquired'] > 0]
            expect(not wrong, 'dump reason=%s: %s acquired nothing after the attach, yet %s',
                   dump['reason'], name, wrong)


# PreBound: rows after the attach (method, function, signature, count, bytes
# per pin).  leak is called often enough for a compiled native wrapper;
# leakTail's Get is the function's tail call when the compiler makes it so.
PREBOUND_LEAKS = (('leak', 'GetLongArrayElements', '([J)V', 1009, 263 * 8),
                  ('leakTail', 'GetFloatArrayElements', '([F)V', 17, 281 * 4),
                  # nestOuter's C calls Java that calls nestInner: each is its own row.
                  ('nestOuter', 'GetByteArrayElements', '([B)V', 7, 283),
                  ('nestInner', 'GetDoubleArrayElements', '([D)V', 7, 293 * 8))


# In progress at the jcmd dump: holdEarly began before the attach (its 5
# earlier pins are not seen), holdLate after it.  One C function for both.
PREBOUND_HELD = (('holdEarly', 9, 271 * 2), ('holdLate', 11, 277 * 2))


PREBOUND_LEAKED = sum(n for _, _, _, n, _ in PREBOUND_LEAKS) + sum(n for _, n, _ in PREBOUND_HELD)


def _late_prebound(ctx, attach):
    """PreBound, attached by attach(session, report): exact leaked and held
    counts at a jcmd dump and at exit, UNRELEASED lines, exitcode."""
    report = ctx.report_path('prebound.jsonl')
    argv = ctx.java_argv('PreBound', with_agent=False, jvm_args=ATTACH_FLAGS)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        s.wait_for(r'^READY (\d+)$')
        attach(s, report)
        s.send('attached')
        s.wait_for(r'^HOLDING$')
        s.jcmd('JVMTI.data_dump')
        _wait_for_dump(report, 'jcmd', 'jcmd JVMTI.data_dump while two invocations hold pins')
        s.send('go')
        rc = s.finish()
    stderr = s.stderr_text()
    expect(rc == 3, 'JVM exit status: expected 3 (exitcode=3, pins leaked), got %s', rc)
    # Under the checkjni setup: no call of ours inside sumCritical's regions.
    for text in (stderr, s.stdout_text()):
        expect('in the scope of Get/ReleasePrimitiveArrayCritical' not in text,
               'a JNI call was made inside a critical region:\n%s', tail(text, 20))
    expect('DONE' in s.stdout_text(), 'fixture did not print DONE')
    dumps, last = load_report(report, extended=True)
    expect([d['reason'] for d in dumps] == ['jcmd', 'exit'], 'expected reasons [jcmd, exit], got %s',
           [d['reason'] for d in dumps])
    for dump in dumps:
        at_exit = dump is last
        for name, function, sig, n, size in PREBOUND_LEAKS:
            expect_row(dump, 'PreBound.' + name, function, sig, acquired=n, released=0, live=n,
                       leaked=n, held=0, live_bytes=n * size)
        for name, n, size in PREBOUND_HELD:
            expect_row(dump, 'PreBound.' + name, 'GetShortArrayElements', '([SIII)V', acquired=n,
                       released=0, live=n, leaked=n if at_exit else 0, held=0 if at_exit else n,
                       live_bytes=n * size)
        expect_row(dump, 'PreBound.balanced', 'GetIntArrayElements', '([I)V', acquired=43,
                   released=43, live=0, leaked=0, held=0)
        expect_row(dump, 'PreBound.sumCritical', 'GetPrimitiveArrayCritical', '([I[I)J',
                   acquired=26, released=26, live=0, leaked=0, held=0)
        others = [row_name(r) for r in rows_of(dump, 'pinwatch.fixtures.PreBound.nestOuter')
                  if r['function'] != 'GetByteArrayElements']
        expect(not others, 'dump reason=%s: nestInner\'s pins charged to nestOuter: %s',
               dump['reason'], others)
    lines = _exit_status_lines(s.run)
    expect([EXIT_STATUS_LINE.match(l).groups() if EXIT_STATUS_LINE.match(l) else l for l in lines]
           == [('3', str(PREBOUND_LEAKED))],
           'expected one line "[pinwatch] exit status 3: %d leaked pins", got %s',
           PREBOUND_LEAKED, lines)
    leaks = {}
    for line in stderr.splitlines():
        # A tail call's site is an address in the JVM's code: no file:line.
        m = re.match(r'^\[pinwatch\] UNRELEASED (\S+) returned holding (\d+) (\w+) pins? ', line)
        if m:
            leaks[m.group(1)] = (int(m.group(2)), m.group(3))
    want = {'pinwatch.fixtures.PreBound.leak': (1, 'GetLongArrayElements'),
            'pinwatch.fixtures.PreBound.leakTail': (1, 'GetFloatArrayElements'),
            'pinwatch.fixtures.PreBound.nestOuter': (1, 'GetByteArrayElements'),
            'pinwatch.fixtures.PreBound.nestInner': (1, 'GetDoubleArrayElements'),
            'pinwatch.fixtures.PreBound.holdEarly': (9, 'GetShortArrayElements'),
            'pinwatch.fixtures.PreBound.holdLate': (11, 'GetShortArrayElements')}
    got = {k: v for k, v in leaks.items() if k.startswith('pinwatch.fixtures.PreBound.')}
    expect(got == want, 'UNRELEASED lines of PreBound: expected %s, got %s', want, got)


def case_late_prebound(ctx):
    def attach(s, report):
        opts = 'file=%s,format=json,exitcode=3' % report
        _expect_loaded(*_agent_load(s, ctx, opts), opts)
    _late_prebound(ctx, attach)


def case_late_prebound_cli(ctx):
    expect(ctx.pinwatch and os.path.exists(ctx.pinwatch), 'pinwatch command not built (--pinwatch): %s',
           ctx.pinwatch)

    def attach(s, report):
        argv = [ctx.pinwatch, 'attach', str(s.pid), '--agent', ctx.agent, '--format', 'json',
                '--file', report, '--exitcode', '3']
        env = dict(ctx.env)
        if QEMU_ROOT:
            # The cross-built command is an arm64 program too.
            argv = ['qemu-aarch64-static', '-L', QEMU_ROOT] + argv
            env['QEMU_CPU'] = 'max,pauth-impdef=on'
        s.command(argv, 'pinwatch attach', env)
    _late_prebound(ctx, attach)


def _expect_stderr_untouched(run):
    """No report and no pinwatch line but errors on the JVM's stderr."""
    bad = [l for l in run.stderr.splitlines()
           if (l.startswith('[pinwatch]') and not l.startswith('[pinwatch] ERROR'))
           or l.startswith('pinwatch') or '"tool"' in l]
    expect(not bad, 'the JVM\'s stderr shows pinwatch at work:\n  %s', '\n  '.join(bad))


def case_attach_bad_options(ctx):
    report = ctx.report_path('never.jsonl')
    argv = ctx.java_argv('JcmdMidrun', with_agent=False, jvm_args=ATTACH_FLAGS)
    with Session(ctx, argv) as s:
        m = s.wait_for(r'^READY (\d+)$')
        for opts in ('bogus=1', 'file=%s,format=json,bogus=1' % report,
                     'file=%s,format=json,threshold=abc' % report):
            _expect_refused(*_agent_load(s, ctx, opts), opts)
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    lines = s.stdout_text().splitlines()
    expect(lines == [m.group(0), 'DONE'], 'the JVM\'s stdout: expected READY and DONE, got %s',
           lines)
    expect(not os.path.exists(report), 'a refused attach created the report file %s', report)
    _expect_stderr_untouched(s.run)


# The cases of this area: name, meson timeout in seconds (each JVM run also has its
# own 120 s limit), and whether it runs alone (timings on a 2-core box stay sane).
CASES = {
    'jcmd-midrun': Case(case_jcmd_midrun, 300),
    'late-attach': Case(case_late_attach, 150),
    'late-prebound': Case(case_late_prebound, 150),
    'late-prebound-cli': Case(case_late_prebound_cli, 150),
    'attach-bad-options': Case(case_attach_bad_options, 150),
}
