from lint.formats.simai_workload.records import Comm
from lint.formats.simai_workload.rulekit import OncePerLayerComm
from lint.rule import Severity


class BroadcastComm(OncePerLayerComm):
    """A row communicates with ``BROADCAST``, a comm type SimAI and ASTRA-sim 1.0 do not know.

    SimAI (``Workload::initialize_workload``, ``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``)
    knows the types that start with ``ALLREDUCE``, ``ALLTOALL``, ``ALLREDUCEALLTOALL``, ``ALLGATHER``
    and ``REDUCESCATTER``; ASTRA-sim 1.0 (same function, branch ``ASTRA-sim-1.0``) knows exactly those
    five names.  Any other type leaves the layer with ``ComType::None``: no communication.  Early AICB
    versions wrote a ``norm`` row with ``BROADCAST``; today's generator has that row commented out
    (``SIMAI_workload.workload_generate``).  A comm column and type is reported once, at its first row, with the rows and other layers that repeat it.

    This is an error: the consumer silently drops the bytes the row says are moved, so the simulated
    iteration lacks that communication.

    Why it matters:
        Whoever reads the workload sees a broadcast that the simulated iteration does not contain.

    Example:
        ``norm -1 0 BROADCAST 16384 1 NONE 0 1 NONE 0 100``
        -> norm: fwd_comm_type BROADCAST with fwd_comm_size 16384: SimAI and ASTRA-sim do not know
        BROADCAST and simulate no communication for it
    """

    code = "TL406"
    name = "broadcast-comm"
    severity = Severity.ERROR
    formats = ("simai-workload",)

    def problem(self, comm: Comm) -> str | None:
        if comm.type != "BROADCAST":
            return None
        return f"{comm}: SimAI and ASTRA-sim do not know BROADCAST and simulate no communication for it"
