import math
from collections.abc import Iterator

from lint.formats.megatron_trace.records import P2P_OPS, OpRecord, layer_collectives, layer_tensors
from lint.formats.megatron_trace.rulekit import format_shape
from lint.rule import Rule, Severity, Violation, at


class TpSizeMismatch(Rule):
    """A layer's TP all-reduce does not move one activation (seq × micro_batch × hidden elements).

    Without sequence parallelism, each transformer layer all-reduces its activation across the
    tensor-parallel group: ``[seq·micro_batch, hidden]``, the same number of elements as the p2p
    activation ``[seq, micro_batch, hidden]`` (seed 000: [4096, 5120] and [2048, 2, 5120]).

    This is a warning: with sequence parallelism Megatron replaces these all-reduces by all-gathers and
    reduce-scatters of a 1/tp shard, and a trace of such a job legitimately differs.

    Why it matters:
        A TP collective of the wrong size usually means a wrong hidden size or micro-batch in the model
        config of one stage; the simulated TP traffic (often the largest) is then off by that factor.

    Example:
        p2p ops carry [2048, 2, 5120]; a ``linear_fwd`` all-reduce carries [2048, 5120]
        -> TP all-reduce of [2048, 5120] (10,485,760 elements) in forward_step; the p2p activation
        [2048, 2, 5120] (line 1) has 20,971,520
    """

    code = "TL111"
    name = "tp-size-mismatch"
    severity = Severity.WARNING
    formats = ("megatron-trace",)
    ops = P2P_OPS | {"forward_step", "backward_step"}

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        self.activation: OpRecord | None = None
        self.first_of_size: dict[int, tuple[OpRecord, tuple[int, ...]]] = {}  # elements -> first record seen

    def check_op(self, record: OpRecord) -> tuple[()]:
        if record.op in P2P_OPS and self.activation is None and record.input__shape and len(record.input__shape) == 3:
            self.activation = record
        if record.op in ("forward_step", "backward_step"):
            for shape, _ in layer_tensors(record):
                if shape is not None:
                    self.first_of_size.setdefault(math.prod(shape), (record, shape))
        return ()

    def finish(self) -> Iterator[Violation]:
        if self.activation is None:
            return
        expected = math.prod(self.activation.input__shape or ())
        for elements, (record, shape) in self.first_of_size.items():
            if elements != expected:
                yield at(
                    record,
                    f"TP all-reduce of {format_shape(shape)} ({elements:,} elements) in {record.op}; the p2p activation "
                    f"{format_shape(self.activation.input__shape)} (line {self.activation.line}) has {expected:,}",
                    field="input__shape",
                    index=next(i for i in layer_collectives(record) if record.sub_operations.calls[i].input__shape == shape),
                )
