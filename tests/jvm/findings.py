# SPDX-License-Identifier: Apache-2.0
"""JVM cases: what pinwatch reports about pins (leaked and held pins, carried pins,
threshold and interval reports, exit codes, suppressions, findings, stacks, collapsed output).

Run through tests/jvm/cases.py, which holds the list; the expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import json
import os
import re
import time

from harness import (Case, FIXTURE_PKG, Session, TIME_SCALE, check_series, expect, expect_row, find_row,
                     load_report, modified_utf8_size, row_name, rows_of, source_line)
from unprivileged import NOBODY, as_nobody, traversable
from common import (EXIT_STATUS_LINE, LEAK_LINE, STRING_SIG, _exit_status_lines, _expect_site_line, _finding,
                    _findings, _leak_lines, _show_frames, _site_of, _wait_for_dump, _write_rules,
                    fixture_symbol)


def _expect_leak_line(ctx, lines, method, function, count, nbytes, marker):
    mine = [m for m in lines if m.group(1) == method and m.group(3) == function]
    expect(len(mine) == 1, 'expected exactly one UNRELEASED line for %s %s, got %d:\n  %s',
           method, function, len(mine), '\n  '.join(m.group(0) for m in mine) or '(none)')
    m = mine[0]
    line = source_line(ctx.fixture_src, marker)
    got = (int(m.group(2)), int(m.group(4)), os.path.basename(m.group(5)), int(m.group(6)))
    want = (count, nbytes, os.path.basename(ctx.fixture_src), line)
    expect(got == want, 'UNRELEASED line for %s %s: expected (pins, bytes, file, line) %s, got %s: %s',
           method, function, want, got, m.group(0))


def case_leaked_held(ctx):
    report = ctx.report_path()
    method = 'pinwatch.fixtures.LeakedHeld.work'
    sig = '([J[II)V'
    with Session(ctx, ctx.java_argv('LeakedHeld')) as s:
        s.run.report_path = report
        m = s.wait_for(r'^READY (\d+)$')
        expect(int(m.group(1)) == s.pid, 'fixture pid %s is not the java process %d',
               m.group(1), s.pid)
        # The first leak (call 1 of 1000) is announced at once, not at exit.
        deadline = time.monotonic() + 5 * TIME_SCALE
        while (not any(m.group(3) == 'GetLongArrayElements' for m in _leak_lines(s.stderr_text()))
               and time.monotonic() < deadline):
            time.sleep(0.05)
        early = _leak_lines(s.stderr_text())
        _expect_leak_line(ctx, early, method, 'GetLongArrayElements', 1, 251 * 8,
                          'pw-site: leaked-held-long')
        expect(not [m for m in early if m.group(3) == 'GetIntArrayElements'],
               'an UNRELEASED line for the 10 int[] pins while work() still holds them: %s',
               [m.group(0) for m in early])
        s.jcmd('JVMTI.data_dump')
        _wait_for_dump(report, 'jcmd', 'jcmd JVMTI.data_dump')
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    expect('DONE' in s.stdout_text(), 'fixture did not print DONE')

    dumps, last = load_report(report, extended=True)
    check_series(dumps)
    jcmds = [d for d in dumps if d['reason'] == 'jcmd']
    expect(len(jcmds) == 1, 'expected exactly one "jcmd" dump, got %d', len(jcmds))
    # While call 1001 blocks in work(): the 1000 earlier calls' pins are
    # leaked (they returned), the 10 of the running call are held.
    expect_row(jcmds[0], method, 'GetLongArrayElements', sig, acquired=1000, released=0,
               live=1000, leaked=1000, held=0, live_bytes=1000 * 251 * 8)
    expect_row(jcmds[0], method, 'GetIntArrayElements', sig, acquired=10, released=0,
               live=10, leaked=0, held=10, live_bytes=10 * 257 * 4)
    t = jcmds[0]['totals']
    expect((t['leaked'], t['held']) == (1000, 10),
           'jcmd dump: totals (leaked, held) expected (1000, 10), got (%d, %d)',
           t['leaked'], t['held'])
    # work() returned without releasing the 10: now leaked too.
    expect_row(last, method, 'GetLongArrayElements', sig, live=1000, leaked=1000, held=0)
    expect_row(last, method, 'GetIntArrayElements', sig, live=10, leaked=10, held=0)
    t = last['totals']
    expect((t['leaked'], t['held']) == (1010, 0),
           'exit dump: totals (leaked, held) expected (1010, 0), got (%d, %d)',
           t['leaked'], t['held'])

    # Exactly one line per site over the whole run, though the long[] site
    # leaked 1000 times.
    lines = _leak_lines(s.stderr_text())
    _expect_leak_line(ctx, lines, method, 'GetLongArrayElements', 1, 251 * 8,
                      'pw-site: leaked-held-long')
    _expect_leak_line(ctx, lines, method, 'GetIntArrayElements', 10, 10 * 257 * 4,
                      'pw-site: leaked-held-int')


CARRY_SIG_TAKE, CARRY_SIG_LEAK = '([I)Z', '([J)V'


CARRIED, CARRY_LEAKED = 7, 3             # Carry.CARRIED, Carry.LEAKED


def _carry_unreleased(ctx, lines, what):
    """The two UNRELEASED lines the Carry fixture gets, exactly: one per site,
    at its first return holding a pin, whether later released or not."""
    parsed = _leak_lines(lines)
    others = [l for l in lines.splitlines() if not LEAK_LINE.match(l)]
    expect(not others, '%s: lines other than UNRELEASED ones: %s', what, others)
    expect(len(parsed) == 2, '%s: expected 2 UNRELEASED lines, got %d: %s', what, len(parsed),
           [m.group(0) for m in parsed])
    _expect_leak_line(ctx, parsed, 'pinwatch.fixtures.Carry.take', 'GetIntArrayElements', 1, 83 * 4,
                      'pw-site: carry-take')
    _expect_leak_line(ctx, parsed, 'pinwatch.fixtures.Carry.leak', 'GetLongArrayElements', 1, 89 * 8,
                      'pw-site: carry-leak')


def _stderr_without_setup(run):
    """The JVM's stderr but the launcher's notice of JAVA_TOOL_OPTIONS (the
    checkjni setup sets it): what pinwatch must leave empty."""
    return ''.join(l for l in run.stderr.splitlines(True)
                   if not l.startswith('Picked up JAVA_TOOL_OPTIONS:'))


def case_carried(ctx):
    """Pins released by a later call than their Get's are counted as carried,
    not leaked, in JSON, text and openmetrics; the early line says
    UNRELEASED; log=none and log=FILE leave stderr empty."""
    ctx.fixture_src = os.path.join(os.path.dirname(ctx.fixture_src), 'pwcarry.c')
    # 1. JSON, pinwatch's lines on stderr (the default).
    report = ctx.report_path('carry.jsonl')
    run = ctx.run_java('Carry', agent_options='file=%s,format=json' % report, report_path=report)
    expect(run.stdout.splitlines() == ['DONE'], 'stdout expected exactly DONE, got %r', run.stdout)
    _carry_unreleased(ctx, _stderr_without_setup(run), 'stderr with the default log=stderr')
    _, last = load_report(report, extended=True)
    expect_row(last, 'Carry.take', 'GetIntArrayElements', CARRY_SIG_TAKE, acquired=CARRIED,
               released=CARRIED, live=0, leaked=0, carried=CARRIED)
    expect_row(last, 'Carry.leak', 'GetLongArrayElements', CARRY_SIG_LEAK, acquired=CARRY_LEAKED,
               released=0, live=CARRY_LEAKED, leaked=CARRY_LEAKED, carried=0,
               live_bytes=CARRY_LEAKED * 89 * 8)
    mine = [r for r in last['rows'] if r['method'].startswith('pinwatch.fixtures.')]
    expect(sum(r['carried'] for r in mine) == CARRIED, 'fixture rows: carried should add up to '
           '%d, got %s', CARRIED, [(row_name(r), r['carried']) for r in mine])

    # 2. Text report, log=none: not one byte on stderr.
    text = ctx.report_path('carry.txt')
    run = ctx.run_java('Carry', agent_options='file=%s,format=text,log=none' % text, report_path=text)
    expect(_stderr_without_setup(run) == '', 'stderr with log=none expected empty, got %r', run.stderr)
    with open(text, encoding='utf-8') as f:
        body = f.read()
    totals = [l for l in body.splitlines() if l.strip().startswith('totals:')]
    expect(len(totals) == 1 and ' %d leaked,' % CARRY_LEAKED in totals[0] and
           'carried across calls %d,' % CARRIED in totals[0],
           'text totals line should say %d leaked and carried across calls %d, got %s',
           CARRY_LEAKED, CARRIED, totals)
    take = [l for l in body.splitlines() if 'pinwatch.fixtures.Carry.take' in l]
    expect(len(take) == 1 and take[0].rstrip().endswith('(%d carried across calls)' % CARRIED)
           and ' %d acquired ' % CARRIED in take[0],
           'text: the balanced take() row should end "(%d carried across calls)", got %s',
           CARRIED, take)

    # 2b. A correct program (no leak at all), log=none: stderr empty, leaked 0.
    report = ctx.report_path('carry-correct.jsonl')
    run = ctx.run_java('Carry', args=['correct'], report_path=report,
                       agent_options='file=%s,format=json,log=none' % report)
    expect(_stderr_without_setup(run) == '', 'stderr of a correct program with log=none expected '
           'empty, got %r', run.stderr)
    _, last = load_report(report, extended=True)
    expect_row(last, 'Carry.take', 'GetIntArrayElements', CARRY_SIG_TAKE, acquired=CARRIED,
               released=CARRIED, live=0, leaked=0, carried=CARRIED)
    expect(not rows_of(last, 'pinwatch.fixtures.Carry.leak'), 'Carry.leak ran in "correct" mode')

    # 3. OpenMetrics, log=FILE: stderr empty, the lines in the log file.
    prom = ctx.report_path('carry.prom')
    log = ctx.report_path('carry-%p.log')
    run = ctx.run_java('Carry', agent_options='file=%s,format=openmetrics,log=%s' % (prom, log),
                       report_path=prom)
    expect(_stderr_without_setup(run) == '', 'stderr with log=FILE expected empty, got %r', run.stderr)
    logs = [n for n in os.listdir(ctx.tmpdir) if re.match(r'^carry-\d+\.log$', n)]
    expect(len(logs) == 1, 'expected one log file carry-PID.log, got %s', logs)
    with open(os.path.join(ctx.tmpdir, logs[0]), encoding='utf-8') as f:
        _carry_unreleased(ctx, f.read(), 'the log file')
    with open(prom, encoding='utf-8') as f:
        metrics = f.read()
    for method, sig, function, want in (('take', CARRY_SIG_TAKE, 'GetIntArrayElements', CARRIED),
                                        ('leak', CARRY_SIG_LEAK, 'GetLongArrayElements', 0)):
        pattern = (r'^pinwatch_carried_total\{pid="\d+",method="pinwatch\.fixtures\.Carry\.%s",'
                   r'signature="%s",function="%s"\} (\d+)$' % (method, re.escape(sig), function))
        got = [int(m.group(1)) for m in re.finditer(pattern, metrics, re.M)]
        expect(got == [want], 'openmetrics: pinwatch_carried_total of Carry.%s expected [%d], got %s',
               method, want, got)


def _slow_leak(ctx, options, count, pause_ms, tail_ms):
    """SlowLeak with the given extra agent options; returns (dumps, exit dump)
    after the common checks."""
    report = ctx.report_path('slow-%d.jsonl' % len(ctx.runs))
    ctx.run_java('SlowLeak', [str(count), str(pause_ms), str(tail_ms)],
                 agent_options='file=%s,format=json,%s' % (report, options), report_path=report)
    dumps, last = load_report(report, extended=True)
    check_series(dumps)
    expect_row(last, 'SlowLeak.drip', 'GetIntArrayElements', '([I)V', acquired=count,
               released=0, live=count, leaked=count, held=0, live_bytes=count * 263 * 4)
    return dumps, last


def case_threshold(ctx):
    # 400 leaks, one per ~2 ms: crossings at 100, 200 and 400 pins.  The
    # agent's own thread writes the reports, whenever the machine lets it:
    # what is promised is the crossings, in order, not how soon.  Two
    # crossings that come before the thread runs are one report (one request
    # pending), so there are 1 to 3; the k-th was written after at least k
    # crossings; the last after the final one, at 400, which the 2 s tail
    # leaves time for.
    levels = (100, 200, 400)
    dumps, _ = _slow_leak(ctx, 'threshold=100', 400, 2, 2000)
    reasons = [d['reason'] for d in dumps]
    expect(set(reasons) <= {'threshold', 'exit'}, 'unexpected reasons: %s', reasons)
    lives = [d['totals']['live'] for d in dumps if d['reason'] == 'threshold']
    expect(1 <= len(lives) <= len(levels), 'threshold=100, 400 leaks: expected 1 to 3 "threshold" '
           'reports (crossings at 100, 200, 400), got %d with totals.live %s', len(lives), lives)
    expect(all(a < b for a, b in zip(lives, lives[1:])), 'threshold reports: totals.live %s, '
           'expected to grow from one report to the next', lives)
    for live, level in zip(lives, levels):
        expect(live >= level, 'threshold reports: totals.live %s; the report for crossing %d of '
               '%s came at %d, before it', lives, levels.index(level) + 1, levels, live)
    expect(lives[-1] == 400, 'threshold reports: totals.live %s; none after the crossing at 400',
           lives)

    dumps, _ = _slow_leak(ctx, 'threshold=0', 400, 0, 300)
    reasons = [d['reason'] for d in dumps]
    expect(reasons == ['exit'], 'threshold=0: expected only the exit report, got reasons %s',
           reasons)

    # 120 pins taken inside one work() call that then blocks: seen at most 16
    # late, and reported by the agent's own thread while the caller waits.
    report = ctx.report_path('held.jsonl')
    argv = ctx.java_argv('LeakedHeld', ['0', '120'],
                         agent_options='file=%s,format=json,threshold=100' % report)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        s.wait_for(r'^READY (\d+)$')
        _wait_for_dump(report, 'threshold', 'work() blocking with 120 pins held', timeout=10)
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    dumps, last = load_report(report, extended=True)
    check_series(dumps)
    reasons = [d['reason'] for d in dumps]
    expect(reasons == ['threshold', 'exit'], 'threshold=100, 120 pins held: expected reasons '
           '[threshold, exit], got %s', reasons)
    method, sig = 'LeakedHeld.work', '([J[II)V'
    row = find_row(dumps[0], method, 'GetIntArrayElements')
    expect(104 <= row['live'] <= 120 and row['held'] == row['live'] and row['leaked'] == 0,
           'threshold report while work() blocks: expected 104..120 live pins, all held, got '
           'live %d, held %d, leaked %d', row['live'], row['held'], row['leaked'])
    expect_row(last, method, 'GetIntArrayElements', sig, live=120, leaked=120, held=0)


def case_interval(ctx):
    count = 300                    # one leak per ~5 ms: about 1.5 s of leaking
    dumps, last = _slow_leak(ctx, 'interval=0.2', count, 5, 0)
    intervals = [d for d in dumps if d['reason'] == 'interval']
    reasons = [d['reason'] for d in dumps]
    expect(set(reasons) <= {'interval', 'exit'}, 'unexpected reasons: %s', reasons)
    most = last['uptime_ms'] // 200 + 2
    expect(4 <= len(intervals) <= most, 'interval=0.2 over %d ms: expected 4..%d "interval" '
           'reports, got %d', last['uptime_ms'], most, len(intervals))
    # since_ms is the uptime since the previous report, to the millisecond:
    # an exit report may fall in the interval report's millisecond (0).
    for number, (prev, dump) in enumerate(zip(dumps, dumps[1:]), 2):
        gap = dump['uptime_ms'] - prev['uptime_ms']
        expect(gap >= 0 and dump['since_ms'] == gap, 'report %d (reason=%s): since_ms %d, '
               'expected the uptime since report %d, %d', number, dump['reason'],
               dump['since_ms'], number - 1, gap)
    method, function = 'pinwatch.fixtures.SlowLeak.drip', 'GetIntArrayElements'
    rows = [r for d in dumps for r in d['rows']
            if r['method'] == method and r['function'] == function]
    total = sum(r['live_delta'] for r in rows)
    expect(total == count, 'live_delta of %s summed over the reports: expected %d (the final '
           'live), got %d (%s)', method, count, total, [r['live_delta'] for r in rows])
    # The first report of a JVM has no rate (acquired_per_s 0): skip it.
    busy = [r['acquired_per_s'] for d in intervals if d is not dumps[0] for r in d['rows']
            if r['method'] == method and r['function'] == function and r['acquired_delta'] > 0]
    expect(len(busy) >= 3 and all(rate > 0 for rate in busy),
           'acquired_per_s during the leaking: expected > 0 in at least 3 interval reports '
           'after the first, got %s', busy)


def case_exitcode(ctx):
    report = ctx.report_path()
    opts = 'file=%s,format=json,exitcode=3' % report
    leak_sig = '([I)V'

    run = ctx.run_java('Exits', ['leak'], agent_options=opts, expect_rc=3)
    expect('DONE' in run.stdout, 'leak: fixture did not print DONE')
    lines = _exit_status_lines(run)
    expect(len(lines) == 1 and EXIT_STATUS_LINE.match(lines[0])
           and EXIT_STATUS_LINE.match(lines[0]).groups() == ('3', '7'),
           'leak: expected one stderr line "[pinwatch] exit status 3: 7 leaked pins", got %s',
           lines)
    _, last = load_report(report, extended=True)
    expect_row(last, 'Exits.leak', 'GetIntArrayElements', leak_sig, live=7, leaked=7,
               suppressed=0, live_bytes=7 * 271 * 4)
    expect_row(last, 'Exits.balanced', 'GetIntArrayElements', leak_sig, acquired=5, released=5,
               live=0)

    os.remove(report)
    run = ctx.run_java('Exits', ['leak'], expect_rc=255,
                       agent_options='file=%s,format=json,exitcode=255' % report)
    expect([EXIT_STATUS_LINE.match(l).groups() if EXIT_STATUS_LINE.match(l) else l
            for l in _exit_status_lines(run)] == [('255', '7')],
           'exitcode=255: expected "[pinwatch] exit status 255: 7 leaked pins", got %s',
           _exit_status_lines(run))

    for args, rc in ((['balanced'], 0), (['status', '5'], 5)):
        os.remove(report)
        run = ctx.run_java('Exits', args, agent_options=opts, expect_rc=rc)
        expect(not _exit_status_lines(run), '%s: no leak, yet %s', args, _exit_status_lines(run))
        _, last = load_report(report, extended=True)
        expect(last['totals']['leaked'] == 0, '%s: totals.leaked expected 0, got %d',
               args, last['totals']['leaked'])

    # The only leak suppressed: the JVM's own status stands.
    rules = _write_rules(ctx, 'exits.supp', ['method:pinwatch.fixtures.Exits.leak'])
    os.remove(report)
    run = ctx.run_java('Exits', ['leak'], agent_options=opts + ',suppress=' + rules, expect_rc=0)
    expect(not _exit_status_lines(run), 'suppressed leak: yet %s', _exit_status_lines(run))
    _, last = load_report(report, extended=True)
    expect_row(last, 'Exits.leak', 'GetIntArrayElements', leak_sig, live=7, leaked=7,
               suppressed=7)
    expect(last['totals']['suppressed'] == 7, 'totals.suppressed expected 7, got %d',
           last['totals']['suppressed'])


SUPPRESS_UTF = 'pw-suppress-utf'


SUPPRESS_CHARS = 'pw-suppress-chars-\u00e9'


def _suppress_rows(ctx, last, suppressed):
    """Check the five Suppress rows; suppressed: the methods whose rows are."""
    rows = (('keepAlpha', 'GetIntArrayElements', '([I)V', 41, 41 * 229 * 4),
            ('otherLib', 'GetByteArrayElements', '([B)V', 43, 43 * 233),
            ('leakUtf', 'GetStringUTFChars', STRING_SIG, 47,
             47 * modified_utf8_size(SUPPRESS_UTF)),
            ('leakChars', 'GetStringChars', STRING_SIG, 53, 53 * len(SUPPRESS_CHARS) * 2),
            ('dontkeep', 'GetLongArrayElements', '([J)V', 59, 59 * 241 * 8))
    ours = set()
    for name, function, sig, n, nbytes in rows:
        row = expect_row(last, 'Suppress.' + name, function, sig, acquired=n, released=0,
                         live=n, leaked=n, held=0, live_bytes=nbytes,
                         suppressed=n if name in suppressed else 0)
        ours.add(id(row))
    others = [row_name(r) for r in last['rows'] if id(r) not in ours and r['suppressed'] > 0]
    expect(not others, 'rows no rule matches have suppressed > 0: %s', others)
    want = sum(n for name, _, _, n, _ in rows if name in suppressed)
    expect(last['totals']['suppressed'] == want, 'totals.suppressed expected %d, got %d',
           want, last['totals']['suppressed'])


def case_suppress(ctx):
    expect(ctx.other_lib and os.path.exists(ctx.other_lib),
           'libpwother.so not built (--other-lib): %s', ctx.other_lib)
    report = ctx.report_path()
    rules = _write_rules(ctx, 'kinds.supp', [
        '# one rule of each kind, each matching one Suppress row',
        '',
        'method:pinwatch.fixtures.*.keep*',
        'library:libpwother.so',
        '# function names are exact',
        'function:GetStringUTFChars',
    ])
    run = ctx.run_java('Suppress', agent_options='file=%s,format=json,suppress=%s'
                       % (report, rules))
    expect('DONE' in run.stdout, 'fixture did not print DONE')
    _, last = load_report(report, extended=True)
    _suppress_rows(ctx, last, ('keepAlpha', 'otherLib', 'leakUtf'))
    row = find_row(last, 'Suppress.otherLib', 'GetByteArrayElements')
    libs = {os.path.realpath(s['frames'][0].get('library') or '')
            for s in row['sites'] if s['live'] and s.get('frames')}
    expect(libs == {os.path.realpath(ctx.other_lib)}, 'Suppress.otherLib: call site library '
           'expected %s, got %s', ctx.other_lib, sorted(libs))

    # Suppressed pins do not count towards threshold: 112 unsuppressed live
    # cross 60 once; all 243 would also cross 120 and 240.
    os.remove(report)
    ctx.run_java('Suppress', ['400'], agent_options='file=%s,format=json,threshold=60,'
                 'suppress=%s' % (report, rules))
    dumps, last = load_report(report, extended=True)
    _suppress_rows(ctx, last, ('keepAlpha', 'otherLib', 'leakUtf'))
    thresholds = [d['totals'] for d in dumps if d['reason'] == 'threshold']
    expect(len(thresholds) == 1, 'threshold=60 with 112 unsuppressed of 243 live pins: expected '
           'one "threshold" report, got %d: %s', len(thresholds),
           [(t['live'], t['suppressed']) for t in thresholds])
    expect(thresholds[0]['live'] - thresholds[0]['suppressed'] >= 60, 'the threshold report: '
           'live %d - suppressed %d < 60', thresholds[0]['live'], thresholds[0]['suppressed'])

    # A glob on the full path of the library; a method name without a glob.
    rules = _write_rules(ctx, 'paths.supp', [
        'library:*/libpwother.so',
        'method:pinwatch.fixtures.Suppress.leakChars',
    ])
    os.remove(report)
    ctx.run_java('Suppress', agent_options='file=%s,format=json,suppress=%s' % (report, rules))
    _, last = load_report(report, extended=True)
    _suppress_rows(ctx, last, ('otherLib', 'leakChars'))

    # Malformed files: the JVM does not start; the error names file and line.
    for name, lines, bad_line in (
            ('kind.supp', ['# unknown kind', 'method:pinwatch.fixtures.*.keep*', 'frob:x'], 3),
            ('empty.supp', ['', 'library:'], 2),
            ('colon.supp', ['# no colon', 'function:GetStringChars', '', 'justtext'], 4),
            ('function.supp', ['function:GetStringUTFChars', 'function:GetFooChars'], 2)):
        path = _write_rules(ctx, name, lines)
        run = ctx.run_java('Suppress', agent_options='file=%s,format=json,suppress=%s'
                           % (report, path), expect_rc=None)
        expect(run.returncode != 0, '%s: JVM exit status expected non-zero, got 0', name)
        expect('DONE' not in run.stdout, '%s: main ran', name)
        errors = [l for l in run.stderr.splitlines() if l.startswith('[pinwatch] ERROR')]
        expect(len(errors) == 1, '%s: expected one "[pinwatch] ERROR" line, got %s', name, errors)
        shown = errors[0]
        expect(name in shown, '%s: the error line should name the file: %s', name, shown)
        rest = shown.replace(path, name)
        expect(re.search(r'%s:%d\b|\bline %d\b' % (re.escape(name), bad_line, bad_line), rest),
               '%s: the error line should name line %d (as "%s:%d" or "line %d"): %s',
               name, bad_line, name, bad_line, bad_line, shown)


def _checked_jni(ctx):
    return '-Xcheck:jni' in ctx.env.get('JAVA_TOOL_OPTIONS', '')


def _java_src(ctx, cls):
    return os.path.join(os.path.dirname(ctx.fixture_src), 'pinwatch', 'fixtures', cls + '.java')


def _expect_frames(ctx, what, frames, want):
    """frames must be exactly want: (symbol, marker or None, inlined) per
    frame, innermost first, each in pwdiag.c of the fixture library at the
    marker's line."""
    expect(isinstance(frames, list), '%s: frames should be a list, got %r', what, frames)
    lines = [(sym, source_line(ctx.diag_src, marker) if marker else None, inl)
             for sym, marker, inl in want]
    got = [(f.get('symbol'), f.get('line'), bool(f.get('inlined'))) for f in frames]
    expect(got == lines, '%s: frames expected\n    %s\n  got\n    %s', what,
           ' <- '.join('%s:%s%s' % (s, l, ' [inlined]' if i else '') for s, l, i in lines),
           _show_frames(frames))
    for f in frames:
        expect(os.path.basename(f.get('file') or '') == os.path.basename(ctx.diag_src),
               '%s: frame %s: file expected %s, got %r', what, f.get('symbol'),
               os.path.basename(ctx.diag_src), f.get('file'))
        expect(os.path.realpath(f.get('library') or '') == os.path.realpath(ctx.fixture_lib),
               '%s: frame %s: library expected %s, got %r', what, f.get('symbol'),
               ctx.fixture_lib, f.get('library'))
        expect(not f.get('tail_call'), '%s: frame %s is flagged tail_call', what, f.get('symbol'))


