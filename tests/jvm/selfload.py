#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch started by System.load (JNI_OnLoad), as io.pinwatch.agent.AgentLibrary loads it.

    selfload.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so \\
                --jar pwfixtures.jar --fixture-lib libpwfixture.so

Cases (fixture tests/fixtures/pinwatch/fixtures/SelfLoad.java, pwselfload.c):
  selfload          pins leaked before System.load are not counted, those after are, exactly;
                    pinwatch.status "started", pinwatch.agent the library's path
  selfload-twice    -agentpath and System.load of the same file: one agent, "running PATH"
  selfload-copy     -agentpath and System.load of a copy: the copy starts nothing
  selfload-bad      a bad key in pinwatch.options: the JVM runs on, "failed: ..." names it,
                    nothing is intercepted
  selfload-attached an agent attached (jcmd) publishes pinwatch.agent; System.load then
                    starts nothing
  selfload-classpath a copy in a directory without pinwatch-api.jar, the jar on the class path:
                    the Flight Recorder's class is taken from there, no warning
  api-protocol      io.pinwatch.Pinwatch of another protocol than the agent's: isLoaded() is
                    false, with one line naming both numbers

Exit status: 0 pass, 1 fail, 77 skip (JDK absent).
"""

import os
import re
import shutil
import subprocess
import sys

import harness
from common import _attached_run
from harness import Context, case_parser, expect, expect_row, load_report, tail

# Pins leaked by SelfLoad.leak before the load, and by leak and late each after it.
BEFORE, AFTER = 5, 9
LEAK, LATE = 'pinwatch.fixtures.SelfLoad.leak', 'pinwatch.fixtures.SelfLoad.late'


def _props(stdout, when):
    """(agent, status) from SelfLoad's "WHEN agent=X status=Y" line."""
    for line in stdout.splitlines():
        if line.startswith(when + ' agent='):
            agent, _, status = line[len(when) + len(' agent='):].partition(' status=')
            return agent, status
    raise harness.TestFailure('no %s line in the fixture\'s output:\n%s' % (when, tail(stdout, 10)))


def _run(ctx, library, jvm_args=(), agent_options=None, with_agent=False):
    run = ctx.run_java('SelfLoad', args=[library, str(BEFORE), str(AFTER)], jvm_args=jvm_args,
                       agent_options=agent_options, with_agent=with_agent)
    expect(run.stdout.splitlines()[-1:] == ['DONE'], 'the fixture did not finish: %s', tail(run.stdout, 5))
    return run


def _jni_warnings(run):
    """-Xcheck:jni's warnings (and fatal errors) in a run, numbers masked."""
    found = set()
    for line in (run.stdout + '\n' + run.stderr).splitlines():
        if ('WARNING' in line and 'JNI' in line) or 'FATAL ERROR' in line:
            found.add(re.sub(r'0x[0-9a-fA-F]+|\d+', 'N', line.strip()))
    return found


def _no_stray_pins(dump):
    """Nothing but the fixture's leaks is live, and no finding: the loading
    thread's JNI calls after JNI_OnLoad (the JDK's native that called it,
    running since before the wrappers) count as balanced or not at all."""
    stray = [harness.row_name(r) for r in dump['rows']
             if r['live'] != 0 and r['method'] not in (LEAK, LATE)]
    expect(not stray, 'live pins outside the fixture: %s', stray)
    findings = dump.get('findings', {})
    expect(dump['totals'].get('findings', 0) == 0, 'findings: %s', findings)


