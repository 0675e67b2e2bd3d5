from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import RankOutput, restarts
from lint.rule import Severity, Violation, at
from lint.runs.model import rank_list


class RunCompleted(RankOutput):
    """The run completed: every rank that printed output printed ``run completed``, and nothing failed.

    Every rank of an OptimusPrime training script prints ``[rank:R, run completed ...`` as its last line
    (ai-computing/aicomp ``opt_prime/examples/pp_train_*.py``); a log with no sign of failure (TL218) in
    which every rank that printed anything of its own printed that line shows a completed run.  Ranks
    the log does not show (one node's log of a multi-node job, ``--local-ranks-filter``) are TL220's.

    This is information, the outcome a user asks a log for first; the finding is at the last
    ``run completed`` line.  Where torchrun restarted the workers (``--max-restarts``) the outcome is the last
    attempt's, and the finding says why each earlier one failed: its timings mix attempts.

    Why it matters:
        Only a completed run is a reference for timings, loss curves and comparisons (``tlint diff``).

    Example:
        ranks 0 to 7 each print ``[rank:R, run completed ...``, the last on line 1006
        -> the run completed: ranks 0, 1, 2, 3, 4, 5, 6 and 7 printed `run completed` (the last on line 1006)
    """

    code = "TL221"
    name = "run-completed"
    severity = Severity.INFO
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        completed, last = self.outcome.completed_ranks, self.outcome.last_completed
        if last is None or self.outcome.failed or not completed >= set(self.last_output):
            return
        yield at(last, f"the run completed{restarts(self.outcome.restarted)}: {rank_list(completed)} printed `run completed` (the last on line {last.line})")
