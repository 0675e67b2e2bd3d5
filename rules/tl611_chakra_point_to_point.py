from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule, lacking
from lint.formats.chakra_et.schema import COMM_RECV_NODE, COMM_SEND_NODE
from lint.rule import Severity

# What Workload::issue_send_comm / issue_recv_comm read without a default (Workload.cc:393-440).
REQUIRED = {COMM_SEND_NODE: ("comm_dst", "comm_tag", "comm_size"), COMM_RECV_NODE: ("comm_src", "comm_tag", "comm_size")}
# The end that must be the file's own NPU, read with that NPU as default.
OWN_END = {COMM_SEND_NODE: ("comm_src", "Send node should be issued by the sender"), COMM_RECV_NODE: ("comm_dst", "Recv node should be issued by the receiver")}


class ChakraPointToPoint(NodeRule):
    """A COMM_SEND or COMM_RECV node lacks an attribute ASTRA-sim needs, or is not issued by its own end.

    ``Workload::issue_send_comm`` (``astra-sim/workload/Workload.cc:393-417``) reads ``comm_dst``,
    ``comm_size`` and ``comm_tag`` as required attributes (a missing one throws "Attribute … not found in node
    N", ``feeder_v3/et_feeder_node.h:215``) and ``comm_src`` with the NPU's id as default; a ``comm_src`` other
    than the NPU's id throws "Send node should be issued by the sender" (line 397).  ``issue_recv_comm``
    (lines 419-440) likewise reads ``comm_src``, ``comm_size``, ``comm_tag`` and checks ``comm_dst`` ("Recv node
    should be issued by the receiver", line 424).  The NPU is the file's: ``PREFIX.<npu>.et``
    (``Workload.cc:29``); a file of another name is not checked for it.

    Why it matters:
        The simulation aborts at the node.

    Example:
        ``wl.3.et`` holds a COMM_SEND node with ``comm_src: 2``
        -> node 8 "send" (record 1, byte 8) has comm_src 2 in the file of NPU 3: ASTRA-sim throws ...
    """

    code = "TL611"
    name = "chakra-point-to-point"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        required = REQUIRED.get(node.type)
        if required is None:
            return None
        absent = [name for name in required if name not in node.attrs]
        if absent:
            return f"{node.type_name} {absent}", lacking(node, *absent)
        own, error = OWN_END[node.type]
        end = node.integer(own)
        if node.rank is None or end is None or end == node.rank:
            return None
        return own, f"{node.where} has {own} {end} in the file of NPU {node.rank}: ASTRA-sim throws '{error}'"
