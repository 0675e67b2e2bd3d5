from lint.formats.megatron_trace.records import COMPUTE_OPS, GROUP_KIND_OF_OP, DdpGradCommRecord, OpRecord
from lint.rule import Rule, Severity, Violation, at

_TP_OPS = {"tp_allreduce", "tp_load_batch_broadcast", "get_batch"}
# op -> the group kinds it may carry (ops not named here are left to TL113): an op's collective group decides,
# then whether it is a TP op, then whether it computes (get_batch is both).
_EXPECTED: dict[str, frozenset[str | None]] = {
    **{op: frozenset({None}) for op in COMPUTE_OPS},
    **{op: frozenset({"tp", None}) for op in _TP_OPS},
    **{op: frozenset({kind}) for op, kind in GROUP_KIND_OF_OP.items()},
}


class GroupKindMismatch(Rule):
    """An op's ``group_kind`` is not the process group its op communicates in.

    The writer sets ``group_kind`` from the op: ``pp`` for ``send_*``/``recv_*``, ``dp`` for
    ``dp_allreduce`` (and V3 ``ddp_grad_comm``), ``ep`` for ``ep_allreduce`` (the *embedding* group, not
    expert parallelism), ``pep`` for ``pep_allreduce``, ``ep_dp``/``exp_dp`` for the expert-gradient
    reductions of moe_mg, ``None`` for compute ops; ``tp_*`` ops carry ``tp`` or ``None``.  ``get_batch``
    carries ``None`` in realistic mode and ``tp`` in scaling mode, where the writer hard-codes
    ``group_kind="tp"`` (``megatron/profiler/utils.py``, the simulated forward's ``get_batch`` CMD): its
    sub-operations broadcast the batch over TP.  Unknown ops are left to TL113.  The writer passes a
    literal ``group_kind`` at every CMD it creates (``schedules.py``, ``finalize_model_grads.py``,
    ``training.py``), so another value is an error (docs/formats/megatron-trace.md, "Records").

    Why it matters:
        Simulators route a collective by its group kind: a send labelled ``dp`` is replayed as a
        data-parallel collective over the wrong ranks, with the wrong cost.

    Example:
        ``rank:7:send_backward(...,group_kind=dp,...)``
        -> send_backward communicates in group 'pp', but group_kind is 'dp'
    """

    code = "TL107"
    name = "group-kind-mismatch"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def _check(self, record: OpRecord | DdpGradCommRecord) -> tuple[Violation, ...]:
        op, kind = record.op, record.group_kind
        expected = _EXPECTED.get(op)
        if expected is None or kind in expected:
            return ()
        wanted = " or ".join(repr(e) if e else "None" for e in sorted(expected, key=str))
        return (at(record, f"{op} communicates in group {wanted}, but group_kind is {kind!r}", field="group_kind"),)

    check_op = _check
    check_ddp_grad_comm = _check
