from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.formats.simai_workload.rulekit import LayerRowTally, quotient
from lint.rule import RuleOptions, Severity, Violation, at, by_consumer


class PpCommSize(LayerRowTally):
    """``pp_comm`` is not the size of the activation the TP collectives move.

    A pipeline stage sends the next one its activation, ``2·mbs·seq·hidden`` bytes - the size AICB also
    gives every transformer layer's forward TP collective; under sequence parallelism AICB divides
    ``pp_comm`` by tp.  So with ``pp > 1`` and ``pp_comm > 0``, ``pp_comm`` is the TP activation size or
    that size ÷ ``model_parallel_NPU_group``.  The TP activation size is the forward size most TP
    collectives of repeated layers carry (more than half of them; otherwise nothing is checked).  With one
    TP rank (``model_parallel_NPU_group: 1``) AICB writes no TP activation collective, so nothing is checked.

    AICB writes ``pp_comm`` from the same ``2·micro_batch·seq_length·hidden_size`` as ``tp_comm_size``
    (aliyun/aicb ``SIMAI_workload.dump_file``), divided by tp with sequence parallelism.

    Checked only in files whose header shows they come from AICB (kind ``HYBRID_TRANSFORMER_FWD_IN_BCKWD``,
    ``model_parallel_NPU_group`` first, only AICB's keys, ``checkpoints: 0 checkpoint_initiates: 0``):
    hand-made and ASTRA-sim workloads owe nothing to AICB's formulas.

    This is a warning for SimAI: it times the pipeline sends from whatever ``pp_comm`` says
    (``Layer::report``, ``Layer.cc:734``), and seed 004 breaks it (``pp_comm: 20971520`` = 2·1·2048·5120 while its TP rows
    move 33554432 = 2·1·2048·8192): one of the two comes from another model config, and tlint cannot
    tell which.

    Why it matters:
        Either the pipeline sends or the TP collectives are simulated with another model's activation:
        the p2p traffic of every stage boundary, or the TP traffic of every layer, is off by the ratio of
        the two sizes.

    Example:
        seed 004: ``pp: 4 ... pp_comm: 20971520`` and ``attention_norm ... ALLREDUCE 33554432 ...``
        -> pp_comm: 20971520 is neither the TP activation size 33554432 (2·mbs·seq·hidden, carried by 24
        forward TP collectives of repeated layers, first attention_norm on line 8) nor that size ÷
        model_parallel_NPU_group 8 = 4194304 (sequence parallelism)
    """

    code = "TL414"
    name = "pp-comm-size"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.header: Header | None = None

    def check_header(self, header: Header) -> Iterator[Violation]:
        self.header = header
        return iter(())

    def finish(self) -> Iterator[Violation]:
        header = self.header
        if header is None or not header.from_aicb or (header.read("pp") or 0) <= 1 or (activation := self.tally.activation_size(header.read("tp"))) is None:
            return
        pp_comm, tp = header.read("pp_comm"), header.read("tp") or 1
        if not pp_comm or pp_comm == activation.size or pp_comm * tp == activation.size:
            return
        sharded = f" nor that size ÷ model_parallel_NPU_group {tp} = {quotient(activation.size, tp)} (sequence parallelism)" if tp > 1 else ""
        yield at(header, f"pp_comm: {header.pp_comm} is neither {activation}{sharded}")
