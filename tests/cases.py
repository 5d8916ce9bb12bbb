#!/usr/bin/env python3
"""pinwatch JVM test cases.  One case per invocation:

    cases.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so \
             --jar pwfixtures.jar --fixture-lib libpwfixture.so --fixture-src pwfixture.c

Exit status: 0 pass, 1 fail (with expected vs got, the JVM command line and
its output), 77 skip (JDK not installed).  The expected numbers mirror the
fixtures in tests/fixtures/pinwatch/fixtures/*.java; each count and array
length is distinct so a pin charged to the wrong row cannot pass.
"""

import argparse
import json
import os
import re
import select
import subprocess
import sys
import time
import traceback

from jvmtest import (JVM_TIMEOUT, SKIP, Context, JvmRun, TestFailure, expect, expect_row,
                     load_report, modified_utf8_size, row_name, rows_of,
                     source_line, tail)

LZ4_JAR = '/usr/share/java/lz4-java.jar'
LZ4_JNI_DIR = '/usr/lib/x86_64-linux-gnu/jni'
LZ4_JNI_LIB = os.path.join(LZ4_JNI_DIR, 'liblz4-java.so')

STRING_SIG = '(Ljava/lang/String;)V'
# Mirrors Pairs.CHARS and Pairs.UTF.
PAIRS_CHARS = '0123456789' * 4 + '\u00e9'
PAIRS_UTF = 'pw-utf-\u00e9\u00e8\u20ac\u4e2d-end'

# (kind, JNI type code, element size, array length, leaked, balanced): Pairs.main
ARRAY_KINDS = [
    ('Boolean', 'Z', 1, 101, 11, 21),
    ('Byte', 'B', 1, 103, 12, 22),
    ('Char', 'C', 2, 107, 13, 23),
    ('Short', 'S', 2, 109, 14, 24),
    ('Int', 'I', 4, 113, 15, 25),
    ('Long', 'J', 8, 127, 16, 26),
    ('Float', 'F', 4, 131, 17, 27),
    ('Double', 'D', 8, 137, 18, 28),
]


def fixture_symbol(cls, method):
    return 'Java_pinwatch_fixtures_%s_%s' % (cls.replace('$', '_00024'), method)


def expect_one_site(ctx, row, symbol, live):
    """All of the row's live pins come from one call site inside `symbol` of
    the fixture library."""
    live_sites = [s for s in row['sites'] if s['live'] > 0]
    expect(len(live_sites) == 1, 'row %s: expected 1 site with live pins, got %d: %s',
           row_name(row), len(live_sites), json.dumps(row['sites'])[:800])
    site = live_sites[0]
    expect(site['live'] == live, 'row %s: site live expected %d, got %d',
           row_name(row), live, site['live'])
    frames = site.get('frames') or []
    expect(frames, 'row %s: site has no frames', row_name(row))
    top = frames[0]
    expect(top.get('symbol') == symbol, 'row %s: frames[0].symbol expected %r, got %r',
           row_name(row), symbol, top.get('symbol'))
    library = top.get('library') or ''
    expect(os.path.realpath(library) == os.path.realpath(ctx.fixture_lib),
           'row %s: frames[0].library expected %s, got %r', row_name(row), ctx.fixture_lib, library)
    return site


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

def case_pairs(ctx):
    ctx.run_java('Pairs')
    _, last = load_report(ctx.report_path())
    for kind, code, size, length, leaked, balanced in ARRAY_KINDS:
        function = 'Get%sArrayElements' % kind
        row = expect_row(last, 'Pairs.leak' + kind, function, '([%s)V' % code,
                         acquired=leaked, released=0, live=leaked,
                         live_bytes=leaked * length * size, commits=0)
        expect_one_site(ctx, row, fixture_symbol('Pairs', 'leak' + kind), leaked)
        expect_row(last, 'Pairs.balanced' + kind, function, '([%s)V' % code,
                   acquired=balanced, released=balanced, live=0, live_bytes=0, commits=0)

    strings = 'pinwatch.fixtures.Pairs$Strings.'
    row = expect_row(last, strings + 'leakChars', 'GetStringChars', STRING_SIG,
                     acquired=19, released=0, live=19, live_bytes=19 * len(PAIRS_CHARS) * 2)
    expect_one_site(ctx, row, fixture_symbol('Pairs$Strings', 'leakChars'), 19)
    row = expect_row(last, strings + 'leakUtf', 'GetStringUTFChars', STRING_SIG,
                     acquired=20, released=0, live=20,
                     live_bytes=20 * modified_utf8_size(PAIRS_UTF))
    expect_one_site(ctx, row, fixture_symbol('Pairs$Strings', 'leakUtf'), 20)
    expect_row(last, strings + 'balancedChars', 'GetStringChars', STRING_SIG,
               acquired=29, released=29, live=0, live_bytes=0)
    expect_row(last, strings + 'balancedUtf', 'GetStringUTFChars', STRING_SIG,
               acquired=30, released=30, live=0, live_bytes=0)
    expect_row(last, 'Pairs.balancedArrayCritical', 'GetPrimitiveArrayCritical', '([J)V',
               acquired=31, released=31, live=0, live_bytes=0)
    expect_row(last, strings + 'balancedCritical', 'GetStringCritical', STRING_SIG,
               acquired=32, released=32, live=0, live_bytes=0)


