from lint.formats.megatron_trace.rulekit import SameInEveryRecord
from lint.rule import Severity


class StageMismatch(SameInEveryRecord):
    """A record names another pipeline stage than the file's first record.

    A rank belongs to exactly one pipeline stage for the whole job (this writer has no virtual
    stages), so every record of a megatron-trace file carries the same ``stage_id``.

    Writer: every CMD of a process gets the same ``stage_id`` (``args.simu_stage_id`` in
    ``schedules.py``, ``args.pp_rank`` in scaling mode, ``megatron/training/training.py``), so this is
    an error.

    Why it matters:
        The stage decides which neighbours a rank sends to and receives from; a record with a foreign
        stage id makes the simulator route its point-to-point traffic to the wrong ranks.

    Example:
        ``stage_id=3`` on every line but line 12: ``rank:7:forward_step(stage_id=2,...)``
        -> stage 2 in a file of stage 3 (first record: line 1)
    """

    code = "TL102"
    name = "stage-mismatch"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    field = "stage_id"
