"""Suite-wide options and isolation from the environment the tests happen to run in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fuzz import budget


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long",
        action="store_true",
        help=f"run the fuzz suite with {budget.LONG_FACTOR}x its examples (a deeper local run; CI keeps the default)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fuzz-long"):
        budget.factor = budget.LONG_FACTOR


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The result cache goes to a temporary directory, never the user's."""
    directory = tmp_path_factory.mktemp("tlint-cache")
    patcher = pytest.MonkeyPatch()
    patcher.setenv("TLINT_CACHE_DIR", str(directory))
    yield directory
    patcher.undo()


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside GitHub Actions the default output format is ``github``; the tests expect the plain one."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


def fresh_memo_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memoized: Any) -> Iterator[Path]:
    """A cache directory of the test's own, with ``memoized`` (a functools.cache of what tlint remembers
    there) forgotten before and after: what the test sees was worked out and stored in that directory."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("TLINT_CACHE_DIR", str(directory))
    memoized.cache_clear()
    yield directory
    memoized.cache_clear()


def files_below(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file()) if directory.exists() else []