def case_release_modes(ctx):
    ctx.run_java('ReleaseModes')
    _, last = load_report(ctx.report_path())
    # JNI_COMMIT alone copies back but keeps the buffer: still pinned.
    expect_row(last, 'ReleaseModes.commitOnly', 'GetIntArrayElements', '([II)V',
               acquired=7, released=0, live=7, live_bytes=7 * 149 * 4, commits=7)
    # JNI_COMMIT then mode 0: balanced, one commit each.
    expect_row(last, 'ReleaseModes.commitThenRelease', 'GetLongArrayElements', '([JJ)V',
               acquired=9, released=9, live=0, live_bytes=0, commits=9)
    expect_row(last, 'ReleaseModes.abort', 'GetShortArrayElements', '([SS)V',
               acquired=13, released=13, live=0, live_bytes=0, commits=0)
    expect(last['totals']['commits'] >= 16, 'totals.commits expected >= 16 (7 + 9), got %d',
           last['totals']['commits'])


def case_helper_depth(ctx):
    ctx.run_java('HelperDepth')
    _, last = load_report(ctx.report_path())
    line = source_line(ctx.fixture_src, 'pw-site: helper-depth')
    addresses = []
    for method, count, length in (('viaFirst', 6, 163), ('viaSecond', 5, 167)):
        row = expect_row(last, 'HelperDepth.' + method, 'GetFloatArrayElements', '([F)V',
                         acquired=count, released=0, live=count, live_bytes=count * length * 4)
        site = expect_one_site(ctx, row, 'pw_helper_level3', count)
        top = site['frames'][0]
        expect(os.path.basename(top.get('file') or '') == os.path.basename(ctx.fixture_src),
               'row %s: frames[0].file expected %s, got %r', row_name(row),
               os.path.basename(ctx.fixture_src), top.get('file'))
        # The line of the call itself (return address - 1), not the next line.
        expect(top.get('line') == line, 'row %s: frames[0].line expected %d (the Get call), got %r',
               row_name(row), line, top.get('line'))
        chain = ['pw_helper_level3', 'pw_helper_level2', 'pw_helper_level1',
                 fixture_symbol('HelperDepth', method)]
        symbols = [f.get('symbol') for f in site['frames']][:len(chain)]
        expect(symbols == chain[:len(symbols)], 'row %s: frames expected to start %s, got %s',
               row_name(row), chain, symbols)
        addresses.append(top.get('address'))
    # Same C call site, two Java methods, two rows.
    expect(addresses[0] == addresses[1],
           'both rows come from the same call site, got frames[0].address %s', addresses)


def case_register_natives(ctx):
    ctx.run_java('Registered')
    _, last = load_report(ctx.report_path())
    row = expect_row(last, 'Registered.grabBytes', 'GetByteArrayElements', '([B)V',
                     acquired=8, released=0, live=8, live_bytes=8 * 173)
    expect_one_site(ctx, row, 'stash_octets', 8)
    row = expect_row(last, 'Registered.grabUtf', 'GetStringUTFChars', STRING_SIG,
                     acquired=3, released=0, live=3,
                     live_bytes=3 * modified_utf8_size('registered-\u00e9'))
    expect_one_site(ctx, row, 'remember_text', 3)
    expect_row(last, 'Registered.sumCritical', 'GetPrimitiveArrayCritical', '([I)J',
               acquired=12, released=12, live=0, live_bytes=0)
    for name in ('stash_octets', 'remember_text', 'tally_under_lock'):
        bad = [row_name(r) for r in last['rows'] if name in r['method']]
        expect(not bad, 'rows must be named by the Java method, not the C function: %s', bad)


