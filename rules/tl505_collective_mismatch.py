from collections import Counter, defaultdict
from collections.abc import Iterator
from operator import itemgetter

from lint.formats.megatron_trace.records import P2P_OPS
from lint.formats.megatron_trace.rulekit import format_shape
from lint.formats.megatron_trace.summary import Collective, OpStep, Run
from lint.rule import Rule, Scope, Severity, Violation
from lint.runs.model import majority, rank_list

StepKey = tuple[int, str, int | None, int]  # iteration, op, batch id, occurrence
# What tells one rank's collectives from another's, taken by index: a run has millions of steps.
_COMPARED = itemgetter(*(OpStep._fields.index(name) for name in ("iteration", "op", "batch_id", "collectives")))


class CollectiveMismatch(Rule):
    """A rank's collectives differ from those of its peers in the same op.

    After PyTorch's Flight Recorder: every rank of a pipeline stage runs the same model shard, so the
    k-th collective of an op (per iteration, op name and micro-batch) has the same kind, group, shape
    and dtype on every rank of the stage - TP all-reduces inside forward/backward steps, the DP gradient
    all-reduce, the embedding all-reduce.  Unlike Flight Recorder, matching goes on after the first
    mismatch and reports every one, and the culprit is the rank that differs from the majority of its
    stage (on a tie, every rank is named).  All-to-all shapes depend on routing and are not compared;
    p2p ops are TL506's.

    Writer: the ranks of a stage run the same model shard under the same traced calls
    (``megatron/profiler/cmd.py`` decorator), so this is an error.

    Why it matters:
        In a real job a rank whose collective differs from its peers' hangs the group or corrupts the
        reduction; in a trace it means the rank ran another model configuration, and a simulation built on
        it mixes two jobs.

    Example:
        ranks 0-3 of stage 0 all-reduce ``[32, 64]`` in float32 in forward_step batch 0; rank 1 in bfloat16
        -> collective 1 of forward_step batch 0 (iteration 0, stage 0): rank 1 runs allreduce (tp) of [32, 64]
        torch.bfloat16; ranks 0, 2 and 3 run allreduce (tp) of [32, 64] torch.float32
    """

    code = "TL505"
    name = "collective-mismatch"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        for stage, ranks in run.stages().items():
            groups = run.alike(ranks)  # the ranks of a stage whose steps are equal, judged once
            leader = list(map(_COMPARED, groups[0][0].steps))
            if all(list(map(_COMPARED, summary.steps)) == leader for summary, _ in groups[1:]):
                continue  # the usual case, compared in C: the ranks of the stage run the same ops with the same collectives
            steps: dict[StepKey, dict[int, OpStep]] = defaultdict(dict)  # key -> group -> its step
            for index, (summary, _) in enumerate(groups):
                occurrences: Counter[tuple[int, str, int | None]] = Counter()
                for step in summary.steps:
                    if step.op in P2P_OPS or not step.collectives:
                        continue
                    base = (step.iteration, step.op, step.batch_id)
                    steps[(*base, occurrences[base])][index] = step
                    occurrences[base] += 1
            for by_group in steps.values():
                first, *others = (step.collectives for step in by_group.values())
                if all(collectives == first for collectives in others):  # the usual case, without counting
                    continue
                by_rank = dict(sorted((rank, by_group[index]) for index in by_group for rank in groups[index][1]))
                expected, culprits = majority({rank: step.collectives for rank, step in by_rank.items()})
                for rank in culprits:
                    peers = [r for r in by_rank if r != rank and (expected is None or by_rank[r].collectives == expected)]
                    reference = by_rank[peers[0]].collectives if peers else ()
                    step = by_rank[rank]
                    yield Violation(
                        step.line,
                        1,
                        _difference(step, reference, rank, peers, stage),
                        rank,
                        path=run.ranks[rank].path,
                    )


def _difference(step: OpStep, reference: tuple[Collective, ...], rank: int, peers: list[int], stage: int) -> str:
    where = f"{step.op} batch {step.batch_id} (iteration {step.iteration}, stage {stage})"
    others = rank_list(peers) if peers else "its peers"
    have = "has" if len(peers) == 1 else "have"
    mine = Counter((c.kind, c.group) for c in step.collectives)
    theirs = Counter((c.kind, c.group) for c in reference)
    for kind, group in sorted(mine.keys() | theirs.keys(), key=str):
        if mine[kind, group] != theirs[kind, group]:
            return f"rank {rank} has {mine[kind, group]} {kind} ({group}) in {where}; {others} {have} {theirs[kind, group]}"
    for index, (own, other) in enumerate(zip(step.collectives, reference, strict=True), 1):
        if own != other:
            return f"collective {index} of {where}: rank {rank} runs {_describe(own)}; {others} {'runs' if len(peers) == 1 else 'run'} {_describe(other)}"
    return f"rank {rank}'s collectives in {where} differ from {others}'"


def _describe(collective: Collective) -> str:
    return f"{collective.kind} ({collective.group}) of {format_shape(collective.shape)} {collective.dtype}"
