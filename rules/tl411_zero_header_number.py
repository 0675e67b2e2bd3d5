from collections.abc import Iterator

from lint.models.simai_workload import SETTING_KEYS, Header
from lint.rule import Rule, Severity, Violation, at

# Header field -> what it counts.
MEANINGS = {
    "tp": "the tensor-parallel size",
    "ep": "the expert-parallel size",
    "pp": "the pipeline-parallel size",
    "vpp": "AICB's layers per pipeline stage, num_layers // pp",
    "ga": "the gradient-accumulation steps, global_batch / (mbs·dp) floored",
    "all_gpus": "the number of GPUs",
}


class ZeroHeaderNumber(Rule):
    """A header setting that counts something is 0.

    ``model_parallel_NPU_group``, ``ep``, ``pp``, ``vpp``, ``ga`` and ``all_gpus`` count GPUs, layers
    or steps; SimAI reads them as integers (``0.5`` reads as 0).  ``pp_comm: 0`` is TL413's business.

    This is a warning: SimAI only warns ("Input workload format mismatch"), and real files break it:
    ``ngcs-simai__workloads__None-gpt_7B-world_size128-tp4-pp1-ep1-gbs16-mbs1-seq2048-...txt`` has
    ``ga: 0`` - a global batch of 16 over 32 data-parallel ranks floors to 0 micro-batches - and then no
    transformer layer rows at all.

    Why it matters:
        A zero size describes a job that cannot exist; a workload with ``ga: 0`` simulates an
        iteration without a single micro-batch, only the gradient synchronisation.

    Example:
        ``... pp: 1 vpp: 36 ga: 0 all_gpus: 128 ...``
        -> ga: 0, expected > 0 (the gradient-accumulation steps, global_batch / (mbs·dp) floored): SimAI
        warns "Input workload format mismatch"
    """

    code = "TL411"
    name = "zero-header-number"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        for name, meaning in MEANINGS.items():
            if header.read(name) == 0:
                yield at(header, f"{SETTING_KEYS[name]}: {getattr(header, name)}, expected > 0 ({meaning}): SimAI warns \"Input workload format mismatch\"")
