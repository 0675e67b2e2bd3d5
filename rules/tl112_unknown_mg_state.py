from lint.formats.megatron_trace.records import MG_STATES, DdpGradCommRecord, OpRecord
from lint.rule import Rule, Severity, Violation, at


class UnknownMgState(Rule):
    """``mg_state`` (``stage`` in layout V2) is not a schedule phase the writer knows.

    The pipeline schedule marks each op with its phase: ``warmup``, ``steady``, ``cooldown``, ``help``,
    ``finalize``, or ``None`` in simulation output.

    Writer: ``args.simu_state`` is set to these literals in ``schedules.py`` (and ``None`` in scaling
    mode, ``megatron/profiler/utils.py``), so this is an error.

    Why it matters:
        Tools split a step into its phases by this field (warm-up depth, steady-state throughput,
        finalize cost); an unknown phase drops the op from every phase.

    Example:
        ``rank:7:forward_step(stage_id=3,batch_id=0,mg_state=stedy,...)``
        -> unknown mg_state 'stedy' (known: cooldown, finalize, help, steady, warmup or None)
    """

    code = "TL112"
    name = "unknown-mg-state"
    severity = Severity.ERROR
    formats = ("megatron-trace",)

    def _check(self, record: OpRecord | DdpGradCommRecord) -> tuple[Violation, ...]:
        if record.mg_state is not None and record.mg_state not in MG_STATES:
            return (at(record, f"unknown mg_state '{record.mg_state}' (known: {', '.join(sorted(MG_STATES))} or None)", field="mg_state"),)
        return ()

    check_op = _check
    check_ddp_grad_comm = _check
