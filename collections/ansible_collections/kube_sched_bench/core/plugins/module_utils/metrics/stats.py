# -*- coding: utf-8 -*-
"""Statistics over repeats: the median's bootstrap interval and the Mann-Whitney U test.

Standard library only (the controller has no scipy). No I/O. The report gives
every figure with three or more repeats a 95 % interval of its median, and with
an earlier run to compare with, a verdict per figure from ``compare``; the gate
(sched_gate) uses the same verdicts.
"""
from __future__ import annotations

import functools
import math
import random
import statistics
from dataclasses import dataclass

CONFIDENCE = 0.95
RESAMPLES = 2000
# One fixed seed, so that the same results always give the same report; recorded in the report.
SEED = 14
MIN_SAMPLES_FOR_INTERVAL = 3
ALPHA = 0.05
# Up to this many samples in all, the test's distribution is counted exactly.
EXACT_MAX_SAMPLES = 30

BETTER, WORSE = "better", "worse"
NO_DIFFERENCE = "no significant difference"
NO_VERDICT = "no verdict possible"


def median(values):
    return float(statistics.median(values))


def bootstrap_interval(values, seed=SEED, confidence=CONFIDENCE, resamples=RESAMPLES):
    """(low, high): the percentile bootstrap interval of the median of ``values``, the same for a seed."""
    # Sorted first, so that the interval does not depend on the order the repeats were read in.
    values = tuple(sorted(float(value) for value in values))
    if not values:
        raise ValueError("no values to resample")
    return _interval(values, seed, confidence, resamples)


# A report asks for the same figure's interval from several tables.
@functools.lru_cache(maxsize=4096)
def _interval(values, seed, confidence, resamples):
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    cut = int(math.floor((1.0 - confidence) / 2.0 * resamples))
    return float(medians[cut]), float(medians[resamples - 1 - cut])


@dataclass(frozen=True)
class RankTest:
    u: float        # U of the first sample: pairs where it is larger, ties counting one half
    p: float        # two-sided
    method: str     # exact or normal approximation

    @property
    def name(self):
        return "Mann-Whitney U, two-sided, " + self.method


def doubled_midranks(values):
    """Twice the rank of each value (ties share the mean of their ranks), so that every rank is a whole number."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = start + end + 2    # (start + 1) + (end + 1)
        start = end + 1
    return ranks


def exact_p(doubled, first_count, observed):
    """P(|R - mean| >= |observed - mean|) for the doubled rank sum R of ``first_count`` of the ranks,
    every choice of them equally likely: the count of each sum, built one rank at a time."""
    counts = [dict() for _ in range(first_count + 1)]
    counts[0][0] = 1
    for taken, rank in enumerate(doubled):
        for size in range(min(taken + 1, first_count), 0, -1):
            target = counts[size]
            for total, ways in counts[size - 1].items():
                target[total + rank] = target.get(total + rank, 0) + ways
    centre = first_count * (len(doubled) + 1)
    distance = abs(observed - centre)
    extreme = sum(ways for total, ways in counts[first_count].items() if abs(total - centre) >= distance)
    return extreme / math.comb(len(doubled), first_count)


def normal_p(u, first_count, second_count, doubled):
    """Two-sided p of the normal approximation, with the tie correction and a continuity correction of 1/2."""
    count = first_count + second_count
    ties = {}
    for rank in doubled:
        ties[rank] = ties.get(rank, 0) + 1
    tie_term = sum(size ** 3 - size for size in ties.values()) / (count * (count - 1))
    variance = first_count * second_count / 12.0 * ((count + 1) - tie_term)
    if variance <= 0:
        return 1.0
    z = max(abs(u - first_count * second_count / 2.0) - 0.5, 0.0) / math.sqrt(variance)
    return min(1.0, math.erfc(z / math.sqrt(2.0)))


def mann_whitney_u(first, second):
    """The two-sided Mann-Whitney U test of two samples: exact up to EXACT_MAX_SAMPLES values (ties
    included, by counting), else the normal approximation with the tie correction."""
    first, second = [float(value) for value in first], [float(value) for value in second]
    if not first or not second:
        raise ValueError("both samples need at least one value")
    doubled = doubled_midranks(first + second)
    rank_sum = sum(doubled[:len(first)])
    u = rank_sum / 2.0 - len(first) * (len(first) + 1) / 2.0
    if len(doubled) <= EXACT_MAX_SAMPLES:
        return RankTest(u, min(1.0, exact_p(doubled, len(first), rank_sum)), "exact")
    return RankTest(u, normal_p(u, len(first), len(second), doubled), "normal approximation with tie correction")


def smallest_p(first_count, second_count):
    """The smallest two-sided p the test can give for these sample sizes (the samples fully apart)."""
    return min(1.0, 2.0 / math.comb(first_count + second_count, first_count))


@dataclass(frozen=True)
class Verdict:
    verdict: str                # better, worse, no significant difference, no verdict possible
    p: float | None = None
    test: str | None = None
    reason: str | None = None   # why no verdict is possible

    @property
    def significant(self):
        return self.verdict in (BETTER, WORSE)

    @property
    def tone(self):
        """What to colour: only a significant change."""
        return self.verdict if self.significant else None

    def describe(self):
        if self.verdict == NO_VERDICT:
            return "%s: %s" % (NO_VERDICT, self.reason)
        return "%s (p = %s, %s)" % (self.verdict, format_p(self.p), self.test)


def format_p(p):
    return "%.2g" % p if p >= 0.001 else "%.1e" % p


@functools.lru_cache(maxsize=None)
def _compare(before, after, higher_is_better, alpha):
    return compare_uncached(list(before), list(after), higher_is_better, alpha)


def compare(before, after, higher_is_better, alpha=ALPHA):
    """compare_uncached, computed once per distinct input: the report asks for each verdict more than once."""
    return _compare(tuple(before), tuple(after), higher_is_better, alpha)


def compare_uncached(before, after, higher_is_better, alpha=ALPHA):
    """The verdict on ``after`` against ``before`` (the repeats of a figure in two runs): better or worse
    when the test finds a difference at ``alpha``, and no verdict when the sizes cannot reach it."""
    before = [value for value in before if value is not None]
    after = [value for value in after if value is not None]
    if not before or not after:
        return Verdict(NO_VERDICT, reason="no value in %s" % ("either run" if not (before or after)
                                                              else "the earlier run" if not before else "this run"))
    floor = smallest_p(len(after), len(before))
    if floor > alpha:
        return Verdict(NO_VERDICT, reason="%d vs %d repeats: a two-sided rank test cannot reach p <= %g (smallest "
                                          "p %s)" % (len(after), len(before), alpha, format_p(floor)))
    test = mann_whitney_u(after, before)
    if test.p > alpha:
        return Verdict(NO_DIFFERENCE, test.p, test.name)
    higher = test.u > len(after) * len(before) / 2.0
    return Verdict(BETTER if higher == higher_is_better else WORSE, test.p, test.name)
