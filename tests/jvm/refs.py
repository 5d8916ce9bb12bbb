# SPDX-License-Identifier: Apache-2.0
"""JVM cases: JNI references (global, weak, local) and direct buffers.

Run through tests/jvm/cases.py, which holds the list; the expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import os
import re
import time

from harness import Case, Session, TIME_SCALE, TestFailure, expect, load_report, read_dumps, row_name, tail
from common import (NO_LONG_CRITICAL, _attached_run, _findings, expect_ref, fixture_symbol, ref_row,
                    references_of)


REF_KINDS = ('global', 'weak', 'local')


def check_references(dump):
    """The references section's own invariants: every row's sites add up to
    it, made = deleted + freed + live for rows whose references are kept one
    by one, and the totals add the rows up."""
    refs = references_of(dump)
    totals, rows = refs['totals'], refs['rows']
    where = 'dump reason=%s references' % dump.get('reason')
    expect(totals['rows'] == len(rows), '%s: totals.rows %d but %d rows', where, totals['rows'], len(rows))
    for row in rows:
        name = '%s %s %s' % (row['kind'], row['method'], row['function'])
        expect(row['kind'] in REF_KINDS, '%s: row %s: bad kind', where, name)
        for key in ('created', 'deleted', 'freed', 'live'):
            total = sum(s[key] for s in row['sites'])
            expect(total == row[key], '%s: row %s: %s %d but its sites add up to %d',
                   where, name, key, row[key], total)
        kept = row['kind'] != 'local' or row['method'] == '<native thread>'
        if kept and row['live'] > 0:
            expect(row['created'] >= row['deleted'] + row['freed'] + row['live'],
                   '%s: row %s: created %d < deleted %d + freed %d + live %d', where, name,
                   row['created'], row['deleted'], row['freed'], row['live'])
        if row['kind'] == 'local' and row['method'] != '<native thread>':
            expect(row['live'] == 0, '%s: row %s: locals of a method live after it returned', where, name)
    for key, kinds in (('live_global', ('global',)), ('live_weak', ('weak',)), ('live_local', ('local',)),
                       ('live', REF_KINDS), ('created', REF_KINDS), ('deleted', REF_KINDS),
                       ('freed', REF_KINDS)):
        field = key if not key.startswith('live_') else 'live'
        total = sum(r[field] for r in rows if r['kind'] in kinds)
        expect(totals[key] == total, '%s: totals.%s %d but the rows add up to %d', where, key, totals[key], total)
    return refs


def ref_site(row, symbol, **want):
    sites = [s for s in row['sites'] if s['frames'] and s['frames'][0].get('symbol') == symbol]
    expect(len(sites) == 1, 'row %s %s: expected one site in %s, got %s', row['method'], row['function'],
           symbol, [(s['frames'][0].get('symbol') if s['frames'] else None) for s in row['sites']])
    got = {k: sites[0].get(k) for k in want}
    expect(got == want, 'row %s %s site in %s: expected %s, got %s', row['method'], row['function'], symbol,
           want, got)
    return sites[0]


def ref_findings(dump, kind):
    return [f for f in dump['findings'] if f['kind'] == kind]


def case_refs(ctx):
    ctx.run_java('Refs')
    _, last = load_report(ctx.report_path())
    refs = check_references(last)
    sym = lambda m: fixture_symbol('Refs', m)
    row = expect_ref(last, 'global', 'Refs.leakGlobal', 'NewGlobalRef', created=137, deleted=0, freed=0,
                     live=137, live_delta=137, created_delta=137)
    ref_site(row, sym('leakGlobal'), live=137)
    expect(row['oldest_age_ms'] > 0, 'leakGlobal: oldest_age_ms expected > 0, got %d', row['oldest_age_ms'])
    expect_ref(last, 'global', 'Refs.globalPair', 'NewGlobalRef', created=50, deleted=50, live=0)
    # 300 puts into 64 slots: 236 replaced on the main thread, 32 cleared by
    # another thread, 32 still cached.
    row = expect_ref(last, 'global', 'Refs.cachePut', 'NewGlobalRef', created=300, deleted=268, freed=0, live=32)
    ref_site(row, sym('cachePut'), created=300, live=32)
    expect_ref(last, 'weak', 'Refs.weakMake', 'NewWeakGlobalRef', created=41, deleted=17, live=24)
    expect_ref(last, 'global', 'Refs.deleteTwice', 'NewGlobalRef', created=7, deleted=7, live=0)
    expect_ref(last, 'global', 'Refs.makeShared', 'NewGlobalRef', created=3, deleted=3, live=0)
    # Locals inside native methods: dead at return, their peak per call kept.
    expect_ref(last, 'local', 'Refs.manyLocals', 'NewLocalRef', created=200000, live=0,
               peak_per_call=100000, over_limit=2)
    expect_ref(last, 'local', 'Refs.boundedLocals', 'NewLocalRef', created=100000, live=0,
               peak_per_call=1, over_limit=0)
    expect_ref(last, 'local', 'Refs.framedLocals', 'NewLocalRef', created=18000, live=0,
               peak_per_call=6000, over_limit=0)
    # The daemon pthread: 1000 of 1200 strings live, 77 freed by its
    # PopLocalFrame, whose result is live; the detaching one freed 55 + 1.
    row = ref_row(last, 'local', '<native thread>', 'NewStringUTF')
    ref_site(row, 'native_leak_strings', created=1200, deleted=200, freed=0, live=1000)
    ref_site(row, 'detach_locals', created=1, deleted=0, freed=1, live=0)
    row = ref_row(last, 'local', '<native thread>', 'NewLocalRef')
    ref_site(row, 'native_framed_locals', created=77, deleted=0, freed=77, live=0)
    ref_site(row, 'detach_locals', created=55, deleted=0, freed=55, live=0)
    row = ref_row(last, 'local', '<native thread>', 'PopLocalFrame')
    ref_site(row, 'daemon_main', created=1, live=1)
    t = refs['totals']
    expect(t['double_deletes'] == 11 and t['unknown_deletes'] == {'global': 0, 'weak': 0, 'local': 0}
           and t['local_limit'] == 2 and t['lost'] == 0,
           'references totals: expected 11 double deletes, no unknown deletes, 2 local_limit, 0 lost; got %s', t)
    doubles = sorted((f['method'], f['call'], f['count']) for f in ref_findings(last, 'double_delete'))
    expect(doubles == [('<native thread>', 'DeleteLocalRef', 1),
                       ('pinwatch.fixtures.Refs.deleteTwice', 'DeleteGlobalRef', 7),
                       ('pinwatch.fixtures.Refs.makeShared', 'DeleteGlobalRef', 3)],
           'double_delete findings: expected deleteTwice DeleteGlobalRef x7, makeShared x3 (the first '
           'delete on another thread) and one DeleteLocalRef, got %s', doubles)
    limits = [(f['method'], f['function'], f['count']) for f in ref_findings(last, 'local_limit')]
    expect(limits == [('pinwatch.fixtures.Refs.manyLocals', 'NewLocalRef', 2)],
           'local_limit findings: expected two at manyLocals (one per call), got %s', limits)
    # Pins are untouched by all this (the JDK's own natives take some).
    pins = [row_name(r) for r in last['rows'] if 'fixtures.Refs' in r['method'] or r['function'].startswith('New')]
    expect(not pins, 'reference rows among the pin rows: %s', pins)


def case_refs_options(ctx):
    report = ctx.report_path()
    # The default: no reference exit status without findings or ref_threshold.
    ctx.run_java('Refs', ['clean'], agent_options='file=%s,format=json,ref_exitcode=9' % report)
    _, last = load_report(report)
    check_references(last)
    expect_ref(last, 'global', 'Refs.leakGlobal', 'NewGlobalRef', live=137)
    expect(not [d for d in read_dumps(report) if d['reason'] == 'threshold'],
           'ref_threshold is off by default, yet a threshold report was written')

    os.remove(report)
    run = ctx.run_java('Refs', ['clean', report], expect_rc=9,
                       agent_options='file=%s,format=json,ref_threshold=100,ref_exitcode=9' % report)
    dumps, last = load_report(report)
    reasons = [d['reason'] for d in dumps]
    expect(reasons.count('threshold') == 1 and reasons[-1] == 'exit',
           'ref_threshold=100: expected one threshold report then the exit report, got %s', reasons)
    first = dumps[reasons.index('threshold')]
    expect(references_of(first)['totals']['live'] >= 100,
           'threshold report: expected >= 100 live references, got %s', references_of(first)['totals'])
    expect('[pinwatch] exit status 9:' in run.stderr, 'ref_exitcode=9: no exit status line in stderr')

    os.remove(report)
    ctx.run_java('Refs', expect_rc=9, agent_options='file=%s,format=json,local_limit=5000,ref_exitcode=9' % report)
    _, last = load_report(report)
    check_references(last)
    # One finding per invocation, however often it went past the limit.
    expect_ref(last, 'local', 'Refs.framedLocals', 'NewLocalRef', peak_per_call=6000, over_limit=1)
    expect_ref(last, 'local', 'Refs.manyLocals', 'NewLocalRef', peak_per_call=100000, over_limit=2)
    expect(references_of(last)['totals']['local_limit'] == 3, 'local_limit=5000: expected 3 invocations over')

    # Double deletes under -Xcheck:jni: the checker aborts the JVM on the
    # second delete (global or local) unless pinwatch drops it.
    os.remove(report)
    ctx.run_java('Refs', ['double'], jvm_args=['-Xcheck:jni'], may_crash=True,
                 agent_options='file=%s,format=json' % report)
    _, last = load_report(report)
    doubles = sorted((f['method'], f['call'], f['count']) for f in ref_findings(last, 'double_delete'))
    expect(doubles == [('<native thread>', 'DeleteLocalRef', 1),
                       ('pinwatch.fixtures.Refs.deleteTwice', 'DeleteGlobalRef', 7)],
           '-Xcheck:jni: expected 7 double deletes of deleteTwice and one of a local, got %s', doubles)

    # refs=off: nothing wrapped, no section; pins work as before.
    os.remove(report)
    ctx.run_java('Refs', ['clean'], agent_options='file=%s,format=json,refs=off' % report)
    _, last = load_report(report)
    expect('references' not in last, 'refs=off: the report still has a references section')

    for bad in ('refs=maybe', 'local_limit=0', 'ref_threshold=-1', 'ref_exitcode=256'):
        run = ctx.run_java('Hello', agent_options=bad, expect_rc=None)
        key = bad.split('=')[0]
        expect(run.returncode != 0 and ("option '%s'" % key) in run.stderr,
               '%s: expected the JVM to refuse to start naming the option, got rc %s, stderr %s',
               bad, run.returncode, tail(run.stderr, 5))
    run = ctx.run_java('Hello', agent_options='help', expect_rc=None)
    for key in ('refs=on|off', 'ref_threshold=N', 'local_limit=N', 'ref_exitcode=N'):
        expect(key in run.stderr + run.stdout, 'help does not list %s', key)


def case_refs_late_attach(ctx):
    s, report = _attached_run(ctx, 'RefsAttach')
    expect('DONE' in s.stdout_text(), 'fixture did not print DONE')
    _, last = load_report(report)
    refs = check_references(last)
    # 19 global and 5 weak references made before the attach, deleted after:
    # unknown, counted and passed on.  Of the 11 made after, the first is
    # deleted twice: one double delete, not passed on.
    expect(refs['totals']['unknown_deletes'] == {'global': 19, 'weak': 5, 'local': 0},
           'unknown_deletes: expected 19 global and 5 weak, got %s', refs['totals']['unknown_deletes'])
    expect(refs['totals']['double_deletes'] == 1, 'double_deletes: expected 1, got %d',
           refs['totals']['double_deletes'])
    expect_ref(last, 'global', 'RefsAttach.late', 'NewGlobalRef', created=11, deleted=1, live=10)
    doubles = [(f['method'], f['call'], f['count']) for f in ref_findings(last, 'double_delete')]
    expect(doubles == [('pinwatch.fixtures.RefsAttach.late', 'DeleteGlobalRef', 1)],
           'double_delete findings: expected one of late()\'s references, got %s', doubles)


# The text report's reference rows (report_text.c): suspects by growth.
TEXT_REF_ROW = re.compile(r'^\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+\s+\d+(?:\s+([+-]\d+))?\s+(global|weak|local)\s+(\S+)'
                          r'\s+([^\s(]+)\(')


TEXT_NOT_SUSPECTS = re.compile(r"^    not suspects: (\d+) rows? holding (\d+) live references?, (\d+) of them "
                               r"the JDK's own, (none growing since the previous report|no previous report "
                               r"to judge growth by) \(format=json lists them\)$")


def _text_reports(path):
    """Each report of a format=text file: reason, live references, suspect
    rows (live, created, deleted, +live or None, kind, function, method) and
    the not-suspects line's (rows, live, the JDK's own rows, judged)."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    reports = []
    for block in re.split(r'^(?=pinwatch: )', text, flags=re.M):
        if not block.startswith('pinwatch: '):
            continue
        reason = re.search(r'\(reason: (\w+),', block).group(1)
        live = re.search(r'^  references: (\d+) live', block, re.M)
        expect(live, 'report reason=%s has no references line:\n%s', reason, tail(block, 30))
        lines = block.splitlines()
        suspects, quiet = [], None
        if '    suspects:' in lines:
            for line in lines[lines.index('    suspects:') + 2:]:
                m = TEXT_REF_ROW.match(line)
                if m:
                    suspects.append((int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4),
                                     m.group(5), m.group(6), m.group(7)))
                elif not re.match(r'^\s+\d+  at ', line):
                    break
        for line in lines:
            m = TEXT_NOT_SUSPECTS.match(line)
            if m:
                quiet = (int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4))
        reports.append({'reason': reason, 'live': int(live.group(1)), 'suspects': suspects,
                        'quiet': quiet, 'text': block})
    return reports


