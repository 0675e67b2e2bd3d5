from collections.abc import Iterator

from lint.formats.simai_workload.records import KINDS, Header
from lint.rule import Rule, Severity, Violation, at


class UnknownKind(Rule):
    """The workload's first token is not a parallelism kind SimAI or ASTRA-sim 1.0 knows.

    Known kinds: ``DATA, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM,
    HYBRID_DLRM_ENHANCED, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, MICRO,
    DISTRIBUTED_INFERENCE``, and the kinds only a variant of ASTRA-sim 1.0 decodes (``VARIANT_KINDS`` in
    ``lint/formats/simai_workload/records.py``): ``DATA_REORDER`` (the ASTRA-sim bundled with astra-sim/tutorials
    exercise 4, ``exercise_4/astra-sim/workload/Workload.cc``, ``Workload::decode_parallelsim``) and
    ``DATA_NO_OVERLAP``, ``DATA_FORWARD_OVERLAP`` (the fork Yassawe/astra-sim-csnl, same function).  Those
    files are read by the simulator they were written for, so they are not reported.

    Why it matters:
        The kind decides how the simulator maps every collective onto the network.  An unknown kind
        decodes to no parallelism at all, and SimAI refuses the workload: it cannot be simulated.

    Example:
        ``HYBRID_TRANSFROMER model_parallel_NPU_group: 8 ...``
        -> unknown workload kind 'HYBRID_TRANSFROMER': SimAI cannot read a workload of this kind (known
        kinds: DATA, ...)
    """

    code = "TL401"
    name = "unknown-kind"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        if not header.known_kind:
            yield at(
                header,
                f"unknown workload kind '{header.parallelism}': SimAI cannot read a workload of this kind (known kinds: {', '.join(sorted(KINDS))})",
            )
