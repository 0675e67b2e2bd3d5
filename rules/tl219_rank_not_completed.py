from collections.abc import Iterator

from lint.models.optprime_log import Record
from lint.rule import RuleOptions, Severity, Violation
from lint.rulekit import RankOutput
from lint.runs.model import rank_list


class RankNotCompleted(RankOutput):
    """A rank printed output but never ``run completed``.

    Every rank of OptimusPrime prints ``[rank:R, run completed ...`` when its training loop ends.  A
    rank that printed something of its own (its set-up, timing, or a ``[rankR]:`` line) and not that
    stopped before the end: it failed, was killed, or the log was cut.  Ranks that printed nothing are
    not judged: torchrun's ``--local-ranks-filter`` and the per-node logs of a multi-node job show only
    some ranks (TL220 says which).  The finding is at the rank's last output.

    Why it matters:
        The run did not finish on that rank: its last steps are missing, and the log describes a job
        that did not complete, whether or not an error was printed.

    Example:
        rank 3's output ends with its traceback on line 101; rank 0 printed ``[rank:0, run completed ...``
        -> rank 3 never printed `run completed`: its output ends on line 101 (rank 0 did)
    """

    code = "TL219"
    name = "rank-not-completed"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.completed: set[int] = set()

    def check_run_completed(self, record: Record) -> Iterator[Violation]:
        self.completed.add(record.rank)
        return self.note_output(record)

    def finish(self) -> Iterator[Violation]:
        others = f"{rank_list(self.completed)} did" if self.completed else "no rank did"
        for rank, line in sorted(self.last_output.items()):
            if rank not in self.completed:
                yield Violation(line, 1, f"rank {rank} never printed `run completed`: its output ends on line {line} ({others})", rank)
