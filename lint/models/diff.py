"""What ``tlint diff`` reports: typed changes between two sides, and a verdict (pydantic, versioned)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from lint.models.categories import Category


class Spread(BaseModel):
    """A timing distribution in a few numbers (ms): enough for a bar or a sparkline."""

    count: int
    minimum: float
    p10: float
    p25: float
    median: float
    p75: float
    p90: float
    maximum: float


class Change(BaseModel):
    """One difference.  ``delta = after - before`` and ``rel_delta = delta / before`` where both are numbers."""

    category: Category
    kind: Literal["added", "removed", "changed"]
    key: str
    field: str
    before: Any = None
    after: Any = None
    delta: float | None = None
    rel_delta: float | None = None
    significant: bool
    judged: bool = Field(default=True, description="false when a side has a single timing sample: whether the change is significant cannot be judged")
    # For the human-readable reporters only: the JSON schema is the one above.
    impact: float = Field(default=0.0, exclude=True)
    p_value: float | None = Field(default=None, exclude=True)
    spread_before: Spread | None = Field(default=None, exclude=True)
    spread_after: Spread | None = Field(default=None, exclude=True)


class DiffSide(BaseModel):
    path: str
    format: str
    files: int
    units: dict[str, str]
    step_ms: float | None = Field(description="median step time, where the side has one")
    total_bytes: float | None = Field(description="bytes one step (or workload pass) moves")
    broken: list[str] = Field(default_factory=list, description="the side's files with syntax errors: the comparison is built on what could be read")


class CategoryCount(BaseModel):
    changes: int = 0
    significant: int = 0


class DiffSummary(BaseModel):
    headline: str
    verdict: Literal["identical", "no significant change", "significant change"]
    compared: Literal["full", "common per-layer profile"]
    threshold_percent: float
    counts: dict[str, CategoryCount]
    significant_categories: list[Category]
    fail_on: list[Category]


class PlotSeries(BaseModel):
    """One row of the per-stage timing plot: a label and each side's distribution."""

    label: str
    before: Spread | None
    after: Spread | None


class DiffReport(BaseModel):
    version: Literal[1] = 1
    a: DiffSide
    b: DiffSide
    changes: list[Change] = Field(default_factory=list)
    summary: DiffSummary
    plot: list[PlotSeries] = Field(default_factory=list, exclude=True)

    @property
    def failing(self) -> bool:
        """Whether a significant change falls in a ``--fail-on`` category: the exit code is 1."""
        return bool(set(self.summary.significant_categories) & set(self.summary.fail_on))
