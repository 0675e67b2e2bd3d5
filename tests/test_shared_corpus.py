"""Every test reaches ``../shared`` through :mod:`tests.shared_corpus`, so that ``TLINT_HIDE_SHARED=1`` hides all
of it: ``.ci/run`` proves with it that the suite passes on a machine with nothing beside the clone."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_test_builds_a_path_to_shared_itself() -> None:
    builders = sorted(
        f"{path.relative_to(TESTS)}:{node.lineno}"
        for path in TESTS.rglob("*.py")
        if path.name not in ("shared_corpus.py", Path(__file__).name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value == "shared"
    )
    assert builders == [], "build the path from tests.shared_corpus.SHARED or CORPUS"