def _deleted_library(ctx, report, method, symbol, marker, as_user=None):
    """Runs DeletedLib (as_user: a wrap for run_java) and checks the one
    live site of METHOD: symbol, the deleted file, file:line of MARKER."""
    expect(ctx.deleted_lib and os.path.exists(ctx.deleted_lib),
           'libpwdeleted.so not built (--deleted-lib): %s', ctx.deleted_lib)
    args = [ctx.deleted_lib] + (['registered'] if method == 'leakRegistered' else [])
    run = ctx.run_java('DeletedLib', args, agent_options='file=%s,format=json' % report,
                       report_path=report, wrap=as_user)
    expect('DONE' in run.stdout, 'fixture did not print DONE')
    loaded = [l.split(' ', 1)[1] for l in run.stdout.splitlines() if l.startswith('LOADED ')]
    expect(len(loaded) == 1, 'fixture did not print the LOADED path')
    expect(not os.path.exists(loaded[0]), 'the temporary copy %s was not deleted', loaded[0])
    _, last = load_report(report, extended=True)
    row = expect_row(last, 'DeletedLib.' + method, 'GetByteArrayElements', '([B)V', acquired=37,
                     released=0, live=37, leaked=37, held=0, live_bytes=37 * 211)
    sites = [s for s in row['sites'] if s['live']]
    expect(len(sites) == 1 and sites[0].get('frames'), 'DeletedLib.%s: expected one live '
           'site with frames, got %s', method, json.dumps(row['sites'])[:600])
    frame = sites[0]['frames'][0]
    src = os.path.join(os.path.dirname(ctx.fixture_src), 'pwdeleted.c')
    want = (symbol, loaded[0] + ' (deleted)', 'pwdeleted.c', source_line(src, marker))
    got = (frame.get('symbol'), frame.get('library'), os.path.basename(frame.get('file') or ''),
           frame.get('line'))
    expect(got == want, 'DeletedLib.%s: frame (symbol, library, file, line) expected %s, '
           'got %s', method, want, got)


