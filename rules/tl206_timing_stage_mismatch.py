from collections.abc import Iterator

from lint.formats.optprime_log.records import Stage2RankRecord, TimingHeaderRecord
from lint.formats.optprime_log.rulekit import OptprimeLayout
from lint.rule import RuleOptions, Severity, Violation, at


class TimingStageMismatch(OptprimeLayout):
    """A timing header ``[rank:R stage:S]`` puts a rank on a stage that ``stage2rank`` does not.

    The timing add-on prints the stage the rank runs, and OptimusPrime assigns stages by its
    ``stage2rank`` map: R is one of ``stage2rank[S]``.  A log without ``stage2rank`` is checked for the
    least that holds anyway: every header of a rank names the same stage.  Each rank and stage pair is
    reported once, at its first header, with the number of headers that repeat it.

    Why it matters:
        Per-stage timing, pipeline balance and layer coverage are read from these headers: a header on
        the wrong stage attributes a rank's layers to another stage, or the log mixes two runs.

    Example:
        ``stage2rank = {0: [0], 1: [1], …}`` on line 31, then ``[rank:3 stage:4] … - step 3``
        -> [rank:3 stage:4] but stage2rank (line 31) puts rank 3 on stage 3 (stage 4 has ranks [4])
    """

    code = "TL206"
    name = "timing-stage-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.headers: dict[tuple[int, int], tuple[TimingHeaderRecord, int]] = {}  # (rank, stage) -> first header, count

    def check_timing_header(self, record: TimingHeaderRecord) -> tuple[()]:
        first, count = self.headers.get((record.rank, record.stage), (record, 0))
        self.headers[record.rank, record.stage] = (first, count + 1)
        return ()

    def finish(self) -> Iterator[Violation]:
        first_stage: dict[int, TimingHeaderRecord] = {}
        for (rank, stage), (header, count) in self.headers.items():
            if self.stage_map is not None:
                problem = _against_map(rank, stage, self.stage_map)
            else:
                earlier = first_stage.setdefault(rank, header)
                problem = None if earlier.stage == stage else f"rank {rank}'s first header (line {earlier.line}) names stage {earlier.stage}"
            if problem is not None:
                more = f" (and {count - 1} more headers)" if count > 1 else ""
                yield at(header, f"[rank:{rank} stage:{stage}] but {problem}{more}", field="stage")


def _against_map(rank: int, stage: int, stage_map: Stage2RankRecord) -> str | None:
    stages = stage_map.stages
    if stage in stages and rank in stages[stage]:
        return None
    owners = [owner for owner, ranks in stages.items() if rank in ranks]
    placed = f"puts rank {rank} on stage {', '.join(map(str, owners))}" if owners else f"puts rank {rank} on no stage"
    listed = f"stage {stage} has ranks {list(stages[stage])}" if stage in stages else f"it has no stage {stage}"
    return f"stage2rank (line {stage_map.line}) {placed} ({listed})"
