from lint.formats.chakra_et.records import HeadRecord, NodeRecord
from lint.formats.chakra_et.rulekit import NodeRule
from lint.rule import Severity, Violation


class ChakraForeignSchema(NodeRule):
    """A Chakra trace is written in a historical layout, or holds fields the schema does not have.

    ASTRA-sim 2.0 reads traces with the proto3 schema of October 2023 (chakra ``schema/protobuf/et_def.proto``,
    0.0.4 and later).  The proto2 layouts before it numbered a node's fields differently: ``eg_def`` 0.0.1
    (January 2023) kept ``num_ops``, ``comm_type``, ``involved_dim``, ``comm_src`` … in fields 12-20, 0.0.2 and
    0.0.3 moved them into ``attribute = 11`` and put strings in fields 5-10.  Read with today's schema, those
    fields are skipped as unknown, strings in field 5 become data dependencies, and the node types shift
    (0.0.1's COMP_NODE 3 is today's MEM_STORE_NODE, which ASTRA-sim sends to remote memory and which throws
    for want of ``tensor_size``).  Such a file is named by its layout in one finding at its first record.
    In a file of today's layout, a node field of an unknown number or of another wire type is reported
    once, at its first node: the feeder drops what the writer meant there.

    Why it matters:
        ASTRA-sim aborts on the first node it cannot read, or simulates a graph other than the one written.

    Example:
        ASTRA-sim's ``runs/example/workload/transformer_2stack.0.eg`` (November 2023)
        -> the trace is written in the eg_def 0.0.1 layout of January 2023 ...
    """

    code = "TL603"
    name = "chakra-foreign-schema"
    severity = Severity.ERROR

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        self.head = head
        if head.layout is None:
            return ()
        message = (
            f"the trace is written in {head.layout}: ASTRA-sim 2.0 reads it with the 0.0.4 schema, which skips those fields "
            "and gives its node types other meanings (regenerate it with a current Chakra)"
        )
        return (Violation(head.line, None, message, head.rank),)

    def problem(self, node: NodeRecord) -> tuple[str, str] | None:
        if not node.unknown:
            return None
        fields = ", ".join(f"field {number} (wire type {wire})" for number, wire in node.unknown)
        return "unknown", f"{node.where} has {fields}, which the Chakra 0.0.4 schema does not read: ASTRA-sim skips what the writer put there"
