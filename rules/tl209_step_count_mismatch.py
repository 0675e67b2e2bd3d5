from collections.abc import Iterator

from lint.formats.optprime_log.records import Record, TimingHeaderRecord
from lint.rule import Rule, RuleOptions, Severity, Violation, at
from lint.runs.model import majority, rank_list


class StepCountMismatch(Rule):
    """Ranks that completed the run report different numbers of timing steps.

    Every stage of a pipeline runs every training step, so every rank that printed ``run completed``
    printed the same number N of timing steps.  Ranks that did not complete are left out: a rank that
    failed stops early (TL218, TL219), and a rank that prints no timing is not compared.  The rank whose
    count differs from most ranks' is reported, at its last header; without a majority, every rank is.

    Why it matters:
        A rank with fewer or more steps lost or duplicated timing output; step-by-step comparisons of
        stages and the per-step totals of the pipeline are wrong for the steps it lacks.

    Example:
        ranks 0-7 completed, rank 5's last header is ``- step 19``, the others' ``- step 20``
        -> rank 5 reports 19 steps (its last header: line 943); the other ranks that completed report 20
        (ranks 0, 1, 2, 3, 4, 6 and 7)
    """

    code = "TL209"
    name = "step-count-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.last: dict[int, TimingHeaderRecord] = {}  # rank -> its latest header
        self.completed: set[int | None] = set()  # the ranks that printed ``run completed``

    def check_timing_header(self, record: TimingHeaderRecord) -> tuple[()]:
        self.last[record.rank] = record
        return ()

    def check_run_completed(self, record: Record) -> tuple[()]:
        self.completed.add(record.rank)
        return ()

    def finish(self) -> Iterator[Violation]:
        steps = {rank: header.step for rank, header in self.last.items() if rank in self.completed}
        _, odd = majority(steps)
        if not odd:
            return
        for rank in odd:
            header = self.last[rank]
            others = _breakdown({other: count for other, count in steps.items() if other != rank})
            yield at(
                header,
                f"rank {rank} reports {header.step} steps (its last header: line {header.line}); the other ranks that completed report {others}",
                field="step",
            )


def _breakdown(steps: dict[int, int]) -> str:
    """'20 (ranks 0, 1 and 3), 18 (rank 2)': the step counts, the most common first."""
    by_count: dict[int, list[int]] = {}
    for rank, count in sorted(steps.items()):
        by_count.setdefault(count, []).append(rank)
    return ", ".join(f"{count} ({rank_list(ranks)})" for count, ranks in sorted(by_count.items(), key=lambda item: -len(item[1])))
