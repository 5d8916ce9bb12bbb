#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The README's sample output is what the quick start prints.

    check_readme_sample.py README.md --run-training examples/run-training --build BUILD --jdk-home JDK17

Runs the quick start's example (examples/run-training, JDK 17, the agent's
defaults) and compares what it prints, stdout and stderr together, with the
indented block under "The leak table appears on stderr when the program
ends:" in README.md.  The example's figures are deterministic and compared
as printed: 3000 steps, 750 validation steps and their loss, 750 live pins,
12000 bytes, the evalStep row and its site, createTensor's and
readTensor's rows.  Masked are only what changes from run to run or with the
JDK build: the pid, the uptime, the oldest pin's age, addresses, and the
figures the JDK's own natives add to (the number of balanced rows, the
totals' acquired and released, the references created, deleted and freed);
of those, acquired - released must still equal the live pins on both sides.
Runs of blanks are one blank, since column widths follow the masked numbers.
A README line `...` stands for any lines (the JDK's own natives that pinned
and released vary with the JDK build and its class data sharing), up to the
next README line that matches.  Exit status 0 when they agree, 1 with both
texts when not, 77 when JDK 17 is absent.
"""

import argparse
import os
import re
import subprocess
import sys

ANCHOR = 'The leak table appears on stderr when the program ends:'
# What differs between runs or JDK builds, and nothing else: (pattern, mask).
MASKS = [
    (re.compile(r'\bpid \d+'), 'pid <pid>'),
    (re.compile(r'\buptime \d+(\.\d+)? s\b'), 'uptime <uptime>'),
    (re.compile(r'\b0x[0-9a-f]+\b'), '<address>'),
    # The OLDEST column: how long ago the oldest live pin was taken.
    (re.compile(r'(?<= )\d+\.\ds(?= )'), '<age>'),
    (re.compile(r'^(\s*balanced \(every pin released\): )\d+ rows$'), r'\1<jdk> rows'),
    (re.compile(r'^(\s*totals: )acquired \d+, released \d+,'), r'\1acquired <jdk>, released <jdk>,'),
    (re.compile(r'created \d+, deleted \d+, freed \d+,'), 'created <jdk>, deleted <jdk>, freed <jdk>,'),
]
TOTALS = re.compile(r'^\s*totals: acquired (\d+), released (\d+), live (\d+) ')


def readme_block(path):
    lines = open(path, encoding='utf-8').read().splitlines()
    try:
        start = lines.index(ANCHOR) + 1
    except ValueError:
        raise SystemExit('check_readme_sample: no line %r in %s' % (ANCHOR, path))
    block = []
    for line in lines[start:]:
        if line.startswith('    '):
            block.append(line[4:])
        elif line.strip() == '' and not block:
            continue
        elif line.strip() == '':
            block.append('')
        else:
            break
    while block and block[-1] == '':
        block.pop()
    return block


def shape(line):
    for pattern, mask in MASKS:
        line = pattern.sub(mask, line)
    return ' '.join(line.split())


def totals_problem(lines, whose):
    """The masked totals still add up: acquired - released = live."""
    found = [TOTALS.match(line) for line in lines]
    found = [m for m in found if m]
    if len(found) != 1:
        return '%s: expected one "totals:" line, found %d' % (whose, len(found))
    acquired, released, live = (int(g) for g in found[0].groups())
    if acquired - released != live:
        return '%s: totals acquired %d - released %d != live %d' % (whose, acquired, released, live)
    return None


def compare(want, got):
    """None when got has want's shape, else the first README line that differs."""
    wi = gi = 0
    while wi < len(want):
        if want[wi].strip() == '...':
            # Any lines, up to the first that matches the README's next line.
            rest = shape(want[wi + 1]) if wi + 1 < len(want) else None
            while gi < len(got) and (rest is None or shape(got[gi]) != rest):
                gi += 1
            wi += 1
            continue
        if gi >= len(got):
            return 'README line %d %r: the program printed nothing more' % (wi + 1, want[wi])
        if shape(want[wi]) != shape(got[gi]):
            return 'README line %d %r: the program printed %r' % (wi + 1, want[wi], got[gi])
        wi += 1
        gi += 1
    if gi < len(got):
        return 'the program printed more than the README shows, from %r' % got[gi]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('readme')
    ap.add_argument('--run-training', required=True)
    ap.add_argument('--build', required=True)
    ap.add_argument('--jdk-home', required=True)
    args = ap.parse_args()
    if not os.access(os.path.join(args.jdk_home, 'bin', 'java'), os.X_OK):
        print('SKIP: JDK jdk17 absent at %s: not run' % args.jdk_home)
        return 77
    want = readme_block(args.readme)
    env = dict(os.environ, JAVA_HOME=args.jdk_home)
    env.pop('PINWATCH_OPTIONS', None)
    env.pop('JAVA_TOOL_OPTIONS', None)
    p = subprocess.run([args.run_training, args.build], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env, timeout=120)
    got = p.stdout.rstrip('\n').splitlines()
    problem = ('examples/run-training exited with %d' % p.returncode if p.returncode else
               compare(want, got) or totals_problem(want, 'README.md') or totals_problem(got, 'printed'))
    if problem:
        print('FAIL: %s\n\n--- README.md\n%s\n\n--- printed\n%s' % (problem, '\n'.join(want), '\n'.join(got)))
        return 1
    print('PASS: the README sample is what the quick start printed (%d lines; pid, uptime, age, addresses and the '
          'JDK\'s own figures masked)' % len(got))
    return 0


if __name__ == '__main__':
    sys.exit(main())
