"""The source reader and every format parser on damaged and random input: nothing raises, every line
comes out once, and every problem points at a line and column that exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lint import formats
from lint.formats import FORMAT_NAMES
from lint.models.common import SyntaxProblem
from lint.read.source import Source
from tests.fuzz.budget import fuzz_settings
from tests.fuzz.inputs import any_bytes, damaged_files, fuzzed_files


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each example's bytes are written (module-scoped: hypothesis reruns the test body in it)."""
    return tmp_path_factory.mktemp("fuzz")


def source_of(scratch: Path, data: bytes) -> Source:
    path = scratch / "input.txt"
    path.write_bytes(data)
    return Source(path, str(path))


@fuzz_settings(200)
@given(data=st.one_of(fuzzed_files, any_bytes.map(lambda b: b.replace(b"a", b"\r").replace(b"b", b"\r\n"))))
def test_the_reader_numbers_every_line_once_and_never_raises(scratch: Path, data: bytes) -> None:
    source = source_of(scratch, data)
    lines = list(source.lines())
    numbers = [number for number, _ in lines]
    assert numbers == list(range(1, len(numbers) + 1))
    assert not any("\n" in text for _, text in lines)
    if source.compression is None:
        assert len(numbers) == data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        assert {problem.line for problem in source.problems} <= set(numbers)
    else:  # a damaged stream is reported after its last readable line
        assert {problem.line for problem in source.problems} <= {*numbers, len(numbers) + 1}
    assert all(isinstance(line, str) for line in source.head())


@pytest.mark.parametrize("format_name", [name for name in FORMAT_NAMES if not formats.named(name).binary])  # binary: tests/formats/test_chakra_et.py
@fuzz_settings(100)
@given(data=fuzzed_files)
def test_a_parser_turns_any_file_into_records_and_located_problems(scratch: Path, format_name: str, data: bytes) -> None:
    lines = dict(source_of(scratch, data).lines())
    for item in formats.parser(format_name).parse(lines.items()):
        assert item.kind, item
        if isinstance(item, SyntaxProblem):
            text = lines.get(item.line, "")
            assert 1 <= item.column <= len(text) + 1, (item, len(text))
            assert item.line in lines or item.line == 1, item  # an empty file is reported on its line 1


@fuzz_settings(30)
@given(data=damaged_files())
def test_detection_of_any_head_never_raises(scratch: Path, data: bytes) -> None:
    source = source_of(scratch, data)
    assert formats.detect(source.head(), source.head_bytes) in (None, *FORMAT_NAMES)
