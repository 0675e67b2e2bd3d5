from collections.abc import Iterator

from lint.formats.megatron_trace.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class MissingRank(Rule):
    """A rank of the run's layout has no trace file.

    The world size comes from the layout (``tp × pp × dp`` when stated, else the stage count times the
    largest number of ranks in a stage, or the highest rank + 1), and every rank in it writes a file.
    Consecutive missing ranks are reported together, as one gap.

    This is a warning: the writer does not guarantee that one directory holds every rank.  Each process
    writes its own file into its working directory (``write_list_to_file`` in
    ``megatron/profiler/cmd.py``), so a multi-node run leaves each node's ranks on that node; and in
    scaling mode every rank is profiled by its own invocation (``--fake-current-rank-id``,
    ``megatron/training/training.py``), for the ranks the user chooses.  A sampled run - exactly one
    rank for each stage, e.g. ranks 0, 128, …, 8064 of a world of 8192 - is a deliberate choice: only a
    stage without its sampled rank is reported.

    Why it matters:
        A missing rank file makes the run incomplete: its stage runs short of one TP or DP member, its
        collectives cannot be matched, and a simulator replays a job with a hole in it.

    Example:
        a tp 2, pp 2 run (ranks 0-3) whose directory lacks ``trace_rank1_….txt``
        -> rank 1 has no trace file (world of 4 ranks; stage 0 holds ranks 0-1)
    """

    code = "TL502"
    name = "missing-rank"
    severity = Severity.WARNING
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        # One finding per gap of consecutive missing ranks, not per rank: a single wild rank number
        # (``rank:1000000000:``) must not turn into a billion findings.
        world = run.layout.world
        stages = run.stages()
        sampled = all(len(ranks) == 1 and run.ranks[ranks[0]].stage in (None, stage) for stage, ranks in stages.items())
        if run.layout.ranks_per_stage > 1 and len(stages) > 1 and sampled:
            yield from self._unsampled_stages(run, stages)
            return
        first_missing = 0
        for present in [*sorted(rank for rank in run.ranks if rank < world), world]:
            if first_missing < present:
                yield self._gap(run, first_missing, present - 1)
            first_missing = present + 1

    def _unsampled_stages(self, run: Run, stages: dict[int, list[int]]) -> Iterator[Violation]:
        """A sampled run (one rank per stage): only a stage without its sampled rank is missing."""
        layout = run.layout
        for stage in range(layout.pp):
            if stage not in stages:
                first = stage * layout.ranks_per_stage
                yield Violation(
                    None,
                    None,
                    f"stage {stage} (ranks {first}-{first + layout.ranks_per_stage - 1}) has no trace file; the run samples one rank of each other stage",
                    first,
                )

    def _gap(self, run: Run, first: int, last: int) -> Violation:
        layout = run.layout
        per_stage = layout.ranks_per_stage
        first_stage, last_stage = layout.expected_stage(first), layout.expected_stage(last)
        missing = f"rank {first} has" if first == last else f"ranks {first}-{last} have"
        stages = f"stage {first_stage} holds" if first_stage == last_stage else f"stages {first_stage}-{last_stage} hold"
        held = f"ranks {first_stage * per_stage}-{(last_stage + 1) * per_stage - 1}"
        return Violation(None, None, f"{missing} no trace file (world of {layout.world} ranks; {stages} {held})", first)
