#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instructions per long[4] Get/Release pair through pinwatch's hooks
(or another pair, or a JNA-shaped call: --pair).

    python3 tests/bench/count_instructions.py [--ceiling N] build/tests/bench/pair_instructions
    meson compile -C build bench-instructions
    meson test -C build instructions-ceiling


Runs pair_instructions (no JVM) under valgrind's callgrind for two loop
lengths and takes the difference, so start-up and exit cancel out; the same
for the loop without hooks.  The hooked runs fail unless the agent's own
books counted every pair (pair_instructions checks them after the loop), so
hooks that do nothing cannot pass on their low count.  A count is the same on a busy machine as on an
idle one, which the benchmark's nanoseconds are not.  Prints one line
"PWINSTR {json}".  Use the gcc build: valgrind 3.19 cannot read the DWARF 5
that clang writes.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

SHORT, LONG = 100_000, 300_000
# A JNA-shaped call is a dozen JNI calls: fewer of them count as well.
CALLS = {'jna': (20_000, 60_000)}
BOOKS = []  # the hooked runs' line saying what the agent's books counted


def instructions(driver, n, bare, pair):
    argv = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null', driver, str(n),
            'bare' if bare else 'hooked', pair]
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        raise SystemExit('count_instructions: %s exited with %d:\n%s'
                         % (' '.join(argv), proc.returncode, '\n'.join(proc.stderr.splitlines()[-8:])))
    BOOKS.extend(line for line in proc.stderr.splitlines() if line.startswith('pair_instructions: books'))
    m = re.search(r'refs:\s+([\d,]+)', proc.stderr)
    if m is None:
        raise SystemExit('count_instructions: no instruction count from callgrind:\n' + proc.stderr)
    return int(m.group(1).replace(',', ''))


def per_pair(driver, bare, pair):
    short, long_ = CALLS.get(pair, (SHORT, LONG))
    return (instructions(driver, long_, bare, pair) - instructions(driver, short, bare, pair)) / (long_ - short)


NAMES = {'long4': 'long[4] Get+Release pair',
         'critical': 'GetPrimitiveArrayCritical+Release pair',
         'global': 'NewGlobalRef+DeleteGlobalRef pair',
         'local': 'NewLocalRef+DeleteLocalRef pair',
         'jna': 'JNA-shaped call (2 byte[] pins, 7 locals, 54 type tests)'}


def main():
    ap = argparse.ArgumentParser(description='Instructions per long[4] pair through the hooks.')
    ap.add_argument('--ceiling', type=float,
                    help='fail (exit 1) when a hooked pair takes more instructions than this')
    ap.add_argument('--pair', choices=sorted(NAMES), default='long4',
                    help='which pair to count (default long4)')
    ap.add_argument('driver')
    args = ap.parse_args()
    if shutil.which('valgrind') is None:
        print('count_instructions: valgrind is not installed (apt-get install valgrind)')
        # CI installs it (.ci/run): there a missing valgrind is a broken set-up, not a skip.
        sys.exit(1 if os.environ.get('CI') else 77)
    hooked = per_pair(args.driver, False, args.pair)
    bare = per_pair(args.driver, True, args.pair)
    print('%s: %.1f instructions with pinwatch, %.1f bare (+%.1f)'
          % (NAMES[args.pair], hooked, bare, hooked - bare))
    # pair_instructions exits non-zero (and this script with it) when the
    # agent's books did not count every pair: here is what they counted.
    for line in BOOKS[-1:]:
        print(line)
    print('PWINSTR ' + json.dumps({'pair': args.pair, 'hooked': hooked, 'bare': bare}))
    if args.ceiling is not None:
        if hooked > args.ceiling:
            print('FAIL: %.1f instructions per pair is above the ceiling of %.0f' % (hooked, args.ceiling))
            sys.exit(1)
        print('PASS: %.1f instructions per pair, ceiling %.0f' % (hooked, args.ceiling))


if __name__ == '__main__':
    main()
