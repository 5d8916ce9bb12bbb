#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""stats.median_ci: the interval bench-real prints is the sign test's, at the
fewest rounds left out that keep it at 95 %, and covers the median that often
on rounds drawn from a skewed spread like a JVM's."""

import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import CI_MIN_ROUNDS, interval_label, median_ci, told_apart  # noqa: E402


def coverage(n, k):
    """P(the k-th smallest and k-th largest of n draws hold the median)."""
    return 1 - 2 * sum(math.comb(n, j) for j in range(k)) / 2 ** n


def main():
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append('%s: got %r, want %r' % (what, got, want))

    # Known tables: 15 rounds give the 4th and 12th, 40 the 14th and 27th.
    check('15 rounds', median_ci(list(range(1, 16))), (8, 4, 12))
    check('40 rounds', median_ci(list(range(1, 41))), (20.5, 14, 27))
    check('order of the input', median_ci([5, 1, 4, 2, 3, 9, 8, 7, 6]), median_ci(list(range(1, 10))))
    # Below 6 rounds no interval reaches 95 %: the whole range.
    for n in range(1, 6):
        check('%d rounds' % n, median_ci(list(range(n)))[1:], (0, n - 1))
    # From 6 rounds on: 95 % at least, and one round more left out at each
    # end would fall below it.
    for n in range(6, 101):
        lo = median_ci(list(range(n)))[1]
        k = lo + 1
        if coverage(n, k) < 0.95 or coverage(n, k + 1) >= 0.95:
            failures.append('%d rounds: leaves out %d a side (coverage %.4f, next %.4f)' % (
                n, lo, coverage(n, k), coverage(n, k + 1)))
    # Rounds drawn like a JVM's ratios (a floor and a long right tail): the
    # interval holds the true median in about 95 % of 2000 runs of 15 rounds.
    rnd = random.Random(1)
    true_median = 1.05 + math.log(2) * 0.02
    held = 0
    for _ in range(2000):
        rounds = [1.05 + rnd.expovariate(1 / 0.02) for _ in range(15)]
        _, lo, hi = median_ci(rounds)
        held += lo <= true_median <= hi
    if not 0.94 <= held / 2000 <= 0.99:
        failures.append('coverage of 15 rounds: %.3f' % (held / 2000))
    # The verdicts: an interval below 95 % tells nothing apart.
    check('faster', told_apart(15, 0.95, 0.99), 'faster')
    check('slower', told_apart(15, 1.01, 1.05), 'slower')
    check('holds 1', told_apart(15, 0.99, 1.01), 'not told apart')
    check('5 rounds', told_apart(5, 0.90, 0.95), 'too few rounds')
    check('labels', (interval_label(CI_MIN_ROUNDS - 1), interval_label(CI_MIN_ROUNDS)), ('range', '95% CI'))
    check('the first 95 % interval', median_ci(list(range(CI_MIN_ROUNDS)))[1:], (0, CI_MIN_ROUNDS - 1))
    for f in failures:
        print('FAIL', f)
    print('%d checks failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
