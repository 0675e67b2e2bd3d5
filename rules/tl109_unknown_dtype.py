from lint.formats.megatron_trace.records import (
    KNOWN_DTYPES,
    DdpGradCommRecord,
    OpRecord,
    SubCall,
    per_calls,
    sub_operation_label,
)
from lint.rule import Rule, Severity, Violation, at


class UnknownDtype(Rule):
    """A dtype whose element size is unknown.

    Message sizes are ``prod(shape) * sizeof(dtype)`` with the sizes the consumer knows: float64/int64 8,
    float32/int32 4, float16/bfloat16/int16 2, int8/uint8/bool 1 (with or without ``torch.``), and the
    other ``torch`` dtypes (complex, float8, unsigned).

    Writer: dtypes are ``str(torch.dtype)`` of real tensors (``megatron/profiler/cmd.py``), always one
    of torch's, so this is an error.

    Why it matters:
        A misspelt or unknown dtype makes the size of that message unknown: the collective is simulated
        with zero bytes, or the consumer stops.

    Example:
        ``rank:7:dp_allreduce(...,input__dtype=torch.flaot32,...)``
        -> unknown dtype 'torch.flaot32' on dp_allreduce: its message size cannot be computed
    """

    code = "TL109"
    name = "unknown-dtype"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def _check(self, record: OpRecord | DdpGradCommRecord) -> list[Violation]:
        found: list[Violation] = []
        dtype = getattr(record, "input__dtype", None) or getattr(record, "grad_dtype", None)
        if dtype is not None and dtype not in KNOWN_DTYPES:
            found.append(_unknown(record, dtype, record.op, "grad_dtype" if record.kind == "ddp_grad_comm" else "input__dtype"))
        for index, call in _unknowns(record.sub_operations):
            found.append(_unknown(record, call.input__dtype or "", sub_operation_label(record.op, index, call.trace_src_func), "input__dtype", index - 1))
        return found

    check_op = _check
    check_ddp_grad_comm = _check


def _unknowns_of(calls: tuple[SubCall, ...]) -> list[tuple[int, SubCall]]:
    return [(index, call) for index, call in enumerate(calls, 1) if call.input__dtype is not None and call.input__dtype not in KNOWN_DTYPES]


_unknowns = per_calls(_unknowns_of)


def _unknown(record: OpRecord | DdpGradCommRecord, dtype: str, what: str, field: str, index: int | None = None) -> Violation:
    return at(record, f"unknown dtype '{dtype}' on {what}: its message size cannot be computed", field=field, index=index)
