from lint.formats.chakra_et.records import NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.formats.chakra_et.schema import COMM_COLL_NODE, COMM_RECV_NODE, COMM_SEND_NODE, COMP_NODE, INTEGER_SLOTS, MEM_LOAD_NODE, MEM_STORE_NODE
from lint.rule import Severity

# The attributes ASTRA-sim reads from each node type (astra-sim/workload/Workload.cc issue_*).
READ = {
    COMP_NODE: ("is_cpu_op",),
    MEM_LOAD_NODE: ("tensor_size",),
    MEM_STORE_NODE: ("tensor_size",),
    COMM_COLL_NODE: ("is_cpu_op", "comm_type", "comm_size", "comm_priority", "pg_name"),
    COMM_SEND_NODE: ("is_cpu_op", "comm_src", "comm_dst", "comm_size", "comm_tag"),
    COMM_RECV_NODE: ("is_cpu_op", "comm_src", "comm_dst", "comm_size", "comm_tag"),
}
NUMERIC_SLOTS = INTEGER_SLOTS | {"bool_val"}
TEXT_SLOTS = frozenset({"string_val", "bytes_val"})


class ChakraAttributeType(NodeRule):
    """An attribute ASTRA-sim reads holds a value of a type its feeder cannot convert.

    FeederV3 converts an attribute to the type the simulator asks for (``feeder_v3/et_feeder_node.h:144-194``):
    integers and booleans from any integer or ``bool_val`` slot; a string (``pg_name``) only from ``string_val``
    or ``bytes_val``.  A floating-point value asked for as an integer, a string as a number, a number as a
    string, or an attribute with no value throw ``std::bad_cast`` or "Attribute type not supported" when the
    node is issued.  Checked for what each node type's ``Workload::issue_*`` reads.

    Why it matters:
        The simulation aborts at the node.

    Example:
        ``pg_name`` written as ``int64_val: 5``
        -> node 8 "allgather" (record 1, byte 8) has pg_name in int64_val: ASTRA-sim reads it as a string ...
    """

    code = "TL616"
    name = "chakra-attribute-type"
    severity = Severity.ERROR

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        for name in READ.get(node.type, ()):
            found = node.attrs.get(name)
            if found is None or found.slot in (TEXT_SLOTS if name == "pg_name" else NUMERIC_SLOTS):
                continue
            wanted = "a string" if name == "pg_name" else "an integer"
            held = found.slot or "no value"
            return f"{name} {held}", f"{node.where} has {name} in {held}: ASTRA-sim reads it as {wanted} and throws (feeder_v3/et_feeder_node.h:144-194)"
        return None
