from lint.formats.optprime_log.records import TimingHeaderRecord
from lint.formats.optprime_log.rulekit import StartsOverOnRestart
from lint.rule import RuleOptions, Severity, Violation, at


class StepSequence(StartsOverOnRestart):
    """A rank's timing steps do not count up from 1 by one.

    The timing add-on counts a rank's training steps from 1 and prints one timing block per step, so
    the headers of one rank number its steps 1..N, each once, in order.  When torchrun restarts the workers
    (``--max-restarts``), the new attempt counts from step 1 again.

    Why it matters:
        A missing, repeated or out-of-order step means lost or duplicated output (two runs in one file,
        a log cut and pasted): per-step timing and the comparison of ranks step by step pair the wrong
        blocks.

    Example:
        ``[rank:3 stage:3] … - step 2`` on line 373, then ``[rank:3 stage:3] … - step 4``
        -> rank 3: step 4 after step 2 (line 373): step 3 is missing
    """

    code = "TL208"
    name = "step-sequence"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.previous: dict[int, TimingHeaderRecord] = {}  # rank -> its latest header

    def start_over(self) -> None:
        self.previous = {}

    def check_timing_header(self, record: TimingHeaderRecord) -> tuple[Violation, ...]:
        previous = self.previous.get(record.rank)
        last = previous.step if previous is not None else 0
        self.previous[record.rank] = record
        if record.step == last + 1:
            return ()  # the usual case, without a generator: this runs for every timing header
        if record.step > last + 1:
            order = f"after step {last} (line {previous.line})" if previous is not None else "is its first"
            return (at(record, f"rank {record.rank}: step {record.step} {order}: {_missing(last + 1, record.step - 1)}", field="step"),)
        if previous is None:
            return (at(record, f"rank {record.rank}: step {record.step} is its first; steps count from 1", field="step"),)
        if record.step == last:
            return (at(record, f"rank {record.rank}: step {record.step} again (line {previous.line})", field="step"),)
        return (at(record, f"rank {record.rank}: step {record.step} after step {last} (line {previous.line})", field="step"),)


def _missing(first: int, last: int) -> str:
    return f"step {first} is missing" if first == last else f"steps {first}-{last} are missing"