def case_selfload(ctx):
    report = ctx.report_path()
    opts = '-Dpinwatch.options=file=%s,format=json' % report
    run = _run(ctx, ctx.agent, jvm_args=[opts])
    expect(_props(run.stdout, 'BEFORE') == ('null', 'null'), 'before the load: %s', _props(run.stdout, 'BEFORE'))
    agent, status = _props(run.stdout, 'AFTER')
    expect(status == 'started', 'pinwatch.status: expected "started", got %r', status)
    expect(agent == os.path.realpath(ctx.agent), 'pinwatch.agent: expected %s, got %r',
           os.path.realpath(ctx.agent), agent)
    dumps, last = load_report(report)
    expect([d['reason'] for d in dumps] == ['exit'], 'reasons: %s', [d['reason'] for d in dumps])
    # leak() was bound before the load (bound again to a thunk), late() after.
    expect_row(last, LEAK, 'GetDoubleArrayElements', acquired=AFTER, released=0, live=AFTER, leaked=AFTER,
               live_bytes=AFTER * 61 * 8)
    expect_row(last, LATE, 'GetFloatArrayElements', acquired=AFTER, released=0, live=AFTER, leaked=AFTER,
               live_bytes=AFTER * 67 * 4)
    _no_stray_pins(last)
    # Under -Xcheck:jni the load adds no JNI warning to those of a run
    # without it (JDK 11 counts the late attach's local references).
    checked = _run(ctx, ctx.agent, jvm_args=['-Xcheck:jni', opts])
    plain = _run(ctx, '-', jvm_args=['-Xcheck:jni'])
    extra = _jni_warnings(checked) - _jni_warnings(plain)
    expect(not extra, '-Xcheck:jni warnings that System.load of the agent added: %s', sorted(extra))


def case_selfload_twice(ctx):
    """The library of -agentpath loaded again by System.load: the same
    mapping, whose JNI_OnLoad finds pinwatch.agent set (at VMInit)."""
    run = _run(ctx, ctx.agent, with_agent=True)
    expect(_props(run.stdout, 'BEFORE') == (ctx.agent, 'null'),
           'before System.load, with -agentpath: %s', _props(run.stdout, 'BEFORE'))
    expect(_props(run.stdout, 'AFTER') == (ctx.agent, 'running ' + ctx.agent),
           'after System.load: expected (%s, running %s), got %s', ctx.agent, ctx.agent,
           _props(run.stdout, 'AFTER'))
    _, last = load_report(ctx.report_path())
    total = BEFORE + AFTER
    expect_row(last, LEAK, 'GetDoubleArrayElements', acquired=total, live=total, leaked=total)
    expect_row(last, LATE, 'GetFloatArrayElements', acquired=AFTER, live=AFTER, leaked=AFTER)
    _no_stray_pins(last)


def case_selfload_copy(ctx):
    """A second copy of the library (another file: its own mapping and
    statics) loaded while the first runs: it reads pinwatch.agent and
    starts nothing, even with options of its own."""
    copy_dir = os.path.join(ctx.tmpdir, 'copy')
    os.mkdir(copy_dir)
    copy = os.path.join(copy_dir, 'libpinwatch.so')
    shutil.copyfile(ctx.agent, copy)
    second = ctx.report_path('second.jsonl')
    run = _run(ctx, copy, with_agent=True, jvm_args=['-Dpinwatch.options=file=%s,format=json' % second])
    expect(_props(run.stdout, 'AFTER') == (ctx.agent, 'running ' + ctx.agent),
           'after System.load of the copy: expected (%s, running %s), got %s', ctx.agent, ctx.agent,
           _props(run.stdout, 'AFTER'))
    expect(not os.path.exists(second), 'the copy started an agent: it wrote %s', second)
    # The first agent's UNRELEASED lines only: the copy logs nothing.
    logged = [l for l in run.stderr.splitlines() if l.startswith('[pinwatch]') and ' UNRELEASED ' not in l]
    expect(not logged, 'the copy logged: %s', logged)
    dumps, last = load_report(ctx.report_path())
    expect([d['reason'] for d in dumps] == ['exit'], 'reasons: %s', [d['reason'] for d in dumps])
    total = BEFORE + AFTER
    expect_row(last, LEAK, 'GetDoubleArrayElements', acquired=total, live=total, leaked=total)
    expect_row(last, LATE, 'GetFloatArrayElements', acquired=AFTER, live=AFTER, leaked=AFTER)
    _no_stray_pins(last)


