from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.formats.simai_workload.rulekit import quotient
from lint.rule import Rule, Severity, Violation, at


class IndivisibleGpuCount(Rule):
    """``all_gpus`` does not split into tensor-, pipeline- and expert-parallel groups.

    A job's GPUs form a grid: ``all_gpus = tp · pp · dp`` (SimAI derives ``dp = all_gpus / (tp·pp)``),
    and expert-parallel groups split the data-parallel ranks, so ``dp`` is a multiple of ``ep``.
    Megatron refuses any other configuration, and AICB derives the header from one.  Checked when the
    header has all of ``model_parallel_NPU_group``, ``pp`` and ``all_gpus`` (and ``ep``), none of them 0,
    and only for the two transformer kinds: SimAI reads these keys for no other kind
    (``Workload::initialize_workload``), so in a ``MICRO`` or ``DATA`` header they divide nothing.

    Why it matters:
        SimAI's integer division drops the remainder: it simulates fewer GPUs than the header says, or
        expert groups that straddle data-parallel ones - the simulated traffic is not that of any job.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 4 ... all_gpus: 500 ...``
        -> all_gpus: 500 is not a multiple of model_parallel_NPU_group · pp = 8 · 4 = 32: SimAI's
        data-parallel size all_gpus / (tp·pp) would be 15.625
    """

    code = "TL412"
    name = "indivisible-gpu-count"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        tp, pp, ep, gpus = (header.read(name) for name in ("tp", "pp", "ep", "all_gpus"))
        if not (header.reads_parallel_sizes and tp and pp and gpus):
            return
        if gpus % (tp * pp):
            yield at(
                header,
                f"all_gpus: {gpus} is not a multiple of model_parallel_NPU_group · pp = {tp} · {pp} = {tp * pp}: "
                f"SimAI's data-parallel size all_gpus / (tp·pp) would be {quotient(gpus, tp * pp)}",
            )
        elif ep and gpus // (tp * pp) % ep:
            yield at(
                header,
                f"the data-parallel size all_gpus / (tp·pp) = {gpus} / {tp * pp} = {gpus // (tp * pp)} is not a multiple "
                f"of ep: {ep}: expert-parallel groups split the data-parallel ranks",
            )
