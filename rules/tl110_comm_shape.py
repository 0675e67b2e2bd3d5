from lint.formats.megatron_trace.records import P2P_OPS, OpRecord
from lint.formats.megatron_trace.rulekit import format_shape
from lint.rule import Rule, Severity, Violation, at

# Dimensions of the tensor each communication op moves (docs/formats/megatron-trace.md, "Ops").
_DIMENSIONS = {
    **{op: (3, "[seq, micro_batch, hidden]") for op in P2P_OPS},
    "dp_allreduce": (1, "[number_of_parameters]"),
    "ep_allreduce": (2, "[vocab_shard, hidden]"),
}


class CommShape(Rule):
    """A communication op's tensor is missing, has the wrong rank, or p2p tensors differ within a file.

    Point-to-point ops move the activation ``[seq, micro_batch, hidden]``; ``dp_allreduce`` reduces
    ``[number_of_parameters]`` and ``ep_allreduce`` the word-embedding shard ``[vocab_shard, hidden]``.
    Every ``send_*``/``recv_*`` of one rank moves the same activation shape and dtype.

    Writer: the p2p CMDs in ``schedules.py`` take the pipeline tensor's shape
    (``output_tensor[0].shape``, ``recv_tensor_shapes[0]``), one per run, so this is an error.
    The stage-keyed scheduling plan (layout SP, ``mg_scheduling/mg_scheduling_plan.py``) builds its
    ``dp_allreduce``/``ep_allreduce`` CMDs without a tensor: a missing one is not reported there.

    Why it matters:
        The message size of a collective is derived from this tensor: a missing tensor is simulated as
        zero bytes, and a p2p shape that differs from its peers' makes the receiving stage wait for a
        message of another size (a hang in a real job).

    Example:
        ``send_backward(...,input__shape=[2048, 5120],...)`` where a p2p activation is ``[2048, 2, 5120]``
        -> send_backward moves [2048, 5120]; its tensor is [seq, micro_batch, hidden] (3 dimensions)
    """

    code = "TL110"
    name = "comm-shape"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    ops = frozenset(_DIMENSIONS)

    def __init__(self, options=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(options)
        self.p2p: OpRecord | None = None

    def check_op(self, record: OpRecord) -> tuple[Violation, ...]:
        if record.variant == "V0":
            return ()
        dimensions, layout = _DIMENSIONS[record.op]
        shape, dtype = record.input__shape, record.input__dtype
        if shape is None and dtype is None:
            if record.variant == "SP" and record.op not in P2P_OPS:
                return ()  # that writer records no tensor for the gradient reductions
            return (at(record, f"{record.op} carries no tensor; it moves {layout}", field="input__shape"),)
        if shape is None or dtype is None:
            return ()  # half a tensor is TL108's finding
        if len(shape) != dimensions:
            return (
                at(
                    record,
                    f"{record.op} moves {format_shape(shape)}; its tensor is {layout} ({dimensions} dimension{'s' * (dimensions > 1)})",
                    field="input__shape",
                ),
            )
        if record.op in P2P_OPS:
            first = self.p2p
            if first is None:
                self.p2p = record
            elif (shape, dtype) != (first.input__shape, first.input__dtype):
                return (
                    at(
                        record,
                        f"{record.op} moves {format_shape(shape)} {dtype}, but {first.op} (line {first.line}) moves "
                        f"{format_shape(first.input__shape)} {first.input__dtype}: p2p activations of a rank are identical",
                        field="input__shape",
                    ),
                )
        return ()
