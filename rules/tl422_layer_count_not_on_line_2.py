from collections.abc import Iterable

from lint.formats.simai_workload.records import LayerCount
from lint.rule import Rule, Severity, Violation, by_consumer

COUNT_LINE = 2


class LayerCountNotOnLine2(Rule):
    """Blank lines stand between the header and the layer count.

    SimAI reads a workload's line 2 with ``std::getline`` and converts it with ``std::stoi``
    (``Workload::initialize_workload``, ``Workload.cc:1274-1278``, aliyun/SimAI cef83f9d): a blank line 2 makes
    ``std::stoi`` throw ``std::invalid_argument`` and the simulation aborts before its first event.  Only the
    rows after the count are read with ``>>``, which skips blank lines.  ASTRA-sim 1.0 reads the count with
    ``>>`` too (``Workload.cc:1315``, branch ``ASTRA-sim-1.0``), which passes over blank lines, so the rule holds
    for SimAI only.  No writer leaves a blank line there: AICB writes the count right after the header
    (``SIMAI_workload.dump_file``).

    Measured: SimAI aborts (oracle class ``blank_line2``: abort, 12 of 12); ASTRA-sim 1.0 simulates its
    Resnet50_DataParallel example with a blank line 2 as without it.

    This is an error for SimAI: it aborts.

    Why it matters:
        The workload looks complete and every row is right, yet SimAI stops with an uncaught exception.

    Example:
        ``HYBRID_TRANSFORMER ...`` on line 1, nothing on line 2, ``3`` on line 3
        -> line 2 is blank, expected the layer count (found on line 3): SimAI reads line 2 with
        std::getline and std::stoi, which throws on a blank line
    """

    code = "TL422"
    name = "layer-count-not-on-line-2"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR})

    def check_layer_count(self, count: LayerCount) -> Iterable[Violation]:
        if count.line == COUNT_LINE:
            return ()
        message = (
            f"line {COUNT_LINE} is blank, expected the layer count (found on line {count.line}): SimAI reads line "
            f"{COUNT_LINE} with std::getline and std::stoi, which throws on a blank line"
        )
        return (Violation(COUNT_LINE, 1, message),)