def _wait_for_text(path, reason, count, what):
    deadline = time.monotonic() + 30 * TIME_SCALE
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path, encoding='utf-8') as f:
                if f.read().count('(reason: %s,' % reason) >= count:
                    return
        time.sleep(0.05)
    raise TestFailure('no %s report in %s after %s' % (reason, path, what))


def _growth_session(ctx, options, path, between):
    """RefsGrowth under options; between(session, phase) at FIRST and SECOND."""
    argv = ctx.java_argv('RefsGrowth', agent_options=options)
    with Session(ctx, argv) as s:
        s.run.report_path = path
        for phase in ('FIRST', 'SECOND'):
            s.wait_for('^%s$' % phase)
            between(s, phase)
            s.send('go')
        rc = s.finish()
    expect(rc == 0 and 'DONE' in s.stdout_text(), 'RefsGrowth: exit status %s, DONE missing', rc)


LEAK_GLOBAL = 'pinwatch.fixtures.Refs.leakGlobal'


CACHE_PUT = 'pinwatch.fixtures.Refs.cachePut'


def case_refs_growth(ctx):
    """References are judged by growth: in the text report a reference row is
    a suspect when its live count grew since the previous report (the JDK's
    own excepted) or it alone holds ref_threshold; everything else that holds
    references is one "not suspects" line, and stays in the JSON."""
    text = ctx.report_path('growth.txt')

    def dump(s, phase):
        s.jcmd('JVMTI.data_dump')
        _wait_for_text(text, 'jcmd', 1 if phase == 'FIRST' else 2, 'jcmd at ' + phase)
    _growth_session(ctx, 'file=%s,format=text' % text, text, dump)
    reports = _text_reports(text)
    expect([r['reason'] for r in reports] == ['jcmd', 'jcmd', 'exit'],
           'expected reports jcmd, jcmd, exit; got %s', [r['reason'] for r in reports])
    first, second, last = reports
    # The first report has nothing to compare with: no suspect, however many are held.
    expect(first['suspects'] == [], 'first report: expected no suspect, got %s', first['suspects'])
    expect(first['quiet'] is not None and first['quiet'][1] == first['live']
           and first['quiet'][3] == 'no previous report to judge growth by',
           'first report: expected every one of its %d live references on the not-suspects line, got %s',
           first['live'], first['quiet'])
    # 7 more leaked globals: the one suspect.  The cache went on replacing its
    # 64 entries: held, not growing, not a suspect.
    expect(second['suspects'] == [(12, 12, 0, '+7', 'global', 'NewGlobalRef', LEAK_GLOBAL)],
           'second report: expected the one suspect %s (12 live, +7), got %s', LEAK_GLOBAL, second['suspects'])
    expect(second['quiet'] is not None and second['quiet'][1] == second['live'] - 12
           and second['quiet'][3] == 'none growing since the previous report',
           'second report: expected %d live references not suspect, got %s', second['live'] - 12, second['quiet'])
    expect(last['suspects'] == [] and last['quiet'] is not None and last['quiet'][1] == last['live'],
           'exit report: nothing grew since the second; expected no suspect, got %s / %s',
           last['suspects'], last['quiet'])
    shown = [r['reason'] for r in reports if 'jdk.internal.perf.Perf.createLong' in r['text']]
    expect(not shown, 'the JVM\'s own Perf.createLong globals are listed in reports %s', shown)

    # The same workload in JSON: every row with its counts, the JVM's own included.
    _growth_session(ctx, None, ctx.report_path(), lambda s, phase: None)
    _, dump_json = load_report(ctx.report_path())
    check_references(dump_json)
    expect_ref(dump_json, 'global', 'Refs.leakGlobal', 'NewGlobalRef', created=12, deleted=0, live=12)
    expect_ref(dump_json, 'global', 'Refs.cachePut', 'NewGlobalRef', created=164, deleted=100, live=64)
    # The JDK's own rows: every live site made by code of the JDK (jdk: true),
    # which is every live site whose innermost frame lies under java.home/lib.
    lib = os.path.realpath(os.path.join(ctx.jdk_home, 'lib')) + os.sep
    jdk_rows = [r for r in references_of(dump_json)['rows']
                if r['live'] > 0 and all(s.get('jdk') is True for s in r['sites'] if s['live'] > 0)]
    for r in references_of(dump_json)['rows']:
        for s in r['sites']:
            if s['live'] > 0:
                where = os.path.realpath((s['frames'] or [{}])[0].get('library') or '/')
                expect(bool(s.get('jdk')) == where.startswith(lib), '%s %s: "jdk" is %s for a site in %s',
                       r['method'], r['function'], s.get('jdk'), where)
    expect(len(jdk_rows) == last['quiet'][2], 'the JDK\'s own rows: %d in the JSON, %d on the text '
           'report\'s not-suspects line', len(jdk_rows), last['quiet'][2])
    print('the JDK\'s own reference rows: ' + ', '.join('%s %s live=%d' % (r['method'], r['function'], r['live'])
                                                      for r in jdk_rows))

    # ref_threshold=64: the cache's row holds 64, a suspect in every report
    # from then on though it never grows; the leak grew after the threshold report.
    text = ctx.report_path('threshold.txt')

    def await_threshold(s, phase):
        if phase == 'FIRST':
            _wait_for_text(text, 'threshold', 1, 'the 64th live reference')
    _growth_session(ctx, 'file=%s,format=text,ref_threshold=64' % text, text, await_threshold)
    reports = _text_reports(text)
    expect([r['reason'] for r in reports] == ['threshold', 'exit'],
           'ref_threshold=64: expected reports threshold, exit; got %s', [r['reason'] for r in reports])
    got = sorted(row[:3] + row[4:] for row in reports[1]['suspects'])
    expect(got == [(12, 12, 0, 'global', 'NewGlobalRef', LEAK_GLOBAL),
                   (64, 164, 100, 'global', 'NewGlobalRef', CACHE_PUT)],
           'ref_threshold=64, exit report: expected suspects %s (64 live) and %s (grew), got %s',
           CACHE_PUT, LEAK_GLOBAL, reports[1]['suspects'])


