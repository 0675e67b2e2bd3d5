from collections.abc import Iterator

from lint.formats.chakra_et.rulekit import DependencyRule
from lint.rule import Severity, Violation


class ChakraMissingDependency(DependencyRule):
    """A node depends (``ctrl_deps`` or ``data_deps``) on an id that no node of the trace has.

    ASTRA-sim's feeder gives every parent it meets an entry of its own (``feeder_v3/dependancy_solver.cpp:17``);
    once the file is read, ``ETFeeder::graph_sanity_check`` throws "Node N in data_dep graph, but not found in
    index, file might be corrupted" for an entry that is no record (``feeder_v3/et_feeder.cpp:104-116``).
    Reported once per file, naming the first missing id and how many there are.

    Why it matters:
        The simulation aborts before it starts.  A trace cut by a converter (chakra's own feeder test trace
        names 210 missing ids) or split by hand has this.

    Example:
        node 216 names ``ctrl_deps: 3`` and no node has id 3
        -> node 216 "aten::flatten_dense_tensors(0)" (record 1, byte 8) depends on node 3, which the trace lacks: ...
    """

    code = "TL606"
    name = "chakra-missing-dependency"
    severity = Severity.ERROR

    def finish(self) -> Iterator[Violation]:
        missing = self.dependencies.missing() if self.dependencies.judged else {}
        if not missing:
            return
        parent, nodes = min(missing.items(), key=lambda item: item[1][0].line)
        node = nodes[0]
        more = len(missing) - 1
        also = f"; {more} other missing id{'s are' if more > 1 else ' is'} named too" if more else ""
        yield Violation(
            node.line,
            None,
            f"{node.where} depends on node {parent}, which the trace lacks: ASTRA-sim throws 'Node {parent} in … graph, but not found in index, "
            f"file might be corrupted' (feeder_v3/et_feeder.cpp:104-116){also}",
            node.rank,
        )
