#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The README's sample output is what the quick start prints.

    check_readme_sample.py README.md --run-training examples/run-training --build BUILD --jdk-home JDK17

Runs the quick start's example (examples/run-training, JDK 17, the agent's
defaults) and compares what it prints, stdout and stderr together, with the
indented block under "The leak table appears on stderr when the program
ends:" in README.md.  Compared is the shape: every number (counts, bytes,
pids, uptimes, addresses, offsets) is masked and runs of blanks are one
blank, since column widths follow the numbers.  A README line `...` stands
for any lines (the JDK's own natives that pinned and released vary with the
JDK build and its class data sharing), up to the next README line that
matches.  Exit status 0 when they agree, 1 with both texts when not, 77 when
JDK 17 is absent.
"""

import argparse
import os
import re
import subprocess
import sys

ANCHOR = 'The leak table appears on stderr when the program ends:'
NUMBER = re.compile(r'0x[0-9a-f]+|[+-]?\d+(\.\d+)?')


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
    return ' '.join(NUMBER.sub('N', line).split())


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
        print('SKIP: no JDK 17 at %s' % args.jdk_home)
        return 77
    want = readme_block(args.readme)
    env = dict(os.environ, JAVA_HOME=args.jdk_home)
    env.pop('PINWATCH_OPTIONS', None)
    env.pop('JAVA_TOOL_OPTIONS', None)
    p = subprocess.run([args.run_training, args.build], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env, timeout=120)
    got = p.stdout.rstrip('\n').splitlines()
    problem = 'examples/run-training exited with %d' % p.returncode if p.returncode else compare(want, got)
    if problem:
        print('FAIL: %s\n\n--- README.md\n%s\n\n--- printed\n%s' % (problem, '\n'.join(want), '\n'.join(got)))
        return 1
    print('PASS: the README sample has the shape of the %d lines printed' % len(got))
    return 0


if __name__ == '__main__':
    sys.exit(main())