def case_native_thread(ctx):
    ctx.run_java('NativeThread')
    _, last = load_report(ctx.report_path())
    expect_row(last, '<native thread>', 'GetIntArrayElements', '',
               acquired=14, released=5, live=9, live_bytes=9 * 181 * 4)
    wrong = [row_name(r) for r in rows_of(last, 'pinwatch.fixtures.NativeThread.pinOnNativeThread')
             if r['acquired'] > 0]
    expect(not wrong, 'pins of the attached pthread were charged to the Java caller: %s', wrong)


def case_threads(ctx):
    ctx.run_java('Threads', timeout=JVM_TIMEOUT)
    _, last = load_report(ctx.report_path())
    churn_sig = '([I[BLjava/lang/String;[JI)V'
    iterations = 8 * 100 * 100        # threads x calls x iterations per call
    for function, per_iteration in (('GetIntArrayElements', 1), ('GetByteArrayElements', 2),
                                    ('GetStringChars', 3), ('GetPrimitiveArrayCritical', 4)):
        n = iterations * per_iteration
        expect_row(last, 'Threads.churn', function, churn_sig,
                   acquired=n, released=n, live=0, live_bytes=0)
    leaked = sum(range(1, 9))         # churn thread i leaks i + 1
    row = expect_row(last, 'Threads.leakSome', 'GetLongArrayElements', '([JI)V',
                     acquired=leaked, released=0, live=leaked, live_bytes=leaked * 191 * 8)
    expect_one_site(ctx, row, fixture_symbol('Threads', 'leakSome'), leaked)
    # Released on consumer threads; the pins still belong to handOff's row.
    expect_row(last, 'Threads.handOff', 'GetDoubleArrayElements', '([DI)I',
               acquired=40000, released=40000, live=0, live_bytes=0)
    wrong = [row_name(r) for r in rows_of(last, 'pinwatch.fixtures.Threads.drain')
             if r['acquired'] > 0]
    expect(not wrong, 'drain only releases, yet has acquiring rows: %s', wrong)


def case_unmatched(ctx):
    if '-Xcheck:jni' in ctx.env.get('JAVA_TOOL_OPTIONS', ''):
        # -Xcheck:jni rightly aborts the VM on the deliberately bad pointer.
        print('SKIP: unmatched releases cannot run under -Xcheck:jni')
        raise SystemExit(SKIP)
    ctx.run_java('Unmatched')
    _, last = load_report(ctx.report_path())
    # p + 8 was released: unknown to the agent, so p stays live.
    row = expect_row(last, 'Unmatched.mismatch', 'GetPrimitiveArrayCritical', '([J)V',
                     acquired=3, released=0, live=3, live_bytes=3 * 193 * 8)
    expect_one_site(ctx, row, fixture_symbol('Unmatched', 'mismatch'), 3)
    expect_row(last, 'Unmatched.balanced', 'GetPrimitiveArrayCritical', '([J)V',
               acquired=4, released=4, live=0, live_bytes=0)
    expect(last['totals']['unmatched_releases'] == 3,
           'totals.unmatched_releases expected 3, got %d', last['totals']['unmatched_releases'])


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


def _jcmd_dumps(path):
    """Complete JSON lines with reason "jcmd" written so far."""
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
        if dump.get('reason') == 'jcmd':
            found.append(dump)
    return found


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
                                  stderr=subprocess.STDOUT, timeout=60,
                                  universal_newlines=True, errors='replace')
            expect(jcmd.returncode == 0, 'jcmd exited %d:\n%s', jcmd.returncode, tail(jcmd.stdout))
            deadline = time.monotonic() + 30
            while not _jcmd_dumps(report) and time.monotonic() < deadline:
                time.sleep(0.05)
            expect(_jcmd_dumps(report), 'no dump with reason "jcmd" in %s within 30 s of jcmd',
                   report)
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


WARNING_LINE = re.compile(r'WARNING', re.I)


