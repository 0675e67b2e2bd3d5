from collections.abc import Iterator

from lint.formats.simai_workload.rulekit import LayerRowTally
from lint.rule import Severity, Violation, at


class ExtraLayerRows(LayerRowTally):
    """The file has more layer rows than line 2 declares.

    SimAI (``Workload::initialize_workload`` in ``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``)
    and ASTRA-sim 1.0 read exactly as many rows as line 2 declares and silently ignore the rest.  The
    finding is at the first well-formed row past the declared count; text that is not a row there is
    TL420's finding.  AICB writes the count as ``len(self.workload)`` right before the rows
    (``SIMAI_workload.dump_file``), so its files always agree.

    This is an error: the rows after the count were written to be simulated, and the consumer leaves
    them out without a word - the simulated iteration is not the workload in the file.

    Why it matters:
        The simulated iteration lacks the layers past the count - usually the last ones (embedding
        norm, loss, optimizer) - and looks faster than the workload it was generated from.

    Example:
        Line 2 says ``1`` and 3 rows follow
        -> row 2 of 3 is past the layer count 1 on line 2: SimAI ignores rows 2 to 3
    """

    code = "TL403"
    name = "extra-layer-rows"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def finish(self) -> Iterator[Violation]:
        declared, rows = self.tally.declared, self.tally.rows
        if declared is not None and self.tally.first_extra is not None:
            first = declared.count + 1
            ignored = f"rows {first} to {rows}" if rows > first else "it"
            yield at(
                self.tally.first_extra,
                f"row {first} of {rows} is past the layer count {declared.count} on line {declared.line}: SimAI ignores {ignored}",
            )
