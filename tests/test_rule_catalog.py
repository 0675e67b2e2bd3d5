"""The rule catalog: what selecting rules needs, remembered so that a check loads only the rules it runs.

It is derived from the rule modules (one rule per module), so it must list exactly what loading them
lists, and a missing or damaged memo must only cost loading them again.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint import rule
from lint.check.config import Overrides, load_settings
from lint.cli import main
from tests.conftest import files_below, fresh_memo_directory


@pytest.fixture
def fresh_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from fresh_memo_directory(tmp_path, monkeypatch, rule.catalog)


def memos(directory: Path) -> list[Path]:
    return files_below(directory / "v2" / "memos")


def expected_listing() -> dict[str, rule.Listed]:
    return {code: rule.Listed.of(found) for code, found in rule.registry().items()}


def test_the_remembered_catalog_is_what_loading_every_rule_module_gives(fresh_catalog: Path) -> None:
    first = rule.catalog()
    assert first == expected_listing() and len(memos(fresh_catalog)) == 1
    rule.catalog.cache_clear()
    assert rule.catalog() == first  # read back from the memo
    for code, listed in first.items():
        assert listed.load() is rule.registry()[code]  # a rule loaded alone is the registry's own class
        assert listed.defaults == rule.options_json(rule.registry()[code].Options())


@pytest.mark.parametrize("damage", [b"", b"{}", b"[[1]]", b'[["TL001", "x", "fatal", [], "file", [], "tl001.py", {}]]', b"[" * 100_000])
def test_a_damaged_catalog_is_listed_again(fresh_catalog: Path, damage: bytes) -> None:
    rule.catalog()
    (memo,) = memos(fresh_catalog)
    memo.write_bytes(damage)
    rule.catalog.cache_clear()
    assert rule.catalog() == expected_listing()
    assert memo.read_bytes() != damage


def test_selection_validates_codes_and_options_against_the_catalog(fresh_catalog: Path, tmp_path: Path) -> None:
    rule.catalog()
    rule.catalog.cache_clear()  # from the memo from here on
    err = io.StringIO()
    assert main(["check", str(tmp_path), "--select", "TL999"], stdout=io.StringIO(), stderr=err) == 2
    assert "unknown rule code or name 'TL999'" in err.getvalue()
    out = io.StringIO()
    assert main(["rule", "TL101"], stdout=out, stderr=io.StringIO()) == 0 and out.getvalue().startswith("TL101 (")
    listed = io.StringIO()
    assert main(["rules", "--output-format", "json"], stdout=listed, stderr=io.StringIO()) == 0
    assert [entry["code"] for entry in json.loads(listed.getvalue())] == sorted(rule.registry())


def test_cache_keys_hold_the_options_of_the_rules_of_the_files_format(fresh_catalog: Path, tmp_path: Path) -> None:
    config = tmp_path / "tlint.toml"
    defaults = load_settings(None, Overrides()).selection
    megatron_only = next(code for code, listed in rule.catalog().items() if listed.formats == ("megatron-trace",) and listed.defaults)
    option, value = next(iter(rule.catalog()[megatron_only].defaults.items()))
    config.write_text(f"[rules.{megatron_only}]\n{option} = {json.dumps(value)}\n", encoding="utf-8")
    configured = load_settings(config, Overrides()).selection
    assert configured.options_json("megatron-trace") == defaults.options_json("megatron-trace")  # the same values
    assert megatron_only in defaults.options_json("megatron-trace")
    assert megatron_only not in defaults.options_json("neusight-tsv")


def test_an_unusable_cache_directory_only_costs_loading_every_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(blocker / "cache"))
    rule.catalog.cache_clear()
    try:
        assert rule.catalog() == expected_listing()
    finally:
        rule.catalog.cache_clear()
