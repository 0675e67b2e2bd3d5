from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.formats.simai_workload.rulekit import reader
from lint.rule import Rule, Severity, Violation, at, by_consumer

# Where each consumer reads the kind, and gives up on one it cannot decode.
READS = {"simai": "Workload.cc:1170, 1250", "astra-sim-1": "Workload.cc:1253-1254, 1311"}


class ByteOrderMark(Rule):
    """The file starts with a UTF-8 byte-order mark.

    Neither consumer knows of byte-order marks: SimAI splits line 1 into words with ``>>`` and decodes the
    first (``Workload::initialize_workload``, ``Workload.cc:1160-1170``, aliyun/SimAI cef83f9d), ASTRA-sim 1.0
    reads it with ``>>`` (``Workload.cc:1253-1254``, branch ``ASTRA-sim-1.0``); the three bytes ``EF BB BF`` are
    no blank to ``>>``, so they are read as the start of the kind, which decodes to nothing, and the reader
    exits ("unable to decode the workload parallelization strategy").  Editors on Windows add the mark when
    they save a file as "UTF-8 with BOM"; no writer of the format does.  tlint reads the file as text all the
    same, so the rest of it is checked as if the mark were not there.

    Measured: SimAI exits 1 (oracle class ``utf8_bom``: abort, 12 of 12); so does ASTRA-sim 1.0.

    This is an error for both consumers: the workload is not simulated at all.

    Why it matters:
        The mark is invisible in an editor: the file looks right, and the consumer calls its kind unknown.

    Example:
        ``\\ufeffHYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ...`` (saved "with BOM")
        -> line 1 starts with a UTF-8 byte-order mark: SimAI reads it as part of the kind
        HYBRID_TRANSFORMER_FWD_IN_BCKWD, cannot decode it and exits (Workload.cc:1170, 1250); save the file without it
    """

    code = "TL423"
    name = "byte-order-mark"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

    def check_header(self, header: Header) -> Iterator[Violation]:
        if header.byte_order_mark:
            yield at(
                header,
                f"line 1 starts with a UTF-8 byte-order mark: {reader(self.consumer)} reads it as part of the kind {header.parallelism}, "
                f"cannot decode it and exits ({READS[self.consumer or 'simai']}); save the file without it",
            )
