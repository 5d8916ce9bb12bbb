#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""jni-function-names: pw_jni_function_names[] (agent/jvm/jni_table.c) must
list the slots of struct JNINativeInterface_ exactly, in order (reserved0-3
first), and PW_JNI_SLOTS (agent/jvm/jni_table.h) must count them: the
jni_in_critical finding names a JNI function by its slot, and the guard
covers the slots the running JVM's table has.  Each JDK's jni.h must be a
prefix of the list (JDK 17's is the oldest, later JDKs only append), and
table_sizes[] (jni_table.c) must give, for the newest JNI_VERSION_* a jni.h
defines (the version that JDK's GetVersion reports), exactly that jni.h's
number of slots.

    check_jni_names.py agent/jvm/jni_table.h agent/jvm/jni_table.c --jdk jdk17=DIR [--jdk jdk25=DIR ...]

Exit status 0 pass, 1 fail, 77 skip (JDK 17's jni.h not found).
"""

import argparse
import os
import re
import sys

SKIP = 77


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def jni_slots(path):
    """Member names of struct JNINativeInterface_ in declaration order."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = strip_comments(f.read())
    m = re.search(r'struct\s+JNINativeInterface_\s*\{(.*?)\n\s*\}\s*;', text, re.S)
    if not m:
        raise ValueError('%s: no struct JNINativeInterface_ { ... };' % path)
    body = m.group(1)
    names = []
    # Each member ends with ';': "void *reserved0;" or "R (JNICALL *Name)(...);".
    for member in body.split(';'):
        member = ' '.join(member.split())
        if not member:
            continue
        pointer = re.search(r'\(\s*JNICALL\s*\*\s*(\w+)\s*\)', member)
        plain = re.fullmatch(r'void\s*\*\s*(\w+)', member)
        if pointer:
            names.append(pointer.group(1))
        elif plain:
            names.append(plain.group(1))
        else:
            raise ValueError('%s: member not understood: %.120s' % (path, member))
    return names


def newest_version(path):
    """The largest JNI_VERSION_* jni.h defines."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = strip_comments(f.read())
    versions = [int(v, 16) for v in
                re.findall(r'#\s*define\s+JNI_VERSION_\w+\s+(0x[0-9a-fA-F]+)', text)]
    if not versions:
        raise ValueError('%s: no JNI_VERSION_* defined' % path)
    return max(versions)


def header_names(paths):
    """PW_JNI_SLOTS, the strings of pw_jni_function_names[] and the
    (version, slots) pairs of table_sizes[], wherever in paths they are."""
    text = ''
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text += strip_comments(f.read()) + '\n'
    path = ', '.join(paths)
    slots = re.search(r'#\s*define\s+PW_JNI_SLOTS\s+(\d+)', text)
    table = re.search(r'pw_jni_function_names\s*\[[^\]]*\]\s*=\s*\{(.*?)\}\s*;', text, re.S)
    sizes = re.search(r'\btable_sizes\s*\[\s*\]\s*=\s*\{(.*?)\}\s*;', text, re.S)
    if not slots or not table or not sizes:
        raise ValueError('%s: PW_JNI_SLOTS, pw_jni_function_names[] or table_sizes[] '
                         'not found' % path)
    body = table.group(1)
    names = re.findall(r'"([^"]*)"', body)
    leftover = re.sub(r'"[^"]*"|[\s,]', '', body)
    if leftover:
        raise ValueError('%s: pw_jni_function_names[] holds more than string literals: %.80s'
                         % (path, leftover))
    pairs = re.findall(r'\{\s*(0x[0-9a-fA-F]+)\s*,\s*(\d+)\s*\}', sizes.group(1))
    leftover = re.sub(r'\{\s*0x[0-9a-fA-F]+\s*,\s*\d+\s*\}|[\s,]', '', sizes.group(1) + '}')
    if not pairs or leftover != '}':
        raise ValueError('%s: table_sizes[] not understood: %.80s' % (path, sizes.group(1)))
    return int(slots.group(1)), names, [(int(v, 16), int(n)) for v, n in pairs]


def table_slots(sizes, version):
    """What the agent's pw_jni_table_slots() returns for version."""
    slots = 0
    for v, n in sizes:
        if version >= v:
            slots = n
    return slots


def first_difference(want, got):
    for i, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return i
    return min(len(want), len(got))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('sources', nargs='+', help='jni_table.h and jni_table.c')
    parser.add_argument('--jdk', action='append', default=[], metavar='NAME=HOME')
    args = parser.parse_args()
    jdks = dict(j.split('=', 1) for j in args.jdk)
    base = os.path.join(jdks.get('jdk17', ''), 'include', 'jni.h')
    if 'jdk17' not in jdks or not os.path.exists(base):
        print('SKIP: JDK 17 jni.h not found at %s' % base)
        return SKIP

    failures = []
    want = jni_slots(base)
    count, got, sizes = header_names(args.sources)
    if want[:4] != ['reserved0', 'reserved1', 'reserved2', 'reserved3']:
        failures.append('%s: the table does not start with reserved0-3: %s' % (base, want[:4]))
    if len(want) < 200 or len(set(want)) != len(want):
        failures.append('%s: parsed %d slots (%d distinct): the parser is off'
                        % (base, len(want), len(set(want))))
    if count != len(got):
        failures.append('PW_JNI_SLOTS is %d but pw_jni_function_names[] has %d names'
                        % (count, len(got)))
    if [v for v, _ in sizes] != sorted(set(v for v, _ in sizes)) or \
            [n for _, n in sizes] != sorted(set(n for _, n in sizes)):
        failures.append('table_sizes[] must grow in both version and slots: %s' % sizes)
    if sizes and sizes[-1][1] != count:
        failures.append('the newest entry of table_sizes[] has %d slots, PW_JNI_SLOTS is %d'
                        % (sizes[-1][1], count))

    covered = 0
    for name, home in sorted(jdks.items()):
        path = os.path.join(home, 'include', 'jni.h')
        if not os.path.exists(path):
            print('note: %s: no jni.h at %s, not checked' % (name, path))
            continue
        slots = jni_slots(path) if name != 'jdk17' else want
        if slots != got[:len(slots)]:
            i = first_difference(slots, got)
            failures.append('pw_jni_function_names[] differs from %s jni.h at slot %d: expected %r, '
                            'got %r (%d slots in jni.h, %d listed)'
                            % (name, i, slots[i] if i < len(slots) else None,
                               got[i] if i < len(got) else None, len(slots), len(got)))
            continue
        if name != 'jdk17' and slots[:len(want)] != want:
            failures.append('%s jni.h does not extend JDK 17\'s table' % name)
        version = newest_version(path)
        n = table_slots(sizes, version)
        if n != len(slots):
            failures.append('%s jni.h: JNI version 0x%08x has %d slots, table_sizes[] gives '
                            '%d' % (name, version, len(slots), n))
            continue
        covered = max(covered, len(slots))
        print('%s: JNI version 0x%08x, %d slots, the last %s: as listed'
              % (name, version, len(slots), slots[-1]))
    if covered < len(got):
        print('note: no jni.h at hand has the slots %s' % ', '.join(got[covered:]))

    if failures:
        for f in failures:
            print('FAIL: ' + f)
        return 1
    print('PASS: pw_jni_function_names[] lists the slots of every jni.h at hand in order, and its '
          'table sizes match their JNI versions')
    return 0


if __name__ == '__main__':
    sys.exit(main())
