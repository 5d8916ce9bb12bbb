# SPDX-License-Identifier: Apache-2.0
"""Statistics the benchmarks print beside their figures."""

import math
import statistics

# Fewest rounds for which median_ci's interval reaches 95 %.
CI_MIN_ROUNDS = 6


def median_ci(values):
    """The median of values and a 95 % confidence interval for it: the
    distribution-free one of the sign test, between two order statistics, as
    no shape of the rounds' spread is assumed.  Below 6 rounds no such
    interval reaches 95 %; the whole range is given then (covers 1 - 2^(1-n)).

    A JVM's figure moves by several per cent from one launch to the next on a
    small VM (JIT decisions, code and heap layout), so the median of a handful
    of rounds moves by a point or two between two runs of the same build; the
    interval says which differences the rounds can tell apart."""
    v = sorted(values)
    n = len(v)
    # k: how many rounds each end may leave out, P(Binomial(n, 1/2) < k) <= 2.5 %.
    k, below = 0, 0.0
    for j in range(n):
        below += math.comb(n, j) / 2 ** n
        if below > 0.025:
            break
        k = j + 1
    if k == 0:
        return statistics.median(v), v[0], v[-1]
    return statistics.median(v), v[k - 1], v[n - k]


def told_apart(n, lo, hi):
    """What a ratio's interval says of two builds: 'faster' or 'slower' when
    it leaves out 1, 'not told apart' when it holds it, 'too few rounds'
    below CI_MIN_ROUNDS (the range is no 95 % interval then)."""
    if n < CI_MIN_ROUNDS:
        return 'too few rounds'
    return 'faster' if hi < 1 else 'slower' if lo > 1 else 'not told apart'


def interval_label(n):
    """What to call median_ci's interval of n rounds in a figure's line."""
    return '95% CI' if n >= CI_MIN_ROUNDS else 'range'
