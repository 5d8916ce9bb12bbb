# SPDX-License-Identifier: Apache-2.0
"""JVM cases: the Java API (io.pinwatch.Pinwatch) with, without and after a late agent.

Run through tests/jvm/cases.py, which holds the list; the expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import os
import re

import harness
from harness import Case, check_series, expect, expect_row, load_report, tail
from common import _attached_run


API_CLS = 'pinwatch.fixtures.ApiFixture.'


API_LINE = re.compile(r'^(HELD|AFTER|DIFF|AGAIN|ATTACHED) (\w+) (\w+) (\w+) live=(-?\d+) bytes=(-?\d+) '
                      r'leaked=(-?\d+) held=(-?\d+) acquired=(-?\d+) released=(-?\d+) sites=(\d+)$')


API_NOT_LOADED = ('pinwatch is not loaded in this JVM: start java with '
                  '-agentpath:/path/to/libpinwatch.so')


def _api_classpath(ctx):
    expect(ctx.api_jar and os.path.exists(ctx.api_jar), 'the API jar is not built: %s', ctx.api_jar)
    return ctx.jar + os.pathsep + ctx.api_jar


def _api_rows(stdout):
    """{(label, method, function): {field: value}} from ApiFixture's lines."""
    rows = {}
    for line in stdout.splitlines():
        m = API_LINE.match(line)
        if m:
            rows[(m.group(1), m.group(2), m.group(3))] = {
                'kind': m.group(4), 'live': int(m.group(5)), 'bytes': int(m.group(6)),
                'leaked': int(m.group(7)), 'held': int(m.group(8)), 'acquired': int(m.group(9)),
                'released': int(m.group(10)), 'sites': int(m.group(11))}
    return rows


def case_api(ctx):
    harness.APP_REASONS.add('api-check "1"')
    run = ctx.run_java('ApiFixture', classpath=_api_classpath(ctx))
    out = run.stdout
    expect('LOADED true' in out.splitlines(), 'isLoaded() was not true: %s', tail(out, 5))
    expect('DUMPED true' in out.splitlines(), 'dump() did not say the report was written')
    got = _api_rows(out)
    leak = dict(kind='pin', live=7, bytes=7 * 37 * 8, leaked=7, held=0, acquired=7, released=0, sites=1)
    balanced = dict(kind='pin', live=0, bytes=0, leaked=0, held=0, acquired=5, released=5, sites=1)
    held = dict(kind='pin', live=1, bytes=43, leaked=0, held=1, acquired=1, released=0, sites=1)
    hold_done = dict(kind='pin', live=0, bytes=0, leaked=0, held=0, acquired=1, released=1, sites=1)
    glob = dict(kind='global', live=3, bytes=0, leaked=0, held=3, acquired=3, released=0, sites=1)
    expected = {
        # inside the native method that holds the byte[]: held, not leaked
        ('HELD', 'leak', 'GetLongArrayElements'): leak,
        ('HELD', 'balanced', 'GetIntArrayElements'): balanced,
        ('HELD', 'hold', 'GetByteArrayElements'): held,
        ('AFTER', 'leak', 'GetLongArrayElements'): leak,
        ('AFTER', 'balanced', 'GetIntArrayElements'): balanced,
        ('AFTER', 'hold', 'GetByteArrayElements'): hold_done,
        ('AFTER', 'keepGlobal', 'NewGlobalRef'): glob,
        # before took nothing of the fixture's: the difference is everything
        ('DIFF', 'leak', 'GetLongArrayElements'): leak,
        ('DIFF', 'balanced', 'GetIntArrayElements'): balanced,
        ('DIFF', 'hold', 'GetByteArrayElements'): hold_done,
        ('DIFF', 'keepGlobal', 'NewGlobalRef'): glob,
    }
    wrong = ['%s: expected %s, got %s' % (' '.join(k), v, got.get(k)) for k, v in sorted(expected.items())
             if got.get(k) != v]
    expect('HELD keepGlobal NewGlobalRef none' in out.splitlines(),
           'the snapshot inside hold() saw global references made after it')
    expect(not wrong, 'API figures:\n  %s', '\n  '.join(wrong))

    # The dump's JSON at the same quiescent point as the snapshot taken just
    # after it (AGAIN): the same figures, row for row.
    dumps, last = load_report(ctx.report_path(), extended=True)
    check_series(dumps)
    reasons = [d['reason'] for d in dumps]
    expect(reasons == ['api-check "1"', 'exit'], 'report reasons: expected the dump\'s then exit, got %s',
           reasons)
    dump = dumps[0]
    for method, function in (('leak', 'GetLongArrayElements'), ('balanced', 'GetIntArrayElements'),
                             ('hold', 'GetByteArrayElements')):
        a = got[('AGAIN', method, function)]
        expect_row(dump, API_CLS + method, function, acquired=a['acquired'], released=a['released'],
                   live=a['live'], live_bytes=a['bytes'], leaked=a['leaked'], held=a['held'])
    refs = [r for r in dump['references']['rows'] if r['method'] == API_CLS + 'keepGlobal']
    a = got[('AGAIN', 'keepGlobal', 'NewGlobalRef')]
    expect(len(refs) == 1 and (refs[0]['kind'], refs[0]['created'], refs[0]['deleted'], refs[0]['live']) ==
           (a['kind'], a['acquired'], a['released'], a['live']),
           'keepGlobal references in the report %s, by the API %s', refs, a)
    totals = re.search(r'^AGAIN totals live=(\d+) bytes=(\d+) leaked=(\d+) held=(\d+)$', out, re.M)
    expect(totals is not None, 'no AGAIN totals line')
    t = dump['totals']
    expect((t['live'], t['live_bytes'], t['leaked'], t['held']) == tuple(int(x) for x in totals.groups()),
           'totals: report %s, API %s', (t['live'], t['live_bytes'], t['leaked'], t['held']), totals.groups())
    # The API's own natives are the agent's: never a row of their own.
    expect(not [r for r in dump['rows'] + dump['references']['rows'] if r['method'].startswith('io.pinwatch.')],
           'the API\'s natives were watched: %s',
           [r['method'] for r in dump['rows'] + dump['references']['rows'] if r['method'].startswith('io.pinwatch.')])


