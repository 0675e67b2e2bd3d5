from collections.abc import Iterator

from lint.rule import Severity, Violation, at
from lint.rulekit.simai import LayerRowTally


class MissingLayerRows(LayerRowTally):
    """The file has fewer layer rows than line 2 declares.

    Line 2 is the number of layer rows; SimAI (``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``,
    ``Workload::initialize_workload``) allocates that many layers and reads exactly that many rows with
    C++ ``>>``; ASTRA-sim 1.0 does the same.  Rows the parser rejected (TL001, or TL002 for a row with a missing column)
    are not counted: SimAI misreads those rows as well.

    This is an error: SimAI reads the missing rows past the end of the file, so the last layers get no
    name, sizes or times and the simulation breaks.

    Why it matters:
        The simulated iteration runs layers that do not exist, with whatever a failed read leaves in
        their fields, or SimAI stops.

    Example:
        Line 2 says ``57`` and no row follows
        -> layer count 57, but the file has 0 well-formed layer rows: SimAI reads 57 more past the end
        of the file
    """

    code = "TL402"
    name = "missing-layer-rows"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def finish(self) -> Iterator[Violation]:
        declared, rows = self.tally.declared, self.tally.rows
        if declared is not None and declared.count > rows:
            yield at(
                declared,
                f"layer count {declared.count}, but the file has {rows} well-formed layer rows: SimAI reads {declared.count - rows} more past the end of the file",
            )
