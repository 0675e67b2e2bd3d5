from collections.abc import Iterator

from lint.formats.chakra_et.rulekit import GraphRule
from lint.rule import Severity, Violation


class ChakraDependencyCycle(GraphRule):
    """Nodes of a Chakra trace depend on themselves, directly or through a cycle of ``ctrl_deps`` and ``data_deps``.

    ASTRA-sim's feeder releases a node when all its parents have finished (``feeder_v3/dependancy_solver.cpp``
    ``finish_node``).  A node on a cycle, and every node waiting for one, is never released; the workload
    ends when no released node is left (``astra-sim/workload/Workload.cc:552-561``) and the rank reports
    "finished" with those nodes never run (chakra #134).  Reported once per file, with one cycle and how many
    nodes never run.

    Why it matters:
        The simulated time leaves out every node on and behind the cycle, and nothing says so.

    Example:
        node 5 names ``ctrl_deps: 5``
        -> 2 nodes never run: node 5 "matmul" (record 2, byte 22) depends on itself; ...
    """

    code = "TL607"
    name = "chakra-dependency-cycle"
    severity = Severity.ERROR

    def finish(self) -> Iterator[Violation]:
        if not self.graph.judged:
            return
        roots, stuck = self.graph.analysed()
        if not stuck or not (roots or self.graph.missing_parents()):  # nothing starts at all: TL608
            return
        cycle = self.graph.cycle_through(stuck)
        first = self.graph.first[cycle[0]]
        never = f"{len(stuck)} node{'s' if len(stuck) > 1 else ''} never run"
        if len(cycle) == 1:
            how = f"{first.where} depends on itself"
        else:
            how = f"{first.where} waits for itself: " + " -> ".join(str(node) for node in [*cycle, cycle[0]]) + " (each waits for the next)"
        yield Violation(first.line, None, f"{never}: {how}; ASTRA-sim reports the rank finished without them (Workload.cc:552-561)", first.rank)
