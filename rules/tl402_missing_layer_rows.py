from collections.abc import Iterator

from lint.formats.simai_workload.rulekit import LayerRowTally, reader
from lint.models.common import SyntaxProblem
from lint.rule import RuleOptions, Severity, Violation, at, by_consumer


class MissingLayerRows(LayerRowTally):
    """The file has fewer layer rows than line 2 declares.

    Line 2 is the number of layer rows; both consumers allocate that many layers and read exactly that many
    rows with C++ ``>>`` (``Workload::initialize_workload``: SimAI ``Workload.cc:1281-1311``, ASTRA-sim 1.0
    ``Workload.cc:1318-1352``).  The reads past the end of the file fail and leave the last layers with an
    empty name and whatever the failed reads left in their fields.  A row the parser rejected (TL001, or TL002
    for a row whose columns are not 12) is no well-formed row, but it is there: the consumer misreads it (its
    own finding says how) rather than reading past the end of the file for it.  So only rows that are not in
    the file at all are missing, and a file whose rows are all of another layout (21 columns, say) gets its
    TL002, not this too.

    Measured: SimAI simulates phantom rows (oracle classes ``count_plus1``, ``count_plus10``: wrong, 22 of 22
    runs that got past the header); ASTRA-sim 1.0 simulates one more layer on a count one too high (its
    total changes).

    This is an error for both consumers: they simulate layers that are not in the file.

    Why it matters:
        The simulated iteration runs layers that do not exist, with whatever a failed read leaves in
        their fields, or SimAI stops.

    Example:
        Line 2 says ``3`` and two rows follow
        -> layer count 3, but the file has 2 well-formed layer rows: SimAI reads 1 more past the end of the
        file
    """

    code = "TL402"
    name = "missing-layer-rows"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

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
                f"{reader(self.consumer)} reads {declared.count - rows - malformed} more past the end of the file",
            )
