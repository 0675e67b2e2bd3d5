from collections import Counter, defaultdict
from collections.abc import Iterator
from operator import itemgetter

from lint.formats.megatron_trace.records import MICRO_BATCH_OPS
from lint.formats.megatron_trace.summary import OpStep, Run
from lint.rule import Rule, Scope, Severity, Violation
from lint.runs.model import agreeing_peers, majority, rank_list

_ITERATION_AND_OP = itemgetter(OpStep._fields.index("iteration"), OpStep._fields.index("op"))  # counted in C: a run has millions of steps
_COUNTED_ELSEWHERE = frozenset({"forward_step", "ep_allreduce"})  # by TL507 and TL508


class StageStepCounts(Rule):
    """A rank runs an op more or fewer times in an iteration than the other ranks of its stage.

    All ranks of a pipeline stage run one schedule (``forward_backward_pipelining_without_interleaving``
    in ``megatron/core/pipeline_parallel/schedules.py``, with the run's one micro-batch count) and one
    finalize phase (``finalize_model_grads`` in ``megatron/core/distributed/finalize_model_grads.py``,
    then the optimizer step), and the writer records every step of it on every rank
    (``megatron/profiler/cmd.py``).  So in each iteration the ranks of a stage write each op -
    ``backward_step``, the p2p calls, ``loss_func``, the gradient all-reduces, ``optimizer_step`` - the
    same number of times.  The rank that differs from the majority of its stage is named; on a tie
    every rank is.  Forward steps are TL507's (micro-batches per rank), the embedding all-reduce is
    TL508's, and a gap inside one file is TL116's.

    Why it matters:
        A rank whose file lacks its last micro-batch's backward step, or its gradient all-reduce, was cut
        short or lost records: its stage's peers wait on a collective it never joins, and a simulator
        replays a different iteration on it.

    Example:
        ranks 4-7 of stage 1 run ``dp_allreduce`` once in iteration 0; rank 5's file lacks it
        -> rank 5 runs dp_allreduce 0 times in iteration 0; ranks 4, 6 and 7 of stage 1 run it once
    """

    code = "TL510"
    name = "stage-step-counts"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        for stage, ranks in run.stages().items():
            if len(ranks) < 2:
                continue
            groups = run.alike(ranks)  # the ranks of a stage whose steps are equal, counted once
            leader = list(map(_ITERATION_AND_OP, groups[0][0].steps))
            if all(list(map(_ITERATION_AND_OP, summary.steps)) == leader for summary, _ in groups[1:]):
                continue  # the usual case, compared in C: the ranks of the stage run the same ops in the same order
            ran: dict[int, Counter[tuple[int, str]]] = {}
            for summary, members in groups:
                counted = Counter(map(_ITERATION_AND_OP, summary.steps))
                for rank in members:
                    ran[rank] = counted
            seen = {key for counted in ran.values() for key in counted if key[1] not in _COUNTED_ELSEWHERE}
            counts: dict[tuple[int, str], dict[int, int]] = defaultdict(dict)  # (iteration, op) -> rank -> count
            forwards = {iteration: {rank: ran[rank][iteration, "forward_step"] for rank in ranks} for iteration in {i for i, _ in seen}}
            micro_batches = {iteration: majority(by_rank)[0] for iteration, by_rank in forwards.items()}
            for iteration, op in seen:
                for rank in ranks:
                    # A rank that ran fewer micro-batches (TL507's finding) runs fewer of each of their steps.
                    if op not in MICRO_BATCH_OPS or forwards[iteration][rank] == micro_batches[iteration]:
                        counts[iteration, op][rank] = ran[rank][iteration, op]
            for (iteration, op), by_rank in sorted(counts.items()):
                most, culprits = majority(by_rank)
                for rank in culprits:
                    peers = agreeing_peers(by_rank, rank, most)
                    theirs = by_rank[peers[0]]
                    yield Violation(
                        None,
                        None,
                        f"rank {rank} runs {op} {_times(by_rank[rank])} in iteration {iteration}; {rank_list(peers)} of stage {stage} "
                        f"{'runs' if len(peers) == 1 else 'run'} it {_times(theirs)}",
                        rank,
                        path=run.ranks[rank].path,
                    )


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
