from collections import defaultdict
from collections.abc import Iterator

from lint.rule import Rule, Scope, Severity, Violation
from lint.runs.model import Run, agreeing_peers, majority, rank_list
from lint.runs.summary import OpStep


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
            for rank in ranks:
                summary = run.ranks[rank]
                iterations: dict[int, list[OpStep]] = defaultdict(list)
                for step in summary.ops("forward_step", "backward_step"):
                    iterations[step.iteration].append(step)
                for iteration, steps in iterations.items():
                    forwards = [s for s in steps if s.op == "forward_step"]
                    counts[iteration][rank] = len(forwards)
                    yield from self._order(run, rank, iteration, steps)
                    yield from self._warm_up(run, rank, stage, pp, iteration, steps, len(forwards))
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

    def _order(self, run: Run, rank: int, iteration: int, steps: list[OpStep]) -> Iterator[Violation]:
        seen_forward: set[int | None] = set()
        for step in steps:
            if step.op == "forward_step":
                seen_forward.add(step.batch_id)
            elif step.batch_id not in seen_forward:
                yield Violation(
                    step.line,
                    1,
                    f"backward_step of micro-batch {step.batch_id} (iteration {iteration}) comes before its forward_step",
                    rank,
                    path=run.ranks[rank].path,
                )

    def _warm_up(self, run: Run, rank: int, stage: int, pp: int, iteration: int, steps: list[OpStep], forwards: int) -> Iterator[Violation]:
        first_backward = next((i for i, s in enumerate(steps) if s.op == "backward_step"), None)
        if first_backward is None:
            return
        expected = min(pp - stage, forwards)
        if first_backward != expected:
            yield Violation(
                steps[first_backward].line,
                1,
                f"stage {stage} runs {first_backward} forwards before its first backward in iteration {iteration}; "
                f"1F1B runs min(pp - stage, micro-batches) = {expected}",
                rank,
                path=run.ranks[rank].path,
            )
