"""Helpers of the differ's tests: run the differ on paths, and index its changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint.diff import DiffOptions, diff_paths
from lint.models.diff import Change, DiffReport
from tests.shared_corpus import CORPUS as SHARED_CORPUS

SEEDS = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"
CORPUS = SHARED_CORPUS / "simai_workload"  # read in place; tests that need it skip where it is absent


def diff_of(a: Path | str, b: Path | str, **options: Any) -> DiffReport:  # DiffOptions' fields, of their several types
    return diff_paths(str(a), str(b), options=DiffOptions(**options))


def significant(report: DiffReport, category: str | None = None) -> list[Change]:
    return [c for c in report.changes if c.significant and (category is None or c.category == category)]


def keyed(changes: list[Change]) -> set[tuple[str, str]]:
    return {(c.key, c.field) for c in changes}