def case_deleted_library(ctx):
    """A JNI library loaded from a temporary copy that is deleted at once (as
    rocksdbjni, conscrypt and netty-tcnative load theirs) is still named:
    symbol and file:line from the file the process still maps.  The method
    is bound lazily, after the file is gone: read through
    /proc/self/map_files, which root may open."""
    _deleted_library(ctx, ctx.report_path(), 'leak', 'Java_pinwatch_fixtures_DeletedLib_leak',
                     'pw-deleted-site')


def case_deleted_library_unprivileged(ctx):
    """The same run by a JVM of an ordinary user (nobody), which may not open
    /proc/self/map_files: the agent kept the library's file open when
    JNI_OnLoad registered leakRegistered, before the file was deleted, and
    reads it through that descriptor.  The function is static, so even its
    name comes only from the file (the loader's dynamic symbols lack it).
    Run as root, the JVM runs as nobody (tests/jvm/unprivileged.py, as
    clitest.py's attach-as-root); run as another user, as that user."""
    if os.geteuid() != 0:
        # Already an ordinary user: the JVM runs as this one.
        _deleted_library(ctx, ctx.report_path(), 'leakRegistered', 'pw_deleted_leak_registered',
                         'pw-deleted-registered-site')
        return
    shared = ctx.report_path('nobody')
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    report = os.path.join(shared, 'pins.jsonl')
    with traversable([ctx.java, ctx.agent, ctx.jar, ctx.deleted_lib, shared]):
        _deleted_library(ctx, report, 'leakRegistered', 'pw_deleted_leak_registered',
                         'pw-deleted-registered-site', as_user=as_nobody)
    expect(os.stat(report).st_uid == NOBODY, 'the report was not written by a JVM run as nobody')


