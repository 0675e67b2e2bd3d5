"""The differ's statistics against reference values (scipy.stats.mannwhitneyu, statsmodels' Holm)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.diff.stats import holm, mann_whitney_p, quantile


def test_quantiles_interpolate_between_order_statistics() -> None:
    assert quantile([1, 2, 3, 4], 0.25) == 1.75 and quantile([5], 0.9) == 5


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
    assert mann_whitney_p(a, b) == pytest.approx(expected, rel=1e-3)


def test_mann_whitney_is_never_significant_on_one_sample_or_no_spread() -> None:
    assert mann_whitney_p([1.0], [5.0, 6.0, 7.0]) == 1.0
    assert mann_whitney_p([2.0, 2.0], [2.0, 2.0, 2.0]) == 1.0


def test_identical_values_within_each_side_still_separate() -> None:
    assert mann_whitney_p([3.0] * 16, [4.0] * 16) < 1e-6


def test_holm_adjusts_step_down_and_stays_monotone() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])


samples = st.lists(st.floats(0, 1000, allow_nan=False), min_size=0, max_size=25)


@settings(max_examples=60, deadline=None)
@given(samples, samples)
def test_p_is_a_probability_and_symmetric(a: list[float], b: list[float]) -> None:
    p = mann_whitney_p(a, b)
    assert 0.0 <= p <= 1.0
    assert p == pytest.approx(mann_whitney_p(b, a))
