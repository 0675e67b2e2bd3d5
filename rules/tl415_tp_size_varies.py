from collections.abc import Iterable, Iterator

from lint.formats.simai_workload.records import LayerRow
from lint.formats.simai_workload.rulekit import AicbOnly, LayerRowTally
from lint.rule import RuleOptions, Severity, Violation, at, by_consumer


class TpSizeVaries(AicbOnly, LayerRowTally):
    """Instances of one AICB layer carry TP collectives of different sizes.

    AICB writes one group of rows per layer instance and micro-batch, and sizes every TP collective of
    a transformer layer from one ``tp_comm_size = 2·micro_batch·seq_length·hidden_size`` (aliyun/aicb
    ``workload_generator/SimAI_training_workload_generator.py``, ``SIMAI_workload.workload_generate`` and
    ``workload_generate_aiob``).  A layer may be written as several consecutive rows of one name - the
    MoE ``mlp_moelayer`` is five: an expert-parallel metadata all-gather of ``2·ep·experts·tp`` bytes,
    the dispatch, two TP collectives of ``tp_comm_size·topk``, the combine - so rows are compared by
    their place in such a run: the k-th row of every run of a name carries the sizes of the k-th row of
    its first run.  TP collectives are the suffix-less ``ALLREDUCE``, ``ALLGATHER`` and ``REDUCESCATTER``
    of the forward and input-gradient columns, compared per column.  Each further size is reported once.

    Checked only in files whose header shows they come from AICB (see TL410): SimAI's hand-made
    micro-benchmarks reuse one layer name for probes of different sizes on purpose, as consecutive rows,
    which this comparison never sets against each other either.

    This is a warning for SimAI: it simulates each row with its own size; the rule reports a file whose
    layers were generated from two model configs or edited by hand.

    Why it matters:
        A layer instance whose activation size differs from the others was generated from another
        model config or edited: its TP traffic, usually the largest, is off by that factor.

    Example:
        ``attention_layer -1 1 ALLREDUCE 16777216 ...`` on line 3, ``attention_layer -1 1 ALLREDUCE 33554432 ...``
        on a later line
        -> attention_layer: fwd TP ALLREDUCE of 33554432 bytes; the first attention_layer row (line 3) has
        16777216
    """

    code = "TL415"
    name = "tp-size-varies"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        # (layer, place in its run, phase) -> first row there and its size
        self.first: dict[tuple[str, int, str], tuple[LayerRow, int]] = {}
        self.reported: set[tuple[str, int, str, int]] = set()
        self.found: list[Violation] = []
        self.tally.listeners.append(self._compare_rows)

    def _compare_rows(self, batch: Iterable[tuple[LayerRow, int, int]]) -> None:
        """Compares each distinct row at its place (a row alike at the same place can tell nothing new), in
        the order of their first rows."""
        if self.from_aicb:
            for row, place, _ in batch:
                self.found += self._compare(row, place)

    def finish(self) -> Iterator[Violation]:
        self.tally.flush()
        return iter(self.found)

    def _compare(self, row: LayerRow, place: int) -> Iterator[Violation]:
        for comm in row.comms():
            if not comm.is_tp_collective:
                continue
            first, size = self.first.setdefault((row.name, place, comm.phase), (row, comm.size))
            key = (row.name, place, comm.phase, comm.size)
            if comm.size != size and key not in self.reported:
                self.reported.add(key)
                yield at(
                    row,
                    f"{row.name}: {comm.phase} TP {comm.type} of {comm.size} bytes; the first {row.name} row (line {first.line}) has {size}",
                )
