from collections.abc import Iterator

from lint.formats.simai_workload.rulekit import LayerRowTally, reader
from lint.rule import Severity, Violation, at, by_consumer


class ExtraLayerRows(LayerRowTally):
    """The file has more layer rows than line 2 declares.

    Both consumers read exactly as many rows as line 2 declares and close the file
    (``Workload::initialize_workload``: SimAI ``Workload.cc:1283``, ASTRA-sim 1.0 ``Workload.cc:1319``):
    the rest is silently not simulated.  The finding is at the first well-formed row past the declared count;
    text that is not a row there is TL420's finding, and a count of 0 is TL426's.  AICB writes the count as
    ``len(self.workload)`` right before the rows (``SIMAI_workload.dump_file``), so its files always agree.

    Measured: SimAI leaves the rows out (oracle classes ``count_minus1``, ``extra_row_appended``: wrong, 22
    of 22 runs that got past the header); so does ASTRA-sim 1.0 (a count one too low: a shorter total).

    This is an error for both consumers: the rows after the count were written to be simulated, and the
    consumer leaves them out without a word.

    Why it matters:
        The simulated iteration lacks the layers past the count - usually the last ones (embedding
        norm, loss, optimizer) - and looks faster than the workload it was generated from.

    Example:
        Line 2 says ``1`` and 3 rows follow
        -> row 2 of 3 is past the layer count 1 on line 2: SimAI does not simulate rows 2 to 3
    """

    code = "TL403"
    name = "extra-layer-rows"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

    def finish(self) -> Iterator[Violation]:
        declared, rows = self.tally.declared, self.tally.rows
        if declared is not None and declared.count > 0 and self.tally.first_extra is not None:
            first = declared.count + 1
            ignored = f"rows {first} to {rows}" if rows > first else "it"
            yield at(
                self.tally.first_extra,
                f"row {first} of {rows} is past the layer count {declared.count} on line {declared.line}: {reader(self.consumer)} does not simulate {ignored}",
            )
