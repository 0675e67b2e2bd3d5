"""Suite-wide options and isolation from the environment the tests happen to run in."""

from __future__ import annotations

import pytest

from tests.fuzz import budget


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long", action="store_true",
        help=f"run the fuzz suite with {budget.LONG_FACTOR}x its examples (a deeper local run; CI keeps the default)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fuzz-long"):
        budget.factor = budget.LONG_FACTOR


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside GitHub Actions the default output format is ``github``; the tests expect the plain one."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
