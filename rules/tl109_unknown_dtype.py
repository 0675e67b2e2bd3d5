from collections.abc import Iterator

from lint.models.megatron_trace import DdpGradCommRecord, OpRecord, dtype_size
from lint.rule import Rule, Severity, Violation, at


class UnknownDtype(Rule):
    """A dtype whose element size is unknown.

    Message sizes are ``prod(shape) * sizeof(dtype)`` with the sizes the consumer knows: float64/int64 8,
    float32/int32 4, float16/bfloat16/int16 2, int8/uint8/bool 1 (with or without ``torch.``), and the
    other ``torch`` dtypes (complex, float8, unsigned).

    Why it matters:
        A misspelt or unknown dtype makes the size of that message unknown: the collective is simulated
        with zero bytes, or the consumer stops.

    Example:
        ``...,input__dtype=torch.flaot32,...``
        -> unknown dtype 'torch.flaot32' on send_forward: its message size cannot be computed
    """

    code = "TL109"
    name = "unknown-dtype"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def _check(self, record: OpRecord | DdpGradCommRecord) -> Iterator[Violation]:
        dtypes = [(record.op, getattr(record, "input__dtype", None) or getattr(record, "grad_dtype", None))]
        dtypes += [(f"sub-operation {i} ({s.func_name or s.trace_src_func})", s.input__dtype) for i, s in enumerate(record.sub_operations, 1)]
        for what, dtype in dtypes:
            if dtype is not None and dtype_size(dtype) is None:
                yield at(record, f"unknown dtype '{dtype}' on {what}: its message size cannot be computed")

    check_op = _check
    check_ddp_grad_comm = _check