def case_selfload_bad(ctx):
    report = ctx.report_path()
    run = _run(ctx, ctx.agent, jvm_args=['-Dpinwatch.options=file=%s,format=json,bogus_key=1' % report])
    agent, status = _props(run.stdout, 'AFTER')
    expect(status.startswith('failed: ') and 'bogus_key' in status,
           'pinwatch.status: expected "failed: ..." naming bogus_key, got %r', status)
    expect(agent == 'null', 'pinwatch.agent set by a start that failed: %r', agent)
    errors = [l for l in run.stderr.splitlines() if l.startswith('[pinwatch] ERROR ')]
    expect(errors == ['[pinwatch] ERROR ' + status[len('failed: '):]],
           'the status is not the one line logged: status %r, stderr %s', status, errors)
    expect(not os.path.exists(report), 'a report was written: nothing should have been intercepted')


def case_selfload_attached(ctx):
    """Agent_OnAttach sets pinwatch.agent in the live phase (System.setProperty
    through the JVM's table): System.getProperty sees it, and a System.load
    afterwards starts nothing."""
    s, report = _attached_run(ctx, 'SelfLoad', args=[ctx.agent, str(BEFORE), str(AFTER), 'wait'])
    out = s.stdout_text()
    expect(_props(out, 'BEFORE') == (ctx.agent, 'null'), 'after the attach: %s', _props(out, 'BEFORE'))
    expect(_props(out, 'AFTER') == (ctx.agent, 'running ' + ctx.agent), 'after System.load: %s',
           _props(out, 'AFTER'))
    dumps, last = load_report(report)
    expect([d['reason'] for d in dumps] == ['exit'], 'reasons: %s', [d['reason'] for d in dumps])
    expect_row(last, LEAK, 'GetDoubleArrayElements', acquired=AFTER, live=AFTER, leaked=AFTER)
    expect_row(last, LATE, 'GetFloatArrayElements', acquired=AFTER, live=AFTER, leaked=AFTER)


def case_selfload_classpath(ctx):
    """As the JUnit extension loads it: the library extracted alone into a
    directory of its own, pinwatch-api a dependency on the class path.  The
    agent finds io.pinwatch.jfr.Recorder there (the class path's jar, not one
    beside the library) and says nothing about a missing jar."""
    expect(ctx.api_jar and os.path.exists(ctx.api_jar), 'the API jar is not built: %s', ctx.api_jar)
    lib_dir = os.path.join(ctx.tmpdir, 'extracted')
    os.mkdir(lib_dir)
    lib = os.path.join(lib_dir, 'libpinwatch.so')
    shutil.copyfile(ctx.agent, lib)
    report = ctx.report_path()
    run = ctx.run_java('SelfLoad', args=[lib, str(BEFORE), str(AFTER)],
                       classpath=os.pathsep.join([ctx.jar, ctx.api_jar]), with_agent=False,
                       jvm_args=['-Dpinwatch.options=file=%s,format=json' % report, '-Xlog:class+load=info'])
    expect(_props(run.stdout, 'AFTER') == (lib, 'started'), 'after System.load: %s', _props(run.stdout, 'AFTER'))
    loaded = [l for l in run.stdout.splitlines() if ' io.pinwatch.jfr.Recorder source: ' in l]
    expect(len(loaded) == 1 and loaded[0].endswith('source: file:' + ctx.api_jar),
           'io.pinwatch.jfr.Recorder: expected loaded once from %s, got %s', ctx.api_jar, loaded)
    logged = [l for l in run.stderr.splitlines() if l.startswith('[pinwatch]') and ' UNRELEASED ' not in l]
    expect(not logged, 'the agent logged: %s', logged)
    _, last = load_report(report)
    expect_row(last, LEAK, 'GetDoubleArrayElements', acquired=AFTER, live=AFTER, leaked=AFTER)