def _direct_run(ctx, mode):
    """A correct program that holds one local at most and makes no global
    reference, run with local_limit=2.  Returns its reference rows and
    findings, and what _direct_finish checks."""
    report = ctx.report_path('direct-%s.jsonl' % mode)
    ctx.run_java('DirectBuffers', [mode], agent_options='file=%s,format=json,local_limit=2' % report + NO_LONG_CRITICAL)
    _, last = load_report(report)
    refs = check_references(last)
    mine = lambda m: 'fixtures.DirectBuffers.' in m
    rows = sorted((r['kind'], r['method'].rsplit('.', 1)[-1], r['function'], r['created'], r['deleted'],
                   r['live'], r.get('peak_per_call'), r.get('over_limit'))
                  for r in refs['rows'] if mine(r['method']))
    found = sorted((f['kind'], f['method'].rsplit('.', 1)[-1], f['call'], f['count'])
                   for f in _findings(last) if mine(f['method']))
    pins = [row_name(r) for r in last['rows'] if mine(r['method']) and r['live'] != 0]
    expect(not pins, '%s: live pins (only a balanced critical is taken): %s', mode, pins)
    made = [(r['kind'], r['method'], r['function'], r['live']) for r in refs['rows'] if r['kind'] != 'local']
    objects = [(r['method'], r['function']) for r in refs['rows']
               if r['function'] in ('NewObject', 'NewObjectV', 'NewObjectA')]
    return rows, found, (report, made, objects)


