import re
from collections.abc import Iterator

from lint.formats.simai_workload.records import EXPERT_SUFFIXES, Comm, LayerRow
from lint.formats.simai_workload.rulekit import AicbOnly, OncePerLayerComm, reader
from lint.rule import RuleOptions, Severity, by_consumer

# AICB's sequence-parallel column layers: `attention_column`, `mlp_column`, `final_column`.
_COLUMN_LAYER = re.compile(r".*column.*")


class EmptyCollective(AicbOnly, OncePerLayerComm):
    """A collective moves 0 bytes where its writer means traffic.

    ``ALLREDUCE``, ``ALLGATHER``, ``REDUCESCATTER`` and ``ALLTOALL`` (with any suffix) communicate; a
    size of 0 gives them no time: SimAI's analytical backend multiplies the size into the time
    (``Layer::compute_time``, ``Layer.cc:1024-1031``), and ASTRA-sim 1.0 issues a collective of nothing (its
    Resnet50_DataParallel example with one all-reduce set to 0 bytes: 32515258 cycles instead of 32559138, as
    with no collective).  The consumers simulate the file as written: the oracle class ``comm_zero_size`` is
    fine for SimAI (11 of 11 runs that got past the header).  What AICB writes on purpose is not reported
    (aliyun/aicb ``workload_generator/SimAI_training_workload_generator.py``):

    - its AIOB path (``SIMAI_workload.workload_generate_aiob``) writes the input-gradient
      ``REDUCESCATTER`` of every sequence-parallel ``*_column`` row with size 0 (the comment there:
      the reduce-scatter overlaps the all-gather) - not reported in files whose header shows AICB;
    - ``moe_grad_norm1/2`` get ``_DP_EP`` collectives of ``2·`` and ``4·`` the expert parameters, 0 for
      a model without experts - not reported while the workload has no expert traffic.

    A comm column and type is reported once, at its first row, with the rows and other layers that repeat it.

    This is a warning for both consumers: they simulate the empty collective as written (no time), but AICB
    never writes one outside the cases above, and in other files a collective type with no bytes contradicts
    itself: traffic was lost.

    Why it matters:
        A collective of a transformer layer that moves nothing is traffic the writer lost: the
        simulated step is faster than the workload it was generated from.

    Example:
        ``attention_column -1 5729721 ALLGATHER 134217728 2864860 REDUCESCATTER 0 2864860 NONE 0 100``, twice,
        in a hand-made ASTRA-sim 1.0 file -> attention_column: ig_comm_type REDUCESCATTER with ig_comm_size 0,
        expected > 0: ASTRA-sim 1.0 gives a collective of 0 bytes no time (and 1 more attention_column rows)
    """

    code = "TL408"
    name = "empty-collective"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING, "astra-sim-1": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.expert_traffic = False

    def problem(self, comm: Comm) -> str | None:
        if comm.family is None or comm.size != 0:
            return None
        return f"{comm}, expected > 0: {reader(self.consumer)} gives a collective of 0 bytes no time"

    def row_problems(self, row: LayerRow) -> Iterator[tuple[Comm, str]]:
        # Rows alike come here once: enough to learn whether any row moves expert traffic.
        self.expert_traffic = self.expert_traffic or any(c.suffix in EXPERT_SUFFIXES and c.size > 0 for c in row.comms())
        problems = super().row_problems(row)
        if self.from_aicb and _COLUMN_LAYER.fullmatch(row.name):
            # The AIOB path's sequence-parallel column rows: only their input-gradient reduce-scatter is empty on purpose.
            return ((comm, message) for comm, message in problems if not (comm.phase == "ig" and comm.type == "REDUCESCATTER"))
        return problems

    def still_wrong(self, comm: Comm) -> bool:
        return self.expert_traffic or comm.suffix not in EXPERT_SUFFIXES
