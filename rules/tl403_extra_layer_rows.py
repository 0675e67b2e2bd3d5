from collections.abc import Iterator

from lint.rule import Severity, Violation, at
from lint.rulekit import LayerRowTally


class ExtraLayerRows(LayerRowTally):
    """The file has more layer rows than line 2 declares.

    SimAI reads exactly as many rows as line 2 declares and silently ignores the rest.  The finding is
    at the first row past the declared count.

    This is a warning, unlike TL402 (fewer rows than declared): nothing breaks, SimAI simulates
    the declared rows; but the rows after them were written to be simulated and are not.

    Why it matters:
        The simulated iteration lacks the layers past the count - usually the last ones (embedding
        norm, loss, optimizer) - and looks faster than the workload it was generated from.

    Example:
        Line 2 says ``2`` and 4 rows follow
        -> row 3 of 4 is past the layer count 2 on line 2: SimAI ignores rows 3 to 4
    """

    code = "TL403"
    name = "extra-layer-rows"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def finish(self) -> Iterator[Violation]:
        if self.declared is not None and self.first_extra is not None:
            first = self.declared.count + 1
            ignored = f"rows {first} to {self.rows}" if self.rows > first else "it"
            yield at(
                self.first_extra,
                f"row {first} of {self.rows} is past the layer count {self.declared.count} on line {self.declared.line}: "
                f"SimAI ignores {ignored}",
            )
