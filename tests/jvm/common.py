# SPDX-License-Identifier: Apache-2.0
"""Helpers and fixture facts that more than one area of the JVM cases uses.

The expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import json
import os
import re
import time

from harness import Session, TIME_SCALE, expect, jcmd_return_code, source_line, tail


# For cases that check every finding is the fixture's while long_critical is
# not what they test: a critical region (the fixture's own or the JDK's, such
# as Inflater's) can outlast the default 10 ms under qemu on a loaded machine.
NO_LONG_CRITICAL = ',critical_ms=600000'


STRING_SIG = '(Ljava/lang/String;)V'


def fixture_symbol(cls, method):
    return 'Java_pinwatch_fixtures_%s_%s' % (cls.replace('$', '_00024'), method)


# Lets jcmd JVMTI.agent_load in without JDK 21+'s dynamic-loading warning;
# accepted (and harmless) on JDK 17.
ATTACH_FLAGS = ['-XX:+EnableDynamicAgentLoading']


# "pin(s)" in the contract: "pin", "pins" and a literal "pin(s)" all pass.
LEAK_LINE = re.compile(r'^\[pinwatch\] UNRELEASED (\S+) returned holding (\d+) (\w+) pin(?:s|\(s\))? '
                       r'\((\d+) bytes\) taken at (\S+):(\d+)\s*$')


EXIT_STATUS_LINE = re.compile(r'^\[pinwatch\] exit status (\d+): (\d+) leaked pins\s*$')


def _dumps_so_far(path, reason):
    """Complete JSON lines with this reason written to path so far."""
    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')[:-1]      # the last element is unfinished
    found = []
    for line in lines:
        try:
            dump = json.loads(line)
        except ValueError:
            continue
        if isinstance(dump, dict) and dump.get('reason') == reason:
            found.append(dump)
    return found


def _wait_for_dump(path, reason, what, timeout=30):
    timeout *= TIME_SCALE
    deadline = time.monotonic() + timeout
    while not _dumps_so_far(path, reason) and time.monotonic() < deadline:
        time.sleep(0.05)
    expect(_dumps_so_far(path, reason), 'no dump with reason "%s" in %s within %d s of %s',
           reason, path, timeout, what)


def _leak_lines(stderr):
    """Every "[pinwatch] UNRELEASED" line of stderr, parsed; one that does not
    follow the documented format is a failure."""
    found = []
    lines = stderr.splitlines()
    if stderr and not stderr.endswith('\n'):
        lines.pop()                 # still being written
    for line in lines:
        if not line.startswith('[pinwatch] UNRELEASED'):
            continue
        m = LEAK_LINE.match(line)
        expect(m, 'UNRELEASED line not in the format "[pinwatch] UNRELEASED <method> returned holding <N> '
               '<GetXxx> pin(s) (<B> bytes) taken at <file>:<line>": %s', line)
        found.append(m)
    return found


def _write_rules(ctx, name, lines):
    path = os.path.join(ctx.tmpdir, name)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    return path


def _exit_status_lines(run):
    return [l for l in run.stderr.splitlines() if l.startswith('[pinwatch] exit status')]


def _agent_load(session, ctx, options):
    """jcmd JVMTI.agent_load with the options in the double quotes jcmd needs;
    returns the agent's return code (None when jcmd printed none)."""
    out = session.jcmd('JVMTI.agent_load', ctx.agent, '"%s"' % options)
    return jcmd_return_code(out), out


def _expect_loaded(code, out, options):
    expect(code in (None, 0) and 'error' not in out.lower(),
           'agent_load "%s": expected success, jcmd said:\n%s', options, tail(out))


def _frame_key(frame):
    return (frame.get('symbol'), frame.get('line'), bool(frame.get('inlined')),
            bool(frame.get('tail_call')))


def _show_frames(frames):
    return ' <- '.join('%s:%s%s%s' % (f.get('symbol'), f.get('line'),
                                      ' [inlined]' if f.get('inlined') else '',
                                      ' [tail]' if f.get('tail_call') else '')
                       for f in frames) or '(none)'


