from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import RankOutput
from lint.rule import Severity, Violation
from lint.runs.model import rank_list


class RankNotCompleted(RankOutput):
    """A rank printed output but never ``run completed``, and the log shows no failure.

    Every rank of OptimusPrime prints ``[rank:R, run completed ...`` as the last line of the training
    script (ai-computing/aicomp ``opt_prime/examples/pp_train_*.py``).  A rank that printed something of
    its own (its set-up, timing, or a ``[rankR]:`` line) and not that stopped before the end.  Where
    the log shows why (a traceback, torchrun's failure report, a signal), the run failed and TL218 says
    so, naming the cause: the ranks it took down are not reported again here.  What is left is a log
    that stops with no sign of failure: the job hung and was killed from outside, or the log was cut.
    Ranks that printed nothing are not judged: torchrun's ``--local-ranks-filter`` and the per-node
    logs of a multi-node job show only some ranks (TL220 says which).  The finding is at the rank's
    last output.

    Why it matters:
        The run did not finish on that rank: its last steps are missing, and the log describes a job
        that did not complete, whether or not an error was printed.

    Example:
        rank 7's output ends on line 1013 and the log ends; ranks 0-6 printed ``[rank:R, run completed ...``
        -> rank 7 never printed `run completed`: its output ends on line 1013 and the log shows no failure
        (ranks 0, 1, 2, 3, 4, 5 and 6 did)
    """

    code = "TL219"
    name = "rank-not-completed"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        if self.outcome.failed:
            return
        completed = self.outcome.completed_ranks
        others = f"{rank_list(completed)} did" if completed else "no rank did"
        for rank, line in sorted(self.last_output.items()):
            if rank not in completed:
                yield Violation(
                    line,
                    1,
                    f"rank {rank} never printed `run completed`: its output ends on line {line} and the log shows no failure ({others})",
                    rank,
                )
