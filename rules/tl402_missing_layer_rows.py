from collections.abc import Iterator

from lint.formats.simai_workload.rulekit import LayerRowTally
from lint.models.common import SyntaxProblem
from lint.rule import RuleOptions, Severity, Violation, at


class MissingLayerRows(LayerRowTally):
    """The file has fewer layer rows than line 2 declares.

    Line 2 is the number of layer rows; SimAI (``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``,
    ``Workload::initialize_workload``) allocates that many layers and reads exactly that many rows with
    C++ ``>>``; ASTRA-sim 1.0 does the same.  A row the parser rejected (TL001, or TL002 for a row whose
    columns are not 12) is no well-formed row, but it is there: SimAI misreads it (its own finding says how)
    rather than reading past the end of the file for it.  So only rows that are not in the file at all are
    missing, and a file whose rows are all of another layout (21 columns, say) gets its TL002, not this too.

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

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.rejected = 0  # lines of declared rows the parser rejected
        self.rejected_line = 0  # the last of them

    def check_syntax(self, problem: SyntaxProblem) -> tuple[()]:
        declared = self.tally.declared
        if declared is not None and problem.line > declared.line and problem.line != self.rejected_line:
            self.rejected += 1
            self.rejected_line = problem.line
        return ()

    def finish(self) -> Iterator[Violation]:
        declared, rows = self.tally.declared, self.tally.rows
        # A row with extra columns is rejected and still built (its first columns describe the layer): it is a row.
        malformed = self.rejected - self.tally.long_rows
        if declared is not None and declared.count > rows + malformed:
            also = f" and {malformed} malformed one{'s' if malformed > 1 else ''}" if malformed else ""
            yield at(
                declared,
                f"layer count {declared.count}, but the file has {rows} well-formed layer rows{also}: "
                f"SimAI reads {declared.count - rows - malformed} more past the end of the file",
            )
