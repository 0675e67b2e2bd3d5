"""What one ``optprime-log`` says about its run, summarised from its records (:mod:`lint.formats.optprime_log.records`):
the document `tlint diff` compares, and the layout a run's traces are checked against when the configuration
names the log.  Pydantic models, made only where a summary is: a check of a log builds none of them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from lint.formats.optprime_log.records import FAILURE_MESSAGES, EpochProgressRecord


class StepTimes(BaseModel):
    """One ``[rank:R stage:S] … - step N`` block and the layer groups attributed to it, in printed order.

    Columns, not an object per group: a long run has millions of groups (docs/performance.md, Objects).
    """

    rank: int
    stage: int
    step: int
    line: int
    layers: list[str] = Field(default_factory=list, description="embed, a layer index or lm_head")
    total_ms: list[float] = Field(default_factory=list)
    ops: list[int] = Field(default_factory=list)
    avg_ms: list[float] = Field(default_factory=list)
    layer_lines: list[int] = Field(default_factory=list)


class Failure(BaseModel):
    """A sign that the run did not finish cleanly, where the log shows it."""

    kind: str = Field(description="the record kind, or non_finite_loss")
    line: int
    rank: int | None
    message: str


class OptprimeLog(BaseModel):
    """What one optprime log says about its run: the document later rules and the differ compare."""

    config: dict[str, int | str] = Field(default_factory=dict, description="setting -> first value printed")
    stage2rank: dict[int, list[int]] | None = None
    ranks_seen: list[int] = Field(default_factory=list)
    completed_ranks: list[int] = Field(default_factory=list, description="ranks that printed run completed")
    steps: list[StepTimes] = Field(default_factory=list, description="per-rank per-step layer timings, in log order")
    unattributed_layers: int = Field(default=0, description="layer[...] records no timing header claimed")
    epochs: list[EpochProgressRecord] = Field(default_factory=list, description="the progress lines, as parsed")
    elapsed_seconds: float | None = None
    failures: list[Failure] = Field(default_factory=list)
    syntax_problems: int = 0

    @classmethod
    def from_records(cls, items: Iterable[Any]) -> OptprimeLog:
        """Summarise a parser's output (records and syntax problems) in one pass."""
        summary = _Summary()
        for item in items:
            summary.add(item)
        return cls.model_validate(summary.document())


class _Summary:
    """Plain values gathered record by record; validated into an :class:`OptprimeLog` once, at the end."""

    def __init__(self) -> None:
        self.config: dict[str, int | str] = {}
        self.stage2rank: dict[int, list[int]] | None = None
        self.ranks: set[int] = set()
        self.completed: set[int] = set()
        self.steps: list[dict[str, Any]] = []
        self.current_step: dict[int, dict[str, Any]] = {}
        self.unattributed = 0
        self.epochs: list[EpochProgressRecord] = []
        self.elapsed: float | None = None
        self.failures: list[dict[str, Any]] = []
        self.problems = 0

    def add(self, item: Any) -> None:
        kind = item.kind
        if kind == "syntax":
            self.problems += 1
            return
        if item.rank is not None:
            self.ranks.add(item.rank)
        if kind == "layer_timing":
            self._layer(item)
        elif kind == "timing_header":
            self.current_step[item.rank] = step = {
                "rank": item.rank,
                "stage": item.stage,
                "step": item.step,
                "line": item.line,
                "layers": [],
                "total_ms": [],
                "ops": [],
                "avg_ms": [],
                "layer_lines": [],
            }
            self.steps.append(step)
        elif kind == "epoch_progress":
            self._epoch(item)
        elif kind == "config":
            self.config.setdefault(item.setting, item.value)
        elif kind == "stage2rank" and self.stage2rank is None:
            self.stage2rank = {stage: list(members) for stage, members in item.stages.items()}
        elif kind == "run_completed":
            self.completed.add(item.rank)
        elif kind == "time_elapsed" and self.elapsed is None:
            self.elapsed = item.seconds
        elif kind in FAILURE_MESSAGES:
            self.failures.append({"kind": kind, "line": item.line, "rank": item.rank, "message": FAILURE_MESSAGES[kind](item)})

    def _layer(self, item: Any) -> None:
        step = self.current_step.get(item.rank) if item.rank is not None else None
        if step is None:
            self.unattributed += 1
            return
        step["layers"].append(item.layer)
        step["total_ms"].append(item.total_ms)
        step["ops"].append(item.ops)
        step["avg_ms"].append(item.avg_ms)
        step["layer_lines"].append(item.line)

    def _epoch(self, item: EpochProgressRecord) -> None:
        self.epochs.append(item)
        if not item.finite:
            self.failures.append({"kind": "non_finite_loss", "line": item.line, "rank": item.rank, "message": f"loss {item.loss}, ppl {item.ppl}"})

    def document(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "stage2rank": self.stage2rank,
            "ranks_seen": sorted(self.ranks),
            "completed_ranks": sorted(self.completed),
            "steps": self.steps,
            "unattributed_layers": self.unattributed,
            "epochs": self.epochs,
            "elapsed_seconds": self.elapsed,
            "failures": self.failures,
            "syntax_problems": self.problems,
        }
