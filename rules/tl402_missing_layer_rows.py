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
        if self.declared is not None and self.declared.count > self.rows:
            missing = self.declared.count - self.rows
            yield at(
                self.declared,
                f"layer count {self.declared.count}, but the file has {self.rows} well-formed layer rows: SimAI reads {missing} more past the end of the file",
            )
