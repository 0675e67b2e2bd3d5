"""How the run of an ``optprime-log`` ended: completed, or failed and why (docs/formats/optprime-log.md, Outcome).

Every rank of an OptimusPrime training script prints ``[rank:R, run completed ...`` as its last line
(ai-computing/aicomp ``opt_prime/examples/pp_train_*.py``).  A run that fails shows it in one of the
ways torchrun (``torch/distributed/elastic``) and Python print it:

- a worker raises: ``[rankR]: Traceback …``, its frames, then the exception (``ModuleNotFoundError`` /
  ``ImportError``: the script could not even import opt_prime); the cause names the innermost frame of the
  script or of opt_prime (not of an installed library), where a user looks first.  A traceback after
  ``Exception ignored in: …`` is none: Python's unraisable-exception hook reports an error it ignored (as
  DataLoader workers' ``__del__`` do at exit);
- a worker is killed by a signal: torchrun's ``failed (exitcode: -9)`` and its failure report's root cause
  ``exitcode  : -9 (pid: …)  (SIGKILL)`` / ``traceback : Signal 9 (SIGKILL) received by PID …``;
- the launcher itself is stopped: ``Received 15 death signal, shutting down workers`` (``Signals.SIGTERM``
  before Python 3.11), then ``SignalException`` from torchrun's own traceback.

torchrun then sends the other workers SIGTERM (``Sending process … closing signal SIGTERM``) and prints a
report whose ``Root Cause (first observed failure)`` names the first worker that failed.  Those
consequences are evidence, not causes: the cause is the launcher's stop if it was stopped, else the root
cause's signal, else the exception of the root-cause rank (or the first worker exception of the log),
else the root cause's exit code, with the worker's last words where it logged them (opt_prime aborts with
``logging.critical(…)`` and ``sys.exit(1)``: comm.py, opti_pri.py; argparse rejects a command line with
``PROG: error: …`` and exit code 2: Lib/argparse.py, ``ArgumentParser.error``).
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field, fields
from typing import Any

from lint.formats.optprime_log.records import FAILURE_MESSAGES, TracebackFrameRecord

# Exceptions torchrun raises in its own process: they report a failure, they are not one.
_LAUNCHER_EXCEPTIONS = frozenset({"ChildFailedError", "SignalException"})
_IMPORT_FAILURES = frozenset({"ModuleNotFoundError", "ImportError"})
# The kinds of record RunOutcome.add reads.
_TOLD_BY = frozenset(
    {
        *FAILURE_MESSAGES,
        "exception_ignored",
        "run_completed",
        "traceback",
        "traceback_frame",
        "exception",
        "python_log",
        "death_signal",
        "child_failed",
        "failure_title",
        "failure_section",
        "failure_exitcode",
        "failure_signal",
        "env_check",  # a new attempt of the workers begins (Attempts)
    }
)


def signal_name(value: str | int) -> str:
    """``15``, ``-15``, ``"Signals.SIGTERM"`` or ``"SIGTERM"`` -> ``SIGTERM`` (the number where it names none)."""
    text = str(value).removeprefix("Signals.")
    if not text.lstrip("-").isdigit():
        return text
    try:
        number = abs(int(text))
    except ValueError:  # more digits than int() takes: no signal's number
        return text
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass(slots=True)
class Cause:
    """Why the run failed, where the log shows it first."""

    line: int
    column: int
    rank: int | None
    text: str


@dataclass(slots=True)
class _Exit:
    """A worker's exit as torchrun reports it."""

    line: int
    column: int
    rank: int | None
    exitcode: int
    signal: str | None = None

    def describe(self, who: str) -> str:
        if self.exitcode < 0 or self.signal is not None:
            name = self.signal or signal_name(self.exitcode)
            return f"{who} was killed by {name} (exit code {self.exitcode})"
        return f"{who} exited with code {self.exitcode}"


class Attempts:
    """Which attempt of the workers the records so far belong to.

    ``torchrun --max-restarts N`` starts the whole worker group again after a worker fails, up to N times
    (torch/distributed/elastic/agent/server/api.py, ``SimpleElasticAgent._invoke_run``: ``_restart_workers``
    while ``remaining_restarts > 0``); only when none are left does it stop the others and print its failure
    report.  Its log at the default level says only ``failed (exitcode: …) local_rank: …`` (the agent's
    ``Worker group FAILED … will restart worker group`` is an INFO line), and then the workers' output starts
    again: each OptimusPrime script prints ``[rank:R] torch version … --> OK`` first.  So a worker's version
    check after torchrun saw a worker fail, and before its failure report or its own stop, begins a new attempt.
    """

    def __init__(self) -> None:
        self._worker_failed = False  # torchrun reported a failed worker, and has not given up

    def observe(self, kind: str) -> bool:
        """Whether a record of ``kind`` begins a new attempt."""
        if kind == "child_failed":
            self._worker_failed = True
        elif kind in ("failure_title", "death_signal"):  # torchrun gave up: no attempt follows
            self._worker_failed = False
        elif kind == "env_check" and self._worker_failed:
            self._worker_failed = False
            return True
        return False