def _direct_finish(ctx, mode, rest):
    """After the function's own checks: the JVM's set-up for direct buffers
    (at start, inside Perf.createLong) keeps three class references for
    good, neither the JDK's nor ours; and with the default local_limit and
    ref_exitcode a correct program exits 0."""
    report, made, objects = rest
    expect(not made, '%s: global or weak reference rows, none made: %s', mode, made)
    expect(not objects, '%s: NewObject rows, the JVM\'s own calls inside NewDirectByteBuffer: %s', mode, objects)
    os.remove(report)
    ctx.run_java('DirectBuffers', [mode], expect_rc=0,
                 agent_options='file=%s,format=json,ref_exitcode=9' % report)


def _direct_in_critical(call):
    # The application's 5 calls inside the region, not the JVM's
    # IsInstanceOf and Get<Long|Int>Field inside each.
    return [('jni_in_critical', 'addresses' if 'Address' in call else 'capacities', call, 5)]


def case_direct_new(ctx):
    rows, found, rest = _direct_run(ctx, 'new')
    # One row: the application's 12000 buffers, one at a time (a method's
    # locals are counted by their peak, not deleted one by one).
    want = [('local', 'makeBuffers', 'NewDirectByteBuffer', 12000, 0, 0, 1, 0)]
    expect(rows == want, 'new: reference rows expected %s, got %s', want, rows)
    expect(not found, 'new: findings in a correct program: %s', found)
    _direct_finish(ctx, 'new', rest)


def _direct_query_case(ctx, what, call):
    """GetDirectBufferAddress or GetDirectBufferCapacity: no reference, and
    only the application's own calls inside a critical region as findings."""
    rows, found, rest = _direct_run(ctx, what)
    expect(not rows, '%s: %s makes no reference, got rows %s', what, call, rows)
    want = _direct_in_critical(call)
    expect(found == want, '%s: findings expected %s, got %s', what, want, found)
    _direct_finish(ctx, what, rest)


def case_direct_address(ctx):
    _direct_query_case(ctx, 'address', 'GetDirectBufferAddress')


def case_direct_capacity(ctx):
    _direct_query_case(ctx, 'capacity', 'GetDirectBufferCapacity')


# The cases of this area: name, meson timeout in seconds (each JVM run also has its
# own 120 s limit), and whether it runs alone (timings on a 2-core box stay sane).
CASES = {
    'refs': Case(case_refs, 150),
    'refs-options': Case(case_refs_options, 300),
    'refs-late-attach': Case(case_refs_late_attach, 150),
    'refs-growth': Case(case_refs_growth, 150),
    'direct-new': Case(case_direct_new, 150),
    'direct-address': Case(case_direct_address, 150),
    'direct-capacity': Case(case_direct_capacity, 150),
}
