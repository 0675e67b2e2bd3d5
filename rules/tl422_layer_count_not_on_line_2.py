from collections.abc import Iterable

from lint.formats.simai_workload.records import LayerCount
from lint.rule import Rule, Severity, Violation

COUNT_LINE = 2


class LayerCountNotOnLine2(Rule):
    """Blank lines stand between the header and the layer count.

    SimAI reads a workload's line 2 with ``std::getline`` and converts it with ``std::stoi``
    (``Workload::initialize_workload`` in aliyun/SimAI ``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``):
    a blank line 2 makes ``std::stoi`` throw ``std::invalid_argument`` and the simulation aborts before its
    first event.  Only the rows after the count are read with ``>>``, which skips blank lines.  ASTRA-sim
    1.0's reader (``Workload::initialize_workload``, ``getline`` then ``>> layers``) would skip them, but
    SimAI is the consumer this format is checked for, so this is an error.  No writer leaves a blank line
    there: AICB writes the count right after the header (``SIMAI_workload.dump_file``).

    Why it matters:
        The workload looks complete and every row is right, yet SimAI stops with an uncaught exception.

    Example:
        ``HYBRID_TRANSFORMER ...`` on line 1, nothing on line 2, ``3`` on line 3
        -> line 2 is blank, expected the layer count (found on line 3): SimAI reads line 2 with
        std::getline and std::stoi, which throws on a blank line
    """

    code = "TL422"
    name = "layer-count-not-on-line-2"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def check_layer_count(self, count: LayerCount) -> Iterable[Violation]:
        if count.line == COUNT_LINE:
            return ()
        message = (
            f"line {COUNT_LINE} is blank, expected the layer count (found on line {count.line}): SimAI reads line "
            f"{COUNT_LINE} with std::getline and std::stoi, which throws on a blank line"
        )
        return (Violation(COUNT_LINE, 1, message),)
