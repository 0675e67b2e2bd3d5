"""The statistics the differ needs beyond the standard library: quantiles, the Mann-Whitney U test, Holm's correction.

Timing samples of two runs are rarely normal (a wait time is uniform, a warm-up step is an outlier), so
changes are tested on ranks, not means.  Many timing keys are tested at once; Holm's step-down
correction keeps the chance that any of them is flagged by noise alone at the chosen level.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TypeVar

# Up to this many samples on both sides together, and without ties, the exact distribution of U is used.
EXACT_LIMIT = 30

# Samples as value -> how many times it was met.  Writers round times (megatron-trace durations to 0.01 ms),
# so values repeat: a run's samples take memory by their distinct values, not by ranks × steps.
Sample = TypeVar("Sample", bound=float)  # a time, or a count of events (ints)
Counts = Mapping[Sample, int]


def quantile(counts: Counts[Sample], q: float) -> float:
    """The ``q`` quantile of the samples ``counts`` holds, by linear interpolation between order statistics
    (numpy's default)."""
    position = (total(counts) - 1) * q
    low = math.floor(position)
    high = min(low + 1, total(counts) - 1)
    below, above = _order_statistics(counts, low, high)
    return below + (above - below) * (position - low)


def median(counts: Counts[Sample]) -> float:
    """The median of the samples ``counts`` holds: the middle one, or the mean of the two middle ones
    (:func:`statistics.median`)."""
    n = total(counts)
    if n % 2:
        return _order_statistics(counts, n // 2, n // 2)[0]
    below, above = _order_statistics(counts, n // 2 - 1, n // 2)
    return below / 2 + above / 2  # what (below + above) / 2 gives, without overflowing near the largest float


def total(counts: Counts[Sample]) -> int:
    """How many samples ``counts`` holds."""
    return sum(counts.values())


def _order_statistics(counts: Counts[Sample], low: int, high: int) -> tuple[float, float]:
    """The samples at 0-based positions ``low`` <= ``high`` of the sorted samples."""
    found: list[float] = []
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        while len(found) < 2 and (low, high)[len(found)] < seen:
            found.append(value)
        if len(found) == 2:
            break
    return found[0], found[1]


def _rank_sum_and_ties(a: Counts[Sample], b: Counts[Sample]) -> tuple[float, list[int]]:
    """The sum of the mid-ranks (1-based) of ``a``'s samples among both sides', and the sizes of the groups of ties."""
    rank_sum = 0.0
    ties: list[int] = []
    start = 0  # samples below the value
    for value in sorted(a.keys() | b.keys()):
        in_a = a.get(value, 0)
        tied = in_a + b.get(value, 0)
        rank_sum += in_a * (start + (tied + 1) / 2)
        if tied > 1:
            ties.append(tied)
        start += tied
    return rank_sum, ties


@cache
def _u_counts(n1: int, n2: int) -> tuple[int, ...]:
    """How many arrangements of n1 + n2 distinct values give each U from 0 to n1 * n2."""
    if n1 == 0 or n2 == 0:
        return (1,)
    # The largest value belongs to the first sample (adding n2 to U) or to the second (adding nothing).
    with_first = _u_counts(n1 - 1, n2)
    without = _u_counts(n1, n2 - 1)
    counts = [0] * (n1 * n2 + 1)
    for u, count in enumerate(with_first):
        counts[u + n2] += count
    for u, count in enumerate(without):
        counts[u] += count
    return tuple(counts)


def mann_whitney_p(a: Counts[Sample], b: Counts[Sample]) -> float:
    """Two-sided p-value of the Mann-Whitney U test that the samples ``a`` and ``b`` hold come from one distribution.

    Exact for small samples without ties; otherwise the normal approximation with tie and continuity
    corrections.  1.0 when either side has fewer than two samples or every value is the same.
    """
    n1, n2 = total(a), total(b)
    if n1 < 2 or n2 < 2:
        return 1.0
    rank_sum, ties = _rank_sum_and_ties(a, b)
    u = rank_sum - n1 * (n1 + 1) / 2
    if not ties and n1 + n2 <= EXACT_LIMIT:
        counts = _u_counts(n1, n2)
        arrangements = sum(counts)
        low = sum(counts[: int(u) + 1]) / arrangements
        high = sum(counts[int(u) :]) / arrangements
        return min(1.0, 2 * min(low, high))
    n = n1 + n2
    tie_term = sum(t**3 - t for t in ties) / (n * (n - 1))
    variance = n1 * n2 / 12 * ((n + 1) - tie_term)
    if variance <= 0:
        return 1.0
    z = max(abs(u - n1 * n2 / 2) - 0.5, 0.0) / math.sqrt(variance)
    return math.erfc(z / math.sqrt(2))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (each compared with alpha as is)."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - position) * p_values[index]))
        adjusted[index] = running
    return adjusted
