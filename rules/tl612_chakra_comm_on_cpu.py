from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.formats.chakra_et.schema import COMM_NODES
from lint.rule import Severity


class ChakraCommOnCpu(NodeRule):
    """A communication node (COMM_COLL, COMM_SEND, COMM_RECV) has ``is_cpu_op`` true.

    ``Workload::issue_comm`` (``astra-sim/workload/Workload.cc:289-291``) throws "Comm node should not be on
    CPU" for it.  Chakra's PyTorch converter marks the CPU-side ``c10d::`` calls of a collective as
    COMM_COLL nodes with ``is_cpu_op`` true and no ``comm_type`` (chakra's own feeder test trace has them);
    before November 2024 chakra's feeder took a missing ``is_cpu_op`` for true, so traces of the Text
    converter never simulated their communication (astra-sim #207, #222): FeederV3 takes it for false.

    Why it matters:
        The simulation aborts at the node (an older ASTRA-sim left the communication out instead).

    Example:
        ``c10d::allreduce_(0)`` with ``is_cpu_op: true`` and type COMM_COLL_NODE
        -> node 3254 "c10d::allreduce_(0)" (record 1, byte 8) is a COMM_COLL_NODE with is_cpu_op true: ...
    """

    code = "TL612"
    name = "chakra-comm-on-cpu"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if node.type not in COMM_NODES or not node.flag("is_cpu_op"):
            return None
        return "cpu", f"{node.where} is a {node.type_name} with is_cpu_op true: ASTRA-sim throws 'Comm node should not be on CPU' (Workload.cc:290)"
