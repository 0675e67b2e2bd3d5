from collections.abc import Iterator

from lint.formats.simai_workload.records import KINDS, Header
from lint.rule import Rule, Severity, Violation, at, by_consumer


class UnsimulatedKind(Rule):
    """The workload's kind is one SimAI reads no parallel sizes for: it divides by zero.

    SimAI looks up ``model_parallel_NPU_group``, ``pp`` and the other settings only for ``HYBRID_TRANSFORMER``
    and ``HYBRID_TRANSFORMER_FWD_IN_BCKWD`` (``Workload::initialize_workload``, ``Workload.cc:1172-1191``,
    aliyun/SimAI cef83f9d).  For every other kind - ``DATA``, ``MODEL``, ``MICRO``, the hybrid and DLRM kinds,
    ``HYBRID_CUSTOMIZED``, ``DISTRIBUTED_INFERENCE`` - the members stay unset (``Workload.hh:76-82``), every run
    read 0 from them, and ``Layer::report`` divides by ``tp·pp`` (``Layer.cc:569``): SIGFPE, whatever the
    header says (a ``MICRO`` header with copied keys is no better).  These are ASTRA-sim 1.0's kinds, and the
    file is fine for ASTRA-sim 1.0: a file that shows no key only SimAI reads is judged for ASTRA-sim 1.0
    unless the configuration says otherwise, and AICB's ``MICRO`` micro-tests (``simAI_MicroTest``) share the
    fate of the others.

    Measured: SimAI divides by zero on every such file (the oracle's real ASTRA-sim 1.0 and MICRO files: abort,
    38 of 38; class ``kind_DATA``, a transformer workload relabelled ``DATA``: abort, 11 of 11).

    This is an error for SimAI: it stops with a floating-point exception.

    Why it matters:
        The format is shared with ASTRA-sim 1.0, whose example workloads are of these kinds; SimAI takes
        them and ends with a floating-point exception, not a word about the kind.

    Example:
        ``DATA`` on line 1 (ASTRA-sim 1.0's Resnet50_DataParallel), checked with ``--consumer simai``
        -> kind DATA: SimAI reads model_parallel_NPU_group and pp only for HYBRID_TRANSFORMER and
        HYBRID_TRANSFORMER_FWD_IN_BCKWD (Workload.cc:1172), so it never sets them (Workload.hh:76-78) and
        divides by zero (Layer.cc:569); write a HYBRID_TRANSFORMER_FWD_IN_BCKWD header with AICB's keys
    """

    code = "TL424"
    name = "unsimulated-kind"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR})

    def check_header(self, header: Header) -> Iterator[Violation]:
        if header.parallelism in KINDS and not header.reads_parallel_sizes:
            yield at(
                header,
                f"kind {header.parallelism}: SimAI reads model_parallel_NPU_group and pp only for HYBRID_TRANSFORMER and "
                "HYBRID_TRANSFORMER_FWD_IN_BCKWD (Workload.cc:1172), so it never sets them (Workload.hh:76-78) and divides by zero "
                "(Layer.cc:569); write a HYBRID_TRANSFORMER_FWD_IN_BCKWD header with AICB's keys",
            )
