"""Test-wide settings: the result cache goes to a temporary directory, never the user's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("tlint-cache")
    patcher = pytest.MonkeyPatch()
    patcher.setenv("TLINT_CACHE_DIR", str(directory))
    yield directory
    patcher.undo()
