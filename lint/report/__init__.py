"""Reporters: each renders a report to text for people or machines; the CLI picks one by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from lint.models.report import CheckReport
from lint.report import concise, full, json_report

Renderer = Callable[[CheckReport, TextIO, TextIO], None]

CHECK_REPORTERS: dict[str, Renderer] = {
    "concise": concise.render,
    "full": full.render,
    "json": json_report.render,
}
