from lint.formats.chakra_et.records import NodeRecord, article, collective_name
from lint.formats.chakra_et.rulekit import NodeRule, issued_collective, lacking
from lint.formats.chakra_et.schema import ALL_GATHER, ALL_REDUCE, ALL_TO_ALL, BROADCAST, REDUCE_SCATTER
from lint.rule import Severity

# Workload::issue_coll_comm (Workload.cc:347-390): the collectives it generates, and BROADCAST, which it replays.
SIMULATED = frozenset({ALL_REDUCE, ALL_TO_ALL, ALL_GATHER, REDUCE_SCATTER, BROADCAST})


class ChakraUnsupportedCollective(NodeRule):
    """A COMM_COLL node has no ``comm_type``, or one ASTRA-sim 2.0 does not simulate.

    ``Workload::issue_coll_comm`` (``astra-sim/workload/Workload.cc:338-390``) reads ``comm_type`` as a
    required attribute (``feeder_v3/et_feeder_node_attr.h:14``: missing, it throws "Attribute comm_type not
    found in node N") and generates ALL_REDUCE, ALL_TO_ALL, ALL_GATHER and REDUCE_SCATTER; BROADCAST is
    replayed for its ``duration_micros``.  REDUCE, GATHER, SCATTER, REDUCE_SCATTER_BLOCK, BARRIER and any
    other number throw "Unsupported collective comm type" (line 389).

    Why it matters:
        The simulation aborts at the node.

    Example:
        a COMM_COLL node with ``comm_type: 9`` (BARRIER)
        -> node 30 "barrier" (record 2, byte 22) is a BARRIER, which ASTRA-sim 2.0 does not simulate: ...
    """

    code = "TL609"
    name = "chakra-unsupported-collective"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if not issued_collective(node):
            return None
        if "comm_type" not in node.attrs:
            return "missing", lacking(node, "comm_type")
        comm_type = node.integer("comm_type")
        if comm_type is None or comm_type in SIMULATED:
            return None  # a comm_type of another slot type is TL616's
        name = collective_name(comm_type)
        return (
            name,
            f"{node.where} is {article(name)} {name}, which ASTRA-sim 2.0 does not simulate: it throws 'Unsupported collective comm type' (Workload.cc:389)",
        )
