# SPDX-License-Identifier: Apache-2.0
"""JVM cases: pin counting itself (every Get/Release family, release modes, threads,
native threads, the fast path, misuse, JNI names, checked JNI, virtual threads).

Run through tests/jvm/cases.py, which holds the list; the expected numbers mirror
the fixtures in tests/fixtures/pinwatch/fixtures/*.java.
"""

import json
import os
import re
import subprocess
import sysconfig

from harness import (Case, FIXTURE_PKG, JVM_TIMEOUT, QEMU_ROOT, SKIP, Session, check_series, expect,
                     expect_row, load_report, modified_utf8_size, row_name, rows_of, source_line)
from common import (NO_LONG_CRITICAL, STRING_SIG, _expect_site_line, _finding, _findings, _leak_lines,
                    _wait_for_dump, expect_ref, fixture_symbol)


# Debian's liblz4-java and liblz4-jni: this machine's, or the arm64 tree's under qemu.
if QEMU_ROOT:
    LZ4_JAR = os.path.join(QEMU_ROOT, 'usr/share/java/lz4-java.jar')
    LZ4_JNI_DIR = os.path.join(QEMU_ROOT, 'usr/lib/aarch64-linux-gnu/jni')
else:
    LZ4_JAR = '/usr/share/java/lz4-java.jar'
    LZ4_JNI_DIR = '/usr/lib/%s/jni' % (sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu')


LZ4_JNI_LIB = os.path.join(LZ4_JNI_DIR, 'liblz4-java.so')


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


# The misuse matrix (Misuse.java, pwmisuse.c): family number -> (acquire, release).
MISUSE_FAMILIES = [('Get%sArrayElements' % k, 'Release%sArrayElements' % k) for k, *_ in ARRAY_KINDS] + [
    ('GetPrimitiveArrayCritical', 'ReleasePrimitiveArrayCritical'),
    ('GetStringChars', 'ReleaseStringChars'),
    ('GetStringUTFChars', 'ReleaseStringUTFChars'),
    ('GetStringCritical', 'ReleaseStringCritical'),
]


def _misuse_reps(acquire, release):
    return 1 + (acquire + 2 * release) % 3     # Misuse.reps


# The array families (elements of the eight types, array critical): pairOwn's
# matrix passes each release an array of its own type.
MISUSE_ARRAYS = len(ARRAY_KINDS) + 1


def _misuse_halves():
    """(method, families, MATRIX line's name) of the matrix's parts made in one call."""
    return (('pinwatch.fixtures.Misuse.pair', len(MISUSE_FAMILIES), 'MATRIX'),
            ('pinwatch.fixtures.Misuse.pairOwn', MISUSE_ARRAYS, 'MATRIX-OWN'))


def _misuse_run(ctx, checked):
    """One JVM run of the matrix; checks its report.  Returns the pairs
    checked in each part (pair, pairOwn, carried)."""
    name = 'misuse-checked.jsonl' if checked else 'misuse.jsonl'
    report = ctx.report_path(name)
    run = ctx.run_java('Misuse', agent_options='file=%s,format=json' % report + NO_LONG_CRITICAL,
                       jvm_args=['-Xcheck:jni'] if checked else [], report_path=report)
    output = run.stdout + run.stderr
    expect('FATAL ERROR' not in output, 'the JVM reported a FATAL ERROR: %s',
           [l for l in output.splitlines() if 'FATAL ERROR' in l])
    expect('DONE' in run.stdout, 'fixture did not print DONE')
    warnings = _jni_warnings(run)
    expect(not warnings, 'JNI warnings from the JVM:\n  %s', '\n  '.join(sorted(warnings)))
    _, last = load_report(report, extended=True)
    got = {}
    for f in _findings(last):
        key = (f['kind'], f['method'], f['function'], f['call'])
        got[key] = got.get(key, 0) + f['count']
    expected = {}
    sizes = []
    total = 0
    signature = '(IILjava/lang/Object;Ljava/lang/Object;)I'
    for method, families, line in _misuse_halves():
        pairs = families * (families - 1)
        calls = sum(_misuse_reps(a, r) for a in range(families) for r in range(families) if a != r)
        expect('%s pairs=%d calls=%d' % (line, pairs, calls) in run.stdout.splitlines(),
               'fixture should print %s pairs=%d calls=%d, printed %s', line, pairs, calls,
               [l for l in run.stdout.splitlines() if l.startswith('MATRIX')])
        for a in range(families):
            for r in range(families):
                if a != r:
                    key = ('wrong_function', method, MISUSE_FAMILIES[a][0], MISUSE_FAMILIES[r][1])
                    expected[key] = _misuse_reps(a, r)
            n = sum(_misuse_reps(a, r) for r in range(families) if r != a)
            expect_row(last, method, MISUSE_FAMILIES[a][0], signature, acquired=n, released=n,
                       live=0, live_bytes=0)
        sizes.append(pairs)
        total += calls
    # Carried: each elements family's pin given back in a later call through
    # every other array family, once with the pinned array and once with one
    # of the release's own type (withheld).
    method, elements = 'pinwatch.fixtures.Misuse.carryTake', len(ARRAY_KINDS)
    pairs = elements * (MISUSE_ARRAYS - 1)
    expect('MATRIX-CARRIED pairs=%d calls=%d' % (pairs, 2 * pairs) in run.stdout.splitlines(),
           'fixture should print MATRIX-CARRIED pairs=%d calls=%d, printed %s', pairs, 2 * pairs,
           [l for l in run.stdout.splitlines() if l.startswith('MATRIX')])
    for a in range(elements):
        for r in range(MISUSE_ARRAYS):
            if a != r:
                expected[('wrong_function', method, MISUSE_FAMILIES[a][0], MISUSE_FAMILIES[r][1])] = 2
        n = 2 * (MISUSE_ARRAYS - 1)
        expect_row(last, method, MISUSE_FAMILIES[a][0], '(ILjava/lang/Object;)Z', acquired=n,
                   released=n, live=0, live_bytes=0, leaked=0, carried=n)
    sizes.append(pairs)
    total += 2 * pairs
    missing = sorted('%s %s -> %s x%d (got %s)' % (k[1].rsplit('.', 1)[-1], k[2], k[3], n, got.get(k))
                     for k, n in expected.items() if got.get(k) != n)
    extra = sorted('%s %s %s -> %s x%d' % (k[0], k[1].rsplit('.', 1)[-1], k[2], k[3], n)
                   for k, n in got.items() if k not in expected)
    expect(not missing and not extra, '%s: findings differ from the matrix (%d pairs, only '
           'wrong_function expected): %d wrong or missing: %s; %d not caused by the matrix: %s',
           'checked JNI' if checked else 'plain', len(expected), len(missing), missing[:20],
           len(extra), extra[:20])
    expect(last['totals']['findings'] == total, 'totals.findings expected %d, got %d', total,
           last['totals']['findings'])
    t = last['totals']
    for key in ('double_releases', 'unmatched_releases'):
        expect(t[key] == 0, 'totals.%s expected 0, got %d', key, t[key])
    return sizes


def case_misuse_matrix(ctx):
    """Every acquire family's pin released through every other family's
    release, with an object of the release's kind (pair), and every array
    family's through every other array family's with an array of the
    release's own type (pairOwn): the agent must send each to the pin's own
    family and object, with one wrong_function finding, with and without
    -Xcheck:jni.  An elements pin carried into a later call (carryTake,
    carryGive) goes back to the array named only when that array can be the
    pin's, and is withheld otherwise."""
    results = []
    for checked in (False, True):
        sizes = _misuse_run(ctx, checked)
        results.append('%s: %d + %d + %d carried pairs' % ('-Xcheck:jni' if checked else 'plain',
                                                              *sizes))
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


def _jni_version_of(ctx):
    """The JNI version the JDK's GetVersion reports: the newest JNI_VERSION_*
    its own include/jni.h defines (HotSpot returns its header's newest), read
    from that JDK rather than a table that the next release would outdate."""
    header = os.path.join(ctx.jdk_home, 'include', 'jni.h')
    expect(os.path.exists(header), '%s: no include/jni.h, so no JNI version to expect', ctx.jdk_home)
    with open(header, encoding='utf-8', errors='replace') as f:
        versions = [int(v, 16) for v in re.findall(r'^#define\s+JNI_VERSION_\w+\s+(0x[0-9a-fA-F]+)\s*$',
                                                    f.read(), re.M)]
    expect(versions, '%s defines no JNI_VERSION_*', header)
    return max(versions)


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
    want = _jni_version_of(ctx)
    expect(version == want, 'JDK %d: GetVersion expected 0x%08x (the newest JNI_VERSION_* of its '
           'include/jni.h), got 0x%08x', feature, want, version)
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


# StackArgs.main: (method, JNI signature, function, calls, element size and length
# leaked per call or None when every pin is released).  The signatures put
# arguments on the stack on x86-64 and aarch64 alike (pwstackargs.c says which).
STACK_ARGS = [
    ('mixStatic', '(IFJDBFSDCFZDLjava/lang/String;FJDIF[ID)J', 'GetPrimitiveArrayCritical', 1201, None),
    ('mixInstance', '(JDJDJDJDJDJDJDJDJD[BDI)J', 'GetByteArrayElements', 1103, None),
    ('leakStack', '(IIIIIIIFFFFFFFFF[IJ)D', 'GetIntArrayElements', 13, (4, 283)),
    ('tailGet', '(IIIIIIII[J)J', 'GetLongArrayElements', 11, (8, 293)),
    # 141 levels, one call from main: the levels past the shadow stack's depth are not
    # tracked frame by frame, and their pins go to the deepest tracked level: this row.
    ('deep', '(IJJJJJJJ[ID)J', 'GetIntArrayElements', 141, None),
]


def case_stack_args(ctx):
    """Native methods with stack arguments, entered in call mode: every
    argument reaches them (the fixture checks their checksums), pins of an
    array passed on the stack are counted, a pin leaked at return is handed
    over with the result intact, and a Get made as the method's tail call is
    charged to the method and named as its own call site."""
    run = ctx.run_java('StackArgs')
    got = [l for l in run.stdout.splitlines() if l.startswith('STACKARGS ')]
    want = ['STACKARGS %s calls=%d wrong=0' % (m, 1 if m == 'deep' else calls)
            for m, _, _, calls, _ in STACK_ARGS]
    expect(got == want, 'fixture results: expected\n    %s\n  got\n    %s', '\n    '.join(want),
           '\n    '.join(got))
    _, last = load_report(ctx.report_path())
    rows = sorted((r['method'], r['function']) for r in last['rows']
                  if r.get('method', '').startswith(FIXTURE_PKG + 'StackArgs.'))
    expect(rows == sorted((FIXTURE_PKG + 'StackArgs.' + m, f) for m, _, f, _, _ in STACK_ARGS),
           'StackArgs rows: got %s', rows)
    for method, sig, function, calls, leak in STACK_ARGS:
        if leak is None:
            expect_row(last, 'StackArgs.' + method, function, sig, acquired=calls, released=calls,
                       live=0, live_bytes=0, leaked=0)
            continue
        size, length = leak
        row = expect_row(last, 'StackArgs.' + method, function, sig, acquired=calls, released=0,
                         live=calls, live_bytes=calls * size * length, leaked=calls)
        site = expect_one_site(ctx, row, fixture_symbol('StackArgs', method), calls)
        if method == 'tailGet':
            expect(site['frames'][0].get('tail_call') is True,
                   "tailGet: the Get is the method's tail call (its return address the entry's "
                   "return label), yet frames[0] is %s", json.dumps(site['frames'][0]))


# The cases of this area: name, meson timeout in seconds (each JVM run also has its
# own 120 s limit), and whether it runs alone (timings on a 2-core box stay sane).
CASES = {
    'pairs': Case(case_pairs, 150),
    'fast-path': Case(case_fast_path, 150),
    'release-modes': Case(case_release_modes, 150),
    'helper-depth': Case(case_helper_depth, 150),
    'register-natives': Case(case_register_natives, 150),
    'native-thread': Case(case_native_thread, 150),
    'threads': Case(case_threads, 300, serial=True),
    'unmatched': Case(case_unmatched, 150),
    'checkjni': Case(case_checkjni, 300),
    'jdk-workload': Case(case_jdk_workload, 150),
    'lz4': Case(case_lz4, 150),
    'misuse-matrix': Case(case_misuse_matrix, 150),
    'jni-names': Case(case_jni_names, 150),
    'newer-jni': Case(case_newer_jni, 150),
    'virtual-threads': Case(case_virtual_threads, 150),
    'double-release-safe': Case(case_double_release_safe, 150),
    'release-race': Case(case_release_race, 150),
    'stack-args': Case(case_stack_args, 150),
}