def _findings(dump):
    found = dump.get('findings')
    expect(isinstance(found, list), 'dump reason=%s: "findings" should be a list, got %r',
           dump.get('reason'), found)
    for f in found:
        for key in ('kind', 'method', 'signature', 'function', 'call'):
            expect(isinstance(f.get(key), str), 'finding %.300s: "%s" should be a string',
                   json.dumps(f), key)
        expect(isinstance(f.get('count'), int) and f['count'] > 0,
               'finding %.300s: "count" should be a positive integer', json.dumps(f))
        expect(isinstance(f.get('sites'), list), 'finding %.300s: "sites" should be a list',
               json.dumps(f))
    total = sum(f['count'] for f in found)
    for key in ('findings', 'double_releases'):
        value = dump['totals'].get(key)
        expect(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
               'totals.%s should be a non-negative integer, got %r', key, value)
    expect(dump['totals']['findings'] == total, 'totals.findings is %d but the findings add '
           'up to %d', dump['totals']['findings'], total)
    return found


def _finding(found, kind, method, call):
    if method[:1].isupper():
        method = 'pinwatch.fixtures.' + method
    mine = [f for f in found if (f['kind'], f['method'], f['call']) == (kind, method, call)]
    expect(len(mine) == 1, 'expected one %s finding for %s with call %s, got %d; findings: %s',
           kind, method, call, len(mine),
           ['%s %s %s x%d' % (f['kind'], f['method'], f['call'], f['count']) for f in found])
    return mine[0]


def _site_of(finding, role):
    sites = [s for s in finding['sites'] if s.get('role') == role]
    expect(len(sites) == 1, 'finding %s %s: expected one "%s" site, got roles %s',
           finding['kind'], finding['method'], role, [s.get('role') for s in finding['sites']])
    return sites[0].get('frames') or []


def _expect_site_line(ctx, finding, role, symbol, marker):
    frames = _site_of(finding, role)
    what = 'finding %s %s call %s: %s site' % (finding['kind'], finding['method'],
                                              finding['call'], role)
    expect(frames, '%s has no frames', what)
    top = frames[0]
    want = (symbol, source_line(ctx.diag_src, marker))
    expect((top.get('symbol'), top.get('line')) == want, '%s: frames[0] expected %s:%d, got %s',
           what, want[0], want[1], _show_frames(frames[:1]))
    expect(os.path.basename(top.get('file') or '') == os.path.basename(ctx.diag_src),
           '%s: frames[0].file expected %s, got %r', what, os.path.basename(ctx.diag_src),
           top.get('file'))


def references_of(dump):
    refs = dump.get('references')
    expect(isinstance(refs, dict), 'dump reason=%s: no "references" section', dump.get('reason'))
    return refs


def ref_row(dump, kind, method, function):
    rows = [r for r in references_of(dump)['rows']
            if r['kind'] == kind and r['function'] == function and
            (r['method'] == method or r['method'].endswith('.' + method))]
    expect(len(rows) == 1, 'expected one %s reference row %s %s, got %d: %s', kind, method, function,
           len(rows), [(r['kind'], r['method'], r['function']) for r in references_of(dump)['rows']][:40])
    return rows[0]


def expect_ref(dump, kind, method, function, **want):
    row = ref_row(dump, kind, method, function)
    got = {k: row.get(k) for k in want}
    expect(got == want, '%s reference row %s %s: expected %s, got %s', kind, method, function, want, got)
    return row


def _attached_run(ctx, main, args=(), classpath=None):
    """main started without the agent; once it says READY the agent is
    attached with a JSON report, the fixture is told "attached", and it must
    exit 0.  Returns the session (its stdout) and the report's path."""
    report = ctx.report_path('attached.jsonl')
    argv = ctx.java_argv(main, args=args, with_agent=False, jvm_args=ATTACH_FLAGS, classpath=classpath)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        s.wait_for(r'^READY (\d+)$')
        opts = 'file=%s,format=json' % report
        _expect_loaded(*_agent_load(s, ctx, opts), opts)
        s.send('attached')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    return s, report
