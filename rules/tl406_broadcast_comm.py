from lint.models.simai_workload import Comm
from lint.rule import Severity
from lint.rulekit import OncePerLayerComm


class BroadcastComm(OncePerLayerComm):
    """A row communicates with ``BROADCAST``, which SimAI and ASTRA-sim 1.0 do not simulate.

    Older AICB versions wrote a ``BROADCAST`` (e.g. the ``norm`` row of
    ``aicb__workload__simAI__model_workload__G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt``:
    ``BROADCAST 16384``); both simulators treat any type but the collectives as no communication.
    A layer that repeats is reported once, at its first row.

    This is information: the file is valid and real, but the bytes it lists are not simulated.

    Why it matters:
        Whoever reads the workload sees a broadcast that the simulated iteration does not contain.

    Example:
        ``norm -1 0 BROADCAST 16384 1 NONE 0 1 NONE 0 100``
        -> norm: fwd_comm_type BROADCAST with fwd_comm_size 16384: SimAI and ASTRA-sim simulate no
        communication for BROADCAST
    """

    code = "TL406"
    name = "broadcast-comm"
    severity = Severity.INFO
    formats = ("simai-workload",)

    def problem(self, comm: Comm) -> str | None:
        if comm.type != "BROADCAST":
            return None
        return f"{comm}: SimAI and ASTRA-sim simulate no communication for BROADCAST"
