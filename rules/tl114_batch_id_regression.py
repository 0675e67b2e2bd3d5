from lint.formats.megatron_trace.records import OpRecord
from lint.rule import Rule, Severity, Violation, at


class BatchIdRegression(Rule):
    """An op's ``batch_id`` goes backwards within an iteration.

    The writer keeps one micro-batch counter per op name (``counter[op] += 1``), so within an iteration -
    up to ``optimizer_step``, after which a writer may start counting again - the batch ids of one op
    never decrease.

    Writer: ``micro_batch_ids_dict[name_cmd] += 1`` in ``CMD.__enter__`` and ``CMD.no_trace_update``
    (``megatron/profiler/cmd.py``), so this is an error.

    Why it matters:
        Pairing a forward with its backward, a send with its receive, and per-micro-batch timing all key
        on ``batch_id``; a counter that goes backwards pairs the wrong records.

    Example:
        line 1 ``send_forward(...,batch_id=1,...)``, then, before any optimizer_step,
        ``send_forward(...,batch_id=0,...)``
        -> send_forward batch_id 0 after batch_id 1 (line 1) in the same iteration
    """

    code = "TL114"
    name = "batch-id-regression"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        self.last: dict[str, tuple[int, int]] = {}  # op -> (batch_id, line)

    def check_op(self, record: OpRecord) -> tuple[Violation, ...]:
        if record.op == "optimizer_step":
            self.last.clear()
            return ()
        if record.batch_id is None:
            return ()
        previous = self.last.get(record.op)
        self.last[record.op] = (record.batch_id, record.line)
        if previous is not None and record.batch_id < previous[0]:
            return (
                at(record, f"{record.op} batch_id {record.batch_id} after batch_id {previous[0]} (line {previous[1]}) in the same iteration", field="batch_id"),
            )
        return ()
