from collections.abc import Iterator

from pydantic import Field

from lint.models.megatron_trace import OpRecord
from lint.rule import Rule, RuleOptions, Severity, Violation, at


class Options(RuleOptions):
    tolerance_ms: float = Field(0.02, ge=0, description="slack for the 2-decimal rounding of both records")


class SubOpOutsideOp(Rule):
    """A sub-operation ends outside the time window of the op that contains it.

    A sub-operation (a traced collective or call) runs inside its op: its end ``timestamp`` lies in the
    op's window ``[timestamp - duration, timestamp]`` (within the rounding of both records).
    Placeholders (``timestamp=0``) carry no window and are skipped.

    Why it matters:
        A collective outside its op was attributed to the wrong op (or the op's duration is wrong), so
        per-phase communication time and the overlap of compute and communication are misread.

    Example:
        ``forward_step(duration=10.0,timestamp=110.0,...)`` holding
        ``'trace_src_func=allreduce,duration=0.5,timestamp=130.0,...'``
        -> sub-operation 1 (allreduce) ends at 130.00 ms, after its op's window [100.00, 110.00] ms
    """

    code = "TL104"
    name = "sub-op-outside-op"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    Options = Options

    def check_op(self, record: OpRecord) -> Iterator[Violation]:
        start = record.start
        if start is None or record.timestamp == 0 or not record.sub_operations:
            return
        end = record.timestamp
        low, high = start - self.options.tolerance_ms - 1e-6, end + self.options.tolerance_ms + 1e-6  # type: ignore[operator]
        for index, sub in enumerate(record.sub_operations, 1):
            if not low <= sub.timestamp <= high:
                where = "before" if sub.timestamp < low else "after"
                yield at(
                    record,
                    f"sub-operation {index} ({sub.func_name or sub.trace_src_func}) ends at {sub.timestamp:.2f} ms, "
                    f"{where} its op's window [{start:.2f}, {end:.2f}] ms",
                )
