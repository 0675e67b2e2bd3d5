from lint.formats.megatron_trace.records import BATCHED_P2P, OpRecord
from lint.rule import Rule, RuleOptions, Severity, Violation, at, option


class Options(RuleOptions):
    """The options of TL103."""

    tolerance_ms: float = option(0.01, ge=0, description="slack for the 2-decimal rounding of timestamp and duration")


class OpOverlap(Rule):
    """An op starts before the previous op of the same rank ended.

    ``timestamp`` is taken after the op finished (an end time, ``round(perf_counter()*1000, 2)``), so an
    op starts at ``timestamp - duration``.  One process runs its ops one after another: each op must start
    at or after the previous op's end, within the rounding tolerance.  Simulation placeholders
    (``timestamp=0``, ``duration=0``) and V0 records without a timestamp are skipped, not taken for time
    travel; so is a ``timestamp=0`` with a duration, which TL106 reports.

    A batched p2p call (``send_forward_recv_backward``, ``send_backward_recv_forward``) is one call that
    the writer records twice: it times the send and copies its duration and timestamp to the receive
    (``cmd_recv.no_trace_update(cmd_send.duration, cmd_send.time_stamp)`` in
    ``megatron/core/pipeline_parallel/schedules.py``), written on the next line.  Such a pair is one
    logical op here, not an overlap.  The error stands on the writer's guarantee that one process
    records its ops in the order they finish (``CMD.__exit__`` in ``megatron/profiler/cmd.py``).

    Why it matters:
        Overlapping ops mean the trace was merged from several processes, reordered, or written with the
        start time instead of the end time; every duration and gap a simulator derives from it is wrong.

    Example:
        line 3 ``forward_step(...)`` ends at ``timestamp=4509233040.71``; line 4 is
        ``loss_func(...,duration=5.4,...,timestamp=4509233042.32,...)``
        -> loss_func starts at 4509233036.92 ms, 3.79 ms before the previous op (forward_step, line 3) ended at
        4509233040.71 ms
    """

    code = "TL103"
    name = "op-overlap"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    Options = Options

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.previous: OpRecord | None = None

    def check_op(self, record: OpRecord) -> tuple[Violation, ...]:
        start = record.start
        if start is None or record.timestamp == 0:  # placeholders; a half placeholder is TL106's
            return ()
        previous = self.previous
        self.previous = record
        if previous is not None and start < previous.timestamp - self.options.tolerance_ms - 1e-6 and not _batched_halves(previous, record):
            early = previous.timestamp - start  # type: ignore[operator]
            return (
                at(
                    record,
                    f"{record.op} starts at {start:.2f} ms, {early:.2f} ms before the previous op "
                    f"({previous.op}, line {previous.line}) ended at {previous.timestamp:.2f} ms",
                    field="duration",  # its start is its timestamp less its duration
                ),
            )
        return ()


def _batched_halves(send: OpRecord, receive: OpRecord) -> bool:
    """``receive`` is the second record of the batched p2p call whose send is ``send``."""
    return BATCHED_P2P.get(send.op) == receive.op and send.timestamp == receive.timestamp and send.duration == receive.duration
