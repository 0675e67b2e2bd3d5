import math
from collections.abc import Iterator

from lint.models.megatron_trace import DdpGradCommRecord, OpRecord
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

    def _check(self, record: OpRecord | DdpGradCommRecord) -> Iterator[Violation]:
        problem = _problem(record.op, record.duration, record.timestamp)
        if problem:
            yield at(record, problem)
        for index, sub in enumerate(record.sub_operations, 1):
            # One chained comparison rejects negative, nan and inf alike; explain only then.
            if not (0.0 <= sub.duration < _INF and -_INF < sub.timestamp < _INF):
                problem = _problem(f"sub-operation {index} of {record.op} (trace_src_func={sub.trace_src_func})", sub.duration, sub.timestamp)
                if problem:
                    yield at(record, problem)

    check_op = _check
    check_ddp_grad_comm = _check


def _problem(what: str, duration: float | None, timestamp: float | None) -> str | None:
    if duration is not None and not math.isfinite(duration):
        return f"{what} has a non-finite duration ({duration})"
    if duration is not None and duration < 0:
        return f"{what} has a negative duration ({duration} ms)"
    if timestamp is not None and not math.isfinite(timestamp):
        return f"{what} has a non-finite timestamp ({timestamp})"
    return None
