"""The statistics the differ needs beyond the standard library: quantiles, the Mann-Whitney U test, Holm's correction.

Timing samples of two runs are rarely normal (a wait time is uniform, a warm-up step is an outlier), so
changes are tested on ranks, not means.  Many timing keys are tested at once; Holm's step-down
correction keeps the chance that any of them is flagged by noise alone at the chosen level.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

# Up to this many samples on both sides together, and without ties, the exact distribution of U is used.
EXACT_LIMIT = 30


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile by linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _ranks(values: list[float]) -> tuple[list[float], list[int]]:
    """Mid-ranks (1-based) of ``values`` in their order, and the sizes of the groups of ties."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    ties: list[int] = []
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for index in order[start : end + 1]:
            ranks[index] = (start + end) / 2 + 1
        if end > start:
            ties.append(end - start + 1)
        start = end + 1
    return ranks, ties


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


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test that ``a`` and ``b`` come from one distribution.

    Exact for small samples without ties; otherwise the normal approximation with tie and continuity
    corrections.  1.0 when either side has fewer than two samples or every value is the same.
    """
    n1, n2 = len(a), len(b)
    if n1 < 2 or n2 < 2:
        return 1.0
    ranks, ties = _ranks([*a, *b])
    u = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    if not ties and n1 + n2 <= EXACT_LIMIT:
        counts = _u_counts(n1, n2)
        total = sum(counts)
        low = sum(counts[: int(u) + 1]) / total
        high = sum(counts[int(u) :]) / total
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
