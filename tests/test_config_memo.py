"""What a configuration file held when last parsed, remembered in the cache directory by its path and text:
an unchanged file is read without tomllib, a changed one is parsed again, a broken one is an error as
ever, and a missing, damaged or unwritable memo only costs the parse."""

from __future__ import annotations

import io
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from lint.check import config, config_memo
from lint.cli import main
from lint.store import disk
from tests.conftest import fresh_memo_directory

SEED_TRACE = Path(__file__).resolve().parent / "fixtures" / "seeds" / "000_14848477538be528.txt"
IGNORED = 'ignore = ["invalid-syntax"]\n'


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from fresh_memo_directory(tmp_path, monkeypatch, config._toml)


@pytest.fixture
def broken_trace(tmp_path: Path) -> Path:
    """A trace with one syntax error (TL001, invalid-syntax): the check exits 1, or 0 where the configuration ignores it."""
    lines = SEED_TRACE.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("stage_id=3", "stage_id=x")
    path = tmp_path / "project" / "trace_rank7.txt"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def check(path: Path) -> tuple[int, str]:
    config._toml.cache_clear()  # as a new process: what is not in the cache directory is parsed again
    err = io.StringIO()
    return main(["check", str(path), "--no-cache"], stdout=io.StringIO(), stderr=err), err.getvalue()


def memo_of(path: Path) -> Path:
    key = config_memo._key(str(path))
    return Path(disk.in_root(disk.MEMOS, key[:2], key))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tlint.toml", IGNORED),
        ("pyproject.toml", '[project]\nname = "x"\nreleased = 1979-05-27\n[tool.tlint]\n' + IGNORED),  # a date outside tlint's table
    ],
)
def test_an_unchanged_configuration_is_read_from_its_memo(cache_dir: Path, broken_trace: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    configuration = broken_trace.parent / name
    configuration.write_text(text, encoding="utf-8")
    assert check(broken_trace)[0] == 0
    assert memo_of(configuration).is_file()
    monkeypatch.setattr(tomllib, "loads", lambda text: pytest.fail("tomllib parsed a file whose document is remembered"))
    assert check(broken_trace)[0] == 0


def test_a_changed_configuration_is_parsed_again(cache_dir: Path, broken_trace: Path) -> None:
    configuration = broken_trace.parent / "tlint.toml"
    configuration.write_text(IGNORED, encoding="utf-8")
    assert check(broken_trace)[0] == 0
    configuration.write_text('ignore = ["op-overlap"]\n', encoding="utf-8")
    assert check(broken_trace)[0] == 1
    assert config_memo.recall(str(configuration), 'ignore = ["op-overlap"]\n') == {"ignore": ["op-overlap"]}


def test_a_configuration_broken_after_it_was_remembered_is_still_an_error(cache_dir: Path, broken_trace: Path) -> None:
    configuration = broken_trace.parent / "pyproject.toml"
    configuration.write_text("[tool.tlint]\n" + IGNORED, encoding="utf-8")
    assert check(broken_trace)[0] == 0
    configuration.write_text('[tool.tlint]\nignore = ["invalid-syntax"\n', encoding="utf-8")
    assert check(broken_trace) == (2, f"tlint: error: {configuration}:2: not valid TOML: Unclosed array at the end of the file\n")


@pytest.mark.parametrize(
    "damage",
    [
        b"\x00garbage",
        b'{"text": "ignore = [\\"invalid-syntax\\"]\\n", "document": {"ignore": null}}',  # no TOML holds a null
        b'{"text": "ignore = [\\"invalid-syntax\\"]\\n", "document": ["ignore"]}',
        b"[" * 100_000,
    ],
)
def test_a_damaged_memo_is_a_miss(cache_dir: Path, broken_trace: Path, damage: bytes) -> None:
    configuration = broken_trace.parent / "tlint.toml"
    configuration.write_text(IGNORED, encoding="utf-8")
    assert check(broken_trace)[0] == 0
    memo_of(configuration).write_bytes(damage)
    assert check(broken_trace)[0] == 0
    assert config_memo.recall(str(configuration), IGNORED) == {"ignore": ["invalid-syntax"]}  # and written again


def test_what_json_cannot_hold_exactly_is_not_remembered(cache_dir: Path, broken_trace: Path) -> None:
    configuration = broken_trace.parent / "tlint.toml"
    configuration.write_text("select = [1979-05-27]\n", encoding="utf-8")
    code, err = check(broken_trace)
    assert code == 2 and f"{configuration}:1: key 'select.0'" in err
    assert not memo_of(configuration).exists()


def test_an_unwritable_cache_directory_only_costs_the_parse(tmp_path: Path, broken_trace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("TLINT_CACHE_DIR", str(blocked))
    (broken_trace.parent / "tlint.toml").write_text(IGNORED, encoding="utf-8")
    assert check(broken_trace)[0] == 0
    assert check(broken_trace)[0] == 0
