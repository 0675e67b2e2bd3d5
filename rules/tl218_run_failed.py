from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import RankOutput, restarts
from lint.rule import Severity, Violation
from lint.runs.model import rank_list


class RunFailed(RankOutput):
    """The log shows that the run failed; the finding names the cause.

    One finding per log, at the line that shows the cause (lint/formats/optprime_log/outcome.py reads it the
    way torchrun, torch/distributed/elastic/multiprocessing/api.py and errors/error_handler.py, and
    Python print it):

    - the launcher was stopped: ``Received 15 death signal, shutting down workers``;
    - a worker was killed by a signal: the root cause of torchrun's failure report
      (``exitcode  : -9 (pid: …)  (SIGKILL)``) or ``failed (exitcode: -9)``;
    - a worker raised: the exception ending its traceback (``[rank1]: TypeError: …``), that of the
      root-cause rank first, with the innermost frame of the script or opt_prime it was raised under;
      ``ModuleNotFoundError``/``ImportError`` is called an import failure;
    - otherwise the root cause's exit code, or the first sign of failure.

    Where torchrun restarted the workers (``--max-restarts``), only the last attempt decides: a run whose
    last attempt completed did not fail (TL221 says so), and a failed one says why the earlier ones failed.

    The rest (torchrun's closing signals to the other workers, its own ``ChildFailedError`` traceback,
    the other ranks' errors such as a lost peer) follows from the cause and is summarised, not reported
    again; TL219 stays quiet about ranks such a run took down.

    Why it matters:
        A failed run's timings stop mid-training and its last steps may be cut short: it is no
        reference for performance, and whatever consumes the log must know the job did not finish.

    Example:
        ``[rank3]:   File "…/pp_train_llama.py", line 118, in train`` … ``[rank3]: RuntimeError: loss is nan``,
        then torchrun's report naming ranks 1 and 3, rank 3 as root cause
        -> the run failed: rank 3 raised at pp_train_llama.py:118 in train: RuntimeError: loss is nan; torchrun's
        failure report (line 115) lists ranks 1 and 3
    """

    code = "TL218"
    name = "run-failed"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        cause = self.outcome.cause()
        if cause is None:
            return
        report = ""
        if self.outcome.report_line is not None:
            listed = f" lists {rank_list(self.outcome.reported_ranks)}" if self.outcome.reported_ranks else ""
            report = f"; torchrun's failure report (line {self.outcome.report_line}){listed}"
        yield Violation(cause.line, cause.column, f"the run failed{restarts(self.outcome.restarted)}: {cause.text}{report}", cause.rank)
