"""Every golden model dump still matches what the parser yields for its fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.regenerate import GOLDEN, ROOT, golden_dump

GOLDEN_FILES = sorted(GOLDEN.glob("*/*.json"))


@pytest.mark.parametrize("golden", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_parser_output_matches_golden_dump(golden: Path) -> None:
    expected = json.loads(golden.read_text(encoding="utf-8"))
    actual = golden_dump(expected["format"], ROOT / expected["source"])
    assert actual == expected, f"regenerate with: python tests/golden/regenerate.py (then review the diff of {golden.name})"


def test_every_format_has_golden_dumps() -> None:
    from lint.formats import FORMAT_NAMES

    assert {p.parent.name for p in GOLDEN_FILES} == set(FORMAT_NAMES)
