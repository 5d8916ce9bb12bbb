#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a pair's instructions go, by function, inlined functions included.

    python3 tests/bench/instructions_by_function.py [--pair long4] build/tests/bench/pair_instructions

callgrind_annotate names only the functions that are left after LTO has
inlined everything into the hooks, so it cannot say how much of a hook is
the site cache and how much the pin table.  This runs pair_instructions
under callgrind with per-instruction counts (--dump-instr=yes), names each
instruction's innermost function with addr2line -i (the debug information
keeps the inlining), and prints instructions per pair for each function,
under the hook it was inlined into.  Counts are the self cost of the
instructions of the driver's own image (the loop and the hooks); the
stand-in JVM's functions are in it too.  N pairs, per pair.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile


def run_callgrind(driver, n, pair):
    fd, out = tempfile.mkstemp(prefix='pw-cg-')
    os.close(fd)
    try:
        subprocess.run(['valgrind', '--tool=callgrind', '--dump-instr=yes', '--callgrind-out-file=' + out,
                        driver, str(n), 'hooked', pair],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            return f.read().splitlines()
    finally:
        os.unlink(out)


def self_costs(lines, image):
    """{address: self instructions} for the instructions of image."""
    costs = collections.Counter()
    names = {}
    ob = None
    in_image = False
    addr = 0
    skip_next = False
    for line in lines:
        m = re.match(r'(c?ob)=\((\d+)\)(?: (.*))?$', line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == 'ob':
                ob = names.get(m.group(2))
                in_image = ob is not None and os.path.realpath(ob) == os.path.realpath(image)
            continue
        if line.startswith('calls='):
            skip_next = True  # the next line is the call's inclusive cost
            continue
        if not line or not (line[0] in '+-*0' or line[0].isdigit()):
            continue
        parts = line.split()
        pos = parts[0]
        if pos.startswith('0x'):
            addr = int(pos, 16)
        elif pos.startswith('+'):
            addr += int(pos[1:])
        elif pos.startswith('-'):
            addr -= int(pos[1:])
        if skip_next:
            skip_next = False
            continue
        if in_image and len(parts) >= 3:
            costs[addr] += int(parts[2])
    return costs


def innermost(image, addrs):
    """{address: (outer function, innermost function, file:line)}."""
    addrs = sorted(addrs)
    # addr2line -a -i prints each address, then pairs (function, file:line)
    # from the innermost inlined function out to the real one.
    proc = subprocess.run(['addr2line', '-a', '-f', '-i', '-e', image] + ['%x' % a for a in addrs],
                          check=True, stdout=subprocess.PIPE, universal_newlines=True)
    result = {}
    cur = None
    chain = []

    def flush():
        if cur is not None and chain:
            result[cur] = (chain[-1][0], chain[0][0], chain[0][1])

    lines = proc.stdout.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x'):
            flush()
            cur = int(lines[i], 16)
            chain = []
            i += 1
            continue
        fn = lines[i]
        loc = lines[i + 1] if i + 1 < len(lines) else '??'
        chain.append((fn.split('.')[0], os.path.basename(loc.split(' ')[0])))
        i += 2
    flush()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pair', default='long4')
    ap.add_argument('--pairs', type=int, default=200_000)
    ap.add_argument('--lines', action='store_true', help='also print each source line')
    ap.add_argument('driver')
    args = ap.parse_args()
    costs = self_costs(run_callgrind(args.driver, args.pairs, args.pair), args.driver)
    where = innermost(args.driver, costs)
    per_fn = collections.Counter()
    per_line = collections.Counter()
    for addr, c in costs.items():
        outer, inner, loc = where.get(addr, ('??', '??', '??'))
        per_fn[(outer, inner)] += c
        per_line[(outer, inner, loc)] += c
    n = args.pairs
    total = 0.0
    print('%-34s %-34s %8s' % ('function (the hook)', 'inlined function', 'per pair'))
    for (outer, inner), c in sorted(per_fn.items(), key=lambda kv: -kv[1]):
        if c / n < 0.05:
            continue
        total += c / n
        print('%-34s %-34s %8.1f' % (outer, inner, c / n))
    print('%-69s %8.1f' % ('total (of the image; start-up and exit included)', total))
    if args.lines:
        print()
        for (outer, inner, loc), c in sorted(per_line.items(), key=lambda kv: (kv[0][0], -kv[1])):
            if c / n >= 0.05:
                print('%-34s %-30s %-26s %6.1f' % (outer, inner, loc, c / n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
