from collections.abc import Iterator
from dataclasses import dataclass

from lint.models.optprime_log import FAILURE_MESSAGES, Record
from lint.rule import Rule, RuleOptions, Severity, Violation, at


@dataclass(slots=True)
class _Sign:
    """The first record of one kind of failure sign of a process, and how many records of that kind."""

    first: Record
    message: str
    count: int = 1


class RunFailed(Rule):
    """The log shows that a worker or the job failed.

    Signs of failure: a worker's traceback and the exception ending it (``[rank3]: RuntimeError: …``);
    torchrun's ``failed (exitcode: …)`` line, its launcher traceback ending in ``ChildFailedError``, its
    ``… FAILED`` report with each failed rank's exit code or signal, the closing signals it sends the
    other workers and a death signal it receives.  One finding per process, at its first sign, lists
    its signs: one per failed rank (worker output and report entries about it) and one for the job
    (torchrun's own lines, and tracebacks no rank prefix names).  A completed run shows none of these.

    Why it matters:
        A failed run's timings stop mid-training and its last steps may be cut short: it is no
        reference for performance, and whatever consumes the log must know the job did not finish.

    Example:
        ``[rank3]: Traceback (most recent call last):`` … ``[rank3]: RuntimeError: loss is nan``
        -> rank 3 failed: Traceback (most recent call last) (line 96), RuntimeError: loss is nan (line 101),
        exitcode 1 (pid 4253) (line 131)
    """

    code = "TL218"
    name = "run-failed"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.signs: dict[int | None, dict[str, _Sign]] = {}  # rank (None: torchrun or no rank named) -> kind -> sign

    def _sign(self, record: Record) -> Iterator[Violation]:
        signs = self.signs.setdefault(record.rank, {})
        if record.kind in signs:
            signs[record.kind].count += 1
        else:
            # rstrip: an exception without a message is printed ``ChildFailedError: ``
            signs[record.kind] = _Sign(record, FAILURE_MESSAGES[record.kind](record).rstrip())
        return iter(())

    check_traceback = check_exception = check_child_failed = check_closing_signal = _sign
    check_death_signal = check_failure_title = check_failure_exitcode = check_failure_signal = _sign

    def finish(self) -> Iterator[Violation]:
        for rank, signs in self.signs.items():
            evidence = ", ".join(
                f"{sign.message} (line {sign.first.line})" + (f" and {sign.count - 1} more like it" if sign.count > 1 else "")
                for sign in signs.values()
            )
            process = f"rank {rank}" if rank is not None else "the job"
            yield at(next(iter(signs.values())).first, f"{process} failed: {evidence}")
