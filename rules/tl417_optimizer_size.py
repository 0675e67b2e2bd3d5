import re
from collections.abc import Iterable

from lint.formats.simai_workload.records import LayerRow
from lint.formats.simai_workload.rulekit import AicbOnly
from lint.rule import PerAlikeRow, RuleOptions, Severity, Violation, at, by_consumer

OPTIMIZER = re.compile(r"optimizer[0-9]*")


class OptimizerSize(AicbOnly):
    """An optimizer all-reduce does not move 4 bytes.

    AICB's ``optimizer1..4`` rows all-reduce one fp32 scalar each: ``forward_comm_size=4`` in both
    generator paths (aliyun/aicb ``workload_generator/SimAI_training_workload_generator.py``,
    ``SIMAI_workload.workload_generate`` and ``workload_generate_aiob``).  Sizes 0 and 1 are left to TL408
    and TL409.

    Checked only in files whose header shows they come from AICB (kind ``HYBRID_TRANSFORMER_FWD_IN_BCKWD``,
    ``model_parallel_NPU_group`` first, only AICB's keys, ``checkpoints: 0 checkpoint_initiates: 0``):
    hand-made and ASTRA-sim workloads owe nothing to AICB's formulas.

    SimAI simulates each row with the size it has (``Workload.cc:1290-1311``).

    This is a warning for SimAI: the writer's guarantee is broken (another size was edited by hand), and
    SimAI simulates the file as written.

    Why it matters:
        Another size on these rows was edited by hand or comes from a writer that means something else
        by them; the step's synchronisation latency is simulated with the wrong payload.

    Example:
        ``optimizer2 -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 100``
        -> optimizer2: fwd_comm_type ALLREDUCE with fwd_comm_size 8, expected 4: AICB's optimizer
        all-reduces move one fp32 scalar
    """

    code = "TL417"
    name = "optimizer-size"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.messages: PerAlikeRow[tuple[str, ...]] = PerAlikeRow()  # of each distinct row

    def _messages(self, row: LayerRow) -> tuple[str, ...]:
        if not self.from_aicb:
            return ()
        messages = self.messages.get(row.alike)
        if messages is None:
            messages = self.messages.remember(row, _messages(row))
        return messages

    def check_layer_row(self, row: LayerRow) -> Iterable[Violation]:
        return [at(row, message) for message in self._messages(row)]


def _messages(row: LayerRow) -> tuple[str, ...]:
    if not OPTIMIZER.fullmatch(row.name):
        return ()
    return tuple(
        f"{row.name}: {comm}, expected 4: AICB's optimizer all-reduces move one fp32 scalar"
        for comm in row.comms()
        if comm.family is not None and comm.size not in (0, 1, 4)
    )
