"""Nothing in tlint evaluates its input as code: no eval, exec, literal_eval, pickle or marshal anywhere in
the linter or its rules (sub-operation lists look like Python literals, and must still be parsed, not run)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = re.compile(r"\b(?:eval|exec)\s*\(|\b(?:literal_eval|pickle|marshal)\b")


def test_no_source_file_evaluates_code_or_unpickles() -> None:
    sources = sorted([*(ROOT / "lint").rglob("*.py"), *(ROOT / "rules").rglob("*.py")])
    assert len(sources) > 40
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert found == []
