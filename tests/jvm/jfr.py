#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch's Flight Recorder events.  One case per invocation:

    jfr.py CASE --jdk-name jdk17 --jdk-home DIR --run-training examples/run-training \
           --build-dir BUILD --pinwatch pinwatch --agent libpinwatch.so \
           --jar pwfixtures.jar --fixture-lib libpwfixture.so

Exit status: 0 pass, 1 fail, 77 skip.  The row, report and late cases record
the leaking training example (examples/run-training: 3000 steps, a
GetLongArrayElements pin of 16 bytes leaked on each of the 750 validation
steps) with -XX:StartFlightRecording and a settings file made from the JDK's
own default.jfc; jfr-findings records the findings fixture (tests/fixtures:
each kind of misuse a distinct number of times).  Each reads the recording
with the JDK's `jfr print --json` and `jfr summary` and compares it with the
JSON report pinwatch wrote at exit.
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from harness import Case

EVAL = 'ai.example.TrainingSession.evalStep'
EVAL_SIG = '(J[J)[J'
LEAK_FN = 'GetLongArrayElements'
STEPS, LEAKED, LEAK_BYTES = 3000, 750, 750 * 16
PIN_ROW, REF_ROW = 'pinwatch.PinRow', 'pinwatch.ReferenceRow'
TYPES = (PIN_ROW, REF_ROW)
ALL_TYPES = TYPES + ('pinwatch.Report', 'pinwatch.Threshold', 'pinwatch.Finding')


class Failure(Exception):
    pass


def expect(cond, fmt, *args):
    if not cond:
        raise Failure(fmt % args if args else fmt)


def settings(jdk, path, enabled, period='endChunk'):
    """The JDK's default.jfc with pinwatch's events set as asked: endChunk
    emits each row once, as the recording ends (at the JVM's exit here)."""
    with open(os.path.join(jdk, 'lib', 'jfr', 'default.jfc'), encoding='utf-8') as f:
        text = f.read()
    ours = ''.join('  <event name="%s"><setting name="enabled">%s</setting>%s</event>\n' %
                   (t, enabled, '<setting name="period">%s</setting>' % period if t in TYPES else '')
                   for t in ALL_TYPES)
    end = text.rindex('</configuration>')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text[:end] + ours + text[end:])


