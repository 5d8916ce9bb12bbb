# SPDX-License-Identifier: Apache-2.0
"""JVM case: the size of a critical pin of an array the agent's length cache
cannot hold (an array the native fetched itself), read from the array's
header with the layout the agent learned at start, or asked of the JVM
before the region opens where it learned none.

Run through tests/jvm/cases.py, which holds the list; the expected numbers
mirror tests/fixtures/pinwatch/fixtures/CriticalSizes.java.
"""

import os
import re
import subprocess

from harness import (Case, FIXTURE_PKG, JVM_TIMEOUT, check_series, expect, expect_row,
                     load_report, rows_of)

# (native, element size, array length, balanced calls): CriticalSizes.main.
TYPES = [
    ('holdBytes', 1, 1031, 5),
    ('holdShorts', 2, 1033, 6),
    ('holdInts', 4, 1039, 7),
    ('holdLongs', 8, 1049, 8),
    ('holdDoubles', 8, 1051, 9),
]

SIGNATURE = '([Ljava/lang/Object;ILjava/lang/String;I)I'

# holdNested: all five arrays at once, in TYPES' order, 4 balanced calls.
NESTED_BALANCED = 4

CLASSES_LINE = re.compile(r'^\[pinwatch\] DEBUG array element types(?:: the class word at 8 \((\d) bytes\)| not told)', re.M)

LAYOUT_LINE = re.compile(r'^\[pinwatch\] DEBUG array layout(?:: length at (\d+); elements at (\d+) \(1-byte\), '
                         r'(\d+) \(2-byte\), (\d+) \(4-byte\), (\d+) \(8-byte\)| not learned: (.*))$', re.M)


def _java_feature(ctx):
    out = subprocess.run([ctx.java, '-XshowSettings:properties', '-version'], env=ctx.env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=JVM_TIMEOUT).stdout
    m = re.search(r'^\s*java\.specification\.version = (\d+)\s*$', out, re.M)
    expect(m, 'java -XshowSettings:properties printed no java.specification.version:\n%s', out[-2000:])
    return int(m.group(1))


def _run(ctx, label, flags, layout):
    """One JVM run with flags; layout: the (length offset, elements offsets
    by 1/2/4/8-byte element) the agent must log, or None for none learned."""
    report = ctx.report_path('critical-sizes-%s.jsonl' % label)
    run = ctx.run_java('CriticalSizes', args=[report], jvm_args=flags, report_path=report,
                       agent_options='file=%s,format=json,interval=0.01' % report)
    expect('DONE' in run.stdout, '%s: the fixture did not print DONE', label)
    lines = LAYOUT_LINE.findall(run.stderr)
    expect(len(lines) == 1, '%s: expected one DEBUG array layout line on stderr, got %d:\n%s',
           label, len(lines), run.stderr[-2000:])
    got = lines[0]
    learned = None if got[5] else (int(got[0]), tuple(int(x) for x in got[1:5]))
    expect(learned == layout, '%s: array layout expected %s, the agent logged %s',
           label, layout or 'none learned', learned or 'none learned: ' + got[5])

    dumps, last = load_report(report, extended=True)
    check_series(dumps)
    for name, size, length, balanced in TYPES:
        method = FIXTURE_PKG + 'CriticalSizes.' + name
        held = []
        for dump in dumps:
            for row in rows_of(dump, method):
                if row['function'] == 'GetPrimitiveArrayCritical' and row['live'] > 0:
                    held.append((dump['reason'], row['live'], row['held'], row['live_bytes']))
        want = ('interval', 1, 1, length * size)
        expect(held, '%s: %s: no report while its pin was held (%d reports)', label, name, len(dumps))
        wrong = [h for h in held if h != want]
        expect(not wrong, '%s: %s: while held, every report must show (reason, live, held, live_bytes) '
               '%s; got %s', label, name, want, wrong)
        expect_row(last, 'CriticalSizes.' + name, 'GetPrimitiveArrayCritical', SIGNATURE,
                   acquired=balanced + 1, released=balanced + 1, live=0, live_bytes=0)
    # Inside the first region only the header can size the others: by the
    # class word, which a layout with one between mark word and length has.
    classes = CLASSES_LINE.findall(run.stderr)
    expect(len(classes) == (1 if learned else 0), '%s: DEBUG array element types lines: %s', label, classes)
    told = bool(classes and classes[0])
    expect(told == bool(learned and learned[0] > 8), '%s: element types by class word: expected %s, got %s',
           label, bool(learned and learned[0] > 8), classes)
    # holdNested takes its five pins in TYPES' order and gives them back in the reverse order, so a
    # report taken while it takes or gives them back (the interval does not wait for it) holds the
    # first k of them: each such report must show exactly those k pins' bytes, and one at least
    # all five (the fixture waits for two reports while it holds them all).  Only the first is
    # sized where the header does not tell element types: the others are taken inside its region.
    sizes = [size * length if told or i == 0 else 0 for i, (_, size, length, _) in enumerate(TYPES)]
    nested_bytes = sum(sizes)
    method = FIXTURE_PKG + 'CriticalSizes.holdNested'
    held = [(d['reason'], r['live'], r['held'], r['live_bytes']) for d in dumps for r in rows_of(d, method)
            if r['function'] == 'GetPrimitiveArrayCritical' and r['live'] > 0]
    want = ('interval', len(TYPES), len(TYPES), nested_bytes)
    prefixes = [('interval', k, k, sum(sizes[:k])) for k in range(1, len(TYPES) + 1)]
    expect(want in held and all(h in prefixes for h in held), '%s: holdNested: every report while it '
           'holds pins must show (reason, live, held, live_bytes) of its first k pins, one of %s, and one '
           'at least all of them; got %s', label, prefixes, held)
    expect_row(last, 'CriticalSizes.holdNested', 'GetPrimitiveArrayCritical', SIGNATURE,
               acquired=len(TYPES) * (NESTED_BALANCED + 1), released=len(TYPES) * (NESTED_BALANCED + 1),
               live=0, live_bytes=0)
    print('%s: layout %s; held live_bytes %s; nested %d' % (
        label, learned or 'none learned (%s)' % got[5],
        ', '.join('%s=%d' % (name, length * size) for name, size, length, _ in TYPES), nested_bytes))


