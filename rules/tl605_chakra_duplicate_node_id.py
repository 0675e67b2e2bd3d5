from collections.abc import Iterator
from typing import Any

from lint.formats.chakra_et.records import HeadRecord, Located, NodeRecord
from lint.formats.chakra_et.rulekit import FORMATS
from lint.models.common import SyntaxProblem
from lint.rule import Rule, Severity, Violation


class ChakraDuplicateNodeId(Rule):
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
        -> node 7 "COMM_COLL_NODE_fc_ALLREDUCE" (record 3, byte 50) repeats the id of record 2: ...
    """

    code = "TL605"
    name = "chakra-duplicate-node-id"
    severity = Severity.ERROR
    formats = FORMATS

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self.records: dict[int, int] = {}  # id -> the record it first stood on
        self.duplicates: list[tuple[int, Located]] = []  # (the first's record, the later node)
        self.judged = True

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        self.judged = head.layout is None
        return ()

    def check_syntax(self, problem: SyntaxProblem) -> tuple[Violation, ...]:
        self.judged = False  # a record that could not be read may hold either node
        return ()

    def check_node(self, node: NodeRecord) -> tuple[Violation, ...]:
        first = self.records.setdefault(node.id, node.index)
        if first != node.index:
            self.duplicates.append((first, node.located()))
        return ()

    def finish(self) -> Iterator[Violation]:
        if not self.judged or not self.duplicates:
            return
        first, later = self.duplicates[0]
        more = len(self.duplicates) - 1
        also = f" ({more} more repeated id{'s' if more > 1 else ''} in the file)" if more else ""
        yield Violation(
            later.line,
            None,
            f"{later.where} repeats the id of record {first}: ASTRA-sim keeps only the later record and gives it both nodes' parents (et_feeder.cpp:64){also}",
            later.rank,
        )