def _jni_warnings(run):
    """-Xcheck:jni's JNI warnings of a run, with numbers masked."""
    found = set()
    for line in (run.stdout + '\n' + run.stderr).splitlines():
        if WARNING_LINE.search(line) and 'jni' in line.lower():
            found.add(re.sub(r'0x[0-9a-fA-F]+|\d+', 'N', line.strip()))
    return found


def case_checkjni(ctx):
    plain = ctx.run_java('CheckJni', jvm_args=['-Xcheck:jni'], with_agent=False)
    checked = ctx.run_java('CheckJni', jvm_args=['-Xcheck:jni'])
    extra = _jni_warnings(checked) - _jni_warnings(plain)
    expect(not extra, 'JNI warnings with the agent that the run without it does not show:\n  %s',
           '\n  '.join(sorted(extra)))
    for run in (plain, checked):
        expect('FATAL ERROR' not in run.stdout + run.stderr, 'FATAL ERROR under -Xcheck:jni')
    _, last = load_report(ctx.report_path())
    for (kind, code, _, _, _, _), count in zip(ARRAY_KINDS, range(3, 11)):
        expect_row(last, 'Pairs.balanced' + kind, 'Get%sArrayElements' % kind, '([%s)V' % code,
                   acquired=count, released=count, live=0, live_bytes=0)
    strings = 'pinwatch.fixtures.Pairs$Strings.'
    expect_row(last, strings + 'balancedChars', 'GetStringChars', STRING_SIG,
               acquired=11, released=11, live=0)
    expect_row(last, strings + 'balancedUtf', 'GetStringUTFChars', STRING_SIG,
               acquired=12, released=12, live=0)
    expect_row(last, 'Pairs.balancedArrayCritical', 'GetPrimitiveArrayCritical', '([J)V',
               acquired=13, released=13, live=0)
    expect_row(last, strings + 'balancedCritical', 'GetStringCritical', STRING_SIG,
               acquired=14, released=14, live=0)
    expect_row(last, 'Pairs.leakInt', 'GetIntArrayElements', '([I)V',
               acquired=2, released=0, live=2, live_bytes=2 * 67 * 4)
    expect_row(last, strings + 'leakUtf', 'GetStringUTFChars', STRING_SIG,
               acquired=3, released=0, live=3, live_bytes=3 * modified_utf8_size(PAIRS_UTF))


def _all_released(last, rows, what):
    live = [('%s live=%d' % (row_name(r), r['live'])) for r in rows if r['live'] != 0]
    expect(not live, '%s: rows still live at exit:\n  %s', what, '\n  '.join(live))
    expect(last['totals']['live'] == 0, '%s: totals.live expected 0, got %d',
           what, last['totals']['live'])


def case_jdk_workload(ctx):
    ctx.run_java('JdkWorkload')
    _, last = load_report(ctx.report_path())
    _all_released(last, last['rows'], 'JDK workload')
    seen = [r for r in last['rows'] if r['acquired'] > 0]
    expect(seen, 'no row with acquired > 0: the JDK\'s own natives were not seen')
    print('JDK rows: ' + ', '.join('%s acquired=%d' % (row_name(r), r['acquired']) for r in seen))


def case_lz4(ctx):
    missing = [p for p in (LZ4_JAR, LZ4_JNI_LIB) if not os.path.exists(p)]
    expect(not missing, 'lz4-java is a required test dependency (Debian packages liblz4-java '
           'and liblz4-jni); missing: %s', ', '.join(missing))
    # Debian's lz4-java calls System.loadLibrary("lz4-java") first.
    ctx.run_java('Lz4Workload', classpath=ctx.jar + os.pathsep + LZ4_JAR, library_path=LZ4_JNI_DIR)
    _, last = load_report(ctx.report_path())
    rows = [r for r in last['rows'] if r['method'].startswith('net.jpountz.')]
    expect(rows, 'no rows for net.jpountz.* methods; rows: %s',
           [row_name(r) for r in last['rows']])
    expect(sum(r['acquired'] for r in rows) > 0, 'net.jpountz.* rows acquired nothing')
    _all_released(last, rows, 'lz4-java')
    print('lz4 rows: ' + ', '.join('%s acquired=%d' % (row_name(r), r['acquired']) for r in rows))


