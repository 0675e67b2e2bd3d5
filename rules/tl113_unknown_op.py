from lint.formats.megatron_trace.records import KNOWN_OPS, OpRecord
from lint.rule import Rule, Severity, Violation, at


class UnknownOp(Rule):
    """An op name the Megatron instrumentation does not write.

    Known ops: compute ``get_batch, forward_step, loss_func, backward_step, optimizer_step``; communication
    ``recv_forward, send_forward, recv_backward, send_backward, tp_allreduce, tp_load_batch_broadcast,
    dp_allreduce, ep_allreduce`` and, from newer writers, ``ddp_grad_comm``.

    This is a warning: newer writers add ops (``ddp_grad_comm`` was one), and a consumer that does not
    know an op skips it rather than failing.

    The writers' ops are listed in docs/formats/megatron-trace.md (``name_cmd`` of every ``CMD`` in
    ``schedules.py``, ``finalize_model_grads.py``, ``training.py``; moe_mg adds
    ``ep_dp_allreduce``/``exp_dp_allreduce``).

    Why it matters:
        A misspelt op (``forward_stpe``) is skipped by the simulator, so its time and its collectives
        vanish from the simulated step.

    Example:
        ``rank:7:optimizer_stpe(stage_id=3,...)``
        -> unknown op 'optimizer_stpe'
    """

    code = "TL113"
    name = "unknown-op"
    severity = Severity.WARNING
    formats = ("megatron-trace",)

    def check_op(self, record: OpRecord) -> tuple[Violation, ...]:
        if record.op not in KNOWN_OPS:
            return (at(record, f"unknown op '{record.op}'", field="op"),)
        return ()
