from collections.abc import Iterator

from lint.models.megatron_trace import OpRecord
from lint.rule import Rule, Severity, Violation, at


class ShapeWithoutDtype(Rule):
    """A tensor has a shape but no dtype, or a dtype but no shape.

    The instrumentation records the shape and the dtype of the same tensor together: both are set, or
    both are ``None`` (ops without a tensor).  This holds for ops and for their sub-operations.

    Why it matters:
        The consumer computes every message size as ``prod(shape) * sizeof(dtype)``; with one of the two
        missing the size is unknown and the collective is dropped or costed as zero bytes.

    Example:
        ``rank:7:send_forward(...,input__shape=[2048, 2, 5120],input__dtype=None,...)``
        -> send_forward has a shape [2048, 2, 5120] but no dtype
    """

    code = "TL108"
    name = "shape-without-dtype"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def check_op(self, record: OpRecord) -> Iterator[Violation]:
        if record.variant == "V0":
            return  # the not-started layout has no tensor fields at all
        tensors = [(record.op, record.input__shape, record.input__dtype)]
        tensors += [
            (f"sub-operation {i} ({s.func_name or s.trace_src_func})", s.input__shape, s.input__dtype)
            for i, s in enumerate(record.sub_operations, 1)
        ]
        for what, shape, dtype in tensors:
            if (shape is None) != (dtype is None):
                yield at(record, f"{what} has a shape but no dtype" if dtype is None else f"{what} has a dtype ({dtype}) but no shape")
