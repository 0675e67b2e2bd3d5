"""The real files of ``../shared/corpus/`` beside the project, read in place (never copied into it).

Where that directory is absent (a checkout without the shared corpus), the tests that need it are
skipped, saying which directory they looked for.  ``TLINT_HIDE_SHARED=1`` hides it where it is present,
so that CI proves the suite passes on a fresh machine with nothing beside the clone (``.ci/run``).
Every test reaches ``../shared`` through :data:`SHARED`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

HIDE_VARIABLE = "TLINT_HIDE_SHARED"
_BESIDE = Path(__file__).resolve().parents[1].parent / "shared"
# Hidden: a directory that does not exist, named so that every skip reason says why it is absent.
SHARED = _BESIDE.with_name(f"shared (hidden by {HIDE_VARIABLE})") if os.environ.get(HIDE_VARIABLE) else _BESIDE
CORPUS = SHARED / "corpus"


def _absent(directory: Path) -> str:
    return f"{directory} is absent: the real files are read in place from ../shared/corpus/ beside the project"


def corpus_dir(*parts: str) -> Path:
    """A corpus directory; skips the calling test when it is absent."""
    directory = CORPUS.joinpath(*parts)
    if not directory.is_dir():
        pytest.skip(_absent(directory))
    return directory


def corpus_files(*parts: str, pattern: str = "*.txt") -> list[Any]:
    """The files of a corpus directory, as parameters for ``pytest.mark.parametrize``: one skipped
    parameter, with the reason, when the directory is absent."""
    directory = CORPUS.joinpath(*parts)
    if not directory.is_dir():
        return [pytest.param(directory, marks=pytest.mark.skip(reason=_absent(directory)), id="corpus-absent")]
    return sorted(directory.glob(pattern))