@dataclass(slots=True)
class RunOutcome:
    """Fed every record of one log in order; says whether the run completed or failed, and why."""

    completed_ranks: set[int] = field(default_factory=set)
    last_completed: Any = None  # the last `run completed` line
    failure_signs: int = 0
    first_sign: Any = None
    worker_exceptions: list[tuple[Any, TracebackFrameRecord | None]] = field(default_factory=list)  # (exception, the frame it names)
    launcher_exceptions: list[Any] = field(default_factory=list)  # raised in torchrun's own process
    critical_logs: list[Any] = field(default_factory=list)  # a worker's CRITICAL/ERROR log lines (opt_prime's aborts)
    usage_errors: list[Any] = field(default_factory=list)  # argparse's `PROG: error: …` (a rejected command line)
    frames: dict[int | None, list[TracebackFrameRecord]] = field(default_factory=dict)  # rank -> frames of its open traceback
    death: Any = None
    child_failed: Any = None
    root_cause: _Exit | None = None
    report_line: int | None = None
    reported_ranks: set[int] = field(default_factory=set)
    ignoring: set[int | None] = field(default_factory=set)  # ranks printing an exception Python ignored
    restarted: list[Cause] = field(default_factory=list)  # why each earlier attempt failed (see Attempts)
    attempts: Attempts = field(default_factory=Attempts)
    _in_root_cause: bool = False

    @staticmethod
    def reads(kind: str) -> bool:
        """Whether :meth:`add` reads records of ``kind`` (it ignores the others)."""
        return kind in _TOLD_BY

    def add(self, record: Any) -> None:
        kind = record.kind
        if kind not in _TOLD_BY:  # most records (timing, set-up) say nothing about how the run ends
            return
        if self.attempts.observe(kind):
            self._restart()
            return
        if kind == "exception_ignored":
            self.ignoring.add(record.rank)
            return
        if record.rank in self.ignoring and kind in ("traceback", "traceback_frame", "exception"):
            if kind == "exception":
                self.ignoring.discard(record.rank)
            return
        if kind in FAILURE_MESSAGES:
            self.failure_signs += 1
            self.first_sign = self.first_sign or record
        if kind == "run_completed":
            self.last_completed = record
            if record.rank is not None:
                self.completed_ranks.add(record.rank)
        elif kind == "traceback":
            self.frames[record.rank] = []
        elif kind == "traceback_frame":
            self.frames.setdefault(record.rank, []).append(record)
        elif kind == "exception":
            frames = self.frames.pop(record.rank, [])
            if any(_launcher_frame(frame) for frame in frames) or record.name.rsplit(".", 1)[-1] in _LAUNCHER_EXCEPTIONS:
                self.launcher_exceptions.append(record)
            else:
                self.worker_exceptions.append((record, _raising_frame(frames)))
        elif kind == "python_log" and record.level in ("CRITICAL", "ERROR"):
            self.critical_logs.append(record)
        elif kind == "usage_error":
            self.usage_errors.append(record)
        elif kind == "death_signal" and self.death is None:
            self.death = record
        elif kind == "child_failed" and self.child_failed is None:
            self.child_failed = record
        elif kind == "failure_title":
            self.report_line = self.report_line or record.line
        elif kind == "failure_section":
            self._in_root_cause = record.root_cause
        elif kind == "failure_exitcode":
            self._exit(record)
        elif kind == "failure_signal" and self._in_root_cause and self.root_cause is not None:
            self.root_cause.signal = self.root_cause.signal or record.signal

    def _restart(self) -> None:
        """torchrun started the workers again: what the log says from here is the new attempt's."""
        restarted = [*self.restarted, *filter(None, [self.cause()])]  # (torchrun saw a worker fail: a cause)
        attempts = self.attempts
        fresh = RunOutcome()
        for each in fields(self):
            setattr(self, each.name, getattr(fresh, each.name))
        self.restarted, self.attempts = restarted, attempts

    def _exit(self, record: Any) -> None:
        if record.rank is not None:
            self.reported_ranks.add(record.rank)
        if self._in_root_cause and self.root_cause is None:
            self.root_cause = _Exit(record.line, record.column, record.rank, record.exitcode, record.exit_signal)

    @property
    def failed(self) -> bool:
        return self.failure_signs > 0

    def cause(self) -> Cause | None:
        """Why the run failed (None: the log shows no failure)."""
        if not self.failed:
            return None
        if self.death is not None:
            name = signal_name(self.death.signal)
            return Cause(self.death.line, self.death.column, None, f"torchrun was stopped by {name} and shut the workers down")
        root = self.root_cause or self._child_exit()
        if root is not None and (root.exitcode < 0 or root.signal is not None):
            return Cause(root.line, root.column, root.rank, root.describe(_who(root.rank)))
        found = self._exception_of(root.rank if root is not None else None)
        if found is not None:
            exception, frame = found
            name = exception.name.rsplit(".", 1)[-1]
            raised = f"{exception.name}: {exception.message}" if exception.message else exception.name
            verb = "could not import what it needs" if name in _IMPORT_FAILURES else "raised"
            where = "" if frame is None else f" at {frame.path.rsplit('/', 1)[-1]}:{frame.source_line}" + (f" in {frame.function}" if frame.function else "")
            rank = exception.rank
            if rank is None and root is not None and self.reported_ranks == {root.rank}:
                rank = root.rank  # a lone worker (--nproc-per-node 1: its lines carry no [rankN]: prefix), named by the report
            return Cause(exception.line, exception.column, rank, f"{_who(rank)} {verb}{where}: {raised.strip()}")
        if root is not None:
            logged = next((log for log in self.critical_logs if log.rank in (root.rank, None)), None)
            if logged is not None:  # opti_pri.py / comm.py: logging.critical(…) then sys.exit(1)
                text = f"{root.describe(_who(root.rank))} after logging {logged.level}: {(logged.message or '').strip()}"
                return Cause(logged.line, logged.column, logged.rank, text)
            rejected = next((usage for usage in self.usage_errors if usage.rank in (root.rank, None)), None)
            if rejected is not None:  # argparse: `PROG: error: …`, then exit code 2
                text = f"{root.describe(_who(root.rank))} after argparse rejected its command line: {FAILURE_MESSAGES['usage_error'](rejected)}"
                return Cause(rejected.line, rejected.column, rejected.rank, text)
            return Cause(root.line, root.column, root.rank, root.describe(_who(root.rank)))
        own = [exception for exception in self.launcher_exceptions if exception.name.rsplit(".", 1)[-1] not in _LAUNCHER_EXCEPTIONS]
        if own:  # torchrun itself failed (a rendezvous error, say), not a worker
            raised = f"{own[0].name}: {own[0].message}" if own[0].message else own[0].name
            return Cause(own[0].line, own[0].column, None, f"torchrun failed: {raised.strip()}")
        sign = self.first_sign
        return Cause(sign.line, sign.column, sign.rank, FAILURE_MESSAGES[sign.kind](sign).rstrip())

    def _child_exit(self) -> _Exit | None:
        """torchrun's ``failed (exitcode: …) local_rank: …`` line, where no failure report names the root cause."""
        child = self.child_failed
        if child is None:
            return None
        return _Exit(child.line, child.column, None, child.exitcode)

    def _exception_of(self, rank: int | None) -> tuple[Any, TracebackFrameRecord | None] | None:
        """The first exception of ``rank``, else the first worker exception of the log (with its frame)."""
        own = [found for found in self.worker_exceptions if rank is not None and found[0].rank == rank]
        candidates = own or self.worker_exceptions
        return candidates[0] if candidates else None


def _launcher_frame(frame: TracebackFrameRecord) -> bool:
    """A frame of torchrun's own process (its entry point or torch/distributed/run.py)."""
    path = frame.path.replace("\\", "/")
    return path.endswith(("/torchrun", "torch/distributed/run.py"))


def _raising_frame(frames: list[TracebackFrameRecord]) -> TracebackFrameRecord | None:
    """The frame a user reads first: the innermost one of the training script or opt_prime, not of a library
    (the innermost of all where every frame is a library's; None: the log shows no frame)."""
    own = [frame for frame in frames if not frame.in_library]
    return (own or frames)[-1] if frames else None


def _who(rank: int | None) -> str:
    return f"rank {rank}" if rank is not None else "a worker"
