from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.formats.chakra_et.schema import INTEGER_SLOTS
from lint.rule import Severity

# The one slot chakra's older feeder reads each attribute from (mlcommons/chakra src/feeder/et_feeder_node.cpp:29-49).
OLDER_FEEDER_SLOTS = {
    "is_cpu_op": "bool_val",
    "num_ops": "int64_val",
    "tensor_size": "uint64_val",
    "comm_type": "int64_val",
    "comm_priority": "int32_val",
    "comm_size": "int64_val",
    "comm_src": "int32_val",
    "comm_dst": "int32_val",
    "comm_tag": "int32_val",
}
# What FeederV3 reads as a number (TL616 reports the other slots).
NUMERIC_SLOTS = INTEGER_SLOTS | {"bool_val"}


class ChakraAttributeWidth(NodeRule):
    """An attribute is stored in another slot than the one chakra's older feeder reads, with a value it then loses.

    ASTRA-sim 2.0's current feeder (FeederV3) converts any integer slot.  The feeder before it (mlcommons/chakra
    ``src/feeder/et_feeder_node.cpp:29-49``, used by ASTRA-sim releases until 2025 and by forks built on them)
    reads exactly one slot per attribute: ``comm_size`` from ``int64_val``, ``tensor_size`` from ``uint64_val``,
    ``comm_src``/``comm_dst``/``comm_tag`` from ``int32_val``, ``is_cpu_op`` from ``bool_val``; any other slot
    reads as 0 (chakra #136: the Text converter's ``uint64_val`` comm_size was read as 0 until PR #150).  A
    warning: the current ASTRA-sim reads the value as written.

    Why it matters:
        With an older ASTRA-sim every such collective moves 0 bytes, or every such node changes its end.

    Example:
        ``comm_size`` written as ``uint64_val: 1048576``
        -> node 1 "allreduce" (record 1, byte 8) has comm_size 1048576 in uint64_val: chakra's older feeder reads int64_val ...
    """

    code = "TL614"
    name = "chakra-attribute-width"
    severity = Severity.WARNING

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        for name, slot in OLDER_FEEDER_SLOTS.items():
            found = node.attrs.get(name)
            if found is not None and found.slot in NUMERIC_SLOTS and found.slot != slot and found.value:
                return (
                    f"{name} {found.slot}",
                    f"{node.where} has {name} {found.value!r} in {found.slot}: chakra's older feeder reads {slot} and gets "
                    f"{'false' if slot == 'bool_val' else 0} (FeederV3 converts it)",
                )
        return None
