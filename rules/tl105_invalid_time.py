import math
from collections.abc import Iterator

from lint.formats.megatron_trace.records import DdpGradCommRecord, OpRecord, sub_operation_label
from lint.rule import Rule, Severity, Violation, at

_INF = math.inf


class InvalidTime(Rule):
    """A duration is negative, or a duration or timestamp is not a finite number.

    Durations are elapsed milliseconds (``≥ 0``) and timestamps are ``perf_counter`` readings in
    milliseconds; ``nan``, ``inf`` and negative durations cannot come from a clock.

    Writer: ``CMD.__exit__`` in ``megatron/profiler/cmd.py`` takes the duration from CUDA events
    (``elapsed_time``) or ``perf_counter`` differences and rounds both to 2 decimals, so this is an
    error.

    Why it matters:
        A negative or non-finite time poisons every sum, median and critical path computed from the trace;
        simulators either crash on it or silently produce a negative step time.

    Example:
        ``rank:7:send_backward(...,duration=-2.9,...)``
        -> send_backward has a negative duration (-2.9 ms)
    """

    code = "TL105"
    name = "invalid-time"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def _check(self, record: OpRecord | DdpGradCommRecord) -> list[Violation] | tuple[()]:
        duration, timestamp = record.duration, record.timestamp
        subs = record.sub_operations
        if _valid(duration, timestamp) and (not subs.calls or _all_valid(subs.durations, subs.timestamps)):
            return ()  # the usual case
        return list(self._problems(record))

    check_op = _check
    check_ddp_grad_comm = _check

    def _problems(self, record: OpRecord | DdpGradCommRecord) -> Iterator[Violation]:
        duration, timestamp = record.duration, record.timestamp
        if not _valid(duration, timestamp):
            problem = _problem(record.op, duration, timestamp)
            if problem:
                yield at(record, problem, field=_invalid_field(duration))
        subs = record.sub_operations
        for index, (call, duration, timestamp) in enumerate(zip(subs.calls, subs.durations, subs.timestamps, strict=True), 1):
            # One chained comparison rejects negative, nan and inf alike; explain only then.
            if not (0.0 <= duration < _INF and -_INF < timestamp < _INF):
                problem = _problem(sub_operation_label(record.op, index, call.trace_src_func), duration, timestamp)
                if problem:
                    yield at(record, problem, field=_invalid_field(duration), index=index - 1)


def _invalid_field(duration: float | None) -> str:
    """The field a finding points at: the duration when it is wrong, else the timestamp."""
    return "timestamp" if duration is None or 0.0 <= duration < _INF else "duration"


def _valid(duration: float | None, timestamp: float | None) -> bool:
    """An op's times: one chained comparison per time rejects negative, nan and inf alike."""
    return (duration is None or 0.0 <= duration < _INF) and (timestamp is None or -_INF < timestamp < _INF)


def _all_valid(durations: tuple[float, ...], timestamps: tuple[float, ...]) -> bool:
    """Every time finite and no duration negative, in C loops: a sum is finite only when every term is
    (a finite sum that overflows just defers to the exact loop), and min() is exact once no nan is left."""
    total, stamps = sum(durations), sum(timestamps)
    return total - total == 0.0 and stamps - stamps == 0.0 and min(durations) >= 0.0


def _problem(what: str, duration: float | None, timestamp: float | None) -> str | None:
    if duration is not None and not math.isfinite(duration):
        return f"{what} has a non-finite duration ({duration})"
    if duration is not None and duration < 0:
        return f"{what} has a negative duration ({duration} ms)"
    if timestamp is not None and not math.isfinite(timestamp):
        return f"{what} has a non-finite timestamp ({timestamp})"
    return None
