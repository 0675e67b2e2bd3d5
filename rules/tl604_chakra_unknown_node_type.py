from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.formats.chakra_et.schema import NODE_TYPES
from lint.rule import Severity


class ChakraUnknownNodeType(NodeRule):
    """A node's ``type`` is none of the schema's NodeType values.

    ``enum NodeType`` has INVALID_NODE (0) to COMM_COLL_NODE (7).  ASTRA-sim's ``Workload::issue`` records the
    node's start first, and ``Statistics::OperatorStatistics::get_operator_type``
    (``astra-sim/workload/Statistics.cc:72``) asserts on any other type: the process aborts (the oracle run
    did); past it, ``Workload.cc:196-198`` would log "Unknown node type" and exit.

    Why it matters:
        The simulation stops at that node.

    Example:
        a node with ``type: 9``
        -> node 12 "relu" (record 2, byte 22) has node type 9, which ASTRA-sim rejects: ...
    """

    code = "TL604"
    name = "chakra-unknown-node-type"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if node.type in NODE_TYPES:
            return None
        return str(
            node.type
        ), f"{node.where} has node type {node.type}, which ASTRA-sim rejects: an assertion aborts it (Statistics.cc:72; Workload.cc:197 'Unknown node type')"
