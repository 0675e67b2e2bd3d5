from collections.abc import Iterator

from lint.formats.chakra_et.rulekit import GraphRule
from lint.rule import Severity, Violation


class ChakraDuplicateNodeId(GraphRule):
    """Two nodes of one Chakra trace have the same id.

    Chakra's writers number nodes uniquely (the converters' ``next_node_id``; chakra's PyTorch converter
    checks for duplicates itself).  ASTRA-sim's feeder indexes records by id (``feeder_v3/et_feeder.cpp:64``,
    ``index_map[node_id] = last_pos``): the later record replaces the earlier, whose parents are merged into
    it (``dependancy_solver.cpp:17``).  The earlier node never runs and the later one waits for both nodes'
    parents.  Reported once per file, at the first repeated id.

    Why it matters:
        A node silently disappears from the simulation and another one waits for the wrong parents.

    Example:
        two nodes with ``id: 7``
        -> node 7 "COMM_COLL_NODE_fc_ALLREDUCE" (record 3, byte 50) repeats the id of node 7 "COMP_NODE_fc_FWD" ...
    """

    code = "TL605"
    name = "chakra-duplicate-node-id"
    severity = Severity.ERROR

    def finish(self) -> Iterator[Violation]:
        if not self.graph.judged or not self.graph.duplicates:
            return
        first, later = self.graph.duplicates[0]
        more = len(self.graph.duplicates) - 1
        also = f" ({more} more repeated id{'s' if more > 1 else ''} in the file)" if more else ""
        yield Violation(
            later.line,
            None,
            f"{later.where} repeats the id of {first.where}: ASTRA-sim keeps only the later record and gives it both nodes' parents (et_feeder.cpp:64){also}",
            later.rank,
        )
