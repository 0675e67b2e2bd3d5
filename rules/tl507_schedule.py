from collections import defaultdict
from collections.abc import Iterator

from lint.formats.megatron_trace.summary import OpStep, Run
from lint.rule import Rule, Scope, Severity, Violation
from lint.runs.model import agreeing_peers, majority, rank_list


class Schedule(Rule):
    """A rank's pipeline schedule breaks 1F1B: order, micro-batch count or warm-up depth.

    With the non-interleaved 1F1B schedule, in every iteration:

    - each micro-batch's ``forward_step`` comes before its ``backward_step``;
    - every rank of a stage runs the same number of micro-batches (the culprit is the rank that differs
      from the majority of its stage);
    - stage ``s`` runs ``min(pp − s, micro-batches)`` forwards before its first backward: ``pp − s − 1``
      warm-up forwards, then the first steady one.

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
            counts: dict[int, dict[int, int]] = defaultdict(dict)  # iteration -> rank -> forwards
            judged: dict[int, tuple[dict[int, int], list[tuple[int, str]]]] = {}  # by steps: the ranks whose steps are equal, judged once
            for rank in ranks:
                summary = run.ranks[rank]
                if id(summary.steps) not in judged:
                    judged[id(summary.steps)] = _judged(summary.steps, stage, pp)
                forwards, problems = judged[id(summary.steps)]
                for iteration, count in forwards.items():
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
    """A rank's forward steps per iteration, and the (line, message) of each break of 1F1B in its steps."""
    iterations: dict[int, list[OpStep]] = defaultdict(list)
    for step in steps:
        if step.op in ("forward_step", "backward_step"):
            iterations[step.iteration].append(step)
    forwards: dict[int, int] = {}
    problems: list[tuple[int, str]] = []
    for iteration, ordered in iterations.items():
        forwards[iteration] = sum(1 for s in ordered if s.op == "forward_step")
        problems += _order(iteration, ordered)
        problems += _warm_up(stage, pp, iteration, ordered, forwards[iteration])
    return forwards, problems


def _order(iteration: int, steps: list[OpStep]) -> list[tuple[int, str]]:
    seen_forward: set[int | None] = set()
    problems = []
    for step in steps:
        if step.op == "forward_step":
            seen_forward.add(step.batch_id)
        elif step.batch_id not in seen_forward:
            problems.append((step.line, f"backward_step of micro-batch {step.batch_id} (iteration {iteration}) comes before its forward_step"))
    return problems


def _warm_up(stage: int, pp: int, iteration: int, steps: list[OpStep], forwards: int) -> list[tuple[int, str]]:
    first_backward = next((i for i, s in enumerate(steps) if s.op == "backward_step"), None)
    if first_backward is None:
        return []
    expected = min(pp - stage, forwards)
    if first_backward == expected:
        return []
    return [
        (
            steps[first_backward].line,
            f"stage {stage} runs {first_backward} forwards before its first backward in iteration {iteration}; 1F1B runs min(pp - stage, micro-batches) = {expected}",
        )
    ]
