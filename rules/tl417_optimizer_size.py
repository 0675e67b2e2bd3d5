import re
from collections.abc import Iterator

from lint.models.simai_workload import LayerRow
from lint.rule import Rule, Severity, Violation, at

OPTIMIZER = re.compile(r"optimizer[0-9]*")


class OptimizerSize(Rule):
    """An optimizer all-reduce does not move 4 bytes.

    AICB's ``optimizer1..4`` rows all-reduce one fp32 scalar each: 4 bytes.  Sizes 0 and 1 are left to
    TL408 and TL409.

    This is an error: AICB always writes 4, and every real file has it.

    Why it matters:
        Another size on these rows was edited by hand or comes from a writer that means something else
        by them; the step's synchronisation latency is simulated with the wrong payload.

    Example:
        ``optimizer1 -1 1 ALLREDUCE 8 1 NONE 0 1 NONE 0 100``
        -> optimizer1: fwd_comm_type ALLREDUCE with fwd_comm_size 8, expected 4: AICB's optimizer
        all-reduces move one fp32 scalar
    """

    code = "TL417"
    name = "optimizer-size"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        if not OPTIMIZER.fullmatch(row.name):
            return
        for comm in row.comms():
            if comm.family is not None and comm.size not in (0, 1, 4):
                yield at(row, f"{row.name}: {comm}, expected 4: AICB's optimizer all-reduces move one fp32 scalar")
