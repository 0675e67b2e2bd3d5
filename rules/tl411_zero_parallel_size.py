from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS, Header
from lint.rule import Rule, Severity, Violation, at

# Header field -> what it counts, and what SimAI does with a 0 (astra-sim-alibabacloud/astra-sim/).
PARALLEL_SIZES = {
    "tp": ("the tensor-parallel size", "divides all_gpus by tp·pp (workload/Layer.cc, Layer::report)"),
    "pp": ("the pipeline-parallel size", "divides all_gpus by tp·pp (workload/Layer.cc, Layer::report)"),
    "ep": ("the expert-parallel size", "divides the data-parallel size by ep (system/Sys.cc, Sys::mock_nccl_grobal_group_init)"),
    "all_gpus": ("the number of GPUs", "derives a data-parallel size of 0 from it (workload/Layer.cc, Layer::report)"),
}


class ZeroParallelSize(Rule):
    """A parallel size in the header is 0: ``model_parallel_NPU_group``, ``pp``, ``ep`` or ``all_gpus``.

    SimAI reads these keys from the header of the transformer kinds (``Workload::initialize_workload``
    in ``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``; for other kinds they have no effect and
    are not checked) as integers - ``0.5`` reads as 0 - and divides by them: the data-parallel size is
    ``all_gpus / (tp·pp)`` (``Layer::report``), the expert groups ``dp / ep``
    (``Sys::mock_nccl_grobal_group_init``).  AICB writes them from the job's sizes, never 0.  ``ga`` and
    ``vpp`` are TL421's business, ``pp_comm`` TL413's.

    This is an error: an integer division by zero stops SimAI, and ``all_gpus: 0`` leaves no
    data-parallel rank to simulate.  SimAI itself only prints "Input workload format mismatch" first.

    Why it matters:
        A zero size describes a job that cannot exist: the workload cannot be simulated.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 0.5 ...``
        -> pp: 0.5, expected > 0 (the pipeline-parallel size): SimAI divides all_gpus by tp·pp
        (workload/Layer.cc, Layer::report)
    """

    code = "TL411"
    name = "zero-parallel-size"
    severity = Severity.ERROR
    formats = ("simai-workload",)
    aliases = ("zero-header-number",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        if not header.reads_parallel_sizes:
            return
        for name, (meaning, effect) in PARALLEL_SIZES.items():
            if header.read(name) == 0:
                yield at(header, f"{SETTING_KEYS[name]}: {getattr(header, name)}, expected > 0 ({meaning}): SimAI {effect}")
