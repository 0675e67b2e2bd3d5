from lint.formats.chakra_et.records import HeadRecord
from lint.rule import Rule, Severity, Violation


class ChakraMissingMetadata(Rule):
    """The first record of a Chakra trace is a node, not the GlobalMetadata.

    Every writer since schema 0.0.4 starts a trace with a ``GlobalMetadata`` record (chakra's converters
    ``encode_message(g, global_metadata)`` first).  ASTRA-sim's feeder reads the first record as the metadata
    whatever it is (``feeder_v3/et_feeder.cpp:53``, ``readMessage<ChakraGlobalMetadata>``; the parse error is
    ignored): the first node is lost.  Every dependency on it then names a node the index lacks, and the
    feeder throws "Node 0 in ctrl_dep graph, but not found in index, file might be corrupted"
    (``et_feeder.cpp:110``; astra-sim #338); without such a dependency the node just never runs.  Chakra's
    Text converter wrote no metadata from October 2023 to January 2024: ASTRA-sim's own ResNet-50 example
    of November 2023 is such a file.

    Why it matters:
        The simulation aborts, or silently runs one node short.

    Example:
        a trace whose first record is ``COMP_NODE_conv1_FWD``
        -> the first record is a node, not the GlobalMetadata: ASTRA-sim reads it as the metadata and loses that node ...
    """

    code = "TL602"
    name = "chakra-missing-metadata"
    severity = Severity.ERROR
    formats = ("chakra-et",)

    def check_head(self, head: HeadRecord) -> tuple[Violation, ...]:
        if head.metadata or head.layout is not None:  # a historical layout is one finding, TL603
            return ()
        return (
            Violation(
                head.line,
                None,
                "the first record is a node, not the GlobalMetadata: ASTRA-sim reads it as the metadata and loses that node "
                "(feeder_v3/et_feeder.cpp:53); a dependency on it throws 'Node … not found in index, file might be corrupted'",
                head.rank,
            ),
        )