# (kind, method, signature, acquire function, call, count, acquire marker, call marker)
FINDINGS = [
    ('double_release', 'doubleRelease', '([J)V', 'GetLongArrayElements',
     'ReleaseLongArrayElements', 3, 'findings-double-get', 'findings-double-release'),
    ('double_release', 'doubleReleaseTail', '([J)V', 'GetLongArrayElements',
     'ReleaseLongArrayElements', 2, 'findings-tail-get', None),
    ('wrong_object', 'wrongObject', '([I[II)V', 'GetIntArrayElements',
     'ReleaseIntArrayElements', 4, 'findings-wrong-object-get', 'findings-wrong-object-release'),
    ('wrong_function', 'wrongFunction', '([JJ)V', 'GetLongArrayElements',
     'ReleaseIntArrayElements', 5, 'findings-wrong-function-get',
     'findings-wrong-function-release'),
    ('jni_in_critical', 'jniInCritical', '([II)I', 'GetPrimitiveArrayCritical',
     'GetArrayLength', 4, 'findings-critical-get', 'findings-critical-length'),
    ('jni_in_critical', 'jniInCritical', '([II)I', 'GetPrimitiveArrayCritical',
     'ExceptionCheck', 2, 'findings-critical-get', 'findings-critical-exception'),
    ('long_critical', 'holdCritical', '([BI)V', 'GetPrimitiveArrayCritical',
     'ReleasePrimitiveArrayCritical', 2, 'findings-hold-get', None),
]


