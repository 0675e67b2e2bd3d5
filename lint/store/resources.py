"""Where the grammars and rules live: inside the installed package, or beside it in a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the lint package


@cache
def _resource_dir(name: str) -> Path:
    installed = _PACKAGE / name  # the wheel force-includes grammars/ and rules/ into the package
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def grammar_path(format_name: str) -> Path:
    return _resource_dir("grammars") / f"{format_name}.lark"


def rules_dir() -> Path:
    return _resource_dir("rules")
