"""The grammar memo: what Lark's grammar of grammars reads from a format grammar, kept in the cache directory.

It must give exactly what parsing the grammar gives, and a missing, damaged or unwritable memo must only
cost the parse again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint.formats import FORMAT_NAMES, named
from lint.parse import grammar
from lint.store.resources import grammar_path
from tests.conftest import files_below, fresh_memo_directory


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from fresh_memo_directory(tmp_path, monkeypatch, grammar._ebnf)


memos = files_below


@pytest.mark.parametrize("format_name", [name for name in FORMAT_NAMES if named(name).grammar is not None])
def test_a_remembered_grammar_is_the_grammar_parsed_again(cache_dir: Path, format_name: str) -> None:
    text = grammar_path(format_name).read_text(encoding="utf-8")
    parsed = grammar._parsed_ebnf(text)
    assert grammar._ebnf(text) == parsed  # the first read writes the memo
    assert len(memos(cache_dir)) == 1
    grammar._ebnf.cache_clear()
    remembered = grammar._ebnf(text)  # the second reads it
    assert remembered == parsed
    assert [type(node) for node in remembered.rules.values()] == [type(node) for node in parsed.rules.values()]


def test_a_changed_grammar_is_a_new_memo(cache_dir: Path) -> None:
    text = grammar_path("neusight-tsv").read_text(encoding="utf-8")
    grammar._ebnf(text)
    changed = text + "\nEXTRA: /x+/\n"
    assert "EXTRA" in grammar._ebnf(changed).terminals
    assert len(memos(cache_dir)) == 2


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
    expected = grammar._ebnf(text)
    (memo,) = memos(cache_dir)
    memo.write_bytes(damage)
    grammar._ebnf.cache_clear()
    assert grammar._ebnf(text) == expected
    assert memo.read_bytes() != damage


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only directories")
def test_a_read_only_cache_directory_only_costs_the_parse(cache_dir: Path) -> None:
    cache_dir.mkdir()
    cache_dir.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        text = grammar_path("neusight-tsv").read_text(encoding="utf-8")
        assert grammar._ebnf(text) == grammar._parsed_ebnf(text)
    finally:
        cache_dir.chmod(stat.S_IRWXU)
    assert memos(cache_dir) == []


def test_an_unusable_cache_path_only_costs_the_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(blocker / "cache"))
    grammar._ebnf.cache_clear()
    text = grammar_path("simai-workload").read_text(encoding="utf-8")
    assert grammar._ebnf(text) == grammar._parsed_ebnf(text)
    grammar._ebnf.cache_clear()
