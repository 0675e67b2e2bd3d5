import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lint.formats.simai_workload.records import Comm, LayerRow
from lint.formats.simai_workload.rulekit import AicbOnly, LayerRowTally, quotient
from lint.rule import RuleOptions, Severity, Violation, at, by_consumer

CROSS_ENTROPY = re.compile(r"cross_entropy[0-9]*")


class CrossEntropySize(AicbOnly, LayerRowTally):
    """A cross-entropy all-reduce is not ``seq·mbs·4`` bytes.

    AICB's ``cross_entropy1..3`` rows all-reduce one fp32 per token of a micro-batch: ``seq·mbs·4``
    bytes, the same on every row.  A workload does not state ``seq·mbs``, and no size in it gives
    ``seq·mbs`` alone - the TP activation ``2·mbs·seq·hidden`` and ``pp_comm`` both include the hidden
    size - so the rule checks what follows: every cross-entropy size is a multiple of 4 and equal to the
    first, and the TP activation size (when known, see TL414) is a whole multiple of ``2·seq·mbs``, the
    quotient being the hidden size.  Sizes 0 and 1 are left to TL408 and TL409.  With one TP rank
    (``model_parallel_NPU_group: 1``) AICB writes no TP activation collective, so only the first two are checked.

    AICB writes ``forward_comm_size=seq_length·micro_batch·4`` on all three rows and
    ``tp_comm_size = 2·micro_batch·seq_length·hidden_size`` on the TP collectives (aliyun/aicb
    ``workload_generator/SimAI_training_workload_generator.py``, ``SIMAI_workload.workload_generate`` and
    ``workload_generate_aiob``).

    Checked only in files whose header shows they come from AICB (kind ``HYBRID_TRANSFORMER_FWD_IN_BCKWD``,
    ``model_parallel_NPU_group`` first, only AICB's keys, ``checkpoints: 0 checkpoint_initiates: 0``):
    hand-made and ASTRA-sim workloads owe nothing to AICB's formulas.

    The writer derives all these sizes from one formula (seed 004: 8192 = 2048·4, TP activation
    33554432 = 2·2048·8192).  SimAI simulates each row with the size it has (``Workload.cc:1290-1311``).

    This is a warning for SimAI: the writer's guarantee is broken, and SimAI simulates the file as written.

    Why it matters:
        A cross-entropy size that fits no token count was edited by hand or generated from another
        sequence length or micro-batch than the layers.

    Example:
        ``cross_entropy1 -1 1 ALLREDUCE 8190 ...``
        -> cross_entropy1: fwd_comm_type ALLREDUCE with fwd_comm_size 8190 is not a multiple of 4: AICB
        writes seq·mbs·4 (one fp32 per token)
    """

    code = "TL416"
    name = "cross-entropy-size"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        # (row name, comm column, size) -> the first such all-reduce and how many rows repeat it, in file order:
        # a workload repeats its cross-entropy rows once per micro-batch, kept once, not per row.
        self.reductions: dict[tuple[str, str, int], _Reduction] = {}
        self.tally.listeners.append(self._count)

    def _count(self, batch: Iterable[tuple[LayerRow, int, int]]) -> None:
        """The tally's distinct rows, in the order of their first rows: the header comes first, so nothing is
        kept of a file AICB did not write."""
        if not self.from_aicb:
            return
        for row, _, rows in batch:
            for comm in _reductions(row):
                found = self.reductions.get((row.name, comm.phase, comm.size))
                if found is None:
                    self.reductions[row.name, comm.phase, comm.size] = _Reduction(row, comm, rows)
                else:
                    found.rows += rows

    def finish(self) -> Iterator[Violation]:
        self.tally.flush()  # the last distinct rows, to _count
        if not self.from_aicb or not self.reductions:
            return
        activation = self.tally.activation_size(self.tp)
        first_reduction, *others = self.reductions.values()
        first_row, first = first_reduction.row, first_reduction.comm
        if first.size % 4:
            yield at(first_row, f"{first_row.name}: {first} is not a multiple of 4: AICB writes seq·mbs·4 (one fp32 per token)")
        elif activation is not None and 2 * activation.size % first.size:
            tokens = first.size // 4
            yield at(
                first_row,
                f"{first_row.name}: {first} gives seq·mbs = {tokens}, but {activation} is not a multiple of "
                f"2·seq·mbs = {2 * tokens} (the hidden size would be {quotient(2 * activation.size, first.size)})",
            )
        for other in others:
            if other.comm.size != first.size:
                more = f" (and {other.rows - 1} more row{'s' if other.rows > 2 else ''} alike)" if other.rows > 1 else ""
                yield at(
                    other.row,
                    f"{other.row.name}: {other.comm}; {first_row.name} (line {first_row.line}) has {first.size}: "
                    f"AICB sizes every cross-entropy all-reduce seq·mbs·4{more}",
                )


@dataclass(slots=True)
class _Reduction:
    row: LayerRow  # the first row of its name with this all-reduce
    comm: Comm
    rows: int


def _reductions(row: LayerRow) -> tuple[Comm, ...]:
    """The all-reduces of a cross-entropy row, but for placeholders (0 and 1 bytes)."""
    if not CROSS_ENTROPY.fullmatch(row.name):
        return ()
    return tuple(comm for comm in row.comms() if comm.family is not None and comm.size > 1)
