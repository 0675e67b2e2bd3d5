"""The megatron-trace adapter merges rank digests in the order they arrive: per-stage counts must come out as
if merged rank by rank, so that a majority's tie goes to the same value."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from lint.formats.megatron_trace.diff import _FirstMet

ranks_and_values = st.lists(st.tuples(st.integers(0, 20), st.lists(st.sampled_from("abcde"), max_size=6)), max_size=8, unique_by=lambda pair: pair[0])


@settings(max_examples=100, deadline=None)
@given(ranks_and_values, st.randoms(use_true_random=False))
def test_counts_merged_in_any_order_list_values_as_merged_in_rank_order(ranks: list[tuple[int, list[str]]], shuffler: random.Random) -> None:
    in_rank_order: Counter[str] = Counter()
    for _, values in sorted(ranks):
        in_rank_order.update(Counter(values))
    arriving = list(ranks)
    shuffler.shuffle(arriving)
    merged: _FirstMet[str] = _FirstMet()
    for rank, values in arriving:
        merged.add(Counter(values), rank)
    assert list(merged.ordered().items()) == list(in_rank_order.items())
