"""Regexes derived from a grammar carry no group that order does not need (lint.parse.ebnf): each piece is
grouped exactly where leaving the group out would change what the regex means, which the regex compiler
shows - the program it compiles is the same with and without the groups left out."""

from __future__ import annotations

from re import _compiler, _parser  # type: ignore[attr-defined]  # the compiled program, to compare

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lint.parse.ebnf import _atom, _in_sequence


def _program(regex: str) -> list[int]:
    code: list[int] = _compiler._code(_parser.parse(regex, 0), 0)
    return code


_single = st.sampled_from(["a", "b", ".", "\\d", "\\[", "\\|", "[a-z]", "[]x]", "[^]|(]", "\\u202a", " "])
_pieces = st.recursive(
    _single,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map("".join),  # a sequence
        st.lists(inner, min_size=2, max_size=3).map("|".join),  # an alternation, as a rule's body may be
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{0,3}"])).map(lambda pair: _atom(pair[0]) + pair[1]),
        inner.map(lambda regex: f"(?:{regex})"),
        inner.map(lambda regex: f"({regex})"),  # a field's group
    ),
    max_leaves=6,
)


@given(_pieces, st.sampled_from(["*", "+", "?", "{3}", "{1,2}"]))
def test_a_quantified_atom_means_what_the_grouped_regex_means(regex: str, quantifier: str) -> None:
    assert _program(_atom(regex) + quantifier) == _program(f"(?:{regex}){quantifier}")


@given(_pieces)
def test_a_regex_in_a_sequence_means_what_the_grouped_regex_means(regex: str) -> None:
    assert _program(f"x{_in_sequence(regex)}y") == _program(f"x(?:{regex})y")


@pytest.mark.parametrize(
    ("regex", "atom", "in_sequence"),
    [
        ("a", "a", "a"),
        ("ab", "(?:ab)", "ab"),
        ("\\d", "\\d", "\\d"),
        ("[]|]", "[]|]", "[]|]"),
        ("[0-9]+", "(?:[0-9]+)", "[0-9]+"),
        ("(?:a|b)", "(?:a|b)", "(?:a|b)"),
        ("a|b", "(?:a|b)", "(?:a|b)"),
        ("(?P<x>a|b)c", "(?:(?P<x>a|b)c)", "(?P<x>a|b)c"),
    ],
)
def test_groups_are_added_only_where_needed(regex: str, atom: str, in_sequence: str) -> None:
    assert (_atom(regex), _in_sequence(regex)) == (atom, in_sequence)