def record(args, tmp, enabled, steps=STEPS, options='', jfc=None):
    """jfc: the recording's settings, else ours (settings())."""
    jfr, report = (os.path.join(tmp, n) for n in ('rec.jfr', 'report.jsonl'))
    for f in (jfr, report):
        if os.path.exists(f):
            os.unlink(f)
    if jfc is None:
        jfc = os.path.join(tmp, 'pinwatch.jfc')
        settings(args.jdk_home, jfc, 'true' if enabled else 'false')
    env = dict(os.environ, JAVA_HOME=args.jdk_home,
               PINWATCH_OPTIONS='file=%s,format=json%s' % (report, options),
               JDK_JAVA_OPTIONS='-XX:StartFlightRecording:filename=%s,settings=%s' % (jfr, jfc))
    run = subprocess.run([args.run_training, '--steps', str(steps), args.build_dir], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    expect(run.returncode == 0, 'run-training exited %d:\n%s', run.returncode, run.stderr[-3000:])
    expect(os.path.exists(jfr), 'no recording written: %s', run.stderr[-3000:])
    with open(report, encoding='utf-8') as f:
        dumps = [json.loads(l) for l in f if l.strip()]
    expect(dumps and dumps[-1]['reason'] == 'exit', 'no exit report: %s', [d['reason'] for d in dumps])
    return (jfr, dumps) if options else (jfr, dumps[-1])


def jfr_tool(args, *argv):
    run = subprocess.run([os.path.join(args.jdk_home, 'bin', 'jfr')] + list(argv),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    expect(run.returncode == 0, 'jfr %s: %s', ' '.join(argv), run.stderr)
    return run.stdout


def summary_counts(args, jfr):
    """{event type: count} from `jfr summary`."""
    counts = {}
    for line in jfr_tool(args, 'summary', jfr).splitlines():
        m = re.match(r'^\s*(\S+)\s+(\d+)\s+\d+\s*$', line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    return counts


def events(args, jfr):
    out = json.loads(jfr_tool(args, 'print', '--json', '--events', ','.join(TYPES), jfr))
    return [(e['type'], e['values']) for e in out['recording']['events']]


def case_rows(args, tmp):
    jfr, report = record(args, tmp, enabled=True)
    got = events(args, jfr)
    pins = [v for t, v in got if t == PIN_ROW]
    refs = [v for t, v in got if t == REF_ROW]
    counts = summary_counts(args, jfr)
    expect(counts.get(PIN_ROW) == len(pins) and counts.get(REF_ROW) == len(refs),
           'jfr summary counts %s, jfr print --json %d and %d', {t: counts.get(t) for t in TYPES},
           len(pins), len(refs))
    # endChunk: one event per row, all from the one end of the recording.
    keys = [(v['method'], v['signature'], v['function']) for v in pins]
    expect(len(keys) == len(set(keys)), 'a pin row twice in one period: %s', keys)

    # The leak, exact, against the numbers the example is built to produce
    # and against the report.
    ev = [v for v in pins if (v['method'], v['signature'], v['function']) == (EVAL, EVAL_SIG, LEAK_FN)]
    expect(len(ev) == 1, 'expected one %s %s event, got %d', EVAL, LEAK_FN, len(ev))
    ev = ev[0]
    want = dict(live=LEAKED, bytes=LEAK_BYTES, leaked=LEAKED, leakedBytes=LEAK_BYTES, held=0,
                growth=LEAKED, acquired=STEPS, released=STEPS - LEAKED)
    wrong = {k: (ev[k], w) for k, w in want.items() if ev[k] != w}
    expect(not wrong, '%s event: {field: (got, expected)} %s', EVAL, wrong)

    # Every row against the exit report.  The recording ends in JFR's
    # shutdown hook, just before the report at VMDeath: the example is
    # idle by then, but the hook itself (writing the chunk, loading its
    # classes) may still run JDK natives, so those rows' acquired/released
    # counters may have grown by the report; what is live may not change,
    # and the example's own rows may not change at all.
    rows = {(r['method'], r['signature'], r['function']): r for r in report['rows']}
    bad = []
    for v in pins:
        r = rows.get((v['method'], v['signature'], v['function']))
        if r is None:
            bad.append('event %s %s: no such row in the report' % (v['method'], v['function']))
            continue
        same = [('live', 'live'), ('bytes', 'live_bytes'), ('leaked', 'leaked'), ('held', 'held')]
        if v['method'].startswith('ai.example.'):
            same += [('acquired', 'acquired'), ('released', 'released')]
        elif v['acquired'] > r['acquired'] or v['released'] > r['released']:
            bad.append('%s %s: counters went back from the event to the report' % (v['method'], v['function']))
        bad += ['%s %s %s: event %s, report %s' % (v['method'], v['function'], e, v[e], r[j])
                for e, j in same if v[e] != r[j]]
    live_rows = {k for k, r in rows.items() if r['live'] > 0}
    missing = live_rows - set(keys)
    expect(not missing, 'report rows with live pins and no event: %s', sorted(missing))
    expect(not bad, 'events against the exit report:\n  %s', '\n  '.join(bad))
    t = report['totals']
    sums = tuple(sum(v[f] for v in pins) for f in ('live', 'bytes', 'leaked', 'held'))
    expect(sums == (t['live'], t['live_bytes'], t['leaked'], t['held']),
           'event sums (live, bytes, leaked, held) %s, report totals %s', sums,
           (t['live'], t['live_bytes'], t['leaked'], t['held']))

    rrows = {(r['kind'], r['method'], r['signature'], r['function']): r for r in report['references']['rows']}
    bad = []
    for v in refs:
        r = rrows.get((v['kind'], v['method'], v['signature'], v['function']))
        if r is None:
            bad.append('event %s %s %s: no such row in the report' % (v['kind'], v['method'], v['function']))
        elif v['live'] != r['live']:
            bad.append('%s %s %s: live event %d, report %d' % (v['kind'], v['method'], v['function'],
                                                                v['live'], r['live']))
    expect(not bad, 'reference events against the exit report:\n  %s', '\n  '.join(bad))
    rt = report['references']['totals']
    expect(sum(v['live'] for v in refs) == rt['live'], 'live references: events %d, report %d',
           sum(v['live'] for v in refs), rt['live'])
    expect(refs and all(v['kind'] in ('global', 'weak', 'local') for v in refs), 'reference kinds: %s',
           sorted({v['kind'] for v in refs}))


def case_off(args, tmp):
    # threshold=100: reports that would be events if enabled.
    jfr, dumps = record(args, tmp, enabled=False, options=',threshold=100')
    report = dumps[-1]
    expect('threshold' in [d['reason'] for d in dumps], 'no threshold report')
    counts = summary_counts(args, jfr)
    ours = {t: c for t, c in counts.items() if t.startswith('pinwatch.')}
    # Registered (listed with 0), not recorded.
    expect(set(ours) == set(ALL_TYPES) and not any(ours.values()),
           'pinwatch events in a recording that disables them: %s', ours)
    expect(not jfr_tool(args, 'print', '--events', ','.join(ALL_TYPES), jfr).strip(),
           'jfr print found pinwatch events')
    # The recording itself ran, and so did pinwatch.
    expect(counts.get('jdk.JVMInformation', 0) > 0, 'the recording has no jdk.JVMInformation')
    r = [r for r in report['rows'] if r['method'] == EVAL and r['function'] == LEAK_FN]
    expect(len(r) == 1 and r[0]['leaked'] == LEAKED, 'the report without JFR events: %s', r)


def case_reports(args, tmp):
    """threshold=100 over 100000 steps: 25000 pins leak, crossing 100, 200,
    ... 12800 with half the run to spare (a report written as the JVM exits
    may lose its event, README); the report thread may merge crossings that
    come faster than it writes.  Each threshold report is one
    pinwatch.Threshold and one pinwatch.Report event with its exact totals."""
    jfr, dumps = record(args, tmp, enabled=True, steps=100000, options=',threshold=100')
    reports = [d for d in dumps if d['reason'] == 'threshold']
    expect(len(reports) >= 2, 'threshold reports: %s', [d['reason'] for d in dumps])
    out = json.loads(jfr_tool(args, 'print', '--json', '--events', 'pinwatch.Report,pinwatch.Threshold', jfr))
    got = [(e['type'], e['values']) for e in out['recording']['events']]
    rep = sorted((v for t, v in got if t == 'pinwatch.Report'), key=lambda v: v['acquired'])
    thr = sorted((v for t, v in got if t == 'pinwatch.Threshold'), key=lambda v: v['live'])
    counts = summary_counts(args, jfr)
    expect(counts.get('pinwatch.Report') == len(rep) == len(reports) and
           counts.get('pinwatch.Threshold') == len(thr) == len(reports),
           'threshold reports %d; Report events %d (summary %s), Threshold events %d (summary %s)',
           len(reports), len(rep), counts.get('pinwatch.Report'), len(thr), counts.get('pinwatch.Threshold'))
    bad = []
    for d, e, h in zip(reports, rep, thr):
        t = d['totals']
        want = dict(reason='threshold', live=t['live'], bytes=t['live_bytes'], leaked=t['leaked'],
                    held=t['held'], acquired=t['acquired'], released=t['released'], findings=t['findings'],
                    liveReferences=d['references']['totals']['live'])
        bad += ['report %s: event %s' % (want, {k: e[k] for k in want}) for k in want if e[k] != want[k]][:1]
        level = 100
        while level * 2 <= t['live']:
            level *= 2
        if (h['threshold'], h['level'], h['live'], h['bytes']) != (100, level, t['live'], t['live_bytes']):
            bad.append('threshold event %s, report live %d bytes %d' % (h, t['live'], t['live_bytes']))
    expect(not bad, 'events against the threshold reports:\n  %s', '\n  '.join(bad))

    # The JDK's own default settings, untouched, record them too.
    jfr, dumps = record(args, tmp, enabled=True, steps=100000, options=',threshold=100', jfc='default')
    reports = [d for d in dumps if d['reason'] == 'threshold']
    counts = summary_counts(args, jfr)
    expect(reports and counts.get('pinwatch.Report') == counts.get('pinwatch.Threshold') == len(reports),
           'settings=default: %d threshold reports, events %s', len(reports),
           {t: counts.get(t) for t in ALL_TYPES})


def _running_training(args, tmp, extra_env):
    env = dict(os.environ, JAVA_HOME=args.jdk_home, **extra_env)
    argv = [args.run_training, '--steps', '100000000', args.build_dir]
    if 'PINWATCH_OPTIONS' not in extra_env:
        argv.insert(1, '--no-agent')
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _tool(args, name, *argv):
    run = subprocess.run([os.path.join(args.jdk_home, 'bin', name)] + list(argv), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=60)
    expect(run.returncode == 0, '%s %s: %s', name, ' '.join(argv), run.stdout)
    return run.stdout


def _leak_event_of_running(args, jfr):
    """The evalStep row of a dump taken while the example runs: its figures
    move, but not against one another."""
    got = [v for t, v in events(args, jfr) if t == PIN_ROW and v['method'] == EVAL and v['function'] == LEAK_FN]
    expect(len(got) == 1, 'expected one %s event in the dump, got %d', EVAL, len(got))
    v = got[0]
    expect(v['live'] > 0 and v['live'] == v['leaked'] + v['held'] and v['held'] in (0, 1) and
           v['bytes'] == 16 * v['live'] and v['leakedBytes'] == 16 * v['leaked'] and v['growth'] == v['live'],
           'the leak while running: %s', {k: v[k] for k in ('live', 'leaked', 'held', 'bytes', 'leakedBytes',
                                                             'growth')})


def case_later(args, tmp):
    """jcmd PID JFR.start under an agent loaded at launch, then a
    recording started at launch and the agent attached later."""
    jfc = os.path.join(tmp, 'pinwatch.jfc')
    settings(args.jdk_home, jfc, 'true')
    runs = [('jcmd JFR.start', {'PINWATCH_OPTIONS': 'file=%s,format=json' % os.path.join(tmp, 'a.jsonl')}),
            ('pinwatch attach', {'JDK_JAVA_OPTIONS': '-XX:+EnableDynamicAgentLoading '
                                 '-XX:StartFlightRecording:name=pw,settings=%s' % jfc})]
    for n, (what, env) in enumerate(runs):
        proc = _running_training(args, tmp, env)
        try:
            # run-training execs java: the JVM is proc itself (not whichever
            # training JVM `jcmd -l` lists, which may be another test run's).
            pid = str(proc.pid)
            # A socket file left by an earlier JVM of this pid, killed, would
            # make jcmd connect to nothing: this JVM has none yet.
            with contextlib.suppress(FileNotFoundError):
                os.unlink('/tmp/.java_pid' + pid)
            for _ in range(100):
                if subprocess.run([os.path.join(args.jdk_home, 'bin', 'jcmd'), pid, 'VM.version'],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  timeout=60).returncode == 0:
                    break
                expect(proc.poll() is None, '%s: the example exited %s', what, proc.returncode)
                time.sleep(0.1)
            time.sleep(1)
            if what == 'jcmd JFR.start':
                _tool(args, 'jcmd', pid, 'JFR.start', 'name=pw', 'settings=' + jfc)
                time.sleep(0.5)
                # A report asked for with jcmd is a Report event too.
                _tool(args, 'jcmd', pid, 'JVMTI.data_dump')
            else:
                run = subprocess.run([args.pinwatch, 'attach', pid, '--file', os.path.join(tmp, 'b.jsonl'),
                                      '--format', 'json'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, timeout=60)
                expect(run.returncode == 0, 'pinwatch attach: %s', run.stdout)
            time.sleep(1.5)
            jfr = os.path.join(tmp, 'later%d.jfr' % n)
            _tool(args, 'jcmd', pid, 'JFR.dump', 'name=pw', 'filename=' + jfr)
        finally:
            # SIGTERM: the JVM removes its attach socket on the way out; one
            # killed with SIGKILL leaves it for a later process with its pid.
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        try:
            _leak_event_of_running(args, jfr)
            if what == 'jcmd JFR.start':
                _jcmd_report_event(args, jfr, os.path.join(tmp, 'a.jsonl'))
        except Failure as e:
            raise Failure('%s: %s' % (what, e))


def _jcmd_report_event(args, jfr, report):
    """The jcmd report is one pinwatch.Report event with its exact totals."""
    with open(report, encoding='utf-8') as f:
        dumps = [json.loads(l) for l in f if l.strip()]
    jcmd = [d for d in dumps if d['reason'] == 'jcmd']
    expect(len(jcmd) == 1, 'jcmd reports: %s', [d['reason'] for d in dumps])
    out = json.loads(jfr_tool(args, 'print', '--json', '--events', 'pinwatch.Report', jfr))
    got = [e['values'] for e in out['recording']['events'] if e['values']['reason'] == 'jcmd']
    expect(len(got) == 1, 'Report events with reason jcmd: %d', len(got))
    t, e = jcmd[0]['totals'], got[0]
    want = dict(live=t['live'], bytes=t['live_bytes'], leaked=t['leaked'], held=t['held'],
                acquired=t['acquired'], released=t['released'], findings=t['findings'],
                liveReferences=jcmd[0]['references']['totals']['live'], eventsDropped=0)
    wrong = {k: (e[k], w) for k, w in want.items() if e[k] != w}
    expect(not wrong, 'the jcmd Report event against the jcmd report: {field: (event, report)} %s', wrong)


# The findings fixture's misuse, as tests/jvm/findings.py counts it: (kind,
# method, offending call) -> count.  jni_in_critical happens inside the
# region, and long_critical is seen as the region is released, still inside
# it: the JVM may not be asked for a stack there.
FINDINGS = {
    ('double_release', 'Findings.doubleRelease', 'ReleaseLongArrayElements'): 3,
    ('double_release', 'Findings.doubleReleaseTail', 'ReleaseLongArrayElements'): 2,
    ('wrong_object', 'Findings.wrongObject', 'ReleaseIntArrayElements'): 4,
    ('wrong_function', 'Findings.wrongFunction', 'ReleaseIntArrayElements'): 5,
    ('jni_in_critical', 'Findings.jniInCritical', 'GetArrayLength'): 4,
    ('jni_in_critical', 'Findings.jniInCritical', 'ExceptionCheck'): 2,
    ('long_critical', 'Findings.holdCritical', 'ReleasePrimitiveArrayCritical'): 2,
}
FIXTURES = 'pinwatch.fixtures.'


def case_findings(args, tmp):
    """Every finding of the fixture is one pinwatch.Finding event, with the
    report's method, function and offending call; the count of each (kind,
    method, call) equals the report's, and each event's occurrences number
    them 1..n; outside a critical region the Java stack is the fixture's
    main(), inside one it is empty.  The same under the JDK's untouched profile
    settings; none with the events off."""
    jfr, report = os.path.join(tmp, 'findings.jfr'), os.path.join(tmp, 'findings.jsonl')
    jfc = os.path.join(tmp, 'pinwatch.jfc')
    settings(args.jdk_home, jfc, 'true')
    argv = [os.path.join(args.jdk_home, 'bin', 'java'),
            '-agentpath:%s=file=%s,format=json,critical_ms=20' % (args.agent, report),
            '-XX:StartFlightRecording:filename=%s,settings=%s' % (jfr, jfc),
            '-Djava.library.path=' + os.path.dirname(args.fixture_lib),
            '-cp', args.jar, FIXTURES + 'Findings']
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    expect(run.returncode == 0 and 'DONE' in run.stdout, 'Findings exited %d:\n%s', run.returncode,
           run.stderr[-3000:])
    with open(report, encoding='utf-8') as f:
        last = [json.loads(l) for l in f if l.strip()][-1]
    out = json.loads(jfr_tool(args, 'print', '--json', '--events', 'pinwatch.Finding', jfr))
    got = [e['values'] for e in out['recording']['events']]
    counts = summary_counts(args, jfr)
    expect(counts.get('pinwatch.Finding') == len(got), 'jfr summary %s Finding events, jfr print %d',
           counts.get('pinwatch.Finding'), len(got))
    ours = [v for v in got if v['method'].startswith(FIXTURES)]
    by_key = {}
    for v in ours:
        by_key.setdefault((v['kind'], v['method'][len(FIXTURES):], v['call']), []).append(v)
    want = {k: n for k, n in FINDINGS.items()}
    have = {k: len(v) for k, v in by_key.items()}
    expect(have == want, 'Finding events per (kind, method, call):\n  got      %s\n  expected %s',
           sorted(have.items()), sorted(want.items()))
    report_counts = {(f['kind'], f['method'][len(FIXTURES):], f['call']): f['count']
                     for f in last['findings'] if f['method'].startswith(FIXTURES)}
    expect(report_counts == want, 'the report\'s findings %s, expected %s', sorted(report_counts.items()),
           sorted(want.items()))
    bad = []
    for key, events in by_key.items():
        kind = key[0]
        if sorted(v['occurrences'] for v in events) != list(range(1, len(events) + 1)):
            bad.append('%s: occurrences %s' % (key, sorted(v['occurrences'] for v in events)))
        for v in events:
            stack = v.get('javaStack') or ''
            if kind in ('jni_in_critical', 'long_critical'):
                if stack:
                    bad.append('%s: a stack inside the critical region: %r' % (key, stack))
                if v.get('thread'):
                    bad.append('%s: a thread name without a stack: %r' % (key, v['thread']))
            elif not stack.startswith(FIXTURES + 'Findings.main:') or v.get('thread') != 'main':
                bad.append('%s: Java stack %r on thread %r, expected the fixture\'s main first, on '
                           'thread main' % (key, stack, v.get('thread')))
            if kind != 'long_critical' and 'pwfixture' not in (v.get('callSite') or ''):
                bad.append('%s: call site %r is not in libpwfixture' % (key, v.get('callSite')))
            if not v['function'] or not v['signature']:
                bad.append('%s: function %r signature %r' % (key, v['function'], v['signature']))
    expect(not bad, 'Finding events:\n  %s', '\n  '.join(bad))

    # The JDK's own profile settings, untouched, record every one of them too.
    os.unlink(jfr)
    profile = [a.replace('settings=' + jfc, 'settings=profile') for a in argv]
    run = subprocess.run(profile, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    expect(run.returncode == 0, 'Findings (settings=profile) exited %d:\n%s', run.returncode, run.stderr[-3000:])
    out = json.loads(jfr_tool(args, 'print', '--json', '--events', 'pinwatch.Finding', jfr))
    n = sum(1 for e in out['recording']['events'] if e['values']['method'].startswith(FIXTURES))
    expect(n == sum(want.values()), 'settings=profile: %d Finding events of the fixture, expected %d', n,
           sum(want.values()))

    # Recorded with the events off: none.
    settings(args.jdk_home, jfc, 'false')
    os.unlink(jfr)
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    expect(run.returncode == 0, 'Findings (events off) exited %d:\n%s', run.returncode, run.stderr[-3000:])
    expect(summary_counts(args, jfr).get('pinwatch.Finding', 0) == 0, 'Finding events in a recording that '
           'disables them')


def case(run, timeout):
    return Case(run, timeout, serial=True)


# The cases (group `jfr` of tests/jvm/cases.py --list).  Serial: the report
# and row figures are compared across a JVM's exit, and two training runs at
# once on 2 cores make the threshold reports merge.
CASES = {'jfr-rows': case(case_rows, 150), 'jfr-off': case(case_off, 150), 'jfr-later': case(case_later, 150),
         'jfr-reports': case(case_reports, 200), 'jfr-findings': case(case_findings, 150)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('case', choices=sorted(CASES))
    p.add_argument('--jdk-name', required=True)
    p.add_argument('--jdk-home', required=True)
    p.add_argument('--run-training', required=True)
    p.add_argument('--build-dir', required=True)
    p.add_argument('--pinwatch', required=True, help='the pinwatch command (jfr-later)')
    p.add_argument('--agent', required=True)
    p.add_argument('--jar', required=True, help='the fixtures jar (jfr-findings)')
    p.add_argument('--fixture-lib', required=True)
    args = p.parse_args()
    if not os.access(os.path.join(args.jdk_home, 'bin', 'java'), os.X_OK):
        print('SKIP: JDK %s absent%s: not run' % (args.jdk_name,
                                                 ' at ' + args.jdk_home if args.jdk_home else ''))
        return 77
    if not os.path.exists(os.path.join(args.jdk_home, 'bin', 'jfr')):
        print('SKIP: %s: no JDK with a jfr tool at %r' % (args.jdk_name, args.jdk_home))
        return 77
    tmp = tempfile.mkdtemp(prefix='pwjfr-')
    try:
        CASES[args.case].run(args, tmp)
    except (Failure, subprocess.TimeoutExpired) as e:
        print('FAIL: %s on %s: %s\nscratch files kept in %s' % (args.case, args.jdk_name, e, tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: %s on %s' % (args.case, args.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