def case_api_late_attach(ctx):
    """io.pinwatch.Pinwatch loaded (its natives looked up in vain) before
    the agent is attached: the attach binds it."""
    s, report = _attached_run(ctx, 'ApiFixture', ['attach'], _api_classpath(ctx))
    # Less the JVM's warnings about the attach re-binding its own natives.
    lines = [l for l in s.stdout_text().splitlines() if not l.startswith('[')]
    expect(lines[:4] == ['LOADED false', 'READY %d' % s.pid, 'GOT attached', 'LOADED true'],
           'isLoaded() before and after the attach: %s', lines[:4])
    got = _api_rows(s.stdout_text())
    want = dict(kind='pin', live=2, bytes=2 * 37 * 8, leaked=2, held=0, acquired=2, released=0, sites=1)
    expect(got.get(('ATTACHED', 'leak', 'GetLongArrayElements')) == want,
           'after the attach: expected %s, got %s', want, got.get(('ATTACHED', 'leak', 'GetLongArrayElements')))


def case_api_noagent(ctx):
    run = ctx.run_java('ApiFixture', args=['noagent'], classpath=_api_classpath(ctx), with_agent=False)
    lines = run.stdout.splitlines()
    expected = ['LOADED false', 'SNAPSHOT ' + API_NOT_LOADED, 'DUMP ' + API_NOT_LOADED]
    expect(lines == expected, 'without the agent: expected %s, got %s', expected, lines)


# The cases of this area: name, meson timeout in seconds (each JVM run also has its
# own 120 s limit), and whether it runs alone (timings on a 2-core box stay sane).
CASES = {
    'api': Case(case_api, 150),
    'api-noagent': Case(case_api_noagent, 150),
    'api-late-attach': Case(case_api_late_attach, 150),
}