def case_findings(ctx):
    report = ctx.report_path()
    run = ctx.run_java('Findings', agent_options='file=%s,format=json,critical_ms=20' % report)
    expect('DONE' in run.stdout, 'fixture did not print DONE')
    _, last = load_report(report, extended=True)
    found = _findings(last)
    ours = set()
    for kind, method, sig, function, call, count, get_marker, call_marker in FINDINGS:
        f = _finding(found, kind, 'Findings.' + method, call)
        ours.add(id(f))
        got = (f['signature'], f['function'], f['count'])
        expect(got == (sig, function, count), 'finding %s %s call %s: (signature, function, '
               'count) expected %s, got %s', kind, method, call, (sig, function, count), got)
        symbol = fixture_symbol('Findings', method)
        _expect_site_line(ctx, f, 'acquire', symbol, get_marker)
        if call_marker:
            _expect_site_line(ctx, f, 'call', symbol, call_marker)
    # The JDK's own critical regions (Inflater's) may outlast critical_ms under
    # qemu on a loaded machine: real findings, but not the fixture's to count.
    others = ['%s %s %s x%d' % (f['kind'], f['method'], f['call'], f['count'])
              for f in found if id(f) not in ours
              and not (f['kind'] == 'long_critical' and not f['method'].startswith(FIXTURE_PKG))]
    expect(not others, 'findings the fixture did not cause: %s', others)

    hold = _finding(found, 'long_critical', 'Findings.holdCritical',
                    'ReleasePrimitiveArrayCritical')
    # Two 40 ms holds on a clock of 2 ms steps; 300 holds of ~0 ms make the
    # 99th percentile a short one.
    expect(isinstance(hold.get('max_ms'), int) and 36 <= hold['max_ms'] <= 400,
           'long_critical: max_ms expected about 40 (36..400), got %r', hold.get('max_ms'))
    expect(isinstance(hold.get('p99_ms'), int) and hold['p99_ms'] <= 4,
           'long_critical: p99_ms expected <= 4 (298 of 302 holds are ~0 ms), got %r',
           hold.get('p99_ms'))
    for f in found:
        if f['kind'] != 'long_critical':
            expect('max_ms' not in f and 'p99_ms' not in f, 'finding %s %s carries max_ms/'
                   'p99_ms', f['kind'], f['method'])

    t = last['totals']
    expect(t['double_releases'] == 5, 'totals.double_releases expected 5 (3 + 2), got %d',
           t['double_releases'])
    expect(t['unmatched_releases'] == 0, 'totals.unmatched_releases expected 0 (double '
           'releases are not unmatched), got %d', t['unmatched_releases'])
    # Every misused pin counts as released once: nothing stays live.
    for method, function, sig, n in (('doubleRelease', 'GetLongArrayElements', '([J)V', 3),
                                     ('doubleReleaseTail', 'GetLongArrayElements', '([J)V', 2),
                                     ('wrongObject', 'GetIntArrayElements', '([I[II)V', 4),
                                     ('wrongFunction', 'GetLongArrayElements', '([JJ)V', 5),
                                     ('jniInCritical', 'GetPrimitiveArrayCritical', '([II)I', 6),
                                     ('holdCritical', 'GetPrimitiveArrayCritical', '([BI)V', 302)):
        expect_row(last, 'Findings.' + method, function, sig, acquired=n, released=n, live=0,
                   live_bytes=0)
    if _checked_jni(ctx):
        # The checker aborts on a reference the application deleted, so the
        # agent compares sizes only and leaves the release where it was sent.
        print('wrong-object releases under -Xcheck:jni: ' + ' '.join(
            l for l in run.stdout.splitlines() if l.startswith('WRONG_OBJECT')))
    else:
        expect('WRONG_OBJECT original=4 other-untouched=4' in run.stdout.splitlines(),
               'the 4 wrong-object releases should go back to the array they came from '
               '(a[0] written, b untouched); the fixture printed %s',
               [l for l in run.stdout.splitlines() if l.startswith('WRONG_OBJECT')])

    # Last, as it checks one thing only: a release made as the native
    # method's tail call returns to the method's caller, yet the call site
    # is the method (named with tail_call, as for a tail-called Get).
    tail = _finding(found, 'double_release', 'Findings.doubleReleaseTail',
                    'ReleaseLongArrayElements')
    frames = _site_of(tail, 'call')
    symbol = fixture_symbol('Findings', 'doubleReleaseTail')
    expect(frames and frames[0].get('symbol') == symbol and frames[0].get('tail_call') is True,
           'double_release by a tail call: the call site should be %s with "tail_call": true, '
           'got frames %s (sites %s)', symbol, _show_frames(frames),
           json.dumps(tail['sites'])[:600])


