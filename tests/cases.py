#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pinwatch JVM test cases.  One case per invocation:

    cases.py CASE --jdk-name jdk17 --jdk-home DIR --agent libpinwatch.so \
             --jar pwfixtures.jar --fixture-lib libpwfixture.so --fixture-src pwfixture.c

Exit status: 0 pass, 1 fail (with expected vs got, the JVM command line and
its output), 77 skip (JDK not installed, or too old for the case: virtual
threads need JDK 21).  The expected numbers mirror the
fixtures in tests/fixtures/pinwatch/fixtures/*.java; each count and array
length is distinct so a pin charged to the wrong row cannot pass.
"""

import argparse
import json
import os
import re
import select
import subprocess
import sysconfig
import sys
import time

import jvmtest

from jvmtest import (FIXTURE_PKG, JVM_TIMEOUT, QEMU_ROOT, SKIP, TIME_SCALE, Context, JvmRun, Session,
                     TestFailure, check_series, expect, expect_row, find_row, jcmd_return_code, load_report,
                     modified_utf8_size, read_dumps, row_name, rows_of, source_line, tail)

# Debian's liblz4-java and liblz4-jni: this machine's, or the arm64 tree's under qemu.
if QEMU_ROOT:
    LZ4_JAR = os.path.join(QEMU_ROOT, 'usr/share/java/lz4-java.jar')
    LZ4_JNI_DIR = os.path.join(QEMU_ROOT, 'usr/lib/aarch64-linux-gnu/jni')
else:
    LZ4_JAR = '/usr/share/java/lz4-java.jar'
    LZ4_JNI_DIR = '/usr/lib/%s/jni' % (sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu')
LZ4_JNI_LIB = os.path.join(LZ4_JNI_DIR, 'liblz4-java.so')

# For cases that check every finding is the fixture's while long_critical is
# not what they test: a critical region (the fixture's own or the JDK's, such
# as Inflater's) can outlast the default 10 ms under qemu on a loaded machine.
NO_LONG_CRITICAL = ',critical_ms=600000'

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


def case_fast_path(ctx):
    """The shortcuts of the hot path (a length remembered per invocation for
    argument arrays) give exactly the figures the slow path gives; the
    cross-thread side is the threads case."""
    ctx.run_java('FastPath')
    _, last = load_report(ctx.report_path())
    expect_row(last, 'FastPath.sameArgument', 'GetLongArrayElements', '([JII)I',
               acquired=3 * 40, released=3 * 33, live=3 * 7, leaked=3 * 7, live_bytes=3 * 7 * 331 * 8)
    expect_row(last, 'FastPath.reusedLocal', 'GetLongArrayElements', '(II)I',
               acquired=100, released=0, live=100, leaked=100,
               live_bytes=sum(100 + i for i in range(100)) * 8)
    expect_row(last, 'FastPath.twoArguments', 'GetIntArrayElements', '([I[II)I',
               acquired=40, released=32, live=8, leaked=8, live_bytes=4 * 173 * 4 + 4 * 211 * 4)


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


# --------------------------------------------------------------------------
# Triggers, leaked vs held, exit status, suppressions, late attach
# --------------------------------------------------------------------------

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


# Two carriers for thousands of virtual threads: each one's calls land on
# either, so a pin taken on one is often released on the other.
VIRTUAL_THREADS = 2000
VIRTUAL_FLAGS = ['-Djdk.virtualThreadScheduler.parallelism=2',
                 '-Djdk.virtualThreadScheduler.maxPoolSize=2']
# Per virtual thread (VirtualThreads.java): leaks, balanced pairs, take/give
# pairs across a yield, plus the one held across the dump.
VT_LEAKS, VT_BALANCED, VT_SPLITS = 2, 3, 3


def case_virtual_threads(ctx):
    """pinwatch's thread state is per OS thread, i.e. per carrier: a pin
    taken in one native call of a virtual thread and released in a later
    one is leaked when the first call returns, and released from whichever
    carrier the virtual thread runs on by then.  Counts must stay exact."""
    feature = _java_feature(ctx)
    if feature < 21:
        print('SKIP: virtual threads need JDK 21 or later; %s is JDK %d' % (ctx.jdk_name, feature))
        raise SystemExit(SKIP)
    n = VIRTUAL_THREADS
    report = ctx.report_path()
    argv = ctx.java_argv('VirtualThreads', args=[str(n)], jvm_args=VIRTUAL_FLAGS)
    with Session(ctx, argv) as s:
        s.run.report_path = report
        m = s.wait_for(r'^HOLDING (\d+)$')
        expect(int(m.group(1)) == s.pid, 'fixture pid %s is not the java process %d',
               m.group(1), s.pid)
        s.jcmd('JVMTI.data_dump')
        _wait_for_dump(report, 'jcmd', 'jcmd JVMTI.data_dump')
        s.send('go')
        rc = s.finish()
    expect(rc == 0, 'JVM exit status: expected 0, got %s', rc)
    out = s.stdout_text()
    expect('DONE' in out, 'fixture did not print DONE')
    m = re.search(r'^MOVED (\d+) (\d+)$', out, re.M)
    expect(m, 'fixture printed no MOVED line')
    moved, pairs = int(m.group(1)), int(m.group(2))
    expect(pairs == n * (VT_SPLITS + 1), 'take/give pairs: expected %d, got %d',
           n * (VT_SPLITS + 1), pairs)
    # The point of the case: releases from another carrier than the Get's.
    expect(moved > 0, 'no take/give pair of %d changed carriers: the case proves nothing', pairs)
    m = re.search(r'^CARRIERS (\d+)$', out, re.M)
    expect(m and 1 <= int(m.group(1)) <= 2, 'carriers: expected 1 or 2 (parallelism=2), got %s',
           m.group(1) if m else None)
    print('%d virtual threads on %s carriers: %d of %d take/give pairs changed carriers'
          % (n, m.group(1), moved, pairs))

    dumps, last = load_report(report, extended=True)
    check_series(dumps)
    jcmds = [d for d in dumps if d['reason'] == 'jcmd']
    expect(len(jcmds) == 1, 'expected exactly one "jcmd" dump, got %d', len(jcmds))
    leaks, balanced, splits = n * VT_LEAKS, n * VT_BALANCED, n * (VT_SPLITS + 1)
    take_sig = '([B[I)J'
    # Every virtual thread is parked holding the pin its last take() took:
    # that call returned, so the pin is leaked, not held.
    expect_row(jcmds[0], 'VirtualThreads.take', 'GetByteArrayElements', take_sig,
               acquired=splits, released=splits - n, live=n, leaked=n, held=0, live_bytes=n * 37)
    for dump in (jcmds[0], last):
        expect_row(dump, 'VirtualThreads.leak', 'GetIntArrayElements', '([I)I', acquired=leaks,
                   released=0, live=leaks, leaked=leaks, held=0, live_bytes=leaks * 29 * 4)
        expect_row(dump, 'VirtualThreads.balanced', 'GetLongArrayElements', '([J)I',
                   acquired=balanced, released=balanced, live=0, leaked=0, held=0)
    # ... and every one of them came back, many from another carrier.
    row = expect_row(last, 'VirtualThreads.take', 'GetByteArrayElements', take_sig,
                     acquired=splits, released=splits, live=0, leaked=0, held=0, live_bytes=0)
    # The Java callers are the virtual thread's own frames.
    callers = [(s.get('java_stack') or [{}])[0].get('method') for s in row['sites']]
    expect(callers == [FIXTURE_PKG + 'VirtualThreads.split'],
           'take: the java_stack of its one site should start at VirtualThreads.split, got %s',
           callers)
    ours = {'pinwatch.fixtures.VirtualThreads.' + m for m in ('take', 'leak', 'balanced')}
    others = [row_name(r) for r in last['rows']
              if r['method'].startswith(FIXTURE_PKG) and r['method'] not in ours]
    expect(not others, 'rows the fixture did not cause: %s', others)
    for dump, live in ((jcmds[0], leaks + n), (last, leaks)):
        t = dump['totals']
        got = {k: t[k] for k in ('live', 'leaked', 'held', 'unmatched_releases', 'double_releases',
                                 'lost', 'findings')}
        want = {'live': live, 'leaked': live, 'held': 0, 'unmatched_releases': 0,
                'double_releases': 0, 'lost': 0, 'findings': 0}
        expect(got == want, 'dump reason=%s totals: expected %s, got %s', dump['reason'], want, got)
    # A pin leaked at return is announced once per site, here at take().
    lines = [m for m in _leak_lines(s.stderr_text()) if m.group(1).startswith(FIXTURE_PKG)]
    got = sorted((m.group(1), m.group(3)) for m in lines)
    want = [(FIXTURE_PKG + 'VirtualThreads.leak', 'GetIntArrayElements'),
            (FIXTURE_PKG + 'VirtualThreads.take', 'GetByteArrayElements')]
    expect(got == want, 'UNRELEASED lines: expected one each for %s, got %s', want,
           [m.group(0) for m in lines])


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
    # 400 leaks, one per ~2 ms: crossings at 100, 200 and 400 pins.
    dumps, _ = _slow_leak(ctx, 'threshold=100', 400, 2, 500)
    reasons = [d['reason'] for d in dumps]
    expect(set(reasons) <= {'threshold', 'exit'}, 'unexpected reasons: %s', reasons)
    lives = [d['totals']['live'] for d in dumps if d['reason'] == 'threshold']
    expect(len(lives) == 3, 'threshold=100, 400 leaks: expected 3 "threshold" reports (at 100, '
           '200, 400), got %d with totals.live %s', len(lives), lives)
    for live, n in zip(lives, (100, 200, 400)):
        expect(n <= live < n + 50, 'threshold reports: totals.live %s, expected each in [N, N+50) '
               'for N = 100, 200, 400', lives)

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
    for number, dump in enumerate(dumps[1:], 2):
        expect(dump['since_ms'] > 0, 'report %d (reason=%s): since_ms expected > 0, got %d',
               number, dump['reason'], dump['since_ms'])
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


def _write_rules(ctx, name, lines):
    path = os.path.join(ctx.tmpdir, name)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    return path


def _exit_status_lines(run):
    return [l for l in run.stderr.splitlines() if l.startswith('[pinwatch] exit status')]


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


def _agent_load(session, ctx, options):
    """jcmd JVMTI.agent_load with the options in the double quotes jcmd needs;
    returns the agent's return code (None when jcmd printed none)."""
    out = session.jcmd('JVMTI.agent_load', ctx.agent, '"%s"' % options)
    return jcmd_return_code(out), out


def _expect_loaded(code, out, options):
    expect(code in (None, 0) and 'error' not in out.lower(),
           'agent_load "%s": expected success, jcmd said:\n%s', options, tail(out))


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
    # between it and the exit report, so the exit report's since_ms is shorter.
    check_series(commands)
    check_series(commands + dumps, check_since=False)
    gap = last['uptime_ms'] - commands[0]['uptime_ms']
    expect(0 < last['since_ms'] <= gap + 50, 'exit report: since_ms %d, expected > 0 and at most '
           '%d (the uptime since the JSON command report)', last['since_ms'], gap)
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
        done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=60, universal_newlines=True,
                              errors='replace')
        s.run.extra += '$ %s\n(exit status %d)\n%s\n' % (' '.join(argv), done.returncode,
                                                          done.stdout.rstrip())
        expect(done.returncode == 0, 'pinwatch attach exited %d:\n%s', done.returncode,
               tail(done.stdout))
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


def case_options_soak(ctx):
    never = ctx.report_path('never.jsonl')
    for options, name in (('threshold=-1', 'threshold'), ('threshold=abc', 'threshold'),
                          ('threshold=', 'threshold'),
                          ('interval=0.0001x', 'interval'), ('interval=abc', 'interval'),
                          ('interval=-1', 'interval'),
                          ('exitcode=0', 'exitcode'), ('exitcode=256', 'exitcode'),
                          ('exitcode=-3', 'exitcode'),
                          ('suppress=', 'suppress'), ('suppress=/nonexistent', 'suppress')):
        _rejects(ctx, options, name)
        # After a valid option too: the parser checks every item.
        _rejects(ctx, 'file=%s,format=json,%s' % (never, options), name)

    run = ctx.run_java('Hello', agent_options='help', expect_rc=None)
    expect('HELLO-RAN' not in run.stdout, 'help: main ran')
    lines = (run.stdout + '\n' + run.stderr).splitlines()
    for key in ('file', 'format', 'threshold', 'interval', 'exitcode', 'suppress', 'dump'):
        expect(any(re.search(r'\b%s\b' % key, l) for l in lines),
               'help: expected a line listing the option %r', key)
    expect(any(re.search(r'\bthreshold\b', l) and '10000' in l for l in lines),
           'help: expected the threshold line to show its default 10000')

    # Every new option at a valid edge value, together: the JVM runs.
    rules = _write_rules(ctx, 'comments.supp', ['# nothing but comments', '', '  # indented'])
    report = ctx.report_path()
    for options in ('threshold=0,interval=0,exitcode=1', 'threshold=1000000,interval=0.5,'
                    'exitcode=255,suppress=' + rules):
        if os.path.exists(report):
            os.remove(report)
        run = ctx.run_java('Hello', agent_options='file=%s,format=json,%s' % (report, options))
        expect('HELLO-RAN' in run.stdout, '%s: main did not run', options)
        load_report(report, extended=True)



# --------------------------------------------------------------------------
# Diagnosis: findings, the double release, stacks, collapsed output
# --------------------------------------------------------------------------

def _checked_jni(ctx):
    return '-Xcheck:jni' in ctx.env.get('JAVA_TOOL_OPTIONS', '')


def _java_src(ctx, cls):
    return os.path.join(os.path.dirname(ctx.fixture_src), 'pinwatch', 'fixtures', cls + '.java')


def _frame_key(frame):
    return (frame.get('symbol'), frame.get('line'), bool(frame.get('inlined')),
            bool(frame.get('tail_call')))


def _show_frames(frames):
    return ' <- '.join('%s:%s%s%s' % (f.get('symbol'), f.get('line'),
                                      ' [inlined]' if f.get('inlined') else '',
                                      ' [tail]' if f.get('tail_call') else '')
                       for f in frames) or '(none)'


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


# The misuse matrix (Misuse.java, pwmisuse.c): family number -> (acquire, release).
MISUSE_FAMILIES = [('Get%sArrayElements' % k, 'Release%sArrayElements' % k) for k, *_ in ARRAY_KINDS] + [
    ('GetPrimitiveArrayCritical', 'ReleasePrimitiveArrayCritical'),
    ('GetStringChars', 'ReleaseStringChars'),
    ('GetStringUTFChars', 'ReleaseStringUTFChars'),
    ('GetStringCritical', 'ReleaseStringCritical'),
]


def _misuse_reps(acquire, release):
    return 1 + (acquire + 2 * release) % 3     # Misuse.reps


def _misuse_run(ctx, checked):
    """One JVM run of the matrix; checks its report.  Returns the pairs checked."""
    name = 'misuse-checked.jsonl' if checked else 'misuse.jsonl'
    report = ctx.report_path(name)
    run = ctx.run_java('Misuse', agent_options='file=%s,format=json' % report + NO_LONG_CRITICAL,
                       jvm_args=['-Xcheck:jni'] if checked else [], report_path=report)
    pairs = len(MISUSE_FAMILIES) * (len(MISUSE_FAMILIES) - 1)
    calls = sum(_misuse_reps(a, r) for a in range(len(MISUSE_FAMILIES))
                for r in range(len(MISUSE_FAMILIES)) if a != r)
    expect('MATRIX pairs=%d calls=%d' % (pairs, calls) in run.stdout.splitlines(),
           'fixture should print MATRIX pairs=%d calls=%d, printed %s', pairs, calls,
           [l for l in run.stdout.splitlines() if l.startswith('MATRIX')])
    expect('DONE' in run.stdout, 'fixture did not print DONE')
    output = run.stdout + run.stderr
    expect('FATAL ERROR' not in output, 'the JVM reported a FATAL ERROR')
    warnings = _jni_warnings(run)
    expect(not warnings, 'JNI warnings from the JVM:\n  %s', '\n  '.join(sorted(warnings)))
    _, last = load_report(report, extended=True)
    found = _findings(last)
    want = {}
    for a, (acquire, _) in enumerate(MISUSE_FAMILIES):
        for r, (_, release) in enumerate(MISUSE_FAMILIES):
            if a != r:
                want[(acquire, release)] = _misuse_reps(a, r)
    got = {}
    for f in found:
        key = (f['kind'], f['method'], f['function'], f['call'])
        got[key] = got.get(key, 0) + f['count']
    method = 'pinwatch.fixtures.Misuse.pair'
    expected = {('wrong_function', method, acquire, release): n
                for (acquire, release), n in want.items()}
    missing = sorted('%s -> %s x%d (got %s)' % (k[2], k[3], n, got.get(k))
                     for k, n in expected.items() if got.get(k) != n)
    extra = sorted('%s %s -> %s x%d' % (k[0], k[2], k[3], n)
                   for k, n in got.items() if k not in expected)
    expect(not missing and not extra, '%s: wrong_function findings differ from the matrix '
           '(%d pairs): %d wrong or missing: %s; %d not caused by the matrix: %s',
           'checked JNI' if checked else 'plain', len(expected), len(missing), missing[:20],
           len(extra), extra[:20])
    expect(last['totals']['findings'] == calls, 'totals.findings expected %d, got %d', calls,
           last['totals']['findings'])
    signature = '(IILjava/lang/Object;Ljava/lang/Object;)I'
    for a, (acquire, _) in enumerate(MISUSE_FAMILIES):
        n = sum(_misuse_reps(a, r) for r in range(len(MISUSE_FAMILIES)) if r != a)
        expect_row(last, 'Misuse.pair', acquire, signature, acquired=n, released=n, live=0,
                   live_bytes=0)
    t = last['totals']
    for key in ('double_releases', 'unmatched_releases'):
        expect(t[key] == 0, 'totals.%s expected 0, got %d', key, t[key])
    return len(expected)


def case_misuse_matrix(ctx):
    """Every acquire family's pin released through every other family's
    release, with an object of the release's kind: the agent must send it
    to the pin's own family and object, with and without -Xcheck:jni."""
    results = []
    for checked in (False, True):
        results.append('%s: %d pairs' % ('-Xcheck:jni' if checked else 'plain',
                                         _misuse_run(ctx, checked)))
    print('misuse matrix on %s: %s' % (ctx.jdk_name, ', '.join(results)))


# -Xcheck:jni names the variadic function a native method called (JniNames.java, pwnames.c).
JNI_NAMES_VARIADIC = ('CallObjectMethod', 'CallNonvirtualObjectMethod', 'CallStaticObjectMethod')
JNI_NAMES_CALLS = 3                       # JniNames.CALLS
UNCHECKED_WARNING = re.compile(r'^WARNING in native method: JNI call made without checking exceptions '
                               r'when required to from (\w+)\s*$')


def _unchecked_warnings(run):
    """How many times each function is named in -Xcheck:jni's "without
    checking exceptions" warnings."""
    named = {}
    for line in (run.stdout + '\n' + run.stderr).splitlines():
        m = UNCHECKED_WARNING.match(line.strip())
        if m:
            named[m.group(1)] = named.get(m.group(1), 0) + 1
    return named


def case_jni_names(ctx):
    """The variadic JNI functions pinwatch wraps reach the JVM as the same
    variadic functions: -Xcheck:jni's warnings name what the application
    called, with and without the agent alike, and the arguments (some on
    the stack) arrive intact."""
    plain = ctx.run_java('JniNames', jvm_args=['-Xcheck:jni'], with_agent=False)
    want = _unchecked_warnings(plain)
    for name in JNI_NAMES_VARIADIC:
        expect(want.get(name) == JNI_NAMES_CALLS, 'without the agent, -Xcheck:jni should name %s %d '
               'times, named %s', name, JNI_NAMES_CALLS, want)
    results = []
    for checked in (True, False):
        report = ctx.report_path('names-%s.jsonl' % ('checked' if checked else 'plain'))
        run = ctx.run_java('JniNames', jvm_args=['-Xcheck:jni'] if checked else [], report_path=report,
                           agent_options='file=%s,format=json' % report)
        expect('GOOD %d' % (4 * JNI_NAMES_CALLS) in run.stdout.splitlines(),
               'every variadic call should get its arguments right: GOOD %d expected, printed %s',
               4 * JNI_NAMES_CALLS, [l for l in run.stdout.splitlines() if l.startswith('GOOD')])
        if checked:
            got = _unchecked_warnings(run)
            expect(got == want, '-Xcheck:jni warnings name other functions with the agent: without '
                   '%s, with %s', want, got)
        _, last = load_report(report, extended=True)
        for name in ('NewObject',) + JNI_NAMES_VARIADIC:
            expect_ref(last, 'local', 'pinwatch.fixtures.JniNames.calls', name,
                       created=JNI_NAMES_CALLS, live=0)
        results.append('%s ok' % ('-Xcheck:jni' if checked else 'plain'))
    print('jni-names on %s: %s' % (ctx.jdk_name, ', '.join(results)))


# JNI functions later JDKs appended to JDK 17's table, and the last of JDK
# 17's: (call, count inside the critical, JNI version that added it, marker).
NEWER_JNI = [
    ('GetModule', 2, 0x00090000, 'newer-jni-module'),
    ('IsVirtualThread', 3, 0x00150000, 'newer-jni-virtual'),
    ('GetStringUTFLengthAsLong', 5, 0x00180000, 'newer-jni-utf-length'),
]


def _jni_version_of(feature):
    """The JNI version a JDK's GetVersion reports (its jni.h's newest)."""
    if feature >= 24:
        return 0x00180000
    if feature >= 21:
        return 0x00150000
    if feature >= 19:
        return feature << 16
    return 0x000a0000


def _java_feature(ctx):
    out = subprocess.run([ctx.java, '-XshowSettings:properties', '-version'], env=ctx.env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True,
                         timeout=JVM_TIMEOUT).stdout
    m = re.search(r'^\s*java\.specification\.version = (\d+)\s*$', out, re.M)
    expect(m, 'java -XshowSettings:properties printed no java.specification.version:\n%s',
           out[-2000:])
    return int(m.group(1))


def case_newer_jni(ctx):
    """The guard covers the JNI functions of the running JVM's table, those
    newer than the jni.h pinwatch is compiled against included."""
    feature = _java_feature(ctx)
    # Every finding must be the fixture's.
    run = ctx.run_java('NewerJni', agent_options='file=%s,format=json' % ctx.report_path() + NO_LONG_CRITICAL)
    expect('DONE' in run.stdout, 'fixture did not print DONE')
    m = re.search(r'^JNI_VERSION (0x[0-9a-f]{8})$', run.stdout, re.M)
    expect(m, 'fixture printed no JNI_VERSION line')
    version = int(m.group(1), 16)
    expect(version == _jni_version_of(feature), 'JDK %d: GetVersion expected 0x%08x, got 0x%08x',
           feature, _jni_version_of(feature), version)
    _, last = load_report(ctx.report_path(), extended=True)
    found = _findings(last)
    pins = 0
    for call, count, since, marker in NEWER_JNI:
        if version < since:
            mine = [f for f in found if f['call'] == call]
            expect(not mine, 'JNI 0x%08x has no %s, yet there are findings for it: %s', version,
                   call, mine)
            print('JNI 0x%08x (JDK %d) has no %s: not called, no finding' % (version, feature, call))
            continue
        f = _finding(found, 'jni_in_critical', 'NewerJni.inCritical', call)
        got = (f['signature'], f['function'], f['count'])
        want = ('([IILjava/lang/Object;)J', 'GetPrimitiveArrayCritical', count)
        expect(got == want, 'finding jni_in_critical call %s: (signature, function, count) '
               'expected %s, got %s', call, want, got)
        symbol = fixture_symbol('NewerJni', 'inCritical')
        _expect_site_line(ctx, f, 'acquire', symbol, 'newer-jni-get')
        _expect_site_line(ctx, f, 'call', symbol, marker)
        pins += count
    calls = [c for c, _, since, _ in NEWER_JNI if version >= since]
    others = ['%s %s %s x%d' % (f['kind'], f['method'], f['call'], f['count'])
              for f in found if f['call'] not in calls]
    expect(not others, 'findings the fixture did not cause: %s', others)
    expect_row(last, 'NewerJni.inCritical', 'GetPrimitiveArrayCritical', '([IILjava/lang/Object;)J',
               acquired=pins, released=pins, live=0, live_bytes=0)


def case_double_release_safe(ctx):
    plain = ctx.run_java('DoubleRelease', with_agent=False, expect_rc=None, may_crash=True)
    expect('START' in plain.stdout, 'without the agent: the fixture never started')
    expect(plain.returncode != 0 and 'DONE' not in plain.stdout,
           'without the agent the double free should kill the JVM, yet it exited %s%s',
           plain.returncode, ' after DONE' if 'DONE' in plain.stdout else '')
    # glibc writes to stderr, -Xcheck:jni's FATAL ERROR goes to stdout.
    how = [l for l in (plain.stdout + '\n' + plain.stderr).splitlines()
           if 'double free' in l or 'FATAL ERROR' in l or 'free()' in l]
    print('without the agent: exit status %s (%s)' % (plain.returncode,
                                                       '; '.join(how) or 'no message'))

    report = ctx.report_path()
    run = ctx.run_java('DoubleRelease', may_crash=True)
    expect('DONE' in run.stdout, 'with the agent: the fixture did not print DONE')
    _, last = load_report(report, extended=True)
    expect_row(last, 'DoubleRelease.releaseTwice', 'GetLongArrayElements', '([J)V',
               acquired=7, released=7, live=0, live_bytes=0, leaked=0)
    found = _findings(last)
    f = _finding(found, 'double_release', 'DoubleRelease.releaseTwice',
                 'ReleaseLongArrayElements')
    expect((f['function'], f['count']) == ('GetLongArrayElements', 7),
           'double_release finding: (function, count) expected (GetLongArrayElements, 7), got %s',
           (f['function'], f['count']))
    symbol = fixture_symbol('DoubleRelease', 'releaseTwice')
    _expect_site_line(ctx, f, 'acquire', symbol, 'double-release-get')
    _expect_site_line(ctx, f, 'call', symbol, 'double-release-second')
    t = last['totals']
    expect((t['double_releases'], t['unmatched_releases']) == (7, 0),
           'totals (double_releases, unmatched_releases) expected (7, 0), got (%d, %d)',
           t['double_releases'], t['unmatched_releases'])


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


RACE_ROUNDS = 100000


def case_release_race(ctx):
    """The owner of a pin and a second thread release it at the same moment,
    100000 times: one release reaches the JVM (a second would free the copy
    twice and abort the JVM), the other is one double_release, every time."""
    report = ctx.report_path()
    run = ctx.run_java('RaceRelease', [str(RACE_ROUNDS)], may_crash=True)
    expect('DONE %d' % RACE_ROUNDS in run.stdout, 'the fixture did not finish its %d rounds', RACE_ROUNDS)
    _, last = load_report(report, extended=True)
    expect_row(last, 'RaceRelease.race', 'GetLongArrayElements', '([JI)I',
               acquired=RACE_ROUNDS, released=RACE_ROUNDS, live=0, live_bytes=0, leaked=0)
    found = [f for f in _findings(last)
             if (f['kind'], f['method']) == ('double_release', 'pinwatch.fixtures.RaceRelease.race')]
    counted = sum(f['count'] for f in found)
    expect(counted == RACE_ROUNDS, 'double_release findings of RaceRelease.race: %d, expected %d',
           counted, RACE_ROUNDS)
    t = last['totals']
    expect((t['double_releases'], t['unmatched_releases']) == (RACE_ROUNDS, 0),
           'totals (double_releases, unmatched_releases) expected (%d, 0), got (%d, %d)',
           RACE_ROUNDS, t['double_releases'], t['unmatched_releases'])
    # Which of the two lost, by the call site of the dropped release.
    losers = {}
    for f in found:
        for site in f['sites']:
            if site.get('role') == 'call' and site.get('frames'):
                losers[site['frames'][0].get('symbol', '?')] = f['count']
    print('%d rounds: one release each passed on, one double_release each; lost by %s'
          % (RACE_ROUNDS, losers or 'one call site'))


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


# --------------------------------------------------------------------------
# JNI references (Refs.java, RefsAttach.java, pwrefs.c)
# --------------------------------------------------------------------------

REF_KINDS = ('global', 'weak', 'local')


def references_of(dump):
    refs = dump.get('references')
    expect(isinstance(refs, dict), 'dump reason=%s: no "references" section', dump.get('reason'))
    return refs


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
                               r"the JVM's own, (none growing since the previous report|no previous report "
                               r"to judge growth by) \(format=json lists them\)$")


def _text_reports(path):
    """Each report of a format=text file: reason, live references, suspect
    rows (live, created, deleted, +live or None, kind, function, method) and
    the not-suspects line's (rows, live, the JVM's own rows, judged)."""
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
    a suspect when its live count grew since the previous report (the JVM's
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
    jvm_rows = [r for r in references_of(dump_json)['rows']
                if r['live'] > 0 and all(os.path.basename((s['frames'] or [{}])[0].get('library') or '')
                                         == 'libjvm.so' for s in r['sites'] if s['live'] > 0)]
    expect(len(jvm_rows) == last['quiet'][2], 'the JVM\'s own rows: %d in the JSON, %d on the text '
           'report\'s not-suspects line', len(jvm_rows), last['quiet'][2])
    print('the JVM\'s own reference rows: ' + ', '.join('%s %s live=%d' % (r['method'], r['function'], r['live'])
                                                      for r in jvm_rows))

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



# --------------------------------------------------------------------------
# JNI functions HotSpot implements through the table (DirectBuffers.java,
# pwdirect.c): what the JVM calls inside them is not the application's.
# --------------------------------------------------------------------------

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
# --------------------------------------------------------------------------
# The Java API (io.pinwatch.Pinwatch, agent/java/api): ApiFixture.java.

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
    jvmtest.APP_REASONS.add('api-check "1"')
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


CASES = {
    'api': case_api,
    'api-noagent': case_api_noagent,
    'api-late-attach': case_api_late_attach,
    'pairs': case_pairs,
    'fast-path': case_fast_path,
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
    'leaked-held': case_leaked_held,
    'carried': case_carried,
    'threshold': case_threshold,
    'interval': case_interval,
    'exitcode': case_exitcode,
    'late-attach': case_late_attach,
    'late-prebound': case_late_prebound,
    'late-prebound-cli': case_late_prebound_cli,
    'attach-bad-options': case_attach_bad_options,
    'suppress': case_suppress,
    'options-soak': case_options_soak,
    'findings': case_findings,
    'misuse-matrix': case_misuse_matrix,
    'jni-names': case_jni_names,
    'newer-jni': case_newer_jni,
    'virtual-threads': case_virtual_threads,
    'double-release-safe': case_double_release_safe,
    'release-race': case_release_race,
    'stacks': case_stacks,
    'collapsed': case_collapsed,
    'refs': case_refs,
    'refs-options': case_refs_options,
    'refs-late-attach': case_refs_late_attach,
    'refs-growth': case_refs_growth,
    'direct-new': case_direct_new,
    'direct-address': case_direct_address,
    'direct-capacity': case_direct_capacity,
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
    parser.add_argument('--other-lib', help='libpwother.so (the suppress case)')
    parser.add_argument('--diag-src', help='pwdiag.c (findings, stacks, ... cases)')
    parser.add_argument('--pinwatch', help='the pinwatch command (late-prebound-cli)')
    parser.add_argument('--api-jar', help='pinwatch-api.jar (the api cases)')
    args = parser.parse_args()

    ctx = Context(args.case, args.jdk_name, args.jdk_home, os.path.abspath(args.agent),
                  os.path.abspath(args.jar), os.path.abspath(args.fixture_lib),
                  os.path.abspath(args.fixture_src))
    ctx.other_lib = os.path.abspath(args.other_lib) if args.other_lib else None
    ctx.pinwatch = os.path.abspath(args.pinwatch) if args.pinwatch else None
    ctx.api_jar = os.path.abspath(args.api_jar) if args.api_jar else None
    ctx.diag_src = (os.path.abspath(args.diag_src) if args.diag_src else
                    os.path.join(os.path.dirname(ctx.fixture_src), 'pwdiag.c'))
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
        ctx.print_failure(e)
        return 1
    ctx.cleanup()
    print('PASS: %s on %s' % (args.case, args.jdk_name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
