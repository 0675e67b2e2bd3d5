"""The character-indexed alternation matches what the one ``(?P<a>…)|(?P<b>…)`` regex matches."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lint import formats
from lint.formats.optprime_log.parser import Parser
from lint.parse.alternation import Alternation, first_characters
from tests.fuzz.budget import fuzz_settings
from tests.shared_corpus import CORPUS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("pattern", "first"),
    [
        (r"abc", "a"),
        (r"(?:x|yz)w", "xy"),
        (r"[a-c_]+:", "abc_"),
        (r"(?:>> )?-{10,}", ">-"),
        (r"(?:\[rank)(?:[0-9]+)", "["),
        (r"(?=$| )ab", "a"),
    ],
)
def test_the_first_characters_of_a_regex(pattern: str, first: str) -> None:
    assert first_characters(pattern) == frozenset(first)


@pytest.mark.parametrize("pattern", [r"[^\s]+x", r"\dx", r"(?i:ab)", r"a?", r"(?:x|)", r".x", r"(a)?\1"])
def test_a_regex_that_may_begin_anywhere_is_tried_everywhere(pattern: str) -> None:
    assert first_characters(pattern) is None


def _optprime_starts() -> Alternation:
    parser = formats.parser("optprime-log")
    assert isinstance(parser, Parser)
    return parser._starts


INDEXED = _optprime_starts()
STARTS = INDEXED.patterns
PLAIN = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in STARTS.items()))


def _assert_agree(text: str) -> None:
    for position in range(len(text) + 1):
        indexed, plain = INDEXED.match(text, position), PLAIN.match(text, position)
        assert (indexed and (indexed.lastgroup, indexed.span())) == (plain and (plain.lastgroup, plain.span())), (text, position)


def _lines() -> list[str]:
    paths = [ROOT / "examples" / "optprime-log.txt", *sorted((ROOT / "tests" / "fixtures" / "optprime").glob("*"))]
    for directory in ("optprime-log", "optprime-cpu"):
        if (CORPUS / "real" / directory).is_dir():
            paths += sorted((CORPUS / "real" / directory).iterdir())
    return sorted({line for path in paths if path.is_file() for line in path.read_text(encoding="utf-8", errors="replace").splitlines()})


def test_the_optprime_start_rules_agree_at_every_position_of_every_sample_and_real_line() -> None:
    for line in _lines():
        _assert_agree(line)


@fuzz_settings(300)
@given(st.lists(st.sampled_from(_lines()), min_size=1, max_size=3), st.text(alphabet="[]:> -*=|#0123abTSl\t", max_size=8), st.integers(0, 200))
def test_the_optprime_start_rules_agree_on_spliced_lines(lines: list[str], noise: str, cut: int) -> None:
    joined = "".join(lines)
    _assert_agree(joined[:cut] + noise + joined[cut:])


def test_without_pythons_regex_parser_every_regex_is_tried_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("lint.parse.alternation._parser", None)
    unindexed = Alternation(STARTS)
    assert first_characters(r"abc") is None
    for line in _lines()[:200]:
        for position in range(len(line) + 1):
            found, plain = unindexed.match(line, position), PLAIN.match(line, position)
            assert (found and (found.lastgroup, found.span())) == (plain and (plain.lastgroup, plain.span()))