def _one_site(dump, method, function, **fields):
    row = expect_row(dump, 'Stacks.' + method, function, **fields)
    expect(len(row['sites']) == 1, 'row %s: expected one site, got %d', row_name(row),
           len(row['sites']))
    return row['sites'][0]


def _expect_java_stack(ctx, what, site, want):
    """want: (method, signature, marker) innermost first."""
    src = _java_src(ctx, 'Stacks')
    lines = [{'method': 'pinwatch.fixtures.Stacks.' + m, 'signature': s,
              'line': source_line(src, 'pw-java: ' + marker)} for m, s, marker in want]
    got = site.get('java_stack')
    expect(got == lines, '%s: java_stack expected\n    %s\n  got\n    %s', what,
           json.dumps(lines), json.dumps(got))


MAIN_SIG = '([Ljava/lang/String;)V'


def case_stacks(ctx):
    report = ctx.report_path()
    ctx.run_java('Stacks')
    _, last = load_report(report, extended=True)
    deep_frames = [('pw_stk_level3', 'pw-site: stacks-deep', False),
                   ('pw_stk_level2', 'pw-call: stacks-level2', False),
                   ('pw_stk_level1', 'pw-call: stacks-level1', False),
                   (fixture_symbol('Stacks', 'deep'), 'pw-call: stacks-deep-entry', False)]
    java_deep = [('innerJava', '()V', 'inner-deep'), ('outerJava', '()V', 'outer'),
                 ('main', MAIN_SIG, 'main')]
    site = _one_site(last, 'deep', 'GetDoubleArrayElements', signature='([D)V', acquired=3,
                     live=3, live_bytes=3 * 89 * 8)
    _expect_frames(ctx, 'Stacks.deep', site.get('frames'), deep_frames)
    expect('other_stacks' not in site, 'Stacks.deep: one path only, yet other_stacks %s',
           json.dumps(site.get('other_stacks'))[:400])
    _expect_java_stack(ctx, 'Stacks.deep', site, java_deep)

    site = _one_site(last, 'inlined', 'GetCharArrayElements', signature='([C)V', acquired=1,
                     live=1, live_bytes=97 * 2)
    inlined_frames = [('pw_stk_inlined', 'pw-site: stacks-inlined', True),
                      ('pw_stk_outer', 'pw-call: stacks-outer', False),
                      (fixture_symbol('Stacks', 'inlined'), 'pw-call: stacks-inlined-entry',
                       False)]
    _expect_frames(ctx, 'Stacks.inlined', site.get('frames'), inlined_frames)
    _expect_java_stack(ctx, 'Stacks.inlined', site,
                       [('innerJava', '()V', 'inner-inlined')] + java_deep[1:])

    site = _one_site(last, 'twoPaths', 'GetIntArrayElements', signature='([IZI)V',
                     acquired=6000, released=6000, live=0)
    two = fixture_symbol('Stacks', 'twoPaths')
    path_a = [('pw_stk_shared', 'pw-site: stacks-shared', False),
              ('pw_stk_path_a', 'pw-call: stacks-path-a', False),
              (two, 'pw-call: stacks-two-a', False)]
    path_b = [('pw_stk_shared', 'pw-site: stacks-shared', False),
              ('pw_stk_path_b', 'pw-call: stacks-path-b', False),
              (two, 'pw-call: stacks-two-b', False)]
    # Path a runs first: its stack is the one taken at first sight.
    _expect_frames(ctx, 'Stacks.twoPaths', site.get('frames'), path_a)
    others = site.get('other_stacks')
    expect(isinstance(others, list) and len(others) == 1, 'Stacks.twoPaths: expected one '
           'other_stacks entry (the path through pw_stk_path_b, 3000 calls), got %s',
           [_show_frames(o) for o in others] if isinstance(others, list) else others)
    _expect_frames(ctx, 'Stacks.twoPaths other_stacks[0]', others[0], path_b)
    _expect_java_stack(ctx, 'Stacks.twoPaths', site, [('main', MAIN_SIG, 'two-paths')])

    # stack=0: the call site only; javastack=0: no java_stack at all.
    os.remove(report)
    ctx.run_java('Stacks', agent_options='file=%s,format=json,stack=0,javastack=0' % report)
    _, last = load_report(report, extended=True)
    site = _one_site(last, 'deep', 'GetDoubleArrayElements', acquired=3, live=3)
    _expect_frames(ctx, 'stack=0: Stacks.deep', site.get('frames'), deep_frames[:1])
    # One address, spelt out: the inlined function and the one it is in.
    site = _one_site(last, 'inlined', 'GetCharArrayElements', acquired=1, live=1)
    _expect_frames(ctx, 'stack=0: Stacks.inlined', site.get('frames'), inlined_frames[:2])
    site = _one_site(last, 'twoPaths', 'GetIntArrayElements', acquired=6000)
    _expect_frames(ctx, 'stack=0: Stacks.twoPaths', site.get('frames'), path_a[:1])
    expect('other_stacks' not in site, 'stack=0: Stacks.twoPaths has other_stacks %s',
           json.dumps(site.get('other_stacks'))[:400])
    with_java = [row_name(r) for r in last['rows'] for s in r['sites'] if 'java_stack' in s]
    expect(not with_java, 'javastack=0: rows with a java_stack: %s', with_java)

    # stack=2, javastack=2: both cut to two frames.
    os.remove(report)
    ctx.run_java('Stacks', agent_options='file=%s,format=json,stack=2,javastack=2' % report)
    _, last = load_report(report, extended=True)
    site = _one_site(last, 'deep', 'GetDoubleArrayElements', acquired=3, live=3)
    _expect_frames(ctx, 'stack=2: Stacks.deep', site.get('frames'), deep_frames[:2])
    _expect_java_stack(ctx, 'javastack=2: Stacks.deep', site, java_deep[:2])


