from lint.formats.simai_workload.records import GROUP_SUFFIXES, Comm
from lint.formats.simai_workload.rulekit import OncePerLayerComm
from lint.rule import Severity


class UnknownCommGroup(OncePerLayerComm):
    """A collective's suffix selects no communication group in SimAI.

    SimAI reads a comm type by its prefix (``ALLREDUCE``, ``ALLGATHER``, ``REDUCESCATTER``,
    ``ALLTOALL``) and picks the group from what follows: nothing -> the tensor-parallel group on the
    forward and input-gradient columns, the data-parallel group on the weight-gradient column; ``_EP``
    -> the expert-parallel group; ``_DP_EP`` -> data x expert parallel.  Any other suffix (``_ASYNC``,
    ``_TP``) gives the collective no group.  ASTRA-sim 1.0's bare ``ALLREDUCEALLTOALL`` is not flagged.
    A comm column and type is reported once, at its first row, with the rows and other layers that repeat it.

    This is a warning: SimAI reads the file, but simulates the collective without the group it was
    meant for.

    Why it matters:
        The writer meant a collective over some group; without one its bytes do not cross the links
        they should, and the simulated time of that layer's communication is wrong.

    Example:
        ``grad_sync -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_ASYNC 1048576 100``, twice
        -> grad_sync: wg_comm_type ALLREDUCE_ASYNC with wg_comm_size 1048576: SimAI gives suffix '_ASYNC'
        no group (it knows only no suffix, _EP and _DP_EP) (and 1 more grad_sync rows)
    """

    code = "TL405"
    name = "unknown-comm-group"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def problem(self, comm: Comm) -> str | None:
        if comm.family is None or comm.suffix in GROUP_SUFFIXES:
            return None
        return f"{comm}: SimAI gives suffix '{comm.suffix}' no group (it knows only no suffix, _EP and _DP_EP)"
