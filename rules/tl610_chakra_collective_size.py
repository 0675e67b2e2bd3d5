from lint.formats.chakra_et.records import NodeRecord, article, collective_name
from lint.formats.chakra_et.rulekit import NodeRule, issued_collective, lacking
from lint.formats.chakra_et.schema import ALL_GATHER, BROADCAST
from lint.rule import Severity


class ChakraCollectiveSize(NodeRule):
    """A COMM_COLL node has no ``comm_size``, or a ``comm_size`` of 0.

    ``comm_size`` is a required attribute of ASTRA-sim's feeder (``feeder_v3/et_feeder_node_attr.h:16``):
    without it ``Workload::issue_coll_comm`` (``Workload.cc:340``) throws "Attribute comm_size not found in
    node N".  A size of 0 is not a collective of no bytes: ASTRA-sim still runs the collective's phases, so a
    0-byte ALL_REDUCE, ALL_TO_ALL or REDUCE_SCATTER takes time (12,280 cycles for an ALL_REDUCE on a ring of
    4 NPUs in the oracle run, where 1 MiB took 43,000), and a 0-byte ALL_GATHER never completes: the NPU never
    reports finished (docs/formats/chakra-et.md).  Chakra's Text
    converter writes such nodes for ``NONE`` in an ASTRA-sim 1.0 workload (``get_comm_type`` returns 0,
    ALL_REDUCE, and the size column is 0): a layer without communication becomes an ALL_REDUCE.

    Why it matters:
        The simulation aborts, or simulates communication that the workload did not have.

    Example:
        ``COMM_COLL_NODE_conv1_NONE`` with ``comm_type: 0``, ``comm_size: 0``
        -> node 3 "COMM_COLL_NODE_conv1_NONE" (record 2, byte 22) is an ALL_REDUCE of comm_size 0 (chakra's Text converter writes NONE so): in ASTRA-sim it is simulated, not skipped: it takes time
    """

    code = "TL610"
    name = "chakra-collective-size"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if not issued_collective(node):
            return None
        comm_type = node.integer("comm_type")
        if comm_type == BROADCAST:  # replayed for its duration: its size is not read
            return None
        if "comm_size" not in node.attrs:
            return "missing", lacking(node, "comm_size")
        if node.integer("comm_size") != 0:
            return None
        what = collective_name(comm_type)
        source = " (chakra's Text converter writes NONE so)" if node.name.endswith("_NONE") else ""
        effect = "never completes" if comm_type == ALL_GATHER else "is simulated, not skipped: it takes time"
        return "zero", f"{node.where} is {article(what)} {what} of comm_size 0{source}: in ASTRA-sim it {effect}"
