"""``json``: one document, ``{"version": 1, "a", "b", "changes", "summary"}``."""

from __future__ import annotations

from typing import TextIO

from lint.models.diff import DiffReport


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    out.write(report.model_dump_json(indent=2))
    out.write("\n")
