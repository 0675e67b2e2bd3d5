from collections.abc import Iterator

from lint.formats.megatron_trace.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class StageMap(Rule):
    """A rank sits in another pipeline stage than the run's rank order puts it.

    Megatron (and OptimusPrime's ``stage2rank``) order ranks with the pipeline stage outermost: stage
    ``s`` holds ranks ``s·dp·tp … (s+1)·dp·tp − 1``.  So the rank -> stage map of a run is a function,
    its stages are 0..PP−1, and every stage holds the same number of ranks.  When the run's configuration
    names its ``optprime-log`` (``log`` in ``[tool.tlint.runs."<glob>"]``), the ``stage2rank`` printed there
    decides instead.

    Writer: Megatron's ``initialize_model_parallel`` (and the profiler's ``ParallelGroupManager`` in
    scaling mode, ``megatron/profiler/parallel_group_manager.py``) builds pipeline groups with this
    order, so this is an error.

    Why it matters:
        A rank in the wrong stage sends its activations to the wrong neighbours: the simulator builds
        a pipeline that the real job never ran, and p2p pairing breaks for two stages.

    Example:
        a tp 2, pp 2 run whose ``trace_rank3`` says ``stage_id=0``
        -> rank 3 is in stage 0, but the rank order puts it in stage 1 (ranks 2-3; 2 ranks per stage, pp 2)
    """

    code = "TL503"
    name = "stage-map"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        layout = run.layout
        logged = {rank: stage for stage, ranks in (layout.stage2rank or {}).items() for rank in ranks}
        for rank, summary in sorted(run.ranks.items()):
            if summary.stage is None:
                continue
            if rank in logged:
                if summary.stage != logged[rank]:
                    yield Violation(
                        summary.line_of_rank,
                        1,
                        f"rank {rank} is in stage {summary.stage}, but {layout.stage2rank_source} puts it in stage {logged[rank]}",
                        rank,
                        path=summary.path,
                    )
                continue
            expected = layout.expected_stage(rank)
            if summary.stage != expected:
                yield Violation(
                    summary.line_of_rank,
                    1,
                    f"rank {rank} is in stage {summary.stage}, but the rank order puts it in stage {expected} "
                    f"({layout.stage_ranks(expected)}; {layout.ranks_per_stage} ranks per stage, pp {layout.pp})",
                    rank,
                    path=summary.path,
                )
