from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.formats.simai_workload.rulekit import quotient
from lint.rule import Rule, Severity, Violation, at, by_consumer


class IndivisibleGpuCount(Rule):
    """``all_gpus`` does not split into tensor-, pipeline- and expert-parallel groups.

    A job's GPUs form a grid: ``all_gpus = tp · pp · dp``, and expert-parallel groups split the data-parallel
    ranks, so ``dp`` is a multiple of ``ep``.  Megatron refuses any other configuration, and AICB writes the
    header from one (``SIMAI_workload.dump_file``): a header that breaks it was edited, or written for another
    job.  SimAI reads ``all_gpus:`` for the transformer kinds (``Workload.cc:1190``, aliyun/SimAI cef83f9d) but
    its analytical backend only checks it for 0 (``Workload.cc:1267``): the data-parallel size it simulates is
    the ``-g`` option divided by tp·pp (``Layer::report``, ``Layer.cc:569``); only the NS3 backend's
    per-layer report divides the header's value (``Layer.cc:359``).  Checked when the header has all of
    ``model_parallel_NPU_group``, ``pp`` and ``all_gpus`` (and ``ep``), none of them 0, and only for the two
    transformer kinds.

    Measured (oracle class ``all_gpus_indivisible``: fine, 11 of 11): SimAI simulates the file as written.

    This is a warning for SimAI: the writer's guarantee is broken, with no effect on the analytical simulation.

    Why it matters:
        The header describes no job that exists: the ``-g`` given to SimAI, or the header, is not the job
        the workload was generated for.

    Example:
        ``HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 4 ... all_gpus: 500 ...``
        -> all_gpus: 500 is not a multiple of model_parallel_NPU_group · pp = 8 · 4 = 32 (the data-parallel
        size would be 15.625): no job has this layout; SimAI simulates the -g option's GPUs instead
        (Layer.cc:569)
    """

    code = "TL412"
    name = "indivisible-gpu-count"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def check_header(self, header: Header) -> Iterator[Violation]:
        tp, pp, ep, gpus = (header.read(name) for name in ("tp", "pp", "ep", "all_gpus"))
        if not (header.reads_parallel_sizes and tp and pp and gpus):
            return
        if gpus % (tp * pp):
            yield at(
                header,
                f"all_gpus: {gpus} is not a multiple of model_parallel_NPU_group · pp = {tp} · {pp} = {tp * pp} (the data-parallel "
                f"size would be {quotient(gpus, tp * pp)}): no job has this layout; SimAI simulates the -g option's GPUs instead (Layer.cc:569)",
            )
        elif ep and gpus // (tp * pp) % ep:
            yield at(
                header,
                f"the data-parallel size all_gpus / (tp·pp) = {gpus} / {tp * pp} = {gpus // (tp * pp)} is not a multiple "
                f"of ep: {ep}: expert-parallel groups split the data-parallel ranks; SimAI simulates the -g option's GPUs instead (Layer.cc:569)",
            )
