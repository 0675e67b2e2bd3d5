from collections.abc import Iterator

from lint.rule import Rule, Scope, Severity, Violation
from lint.runs.model import Run


class MissingRank(Rule):
    """A rank of the run's layout has no trace file.

    The world size comes from the layout (``tp × pp × dp`` when stated, else the stage count times the
    largest number of ranks in a stage, or the highest rank + 1), and every rank in it writes a file.

    Why it matters:
        A missing rank file makes the run incomplete: its stage runs short of one TP or DP member, its
        collectives cannot be matched, and a simulator replays a job with a hole in it.

    Example:
        a pp 4 run with ranks 0-15 whose directory lacks ``trace_rank5_….txt``
        -> rank 5 has no trace file (world of 16 ranks; stage 1 holds ranks 4-7)
    """

    code = "TL502"
    name = "missing-rank"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        layout = run.layout
        for rank in range(layout.world):
            if rank not in run.ranks:
                stage = layout.expected_stage(rank)
                yield Violation(
                    None, None, f"rank {rank} has no trace file (world of {layout.world} ranks; stage {stage} holds {layout.stage_ranks(stage)})", rank,
                )
