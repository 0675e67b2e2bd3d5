"""Reporters: each renders a report to text for people or machines; the CLI picks one by name.

Reporter modules are imported on use: ``rich`` alone costs more start-up time than checking a small file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TextIO

from lint.models.report import CheckReport

Renderer = Callable[[CheckReport, TextIO, TextIO], None]

CHECK_REPORTERS: dict[str, str] = {
    "concise": "lint.report.concise",
    "full": "lint.report.full",
    "json": "lint.report.json_report",
    "sarif": "lint.report.sarif",
    "github": "lint.report.github",
    "junit": "lint.report.junit",
}


def check_reporter(name: str) -> Renderer:
    renderer: Renderer = importlib.import_module(CHECK_REPORTERS[name]).render
    return renderer