COLLAPSED_LINE = re.compile(r'^(\S+) (\d+)$')


def case_collapsed(ctx):
    collapsed = ctx.report_path('pins.collapsed')
    run = ctx.run_java('Collapsed', agent_options='file=%s,format=collapsed' % collapsed,
                       report_path=collapsed)
    expect('DONE' in run.stdout, 'format=collapsed: fixture did not print DONE')
    expect(os.path.exists(collapsed), 'format=collapsed wrote no %s', collapsed)
    with open(collapsed, encoding='utf-8') as f:
        text = f.read()
    expect(text.endswith('\n'), 'format=collapsed: the last line is unfinished: %r', text[-80:])
    stacks = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = COLLAPSED_LINE.match(line)
        expect(m, '%s:%d: not "frame;frame;... BYTES": %r', collapsed, number, line)
        frames = m.group(1).split(';')
        expect(all(frames), '%s:%d: an empty frame: %r', collapsed, number, line)
        expect(int(m.group(2)) > 0, '%s:%d: a line for 0 live bytes: %r', collapsed, number, line)
        stacks[m.group(1)] = stacks.get(m.group(1), 0) + int(m.group(2))

    # The same run with a JSON report: the lines add up to its live bytes,
    # one line per site with live pins.
    report = ctx.report_path()
    ctx.run_java('Collapsed')
    _, last = load_report(report, extended=True)
    total = sum(stacks.values())
    expect(total == last['totals']['live_bytes'], 'format=collapsed: the lines add up to %d '
           'bytes, the JSON report of the same run has live_bytes %d', total,
           last['totals']['live_bytes'])
    live_sites = sum(1 for r in last['rows'] for s in r['sites'] if s['live'] > 0)
    expect(len(text.splitlines()) == live_sites, 'format=collapsed: %d lines, the JSON report '
           'has %d sites with live pins', len(text.splitlines()), live_sites)

    pkg = 'pinwatch.fixtures.Collapsed.'
    java = [pkg + 'main', pkg + 'run']
    want = {
        ';'.join(java + [pkg + 'viaHelper', fixture_symbol('Collapsed', 'viaHelper'),
                         'pw_col_helper', 'GetIntArrayElements']): 3 * 103 * 4,
        ';'.join(java + [pkg + 'direct', fixture_symbol('Collapsed', 'direct'),
                         'GetByteArrayElements']): 5 * 107,
        ';'.join(java + [pkg + 'text', fixture_symbol('Collapsed', 'text'),
                         'GetStringUTFChars']): 2 * modified_utf8_size('collapsed-text'),
    }
    for stack, nbytes in sorted(want.items()):
        expect(stacks.get(stack) == nbytes, 'format=collapsed: expected the line\n    %s %d\n'
               '  got %s; lines of Collapsed:\n    %s', stack, nbytes,
               'no such line' if stack not in stacks else 'bytes %d' % stacks[stack],
               '\n    '.join('%s %d' % kv for kv in sorted(stacks.items()) if pkg in kv[0]))
    extra = [s for s in stacks if pkg in s and s not in want]
    expect(not extra, 'format=collapsed: unexpected Collapsed lines (balanced pins?): %s', extra)
    for method, function, nbytes in (('viaHelper', 'GetIntArrayElements', 3 * 103 * 4),
                                     ('direct', 'GetByteArrayElements', 5 * 107)):
        expect_row(last, 'Collapsed.' + method, function, live_bytes=nbytes)


# The cases of this area: name, meson timeout in seconds (each JVM run also has its
# own 120 s limit), and whether it runs alone (timings on a 2-core box stay sane).
CASES = {
    'leaked-held': Case(case_leaked_held, 150),
    'carried': Case(case_carried, 150),
    'threshold': Case(case_threshold, 150, serial=True),
    'interval': Case(case_interval, 150, serial=True),
    'exitcode': Case(case_exitcode, 150),
    'suppress': Case(case_suppress, 150),
    'deleted-library': Case(case_deleted_library, 150),
    'deleted-library-unprivileged': Case(case_deleted_library_unprivileged, 150),
    'findings': Case(case_findings, 150),
    'stacks': Case(case_stacks, 150),
    'collapsed': Case(case_collapsed, 150),
}
