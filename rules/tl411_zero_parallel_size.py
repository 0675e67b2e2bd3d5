from collections.abc import Iterator

from lint.formats.simai_workload.records import SETTING_KEYS
from lint.formats.simai_workload.rulekit import TransformerHeader
from lint.rule import Severity, Violation, at, by_consumer

# Header field -> what it counts.
PARALLEL_SIZES = {"tp": "the tensor-parallel size", "pp": "the pipeline-parallel size", "ep": "the expert-parallel size"}


class ZeroParallelSize(TransformerHeader):
    """``model_parallel_NPU_group`` or ``pp`` is 0 in the header, or ``ep`` is 0 in a workload with expert collectives.

    SimAI reads these keys for the two transformer kinds with ``std::stoi`` (``Workload::initialize_workload``,
    ``Workload.cc:1177-1184``, aliyun/SimAI cef83f9d) and its analytical backend divides by them
    (``Layer::report``): the data-parallel size is ``all_gpus / (tp·pp)`` (``Layer.cc:569``: SIGFPE), a
    ``_DP_EP`` collective's group ``dp / ep`` (``Layer.cc:581``: SIGFPE), and an ``_EP`` collective gets a group
    of ``ep`` GPUs, which takes no time when it has fewer than two (``Layer.cc:575-578, 985``).  SimAI first
    prints "Input workload format mismatch" (``Workload.cc:1266-1269``) and goes on.  ``ep: 0`` in a workload
    without expert collectives only makes SimAI warn (TL413), ``all_gpus: 0`` too (the analytical backend
    divides the ``-g`` option instead, ``Layer.cc:569``).  ``ga`` and ``vpp`` are TL421's, a value that only
    reads as 0 (``pp: 0.5``) TL425's, a missing key TL410's; other kinds are TL424's.  AICB writes these keys
    from the job's sizes, never 0.

    Measured (oracle classes ``tp_zero``, ``pp_zero``: abort, 22 of 22; ``ep_zero``: abort or no time wherever
    the file has expert collectives, 10 of 11).  ASTRA-sim 1.0 reads none of these keys.

    This is an error for SimAI: it stops with a floating-point exception, or simulates the expert collectives
    without their time.

    Why it matters:
        A zero size describes a job that cannot exist: the workload cannot be simulated.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 0 ...``
        -> pp: 0, expected > 0 (the pipeline-parallel size): SimAI divides by zero (Layer.cc:569: all_gpus /
        (tp·pp))
    """

    code = "TL411"
    name = "zero-parallel-size"
    formats = ("simai-workload",)
    aliases = ("zero-header-number",)
    consumers = by_consumer({"simai": Severity.ERROR})

    def finish(self) -> Iterator[Violation]:
        header = self.header
        if header is None:
            return
        for name, meaning in PARALLEL_SIZES.items():
            if getattr(header, name) != 0:  # 0 as written; None (missing) is TL410's
                continue
            effect = "divides by zero (Layer.cc:569: all_gpus / (tp·pp))" if name != "ep" else self.expert_effect()
            if effect is not None:
                yield at(header, f"{SETTING_KEYS[name]}: {getattr(header, name)}, expected > 0 ({meaning}): SimAI {effect}")
