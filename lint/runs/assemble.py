"""From rank summaries to a :class:`~lint.runs.model.Run`: ranks, duplicates, and every layout claim."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from lint.layout import Sizes
from lint.runs.discovery import RunKey, name_layout
from lint.runs.model import DIMENSIONS, Layout, LayoutClaim, RankSummary, Run, Summary
from lint.runs.sources import LayoutSources

__all__ = ["LayoutSources", "assemble", "stated_layout_misfit"]

R = TypeVar("R", bound=Run[Any])


def assemble(
    key: RunKey,
    files: Iterable[tuple[Summary, int]],
    asked: frozenset[str],
    sources: LayoutSources,
    run_type: type[R],
    *,
    minimum_ranks: int = 2,
) -> R | None:
    """The run (a ``run_type``, its format's) of these (summary, rank named by the file) pairs, or None when
    fewer than ``minimum_ranks`` ranks.

    A file's rank is read from its records (``rank:R:``) and otherwise from its name.
    """
    ranks: dict[int, Summary] = {}
    duplicates: list[Summary] = []
    for summary, named_rank in sorted(files, key=lambda pair: pair[0].path):
        rank = summary.rank if summary.rank is not None else named_rank
        if rank in ranks:
            duplicates.append(summary.model_copy(update={"rank": rank}))
        else:
            ranks[rank] = summary if summary.rank is not None else summary.model_copy(update={"rank": rank})
    if len(ranks) < max(minimum_ranks, 1):
        return None
    claims, pattern = sources.for_run(key)
    named = [LayoutClaim(dimension=d, value=v, source="the file names") for d, v in name_layout(key.stem).items()]
    layout = _layout(ranks, claims + named)
    if pattern in sources.stage2ranks:
        stage2rank, source = sources.stage2ranks[pattern]
        layout = layout.model_copy(update={"stage2rank": stage2rank, "stage2rank_source": source})
    return run_type(label=key.label, ranks=ranks, duplicates=duplicates, layout=layout, asked=asked).completed(key, sources)


def _layout(ranks: Mapping[int, RankSummary], claims: list[LayoutClaim]) -> Layout:
    stage_of = {rank: s.stage for rank, s in ranks.items() if s.stage is not None}
    stated = _stated(claims)
    inferred: list[LayoutClaim] = []
    if stage_of:
        seen = max(stage_of.values()) + 1
        # The stage ids only bound pp from below when ranks are missing (one node's files, or one
        # sampled rank per stage): a larger stated pp then is no disagreement.
        partial = stated["world"] is not None and len(ranks) < stated["world"]
        if not (partial and stated["pp"] is not None and stated["pp"] > seen):
            inferred.append(LayoutClaim(dimension="pp", value=seen, source="the stage ids of the traces"))
    # The traces' own evidence comes first: when a stated layout disagrees (TL504), grouping ranks by
    # what the files show keeps one wrong setting from turning into a finding on every rank.
    all_claims = inferred + claims
    stated = _stated(all_claims)
    pp = stated["pp"] or 1  # a trace names its stage on every record: none read means no pipeline
    sizes = Sizes(tp=stated["tp"], pp=pp, dp=stated["dp"], ep=stated["ep"], world=stated["world"]).completed()
    if sizes.world is None:  # then the files tell it, as far as they reach: never their count
        sizes = replace(sizes, world=_world_of_ranks(stage_of, max(ranks) + 1, pp)).completed()
    assert sizes.world is not None
    return Layout(tp=sizes.tp, pp=pp, dp=sizes.dp, ep=sizes.ep, world=sizes.world, layers=stated["layers"], claims=all_claims)


def _stated(claims: list[LayoutClaim]) -> dict[str, int | None]:
    return {d: next((c.value for c in claims if c.dimension == d), None) for d in DIMENSIONS}


def _world_of_ranks(stage_of: dict[int, int], highest: int, pp: int) -> int:
    """The world size when no source states it: from the ranks present and the stages they name.

    Megatron puts the stage outermost (stage = rank // ranks_per_stage), so each rank R of stage S > 0
    bounds the stage size by R // S; the largest size all ranks agree with is taken.  That holds for a
    run with only some ranks written (one node's, or one sampled rank per stage: ranks 0, 128, …, 8064
    of stages 0-63 give 128 ranks per stage), which the count of files would not tell.
    """
    if highest % pp == 0:
        return highest
    per_stage = _ranks_per_stage_bounds(stage_of.items())[1] or 0
    if per_stage and all(rank // per_stage == stage for rank, stage in stage_of.items()) and per_stage * pp >= highest:
        return per_stage * pp
    return -(-highest // pp) * pp  # the highest ranks are missing: round up to whole stages


def _ranks_per_stage_bounds(placed: Iterable[tuple[int, int]]) -> tuple[int, int | None]:
    """The least and the most ranks per stage that (rank, stage id) pairs allow, the stage being outermost:
    rank ``r`` on stage ``s`` means ``s * k <= r < (s + 1) * k`` (no upper bound without a stage above 0)."""
    lowest, highest = 1, None
    for rank, stage in placed:
        lowest = max(lowest, rank // (stage + 1) + 1)
        if stage > 0:
            highest = rank // stage if highest is None else min(highest, rank // stage)
    return lowest, highest


def stated_layout_misfit(run: Run[Any], command_line: dict[str, int]) -> str | None:
    """Why the ``--tp``/``--dp`` given on the command line cannot be ``run``'s layout, or None.

    Megatron puts the pipeline stage outermost (stage = rank // (tp * dp)), so the stage id each trace
    records bounds the ranks per stage: rank ``r`` on stage ``s`` means ``s * k <= r < (s + 1) * k``.
    Sizes whose product is no multiple ``k`` inside those bounds cannot be the run's, whatever ranks
    were written (sampled runs included).
    """
    stated = {d: command_line[d] for d in ("tp", "dp") if d in command_line}
    if not stated:
        return None
    per_stage = math.prod(stated.values())
    lowest, highest = _ranks_per_stage_bounds((rank, summary.stage) for rank, summary in run.ranks.items() if summary.stage is not None)
    both = len(stated) == 2  # then tp * dp is the stage's size; one of them alone divides it
    fitting = per_stage if both else -(-lowest // per_stage) * per_stage  # (the first multiple from lowest up)
    if lowest <= fitting and (highest is None or fitting <= highest):
        return None
    flags = " ".join(f"--{d} {v}" for d, v in stated.items())
    allowed = f"exactly {lowest}" if lowest == highest else f"{lowest} to {highest}"
    product = " × ".join(str(v) for v in stated.values())
    return (
        f"{flags} do not fit the run {run.label}: they need {product} = {per_stage} ranks{'' if both else ' (or a multiple)'} per pipeline stage, "
        f"but the stage ids in its traces allow {allowed} ranks per stage"
    )
