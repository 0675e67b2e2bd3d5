"""The differ's statistics against reference values (scipy.stats.mannwhitneyu, statsmodels' Holm), and the
count-based ones against the list-based definitions they replace."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.profile.stats import EXACT_LIMIT, holm, mann_whitney_p, median, quantile


def test_quantiles_interpolate_between_order_statistics() -> None:
    assert quantile(Counter([1, 2, 3, 4]), 0.25) == 1.75 and quantile(Counter([5]), 0.9) == 5


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([1, 2, 3], [4, 5, 6], 0.1),  # exact: 2 of the 20 arrangements are as extreme
        ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 2 / 252),
        ([1, 3, 5, 7], [2, 4, 6, 8], 0.6857142857142857),
        # ties: normal approximation; U = 1.5, sigma^2 = 3 * (13 - 78/132), z = 16/sigma, continuity-corrected
        ([1, 2, 2, 3, 3, 3], [3, 4, 4, 5, 5, 6], 0.0087328),
    ],
)
def test_mann_whitney_matches_reference_values(a: list[float], b: list[float], expected: float) -> None:
    assert mann_whitney_p(Counter(a), Counter(b)) == pytest.approx(expected, rel=1e-3)


def test_mann_whitney_is_never_significant_on_one_sample_or_no_spread() -> None:
    assert mann_whitney_p(Counter([1.0]), Counter([5.0, 6.0, 7.0])) == 1.0
    assert mann_whitney_p(Counter([2.0, 2.0]), Counter([2.0, 2.0, 2.0])) == 1.0


def test_identical_values_within_each_side_still_separate() -> None:
    assert mann_whitney_p(Counter([3.0] * 16), Counter([4.0] * 16)) < 1e-6


def test_holm_adjusts_step_down_and_stays_monotone() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])


samples = st.lists(st.floats(0, 1000, allow_nan=False), min_size=0, max_size=25)


@settings(max_examples=60, deadline=None)
@given(samples, samples)
def test_p_is_a_probability_and_symmetric(a: list[float], b: list[float]) -> None:
    p = mann_whitney_p(Counter(a), Counter(b))
    assert 0.0 <= p <= 1.0
    assert p == pytest.approx(mann_whitney_p(Counter(b), Counter(a)))


# -- counts against lists ---------------------------------------------------------------------------
# The definitions on lists of samples, as the differ computed them before it kept counts.


def listed_quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def listed_mann_whitney_p(a: list[float], b: list[float]) -> float:
    n1, n2 = len(a), len(b)
    if n1 < 2 or n2 < 2:
        return 1.0
    merged = sorted([*a, *b])
    rank = {v: merged.index(v) + (merged.count(v) + 1) / 2 for v in merged}  # mid-rank, 1-based
    u = sum(rank[v] for v in a) - n1 * (n1 + 1) / 2
    ties = [merged.count(v) for v in set(merged) if merged.count(v) > 1]
    if not ties and n1 + n2 <= EXACT_LIMIT:  # every way to pick a's ranks among 1..n, counted
        us = [sum(chosen) - n1 * (n1 + 1) / 2 for chosen in combinations(range(1, n1 + n2 + 1), n1)]
        low = sum(x <= u for x in us) / len(us)
        high = sum(x >= u for x in us) / len(us)
        return min(1.0, 2 * min(low, high))
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - sum(t**3 - t for t in ties) / (n * (n - 1)))
    if variance <= 0:
        return 1.0
    return math.erfc(max(abs(u - n1 * n2 / 2) - 0.5, 0.0) / math.sqrt(variance) / math.sqrt(2))


rounded_ms = st.integers(0, 40).map(lambda hundredths: round(3.0 + hundredths * 0.01, 2))  # a writer's 2 decimals: ties
tied_samples = st.lists(rounded_ms, max_size=40)


@st.composite
def distinct_pairs(draw: st.DrawFn) -> tuple[list[float], list[float]]:
    """Two small sides with no value twice: the exact test's case."""
    values = draw(st.lists(st.floats(0, 100, allow_nan=False), unique=True, max_size=14))
    cut = draw(st.integers(0, len(values)))
    return values[:cut], values[cut:]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.tuples(tied_samples, tied_samples), distinct_pairs()))
def test_mann_whitney_on_counts_is_the_test_on_lists(sides: tuple[list[float], list[float]]) -> None:
    a, b = sides
    assert mann_whitney_p(Counter(a), Counter(b)) == listed_mann_whitney_p(a, b)


@settings(max_examples=200, deadline=None)
@given(st.lists(rounded_ms, min_size=1, max_size=40), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]) | st.floats(0, 1))
def test_quantile_and_median_on_counts_are_those_of_lists(samples: list[float], q: float) -> None:
    assert quantile(Counter(samples), q) == listed_quantile(samples, q)
    assert median(Counter(samples)) == statistics.median(samples)
