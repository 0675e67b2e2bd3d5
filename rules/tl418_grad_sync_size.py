from collections.abc import Iterable, Iterator

from lint.formats.simai_workload.records import Comm, LayerRow
from lint.formats.simai_workload.rulekit import AicbOnly
from lint.rule import RuleOptions, Severity, Violation, at, by_consumer

Transfer = tuple[LayerRow, Comm]


class GradSyncSize(AicbOnly):
    """The gradient reduce-scatter does not move twice the gradient all-gather.

    AICB models the gradient synchronisation as a data-parallel ``ALLGATHER`` of ``2·params`` bytes and
    a ``REDUCESCATTER`` of ``4·params`` bytes, on ``grad_*`` rows: both on one
    ``grad_norm`` row, or ``grad_gather`` then ``grad_param_comm`` (``grad_param`` in seed 004).  The
    rule adds up the suffix-less all-gathers and reduce-scatters of the ``grad_*`` rows, in any column,
    and expects the reduce-scatters to move twice as much.  Placeholder sizes (0 and 1, TL408 and
    TL409) are left out: seed 004's ``grad_gather ALLGATHER 1`` is not compared.

    AICB writes ``dp_comm_size=2·params`` (all-gather) and ``4·params`` (reduce-scatter) from one
    parameter count (aliyun/aicb ``workload_generator/SimAI_training_workload_generator.py``:
    ``grad_norm`` in ``SIMAI_workload.workload_generate``, ``grad_gather``/``grad_param_comm`` in
    ``workload_generate_aiob``).

    Checked only in files whose header shows they come from AICB (kind ``HYBRID_TRANSFORMER_FWD_IN_BCKWD``,
    ``model_parallel_NPU_group`` first, only AICB's keys, ``checkpoints: 0 checkpoint_initiates: 0``):
    hand-made and ASTRA-sim workloads owe nothing to AICB's formulas.

    SimAI simulates each row with the size it has (``Workload.cc:1290-1311``).

    This is a warning for SimAI: the writer's guarantee is broken (the file was edited), and SimAI simulates
    the file as written.

    Why it matters:
        One of the two sizes comes from another model, or was edited: the simulated gradient
        synchronisation, often the largest transfer of the step, is off by that factor.

    Example:
        ``grad_norm -1 1 ALLGATHER 4055891968 1 NONE 0 1 REDUCESCATTER 4055891968 100``
        -> gradient sync: REDUCESCATTER of 4055891968 bytes (grad_norm, line 3), expected 2 × the
        4055891968 bytes of ALLGATHER (grad_norm, line 3) = 8111783936: AICB writes all-gather 2·params,
        reduce-scatter 4·params
    """

    code = "TL418"
    name = "grad-sync-size"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.transfers: dict[str, list[Transfer]] = {"ALLGATHER": [], "REDUCESCATTER": []}

    def _collected(self, record: LayerRow) -> bool:
        # The header comes first: nothing to collect for a file AICB did not write.
        return self.from_aicb and record.name.startswith("grad_")

    def check_layer_row(self, row: LayerRow) -> Iterable[Violation]:
        if self._collected(row):
            for comm in row.comms():
                if comm.type in self.transfers and comm.size > 1:
                    self.transfers[comm.type].append((row, comm))
        return ()

    def finish(self) -> Iterator[Violation]:
        gathers, scatters = self.transfers["ALLGATHER"], self.transfers["REDUCESCATTER"]
        if not (self.from_aicb and gathers and scatters):
            return
        gathered, scattered = (sum(comm.size for _, comm in transfers) for transfers in (gathers, scatters))
        if scattered != 2 * gathered:
            yield at(
                scatters[0][0],
                f"gradient sync: REDUCESCATTER of {scattered} bytes ({_rows(scatters)}), expected 2 × the {gathered} "
                f"bytes of ALLGATHER ({_rows(gathers)}) = {2 * gathered}: AICB writes all-gather 2·params, "
                f"reduce-scatter 4·params",
            )


def _rows(transfers: list[Transfer]) -> str:
    row = transfers[0][0]
    more = f" and {len(transfers) - 1} more" if len(transfers) > 1 else ""
    return f"{row.name}, line {row.line}{more}"
