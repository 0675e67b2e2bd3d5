from collections.abc import Iterator

from lint.formats.chakra_et.rulekit import DependencyRule
from lint.rule import Severity, Violation


class ChakraNoRootNode(DependencyRule):
    """Every node of a Chakra trace has a dependency: none can start, or the trace has no node at all.

    ASTRA-sim's feeder starts from the nodes without parents; with none it throws "No dependancy free nodes
    found, there might be deadlocks" (``feeder_v3/dependancy_solver.cpp:108``), which a trace of only a
    GlobalMetadata record meets too.

    Why it matters:
        The simulation aborts before it starts.

    Example:
        two nodes that depend on each other and nothing else
        -> no node is free of dependencies (2 nodes, the first node 1 "node1" (record 1, byte 8)): ...
    """

    code = "TL608"
    name = "chakra-no-root-node"
    severity = Severity.ERROR

    def finish(self) -> Iterator[Violation]:
        found = self.dependencies
        if not found.judged or found.root or found.missing():  # a missing parent starts the feeder, then TL606 throws
            return
        if found.first is None:
            yield Violation(
                1, None, "the trace has no node: ASTRA-sim throws 'No dependancy free nodes found, there might be deadlocks' (dependancy_solver.cpp:108)"
            )
            return
        first = found.first
        yield Violation(
            first.line,
            None,
            f"no node is free of dependencies ({found.nodes} nodes, the first {first.where}): ASTRA-sim throws "
            "'No dependancy free nodes found, there might be deadlocks' (dependancy_solver.cpp:108)",
            first.rank,
        )
