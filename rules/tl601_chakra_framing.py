from lint.rule import Rule, Scope, Severity


class ChakraFraming(Rule):
    """A Chakra trace's framing breaks, or one of its records is no message of the schema.

    A trace is a stream of records, each a varint byte count and that many bytes of protobuf
    (chakra ``src/third_party/utils/protolib.py`` ``encodeMessage``).  ASTRA-sim's feeder reads them
    with ``ProtobufUtils::readMessage`` (astra-sim/chakra ``src/feeder_v3/protobuf_util.h``): a prefix of
    more than five bytes, or a file that ends inside a prefix, ends its reading without a word (line 23);
    a record that runs past the end of the file is parsed from a short buffer, and ``ParseFromArray``'s
    failure is ignored (line 47), so a damaged record becomes a node of whatever fields it had.  An empty
    file throws "Failed to read global metadata" (``feeder_v3/et_feeder.cpp:56``).  The finding gives the
    record (its number is the finding's line: 1 is the GlobalMetadata) and its byte offset; reading stops
    at a broken frame, since nothing after it can be told apart.

    Why it matters:
        A truncated copy or a file of another writer simulates the part that happened to parse, and ASTRA-sim
        reports "finished" for it.

    Example:
        a trace cut in the middle of its last record
        -> byte 22: record 2 declares 50 bytes but the file ends after 3: the file is truncated
    """

    code = "TL601"
    name = "chakra-framing"
    severity = Severity.ERROR
    formats = ("chakra-et",)
    scope = Scope.PARSER
