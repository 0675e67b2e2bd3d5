from collections.abc import Iterator

from lint.models.simai_workload import EXPERT_SUFFIXES, Comm, LayerRow
from lint.rule import RuleOptions, Severity, Violation
from lint.rulekit import OncePerLayerComm


class EmptyCollective(OncePerLayerComm):
    """A collective moves 0 bytes.

    ``ALLREDUCE``, ``ALLGATHER``, ``REDUCESCATTER`` and ``ALLTOALL`` (with any suffix) communicate; a
    size of 0 makes them no-ops.  The one legitimate case is not reported: expert collectives
    (``_EP``, ``_DP_EP``) of size 0 in a workload without any expert traffic - AICB writes the
    ``moe_grad_norm1/2`` rows with ``_DP_EP`` collectives of 0 bytes for every model without experts.
    A layer that repeats is reported once, at its first row, with the number of rows alike.

    This is a warning: real files break it (``simai-ascend__example__workload_analytical__blobd603330.txt``
    input-gradient ``REDUCESCATTER 0`` on every ``attention_column``, ``mlp_column`` and
    ``final_column`` row), and the simulators accept it.

    Why it matters:
        A collective of a transformer layer that moves nothing is traffic the writer lost: the backward
        reduce-scatter of a sequence-parallel column layer moves as much as its forward all-gather.

    Example:
        ``attention_column -1 5729721 ALLGATHER 134217728 2864860 REDUCESCATTER 0 2864860 NONE 0 100``
        -> attention_column: ig_comm_type REDUCESCATTER with ig_comm_size 0, expected > 0: a collective of
        0 bytes moves nothing (and 127 more attention_column rows)
    """

    code = "TL408"
    name = "empty-collective"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.expert_traffic = False

    def problem(self, comm: Comm) -> str | None:
        if comm.family is None or comm.size != 0:
            return None
        return f"{comm}, expected > 0: a collective of 0 bytes moves nothing"

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        self.expert_traffic = self.expert_traffic or any(c.suffix in EXPERT_SUFFIXES and c.size > 0 for c in row.comms())
        return super().check_layer_row(row)

    def still_wrong(self, comm: Comm) -> bool:
        return self.expert_traffic or comm.suffix not in EXPERT_SUFFIXES
