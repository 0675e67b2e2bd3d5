from lint.formats.megatron_trace.records import OpRecord, SubCall, per_calls, sub_operation_label
from lint.rule import Rule, Severity, Violation, at


class ShapeWithoutDtype(Rule):
    """A tensor has a shape but no dtype, or a dtype but no shape.

    The instrumentation records the shape and the dtype of the same tensor together: both are set, or
    both are ``None`` (ops without a tensor).  This holds for ops and for their sub-operations.

    Writer: ``CMD`` takes ``input__shape`` and ``input__dtype`` together
    (``set_tensor_shape_and_dtype``), and the trace decorator reads both attributes of the same tensor
    (``get_trace_decorator``, ``megatron/profiler/cmd.py``), so this is an error.

    Why it matters:
        The consumer computes every message size as ``prod(shape) * sizeof(dtype)``; with one of the two
        missing the size is unknown and the collective is dropped or costed as zero bytes.

    Example:
        ``rank:7:send_backward(...,input__shape=[2048, 2, 5120],input__dtype=None,...)``
        -> send_backward has a shape but no dtype
    """

    code = "TL108"
    name = "shape-without-dtype"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def check_op(self, record: OpRecord) -> list[Violation]:
        found: list[Violation] = []
        if record.variant == "V0":
            return found  # the not-started layout has no tensor fields at all
        if (record.input__shape is None) != (record.input__dtype is None):
            found.append(_half(record, record.op, record.input__dtype))
        for index, call in _halves(record.sub_operations):
            found.append(_half(record, sub_operation_label(record.op, index, call.trace_src_func), call.input__dtype, index - 1))
        return found


def _halves_of(calls: tuple[SubCall, ...]) -> list[tuple[int, SubCall]]:
    return [(index, call) for index, call in enumerate(calls, 1) if (call.input__shape is None) != (call.input__dtype is None)]


_halves = per_calls(_halves_of)


def _half(record: OpRecord, what: str, dtype: str | None, index: int | None = None) -> Violation:
    """The finding on the half that is missing (the ``index``-th sub-operation's, from 0)."""
    if dtype is None:
        return at(record, f"{what} has a shape but no dtype", field="input__dtype", index=index)
    return at(record, f"{what} has a dtype ({dtype}) but no shape", field="input__shape", index=index)
