from collections.abc import Iterable, Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.rule import PerAlikeRow, Rule, RuleOptions, Severity, Violation, at


class AllZeroRow(Rule):
    """Layer rows have every time 0 and no comm; reported once per file.

    The writer (asu-gkg/simai ``mtccl/workload_generator.py``, ``WorkloadGenerator.generate_workload``)
    turns every node of NeuSight's parsed graph into a row.  Its early version wrote every node, so
    shape and indexing ops that NeuSight predicts to take no time (``size``, ``view``, ``getattr``) are
    rows of zeros; later versions keep only rows for which ``Work_Item.has_overhead()`` holds (some
    compute time or comm size).  A gradient row without its all-reduce is TL304's finding.

    This is information: a row of zeros adds no compute and no communication, so it changes nothing
    for a consumer that sums or schedules the rows; the finding only tells which writer version made
    the table.

    Why it matters:
        In a table from a filtering writer version an all-zero row means values were lost (a failed
        prediction written as zeros); in one from the early version it is expected.

    Example:
        ``input_ids  0.0  None  0  0.0  None  0  0.0  None  0  0`` on line 2, and 2 rows like it
        -> 3 rows have every time 0 and no comm (first input_ids, line 2): an early writer version wrote every
        graph node; later ones keep only rows with some compute time or comm size
    """

    code = "TL306"
    name = "all-zero-row"
    severity = Severity.INFO
    formats = ("neusight-tsv",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: LayerRecord | None = None
        self.rows = 0
        self.all_zero: PerAlikeRow[bool] = PerAlikeRow()  # of each distinct row

    def _zero_row(self, record: LayerRecord) -> bool:
        all_zero = self.all_zero.get(record.alike)
        if all_zero is None:
            all_zero = self.all_zero.remember(record, record.grad_of is None and _all_zero(record))
        return all_zero

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        if self._zero_row(row):
            self.first = self.first or row
            self.rows += 1
        return ()

    def finish(self) -> Iterator[Violation]:
        if self.first is None:
            return
        rows = f"{self.rows} rows have" if self.rows > 1 else "1 row has"
        yield at(
            self.first,
            f"{rows} every time 0 and no comm (first {self.first.name}, line {self.first.line}): an early writer version "
            "wrote every graph node; later ones keep only rows with some compute time or comm size",
        )


def _all_zero(row: LayerRecord) -> bool:
    times = (row.forward_compute_time, row.backward_compute_time, row.weight_grad_compute_time, row.process_time)
    comms = (row.forward_comm_type, row.forward_comm_size, row.backward_comm_type, row.backward_comm_size, row.weight_grad_comm_type, row.weight_grad_comm_size)
    return not any(times) and not any(comms)
