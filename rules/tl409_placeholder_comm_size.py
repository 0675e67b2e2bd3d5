from lint.formats.simai_workload.records import Comm
from lint.formats.simai_workload.rulekit import OncePerLayerComm
from lint.rule import Severity, by_consumer


class PlaceholderCommSize(OncePerLayerComm):
    """A collective moves 1 byte: a placeholder, not a tensor size.

    Writers put ``1`` where they have no value - AICB does so for compute times it did not measure, and
    seed 004 has ``grad_gather ... ALLGATHER 1``, the gradient all-gather of a model whose gradient
    reduce-scatter moves 6236471296 bytes.  A comm column and type is reported once, at its first row, with the rows and other layers that repeat it.

    The consumers simulate the byte as written: SimAI's analytical backend times sizes of 2 bytes to 1 MiB by a
    fixed latency and every other size by its bytes (``Layer::compute_time``, ``Layer.cc:967-1031``), so one
    byte costs next to nothing; the oracle class ``comm_one_byte`` is fine for SimAI (11 of 11 runs that got
    past the header).

    This is information for both consumers: the file is valid, but the collective costs next to nothing.

    Why it matters:
        A 1-byte collective where a tensor should move hides that traffic from the simulation; rules
        that compare sizes (TL418) skip placeholders, so this is where they show.

    Example:
        ``grad_gather -1 1 NONE 0 8568000 NONE 0 1 ALLGATHER 1 100``
        -> grad_gather: wg_comm_type ALLGATHER with wg_comm_size 1: a 1-byte placeholder, not a tensor size
    """

    code = "TL409"
    name = "placeholder-comm-size"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.INFO, "astra-sim-1": Severity.INFO})

    def problem(self, comm: Comm) -> str | None:
        if comm.family is None or comm.size != 1:
            return None
        return f"{comm}: a 1-byte placeholder, not a tensor size"
