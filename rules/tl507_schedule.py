from collections import defaultdict
from collections.abc import Iterator

from lint.formats.megatron_trace.summary import OpStep, Run
from lint.rule import Rule, Scope, Severity, Violation
from lint.runs.model import agreeing_peers, majority, rank_list


class Schedule(Rule):
    """A rank's pipeline schedule breaks 1F1B: micro-batch count or warm-up depth.

    With the non-interleaved 1F1B schedule, in every iteration:

    - every rank of a stage runs the same number of micro-batches (the culprit is the rank that differs
      from the majority of its stage); a micro-batch counts where the rank ran its forward or its backward
      step, so that a lost step is TL116's finding alone;
    - stage ``s`` runs ``min(pp − s, micro-batches)`` forwards before its first backward: ``pp − s − 1``
      warm-up forwards, then the first steady one.

    That a micro-batch's ``forward_step`` comes before its ``backward_step`` is seen in each rank's file
    alone (TL116), lone files included.

    Writer: ``forward_backward_pipelining_without_interleaving`` in
    ``megatron/core/pipeline_parallel/schedules.py`` with ``num_warmup_microbatches = pp - stage - 1``,
    so this is an error.

    Why it matters:
        A schedule that is not 1F1B changes the pipeline bubble and the activation memory a simulator
        derives; a rank with fewer micro-batches than its peers is a truncated or mislabelled trace.

    Example:
        ranks 0-3 of stage 0 run 2 micro-batches in iteration 0; rank 1's file holds only the first
        -> rank 1 runs 1 micro-batch in iteration 0; ranks 0, 2 and 3 of stage 0 run 2
    """

    code = "TL507"
    name = "schedule"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        pp = run.layout.pp
        for stage, ranks in run.stages().items():
            counts: dict[int, dict[int, int]] = defaultdict(dict)  # iteration -> rank -> micro-batches
            judged: dict[int, tuple[dict[int, int], list[tuple[int, str]]]] = {}  # by steps: the ranks whose steps are equal, judged once
            for rank in ranks:
                summary = run.ranks[rank]
                if id(summary.steps) not in judged:
                    judged[id(summary.steps)] = _judged(summary.steps, stage, pp)
                micro_batches, problems = judged[id(summary.steps)]
                for iteration, count in micro_batches.items():
                    counts[iteration][rank] = count
                for line, message in problems:
                    yield Violation(line, 1, message, rank, path=summary.path)
            for iteration, by_rank in sorted(counts.items()):
                expected, culprits = majority(by_rank)
                for rank in culprits:
                    peers = agreeing_peers(by_rank, rank, expected)
                    yield Violation(
                        None,
                        None,
                        f"rank {rank} runs {by_rank[rank]} micro-batch{'' if by_rank[rank] == 1 else 'es'} in iteration {iteration}; {rank_list(peers)} of stage {stage} "
                        f"{'runs' if len(peers) == 1 else 'run'} {by_rank[peers[0]]}",
                        rank,
                        path=run.ranks[rank].path,
                    )


def _judged(steps: tuple[OpStep, ...], stage: int, pp: int) -> tuple[dict[int, int], list[tuple[int, str]]]:
    """A rank's micro-batches per iteration, and the (line, message) of each break of 1F1B in its steps."""
    iterations: dict[int, list[OpStep]] = defaultdict(list)
    for step in steps:
        if step.op in ("forward_step", "backward_step"):
            iterations[step.iteration].append(step)
    micro_batches: dict[int, int] = {}
    problems: list[tuple[int, str]] = []
    for iteration, ordered in iterations.items():
        micro_batches[iteration] = len({s.batch_id for s in ordered})
        forwards = sum(1 for s in ordered if s.op == "forward_step")
        problems += _warm_up(stage, pp, iteration, ordered, forwards)
    return micro_batches, problems


def _warm_up(stage: int, pp: int, iteration: int, steps: list[OpStep], forwards: int) -> list[tuple[int, str]]:
    first_backward = next((i for i, s in enumerate(steps) if s.op == "backward_step"), None)
    if first_backward is None or all(s.batch_id != steps[first_backward].batch_id for s in steps[:first_backward]):
        return []  # no forward_step of its micro-batch before it: TL116's finding
    expected = min(pp - stage, forwards)
    if first_backward == expected:
        return []
    return [
        (
            steps[first_backward].line,
            f"stage {stage} runs {first_backward} forwards before its first backward in iteration {iteration}; 1F1B runs min(pp - stage, micro-batches) = {expected}",
        )
    ]