def _rejects(ctx, options, name):
    run = ctx.run_java('Hello', agent_options=options, expect_rc=None)
    expect(run.returncode != 0, 'options %r: JVM exit status expected non-zero, got 0', options)
    expect('HELLO-RAN' not in run.stdout, 'options %r: main ran', options)
    errors = [line for line in run.stderr.splitlines() if line.startswith('[pinwatch] ERROR')]
    expect(len(errors) == 1, 'options %r: expected one "[pinwatch] ERROR" line on stderr, got %d',
           options, len(errors))
    expect(name in errors[0], 'options %r: error line should name %r: %s', options, name, errors[0])


def case_options(ctx):
    _rejects(ctx, 'bogus=1', 'bogus')
    # A valid key first: the parser must not stop before the bad value.
    _rejects(ctx, 'file=%s,format=xml' % ctx.report_path('never.jsonl'), 'xml')

    run = ctx.run_java('Hello', agent_options='help', expect_rc=None)
    expect('HELLO-RAN' not in run.stdout, 'help: main ran')
    lines = (run.stdout + '\n' + run.stderr).splitlines()
    for key, default in (('file', 'stderr'), ('format', 'text')):
        expect(any(re.search(r'\b%s\b' % key, l) and default in l for l in lines),
               'help: expected a line listing %r with its default %r', key, default)

    text = ctx.report_path('pins.txt')
    run = ctx.run_java('Hello', agent_options='file=%s,format=text' % text)
    expect('HELLO-RAN' in run.stdout, 'format=text: main did not run')
    expect(os.path.exists(text) and os.path.getsize(text) > 0, 'format=text: no report in %s', text)
    with open(text, encoding='utf-8', errors='replace') as f:
        first = f.readline()
    expect(not first.lstrip().startswith('{'), 'format=text wrote JSON: %.200s', first)

    # No options: the report goes to stderr.
    run = ctx.run_java('Hello', agent_options='')
    expect('HELLO-RAN' in run.stdout, 'no options: main did not run')
    # Ignore the JVM's own note when a setup sets JAVA_TOOL_OPTIONS.
    report = [l for l in run.stderr.splitlines() if l.strip() and not l.startswith('Picked up ')]
    expect(report, 'no options: expected the exit report on stderr, stderr is empty')


CASES = {
    'pairs': case_pairs,
    'release-modes': case_release_modes,
    'helper-depth': case_helper_depth,
    'register-natives': case_register_natives,
    'native-thread': case_native_thread,
    'threads': case_threads,
    'unmatched': case_unmatched,
    'jcmd-midrun': case_jcmd_midrun,
    'checkjni': case_checkjni,
    'jdk-workload': case_jdk_workload,
    'lz4': case_lz4,
    'options': case_options,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('case', choices=sorted(CASES))
    parser.add_argument('--jdk-name', required=True)
    parser.add_argument('--jdk-home', required=True)
    parser.add_argument('--agent', required=True)
    parser.add_argument('--jar', required=True)
    parser.add_argument('--fixture-lib', required=True)
    parser.add_argument('--fixture-src', required=True)
    args = parser.parse_args()

    ctx = Context(args.case, args.jdk_name, args.jdk_home, os.path.abspath(args.agent),
                  os.path.abspath(args.jar), os.path.abspath(args.fixture_lib),
                  os.path.abspath(args.fixture_src))
    try:
        ctx.require_jdk()
        for label, path in (('agent', ctx.agent), ('fixture jar', ctx.jar),
                            ('fixture library', ctx.fixture_lib)):
            expect(os.path.exists(path), '%s not built: %s', label, path)
        CASES[args.case](ctx)
    except SystemExit:
        ctx.cleanup()
        raise
    except Exception as e:  # a crash of the checker is a failure too, with the same context
        if isinstance(e, TestFailure):
            print('FAIL: %s on %s: %s' % (args.case, args.jdk_name, e))
        else:
            print('FAIL: %s on %s: checker error' % (args.case, args.jdk_name))
            traceback.print_exc(file=sys.stdout)
        for number, run in enumerate(ctx.runs, 1):
            print('\n=== JVM run %d of %d ===\n%s' % (number, len(ctx.runs), run.describe()))
            if run.report_path and os.path.exists(run.report_path):
                with open(run.report_path, encoding='utf-8', errors='replace') as f:
                    print('--- report %s ---\n%s' % (run.report_path, tail(f.read(), 20)))
        print('\nscratch files kept in ' + ctx.tmpdir)
        return 1
    ctx.cleanup()
    print('PASS: %s on %s' % (args.case, args.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