API_NOT_LOADED = ('pinwatch is not loaded in this JVM: start java with '
                  '-agentpath:/path/to/libpinwatch.so')
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def case_api_protocol(ctx):
    """The agent's PW_JAVA_PROTOCOL against an io.pinwatch.Pinwatch compiled
    with PROTOCOL one higher (a pinwatch-api of another version), first on
    the class path: the agent binds it, isLoaded() refuses, and says why."""
    expect(ctx.api_jar and os.path.exists(ctx.api_jar), 'the API jar is not built: %s', ctx.api_jar)
    with open(os.path.join(SOURCE, 'agent', 'report', 'java_api.h'), encoding='utf-8') as f:
        agent = int(re.search(r'^#define PW_JAVA_PROTOCOL (\d+)$', f.read(), re.M).group(1))
    with open(os.path.join(SOURCE, 'agent', 'java', 'api', 'src', 'io', 'pinwatch', 'Pinwatch.java'),
              encoding='utf-8') as f:
        text = f.read()
    declared = re.search(r'static final int PROTOCOL = (\d+);', text)
    expect(declared and int(declared.group(1)) == agent, 'Pinwatch.PROTOCOL %s, PW_JAVA_PROTOCOL %d',
           declared and declared.group(1), agent)
    other = agent + 1
    src = os.path.join(ctx.tmpdir, 'src', 'io', 'pinwatch')
    os.makedirs(src)
    with open(os.path.join(src, 'Pinwatch.java'), 'w', encoding='utf-8') as f:
        f.write(text.replace(declared.group(0), 'static final int PROTOCOL = %d;' % other))
    classes = os.path.join(ctx.tmpdir, 'classes')
    javac = subprocess.run([os.path.join(ctx.jdk_home, 'bin', 'javac'), '--release', '11', '-cp', ctx.api_jar,
                            '-d', classes, os.path.join(src, 'Pinwatch.java')],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    expect(javac.returncode == 0, 'javac failed:\n%s', javac.stdout)
    classpath = os.pathsep.join([classes, ctx.jar, ctx.api_jar])
    run = ctx.run_java('ApiFixture', args=['noagent'], classpath=classpath)
    lines = run.stdout.splitlines()
    expected = ['LOADED false', 'SNAPSHOT ' + API_NOT_LOADED, 'DUMP ' + API_NOT_LOADED]
    expect(lines == expected, 'with an api of protocol %d: expected %s, got %s', other, expected, lines)
    said = [l for l in run.stderr.splitlines() if 'protocol' in l]
    want = ('[pinwatch] ERROR io.pinwatch.Pinwatch speaks protocol %d, the agent in this JVM protocol %d: '
            'pinwatch-api and the agent are of different versions, the Java API answers as if pinwatch '
            'were not loaded' % (other, agent))
    expect(said == [want], 'stderr: expected once %r, got %s', want, said)


CASES = {
    'selfload': case_selfload,
    'selfload-twice': case_selfload_twice,
    'selfload-copy': case_selfload_copy,
    'selfload-bad': case_selfload_bad,
    'selfload-attached': case_selfload_attached,
    'selfload-classpath': case_selfload_classpath,
    'api-protocol': case_api_protocol,
}


def main():
    parser = case_parser(__doc__, CASES)
    parser.add_argument('--jar', required=True)
    parser.add_argument('--fixture-lib', required=True)
    parser.add_argument('--api-jar', help='pinwatch-api.jar (api-protocol)')
    args = parser.parse_args()
    ctx = Context(args.case, args.jdk_name, args.jdk_home, os.path.abspath(args.agent),
                  os.path.abspath(args.jar), os.path.abspath(args.fixture_lib), None)
    ctx.api_jar = os.path.abspath(args.api_jar) if args.api_jar else None
    try:
        ctx.require_jdk()
        CASES[args.case](ctx)
    except SystemExit:
        ctx.cleanup()
        raise
    except Exception as e:  # a crash of the checker is a failure too, with the same context
        ctx.print_failure(e)
        return 1
    ctx.cleanup()
    print('PASS: %s on %s' % (args.case, args.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
