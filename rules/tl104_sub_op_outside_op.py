from lint.formats.megatron_trace.records import OpRecord, sub_operation_label
from lint.rule import Rule, RuleOptions, Severity, Violation, at, option


class Options(RuleOptions):
    """The options of TL104."""

    tolerance_ms: float = option(0.02, ge=0, description="slack for the 2-decimal rounding of both records")


class SubOpOutsideOp(Rule):
    """A sub-operation ends after the op that contains it.

    A sub-operation (a traced collective or call) runs inside its op.  Both end times come from the
    same CPU clock: the writer stamps a sub-operation when it is added (``CMD.add_sub_operation``,
    ``round(time.perf_counter() * 1000, 2)``) and the op when it exits (``CMD.__exit__``), so a
    sub-operation never ends after its op (within the rounding of both records).  The op's start is not
    checked: its ``duration`` is GPU time between two CUDA events, which start when the GPU reaches
    them, so ``timestamp - duration`` can lie after the CPU time at which the op began and a first
    sub-operation (moe_mg's ``_profiled_all_to_all_single``) may end before it.  Placeholders
    (``timestamp=0``) carry no window and are skipped.

    Why it matters:
        A collective outside its op was attributed to the wrong op (or the op's duration is wrong), so
        per-phase communication time and the overlap of compute and communication are misread.

    Example:
        ``loss_func(...,duration=0.4,...,timestamp=4509233042.32,...)`` holding
        ``'trace_src_func=allreduce,duration=0.07,timestamp=4509233052.19,...'``
        -> sub-operation 1 of loss_func (trace_src_func=allreduce) ends at 4509233052.19 ms, after its op's
        window [4509233041.92, 4509233042.32] ms
    """

    code = "TL104"
    name = "sub-op-outside-op"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    Options = Options

    def check_op(self, record: OpRecord) -> list[Violation] | tuple[()]:
        subs = record.sub_operations
        if not subs.calls:
            return ()
        start = record.start
        if start is None or record.timestamp == 0:
            return ()
        end = record.timestamp
        high = end + self.options.tolerance_ms + 1e-6
        if max(subs.timestamps) <= high:  # the usual case, in one pass (a nan first defers to the loop)
            return ()
        return [
            at(
                record,
                f"{sub_operation_label(record.op, index, call.trace_src_func)} ends at {timestamp:.2f} ms, after its op's window [{start:.2f}, {end:.2f}] ms",
                field="timestamp",
                index=index - 1,
            )
            for index, (call, timestamp) in enumerate(zip(subs.calls, subs.timestamps, strict=True), 1)
            if timestamp > high
        ]
