from collections.abc import Iterator

from lint.formats.simai_workload.records import KINDS, VARIANT_KINDS, Header
from lint.formats.simai_workload.rulekit import reader
from lint.rule import Rule, Severity, Violation, at, by_consumer

# Where each consumer gives up on a kind it cannot decode.
EXITS = {
    "simai": "Workload.cc:1250",
    "astra-sim-1": "Workload.cc:1311",
}


class UnknownKind(Rule):
    """The workload's first word is not a parallelism kind its consumer decodes.

    Both consumers decode the kind with ``Workload::decode_parallelsim``: ``DATA, HYBRID_TRANSFORMER,
    HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM, HYBRID_DLRM_ENHANCED, MODEL, HYBRID_DATA_MODEL,
    HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, MICRO, DISTRIBUTED_INFERENCE``; any other word decodes to
    ``ParallelismPolicy::None``, and the reader prints "unable to decode the workload parallelization
    strategy" and exits 1: SimAI at ``Workload.cc:1244-1250`` (aliyun/SimAI cef83f9d,
    ``Workload::initialize_workload``), ASTRA-sim 1.0 at ``Workload.cc:1306-1311`` (branch ``ASTRA-sim-1.0``).
    Variants of ASTRA-sim 1.0 decode kinds of their own (``VARIANT_KINDS`` in
    ``lint/formats/simai_workload/records.py``): ``DATA_REORDER`` (the ASTRA-sim bundled with astra-sim/tutorials
    exercise 4) and ``DATA_NO_OVERLAP``, ``DATA_FORWARD_OVERLAP`` (the fork Yassawe/astra-sim-csnl).  Such a
    file is judged for ASTRA-sim 1.0 (its variant) and passes; SimAI exits on it.

    Measured: SimAI exits 1 on a lower-case kind and on an unknown one (oracle classes ``kind_lowercase``,
    ``unknown_kind``: abort, 24 of 24 runs); ASTRA-sim 1.0 exits 1 on a kind it cannot decode.

    This is an error for both consumers: the workload is not simulated at all.

    Why it matters:
        The kind decides how the simulator maps every collective onto the network; a workload of a kind
        it cannot decode is refused before its first layer.

    Example:
        ``HYBRID_TRANSFROMER model_parallel_NPU_group: 8 ...``
        -> unknown workload kind 'HYBRID_TRANSFROMER': SimAI cannot decode it and exits (Workload.cc:1250; it
        knows DATA, ...)
    """

    code = "TL401"
    name = "unknown-kind"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

    def check_header(self, header: Header) -> Iterator[Violation]:
        decoded = KINDS if self.consumer == "simai" else KINDS | VARIANT_KINDS.keys()
        if header.parallelism not in decoded:
            yield at(
                header,
                f"unknown workload kind '{header.parallelism}': {reader(self.consumer)} cannot decode it and exits "
                f"({EXITS[self.consumer or 'simai']}; it knows {', '.join(sorted(KINDS))})",
            )
