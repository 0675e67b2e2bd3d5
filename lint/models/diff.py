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
    kind: Literal["added", "removed", "changed", "renamed"]
    key: str
    field: str
    before: Any = None
    after: Any = None
    delta: float | None = None
    rel_delta: float | None = None
    significant: bool
    judged: bool = Field(default=True, description="false when a side has a single timing sample: whether the change is significant cannot be judged")
    cause: Literal["writer mode", "rename"] | None = Field(
        default=None,
        description="'writer mode': the sides were written in two modes of their writer, which record this differently; "
        "'rename': the same item under the name another version of the writer gives it.  Such a change is never significant",
    )
    # For the human-readable reporters only: the JSON schema is the one above.
    impact: float = Field(default=0.0, exclude=True)
    p_value: float | None = Field(default=None, exclude=True)
    spread_before: Spread | None = Field(default=None, exclude=True)
    spread_after: Spread | None = Field(default=None, exclude=True)


class DiffSide(BaseModel):
    path: str
    format: str
    mode: str | None = Field(
        default=None,
        description="the writer and its mode, where the format's writers have several (profiler_log or realistic_trace, AICB's AIOB or plain path)",
    )
    files: int
    units: dict[str, str]
    config: dict[str, int | float | str | bool | None] = Field(
        default_factory=dict,
        description="the knobs (tp, pp, dp, ep, sp, vpp, mbs, seq, gbs, layers, hidden, experts, recompute, phase); null where the side does not tell",
    )
    step_ms: float | None = Field(description="median step time, where the side has one")
    total_bytes: float | None = Field(description="bytes one step (or workload pass) moves")
    errors: int = Field(
        default=0, description="problems `tlint check` finds in the side (errors, and ranks missing from a run): the verdict is then inconclusive"
    )
    problems: list[str] = Field(default_factory=list, description="the first of those problems, as `tlint check` prints them")


class CategoryCount(BaseModel):
    changes: int = 0
    significant: int = 0


class DiffSummary(BaseModel):
    headline: str
    verdict: Literal["identical", "no significant change", "significant change", "inconclusive"]
    compared: Literal["full", "common per-layer profile", "common per-layer profile of one stage"]
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
    # For the text and HTML reporters: list what they leave out by default (`--all`).  JSON has every change.
    show_all: bool = Field(default=False, exclude=True)

    @property
    def failing(self) -> bool:
        """Whether the exit code is 1: a significant change falls in a ``--fail-on`` category, or the inputs have
        problems (an inconclusive verdict never passes)."""
        return self.summary.verdict == "inconclusive" or bool(set(self.summary.significant_categories) & set(self.summary.fail_on))
