"""A run: every rank's summary, its parallel layout, and where each layout fact came from."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from lint.runs.summary import OpStep, RankSummary

T = TypeVar("T", bound=Hashable)
Judged = TypeVar("Judged")

DIMENSIONS = ("tp", "pp", "dp", "ep", "world", "layers")


class LayoutClaim(BaseModel):
    """One source's statement of a layout dimension: ``pp = 4 from the trace stage ids``."""

    dimension: str
    value: int
    source: str


class Layout(BaseModel):
    """The parallel layout of a run and the rank -> stage map.

    ``tp``/``dp`` stay None when no source states them: a megatron trace does not record group
    membership, and all ranks of a stage run the same collectives whatever the TP/DP split.
    """

    model_config = ConfigDict(frozen=True)

    tp: int | None = None
    pp: int
    dp: int | None = None
    ep: int | None = None
    world: int
    layers: int | None = None  # transformer layers of the model, when a source states them
    stage2rank: dict[int, list[int]] | None = None  # printed by the run's log, when one is configured
    stage2rank_source: str | None = None
    claims: list[LayoutClaim] = Field(default_factory=list)

    @property
    def ranks_per_stage(self) -> int:
        return max(self.world // self.pp, 1)

    def expected_stage(self, rank: int) -> int:
        """Megatron's rank order puts the pipeline stage outermost: stage = rank // (dp * tp)."""
        return rank // self.ranks_per_stage

    def stage_ranks(self, stage: int) -> str:
        """'ranks 4-7': the ranks the rank order puts in ``stage``."""
        first = stage * self.ranks_per_stage
        return f"ranks {first}-{first + self.ranks_per_stage - 1}"


class Run(BaseModel):
    """The per-rank files of one job: summaries by rank, extra files claiming a taken rank, layout."""

    label: str
    ranks: dict[int, RankSummary]
    duplicates: list[RankSummary] = Field(default_factory=list)
    layout: Layout
    asked: frozenset[str] = frozenset()  # the files the user named; findings on others go to the run
    _stages: dict[int, list[int]] | None = PrivateAttr(default=None)

    def stages(self) -> dict[int, list[int]]:
        """Stage -> its ranks, by the rank order (a file that says otherwise is TL503's finding).

        Worked out once (most run rules go by stage) and shared: callers read it, never change it.
        """
        if self._stages is None:
            stages: dict[int, list[int]] = defaultdict(list)
            per_stage = self.layout.ranks_per_stage
            for rank in sorted(self.ranks):
                stages[rank // per_stage].append(rank)  # Layout.expected_stage, without a call per rank
            self._stages = dict(sorted(stages.items()))
        return self._stages

    def stage_of(self, rank: int) -> int:
        return self.layout.expected_stage(rank)

    def alike(self, ranks: Iterable[int]) -> list[tuple[RankSummary, list[int]]]:
        """``ranks`` grouped by their steps, each group as its first rank's summary and its ranks, in the order
        of their first ranks.

        In a check, ranks whose steps are equal hold one tuple (see :class:`~lint.runs.summary.StepPool`), so
        a run rule that judges each group once costs O(distinct step lists), not O(ranks × steps): a stage's
        DP and TP peers are one group.  Elsewhere equal steps may be several groups, judged alike.
        """
        groups: dict[int, tuple[RankSummary, list[int]]] = {}
        for rank in ranks:
            summary = self.ranks[rank]
            groups.setdefault(id(summary.steps), (summary, []))[1].append(rank)
        return list(groups.values())

    def each_alike(self, judge: Callable[[tuple[OpStep, ...]], Judged]) -> dict[int, Judged]:
        """``judge(steps)`` of every rank, worked out once for the ranks whose steps are one tuple (see :meth:`alike`)."""
        by_steps: dict[int, Judged] = {}
        judged = {}
        for rank, summary in self.ranks.items():
            if id(summary.steps) not in by_steps:
                by_steps[id(summary.steps)] = judge(summary.steps)
            judged[rank] = by_steps[id(summary.steps)]
        return judged


def majority(values: Mapping[int, T]) -> tuple[T | None, list[int]]:
    """The value most ranks have (None on a tie) and the ranks that have another one.

    Culprits are decided by majority, not by which rank came first; on a tie every rank is named.
    """
    counts = Counter(values.values())
    if not counts:
        return None, []
    ranked = counts.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None, sorted(values)
    winner = ranked[0][0]
    return winner, sorted(rank for rank, value in values.items() if value != winner)


def agreeing_peers(values: Mapping[int, T], rank: int, expected: T | None) -> list[int]:
    """The other ranks that have the ``expected`` value (all the other ranks when none has it, as on a tie)."""
    return [r for r, value in values.items() if r != rank and value == expected] or [r for r in values if r != rank]


def rank_list(ranks: Iterable[int]) -> str:
    """'rank 5', 'ranks 4, 6 and 7'."""
    ranks = sorted(ranks)
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    return "ranks " + ", ".join(map(str, ranks[:-1])) + f" and {ranks[-1]}"
