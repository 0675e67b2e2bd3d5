"""``json``: exactly one JSON document on stdout (schema ``version`` 1)."""

from __future__ import annotations

from typing import TextIO

from lint.models.report import CheckReport


def render(report: CheckReport, out: TextIO, err: TextIO) -> None:
    out.write(report.model_dump_json(indent=2))
    out.write("\n")
