from collections.abc import Iterator

from lint.formats.simai_workload.records import Comm, Header
from lint.formats.simai_workload.rulekit import OncePerLayerComm, simai_decodes
from lint.rule import RuleOptions, Severity, Violation, at, by_consumer

SMALL = 1048576  # from 2 bytes to below this, SimAI's analytical backend takes a fixed latency by group size


class CollectiveOfOneGpu(OncePerLayerComm):
    """A TP collective in a workload whose ``model_parallel_NPU_group`` is 1: SimAI times it as billions of seconds.

    SimAI gives a bare ``ALLREDUCE``, ``ALLGATHER``, ``REDUCESCATTER`` or ``ALLTOALL`` on the forward or
    input-gradient column the tensor-parallel group (``Workload::initialize_workload``, ``Workload.cc:1436-1493``,
    aliyun/SimAI cef83f9d), of ``model_parallel_NPU_group`` GPUs (``Layer.cc:575-578``).  Its analytical backend
    asks for the bus bandwidth of that group (``Layer::compute_time``, ``Layer.cc:977-983``) without the check
    for two or more GPUs the DP and EP groups have (``Layer.cc:985, 997``): for one GPU ``cal_busbw`` warns
    "collective communication requires the participation of at least two gpus" and returns 0
    (``calbusbw.cc:357-359``), and the collective's time is ``size / 0 · (1 - 1)`` - NaN, which the conversion to
    the integer tick turns into about 9.2e18 ns (``Layer.cc:1024-1031``).  Sizes from 2 bytes to 1 MiB take the
    fixed latency of a group of their size instead, which has none for one GPU: no time, as is right
    (``Layer.cc:967-975``).  AICB writes every TP collective as ``NONE`` when tp is 1 but for a MoE layer's
    expert metadata all-gather (``2·ep·experts·tp`` bytes: below 1 MiB), so its own files are spared unless
    edited; hand-made ones are not.

    Measured: SimAI prints the warning and a total time of 5.4e18 ns for an AICB workload (tp 2) with
    ``model_parallel_NPU_group: 1`` (the oracle's held-out real AICB outputs with tp 1: totals of 9e15-4e18).

    This is an error for SimAI: the simulation's result is absurd.

    Why it matters:
        A total of hundreds of years per iteration is easy to spot; a layer report that quietly carries one
        such collective is not.

    Example:
        ``attention_layer -1 1 ALLREDUCE 33554432 ...`` in a workload of ``model_parallel_NPU_group: 1``
        -> attention_layer: fwd_comm_type ALLREDUCE with fwd_comm_size 33554432 in a workload of
        model_parallel_NPU_group: 1: SimAI finds no bus bandwidth for a group of one GPU ("at least two gpus",
        calbusbw.cc:358) and times it NaN, about 9.2e18 ns (Layer.cc:1024-1031) (and 5 more TP collectives of 1
        byte or of 1 MiB and more)
    """

    code = "TL429"
    name = "collective-of-one-gpu"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.ERROR})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.one_gpu = False

    def check_header(self, header: Header) -> Iterator[Violation]:
        self.one_gpu = header.reads_parallel_sizes and header.read("tp") == 1
        return iter(())

    def problem(self, comm: Comm) -> str | None:
        if not self.one_gpu or 1 < comm.size < SMALL or comm.size == 0 or simai_decodes(comm.type, comm.phase)[1] != "TP":
            return None
        return (
            f"{comm} in a workload of model_parallel_NPU_group: 1: SimAI finds no bus bandwidth for a group of one GPU "
            '("at least two gpus", calbusbw.cc:358) and times it NaN, about 9.2e18 ns (Layer.cc:1024-1031)'
        )

    def finish(self) -> Iterator[Violation]:
        """One finding for the file: the header's TP size is the one cause of every such collective."""
        if not self.found:
            return
        first = min(self.found.values(), key=lambda found: found.first.line)
        more = sum(found.rows for found in self.found.values()) - 1
        also = f" (and {more} more TP collective{'s' if more > 1 else ''} of 1 byte or of 1 MiB and more)" if more else ""
        yield at(first.first, f"{first.first.name}: {first.message}{also}")
