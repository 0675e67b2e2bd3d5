from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.formats.chakra_et.schema import COMP_NODE
from lint.rule import Severity


class ChakraComputeDuration(NodeRule):
    """A COMP node has no ``duration_micros``.

    Unless the system configuration enables the roofline model, ASTRA-sim replays a COMP node for its
    ``duration_micros`` (``Workload::issue_replay``, ``astra-sim/workload/Workload.cc:213-228``); for 0 it
    takes 1 ns.  Writers that leave the duration out mean the roofline model to time the node from ``num_ops``
    and ``tensor_size`` (astra-sim/symbolic_tensor_graph writes COMP nodes so).  A warning: which one ASTRA-sim
    does is in its system configuration, not in the trace.

    Why it matters:
        Without the roofline model the computation takes no time, and the simulated step is all communication.

    Example:
        a COMP node with ``num_ops`` and ``tensor_size`` but no ``duration_micros``
        -> node 2 "mb0.input_norm" (record 1, byte 8) is a COMP node without duration_micros: ...
    """

    code = "TL615"
    name = "chakra-compute-duration"
    severity = Severity.WARNING

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if node.type != COMP_NODE or node.duration:
            return None
        roofline = "num_ops" in node.attrs and "tensor_size" in node.attrs
        timed = (
            "it has num_ops and tensor_size for the roofline model, which the system configuration must enable" if roofline else "nor num_ops and tensor_size"
        )
        return str(roofline), f"{node.where} is a COMP node without duration_micros: ASTRA-sim replays it in 1 ns (Workload.cc:216); {timed}"
