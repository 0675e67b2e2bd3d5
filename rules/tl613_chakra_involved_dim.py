from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.formats.chakra_et.schema import COMM_COLL_NODE
from lint.rule import Severity


class ChakraInvolvedDim(NodeRule):
    """A COMM_COLL node's ``involved_dim`` is not a list of booleans with at least one true.

    ``Workload::issue_coll_comm`` (``astra-sim/workload/Workload.cc:306-335``) reads ``involved_dim`` when
    present: another slot than ``bool_list`` prints "Expected bool_list in involved_dim but found another
    type." and exits (line 321-323); an empty list, or one without a true value, gives the collective no
    network dimension to run on, and it never completes.  Without the attribute, every dimension is used
    (four are assumed), which is what current writers rely on.

    Why it matters:
        The simulation exits, or hangs with that collective and everything after it unfinished.

    Example:
        ``involved_dim: bool_list []``
        -> node 40 "allreduce" (record 1, byte 8) has an empty involved_dim: ...
    """

    code = "TL613"
    name = "chakra-involved-dim"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if node.type != COMM_COLL_NODE or (found := node.attrs.get("involved_dim")) is None:
            return None
        if found.slot != "bool_list":
            return (
                "slot",
                f"{node.where} has involved_dim as {found.slot or 'no value'}, not a bool_list: ASTRA-sim prints 'Expected bool_list in involved_dim' and exits",
            )
        if not found.value:
            return "empty", f"{node.where} has an empty involved_dim: ASTRA-sim gives the collective no dimension to run on"
        if not any(found.value):
            return "false", f"{node.where} has involved_dim without a true value: ASTRA-sim gives the collective no dimension to run on"
        return None
