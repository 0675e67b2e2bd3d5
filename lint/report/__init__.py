"""Reporters: each renders a report to text for people or machines; the CLI picks one by name.

Reporter modules are imported on use: ``rich`` alone costs more start-up time than checking a small file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from lint.models.diff import DiffReport
    from lint.models.report import CheckReport

Renderer = Callable[["CheckReport", TextIO, TextIO], None]
DiffRenderer = Callable[["DiffReport", TextIO, TextIO], None]

CHECK_REPORTERS: dict[str, str] = {
    "concise": "lint.report.concise",
    "full": "lint.report.full",
    "json": "lint.report.json_report",
    "sarif": "lint.report.sarif",
    "github": "lint.report.github",
    "junit": "lint.report.junit",
}


DIFF_REPORTERS: dict[str, str] = {
    "concise": "lint.report.diff.concise",
    "full": "lint.report.diff.full",
    "json": "lint.report.diff.json_report",
    "html": "lint.report.diff.html",
}

HUMAN_FORMATS = frozenset({"concise", "full"})  # the formats beside which a progress bar may show


def check_reporter(name: str) -> Renderer:
    renderer: Renderer = importlib.import_module(CHECK_REPORTERS[name]).render
    return renderer


def diff_reporter(name: str) -> DiffRenderer:
    renderer: DiffRenderer = importlib.import_module(DIFF_REPORTERS[name]).render
    return renderer