def case_critical_sizes(ctx):
    """Every variant must give exact sizes: where the agent learned a layout
    the held pins' sizes come from the header, where not from the JVM."""
    ctx.env['PINWATCH_DEBUG'] = '1'
    checked = '-Xcheck:jni' in ctx.env.get('JAVA_TOOL_OPTIONS', '')
    feature = _java_feature(ctx)
    plain = (12, (16, 16, 16, 16))
    # Without compressed class pointers (which ZGC cannot have before JDK 15).
    wide = (16, (24, 24, 24, 24))
    runs = [('default', [], plain),
            ('checkjni', ['-Xcheck:jni'], None),
            # Neither ZGC keeps coloured pointers in a JNI handle's slot (the
            # generational one colours heap fields only; the older one's
            # colours are address bits its views map): validated per Get.
            # An experimental option before JDK 15.
            ('zgc', (['-XX:+UnlockExperimentalVMOptions'] if feature < 15 else []) + ['-XX:+UseZGC'],
             wide if feature < 15 else plain)]
    if feature == 21:
        # JDK 21's ZGC is the older one unless asked; 23 on is generational.
        runs.append(('zgc-generational', ['-XX:+UseZGC', '-XX:+ZGenerational'], plain))
    if feature < 25:
        runs.append(('no-compressed-class-pointers', ['-XX:-UseCompressedClassPointers'], wide))
    else:
        runs.append(('compact-headers', ['-XX:+UseCompactObjectHeaders'], (8, (12, 12, 12, 16))))
    if 'asan' in ctx.env.get('LD_PRELOAD', os.environ.get('LD_PRELOAD', '')):
        # AddressSanitizer's shadow memory takes the address ranges ZGC
        # reserves its heap in ("Failed to reserve enough address space for
        # Java heap" on JDK 17): the collector cannot start there at all.
        print('zgc runs not made: the AddressSanitizer runtime is preloaded, and ZGC cannot reserve '
              'its heap beside its shadow memory')
        runs = [r for r in runs if not r[0].startswith('zgc')]
    for label, flags, layout in runs:
        _run(ctx, label, flags, None if checked else layout)


CASES = {
    'critical-sizes': Case(case_critical_sizes, 300),
}
