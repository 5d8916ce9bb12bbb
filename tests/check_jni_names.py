#!/usr/bin/env python3
"""jni-function-names: agent/jni_function_names.h must list the slots of
JDK 17's struct JNINativeInterface_ exactly, in order (reserved0-3 first):
the jni_in_critical finding names a JNI function by its slot.  A later
JDK's table may only append to JDK 17's; slots it appends are printed, as
the agent (built against JDK 17) neither names nor guards them.

    check_jni_names.py agent/jni_function_names.h --jdk jdk17=DIR [--jdk jdk25=DIR]

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


def header_names(path):
    """The strings of pw_jni_function_names[] and PW_JNI_SLOTS."""
    with open(path, encoding='utf-8') as f:
        text = strip_comments(f.read())
    slots = re.search(r'#\s*define\s+PW_JNI_SLOTS\s+(\d+)', text)
    table = re.search(r'pw_jni_function_names\s*\[[^\]]*\]\s*=\s*\{(.*?)\}\s*;', text, re.S)
    if not slots or not table:
        raise ValueError('%s: PW_JNI_SLOTS or pw_jni_function_names[] not found' % path)
    body = table.group(1)
    names = re.findall(r'"([^"]*)"', body)
    leftover = re.sub(r'"[^"]*"|[\s,]', '', body)
    if leftover:
        raise ValueError('%s: pw_jni_function_names[] holds more than string literals: %.80s'
                         % (path, leftover))
    return int(slots.group(1)), names


def first_difference(want, got):
    for i, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return i
    return min(len(want), len(got))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('header')
    parser.add_argument('--jdk', action='append', default=[], metavar='NAME=HOME')
    args = parser.parse_args()
    jdks = dict(j.split('=', 1) for j in args.jdk)
    base = os.path.join(jdks.get('jdk17', ''), 'include', 'jni.h')
    if 'jdk17' not in jdks or not os.path.exists(base):
        print('SKIP: JDK 17 jni.h not found at %s' % base)
        return SKIP

    failures = []
    want = jni_slots(base)
    count, got = header_names(args.header)
    if want[:4] != ['reserved0', 'reserved1', 'reserved2', 'reserved3']:
        failures.append('%s: the table does not start with reserved0-3: %s' % (base, want[:4]))
    if len(want) < 200 or len(set(want)) != len(want):
        failures.append('%s: parsed %d slots (%d distinct): the parser is off'
                        % (base, len(want), len(set(want))))
    if count != len(got):
        failures.append('PW_JNI_SLOTS is %d but pw_jni_function_names[] has %d names'
                        % (count, len(got)))
    if got != want:
        i = first_difference(want, got)
        failures.append('jni_function_names.h differs from JDK 17 jni.h at slot %d: expected %r, '
                        'got %r (%d slots expected, %d listed)'
                        % (i, want[i] if i < len(want) else None, got[i] if i < len(got) else None,
                           len(want), len(got)))

    for name, home in sorted(jdks.items()):
        path = os.path.join(home, 'include', 'jni.h')
        if name == 'jdk17' or not os.path.exists(path):
            continue
        later = jni_slots(path)
        if later[:len(want)] != want:
            i = first_difference(want, later)
            failures.append('%s jni.h does not extend JDK 17\'s table: slot %d is %r, JDK 17 '
                            'has %r' % (name, i, later[i] if i < len(later) else None,
                                        want[i] if i < len(want) else None))
        elif len(later) > len(want):
            print('note: %s appends %d slots the agent does not name or guard: %s'
                  % (name, len(later) - len(want), ', '.join(later[len(want):])))

    if failures:
        for f in failures:
            print('FAIL: ' + f)
        return 1
    print('PASS: jni_function_names.h lists the %d slots of JDK 17 jni.h in order' % len(want))
    return 0


if __name__ == '__main__':
    sys.exit(main())
