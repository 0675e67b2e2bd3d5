from lint.formats.megatron_trace.records import OpRecord
from lint.rule import Rule, Severity, Violation, at


class PlaceholderWithDuration(Rule):
    """A record has ``timestamp=0`` but a non-zero duration.

    Simulation output marks ops it did not time with ``duration=0,timestamp=0`` (a placeholder).  A zero
    timestamp with a real duration is neither a placeholder nor a clock reading.

    Writer: ``CMD.no_trace_update(0, 0)`` (scaling mode's ``dp_allreduce``/``ep_allreduce`` in
    ``megatron/training/training.py``) writes both zeros together; a measured op always has a clock
    reading, so this is an error.

    Why it matters:
        Rules and tools skip placeholders; a half-placeholder is either skipped (losing a real duration)
        or taken for an op that ended at time 0, which looks like time travel of billions of milliseconds.

    Example:
        ``rank:7:dp_allreduce(...,duration=24.64,...,timestamp=0,...)``
        -> timestamp=0 marks a placeholder, but the duration is 24.64 ms (placeholders have duration=0)
    """

    code = "TL106"
    name = "placeholder-with-duration"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def check_op(self, record: OpRecord) -> tuple[Violation, ...]:
        if record.timestamp == 0 and record.duration:
            return (at(record, f"timestamp=0 marks a placeholder, but the duration is {record.duration} ms (placeholders have duration=0)", field="duration"),)
        return ()
