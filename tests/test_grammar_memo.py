"""The grammar memos: what Lark's grammar of grammars reads from a format grammar, and what the fast path
asks of it (its answers: derived regexes, field names, ...), kept in the cache directory.

They must give exactly what parsing the grammar and deriving give, and a missing, damaged or unwritable memo
must only cost the parse again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint.formats import FORMAT_NAMES, named
from lint.parse import ebnf, grammar
from lint.store import disk
from lint.store.resources import grammar_path
from tests.conftest import files_below, fresh_memo_directory


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from fresh_memo_directory(tmp_path, monkeypatch, ebnf._ebnf)


memos = files_below


def _beside_the_codes_fingerprint(directory: Path) -> list[Path]:
    """The memos in ``directory`` once the fingerprint of tlint's code, which keys a grammar's, is worked out:
    its own memo is written there only if no test before this one worked it out in this process."""
    disk.code_fingerprint()
    return memos(directory)


@pytest.mark.parametrize("format_name", [name for name in FORMAT_NAMES if named(name).grammar is not None])
def test_a_remembered_grammar_is_the_grammar_parsed_again(cache_dir: Path, format_name: str) -> None:
    text = grammar_path(format_name).read_text(encoding="utf-8")
    parsed = ebnf._parsed_ebnf(text)
    before = _beside_the_codes_fingerprint(cache_dir)
    assert ebnf._ebnf(text) == parsed  # the first read writes the memo
    assert len(memos(cache_dir)) == len(before) + 1
    ebnf._ebnf.cache_clear()
    remembered = ebnf._ebnf(text)  # the second reads it
    assert remembered == parsed
    assert [type(node) for node in remembered.rules.values()] == [type(node) for node in parsed.rules.values()]


def test_a_changed_grammar_is_a_new_memo(cache_dir: Path) -> None:
    text = grammar_path("neusight-tsv").read_text(encoding="utf-8")
    before = _beside_the_codes_fingerprint(cache_dir)
    ebnf._ebnf(text)
    changed = text + "\nEXTRA: /x+/\n"
    assert "EXTRA" in ebnf._ebnf(changed).terminals
    assert len(memos(cache_dir)) == len(before) + 2


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'[{"header": [3, []]}, {}]',
        b'[{"header": {"type": 1}}, {}]',
        b"[" * 100_000,
    ],
)
def test_a_damaged_memo_is_parsed_again_and_rewritten(cache_dir: Path, damage: bytes) -> None:
    text = grammar_path("neusight-tsv").read_text(encoding="utf-8")
    expected = ebnf._ebnf(text)
    (memo,) = memos(cache_dir)
    memo.write_bytes(damage)
    ebnf._ebnf.cache_clear()
    assert ebnf._ebnf(text) == expected
    assert memo.read_bytes() != damage


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only directories")
def test_a_read_only_cache_directory_only_costs_the_parse(cache_dir: Path) -> None:
    cache_dir.mkdir()
    cache_dir.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        text = grammar_path("neusight-tsv").read_text(encoding="utf-8")
        assert ebnf._ebnf(text) == ebnf._parsed_ebnf(text)
    finally:
        cache_dir.chmod(stat.S_IRWXU)
    assert memos(cache_dir) == []


def test_an_unusable_cache_path_only_costs_the_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(blocker / "cache"))
    ebnf._ebnf.cache_clear()
    text = grammar_path("simai-workload").read_text(encoding="utf-8")
    assert ebnf._ebnf(text) == ebnf._parsed_ebnf(text)
    ebnf._ebnf.cache_clear()


@pytest.fixture
def answers_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    ebnf._ebnf.cache_clear()
    yield from fresh_memo_directory(tmp_path, monkeypatch, grammar._answers)
    ebnf._ebnf.cache_clear()


def _asked(of: grammar.Grammar) -> list[object]:
    """What a fast path asks of grammar ``of``, answered."""
    derived = of.derive("row", {"name"}, {"process_time": "x+"})
    return [derived.text, derived.fields, of.field_names("row"), of.alternatives("forward_comm_type"), of.terminal_regex("TIME")]


def test_a_remembered_answer_is_the_one_derived_again(answers_dir: Path) -> None:
    text = grammar_path("neusight-tsv").read_text(encoding="utf-8")
    fresh = ebnf.Rules("neusight-tsv", text)
    derived_text, derived_fields = fresh.derive("row", ["name"], {"process_time": "x+"})
    expected = [derived_text, tuple(derived_fields), fresh.field_names("row"), tuple(fresh.alternatives("forward_comm_type")), fresh.terminal_regex("TIME")]
    assert _asked(grammar.Grammar("neusight-tsv", start=["row"])) == expected  # worked out, and remembered
    grammar._answers.cache_clear()
    ebnf._ebnf.cache_clear()
    assert _asked(grammar.Grammar("neusight-tsv", start=["row"])) == expected  # read back
    assert ebnf._ebnf.cache_info().currsize == 0  # without reading the grammar's EBNF


def test_an_answer_is_worked_out_once_per_grammar(answers_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = ebnf.Rules.derive

    def derive(self: ebnf.Rules, rule: str, fields: list[str], loose: dict[str, str]) -> tuple[str, list[str]]:
        asked.append(rule)
        return real(self, rule, fields, loose)

    monkeypatch.setattr(ebnf.Rules, "derive", derive)
    for _ in range(2):  # the second grammar alike (a parser built again) finds the answers in memory
        _asked(grammar.Grammar("neusight-tsv", start=["row"]))
    assert asked == ["row"]


@pytest.mark.parametrize("damage", [b"", b"not json", b"[1, 2]", b'{"[\\"derive\\", \\"row\\", [], {}]": [1]}', b"[" * 100_000])
def test_damaged_answers_are_worked_out_again(answers_dir: Path, damage: bytes) -> None:
    expected = _asked(grammar.Grammar("neusight-tsv", start=["row"]))
    for memo in memos(answers_dir):
        memo.write_bytes(damage)
    grammar._answers.cache_clear()
    assert _asked(grammar.Grammar("neusight-tsv", start=["row"])) == expected
