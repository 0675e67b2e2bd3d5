"""A run: every rank's summary, its parallel layout, and where each layout fact came from.

Generic over the format: every run format's summary of a rank (its package's ``summary`` module) is a
:class:`RankSummary`, with what that format's run rules compare besides.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

if TYPE_CHECKING:
    from pathlib import Path

    from lint.runs.discovery import RunKey


class RunSources(Protocol):
    """What a run's ``completed`` may read of the sources outside its files (:class:`lint.runs.sources.LayoutSources`)."""

    @property
    def comm_group(self) -> Path | None: ...


T = TypeVar("T", bound=Hashable)

DIMENSIONS = ("tp", "pp", "dp", "ep", "world", "layers")


class RankSummary(BaseModel):
    """What a run knows of one rank's file, whatever its format: where it is, and the rank and pipeline
    stage its records name (where it read them)."""

    model_config = ConfigDict(frozen=True)

    path: str
    rank: int | None
    stage: int | None
    line_of_rank: int | None  # first record (where the rank and stage were read)
    lost: bool = False  # what it holds was named by a number this process was not sent: the file must be read again

    def packed(self) -> list[Any]:
        """The summary as JSON values, for the cache (its format's ``RankSummary.unpacked`` is the inverse)."""
        raise NotImplementedError


Summary = TypeVar("Summary", bound=RankSummary)


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


class Run(BaseModel, Generic[Summary]):
    """The per-rank files of one job: summaries by rank, extra files claiming a taken rank, layout."""

    label: str
    ranks: dict[int, Summary]
    duplicates: list[Summary] = Field(default_factory=list)
    layout: Layout
    asked: frozenset[str] = frozenset()  # the files the user named; findings on others go to the run
    _stages: dict[int, list[int]] | None = PrivateAttr(default=None)
    part: ClassVar[str] = "stage"  # what stage_of groups the ranks into, as a note on findings held back says

    def completed(self, key: RunKey, sources: RunSources) -> Self:
        """The run with what its format reads from outside its files besides the layout (a run format's ``Run``
        that needs more overrides it: chakra-et's process groups)."""
        return self

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
