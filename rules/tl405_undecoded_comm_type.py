from lint.formats.simai_workload.records import Comm
from lint.formats.simai_workload.rulekit import OncePerLayerComm, astra_sim_1_decodes, simai_decodes
from lint.rule import Severity, by_consumer

SMALL = 1048576  # below this many bytes (and above 1) SimAI's analytical backend times a collective by its group's size


class UndecodedCommType(OncePerLayerComm):
    """A comm column names a type its consumer does not decode as the collective and group written.

    SimAI (``Workload::initialize_workload``, ``Workload.cc:1320-1493``, aliyun/SimAI cef83f9d) decodes a type by
    its prefix - ``ALLREDUCE``, ``ALLTOALL``, ``ALLGATHER``, ``REDUCESCATTER`` (``ALLREDUCEALLTOALL`` starts with
    ``ALLREDUCE``, which is tested first) - and picks the group from the whole word: the bare family is the TP
    group on the forward and input-gradient columns and the DP group on the weight-gradient column,
    ``_EP`` the expert group, ``_DP_EP`` data × expert; any other word of a family (``ALLREDUCE_ASYNC``,
    ``ALLREDUCEALLTOALL``) gets no group, and any other type (``BROADCAST``, ``allreduce``, ``ALGATHER``) is
    ``ComType::None``.  Its analytical backend then gives a collective of no type no time
    (``Layer::compute_time``, ``Layer.cc:950-951``), and one of no group no time either (``Layer.cc:1017-1019``),
    except between 2 bytes and 1 MiB, where the fixed latency of the default group's size is taken
    (``Layer.cc:967-975``), as for the bare family.  ASTRA-sim 1.0 (``Workload.cc:1355-1392``, branch
    ``ASTRA-sim-1.0``) knows exactly the five names ``ALLREDUCE``, ``ALLTOALL``, ``ALLREDUCEALLTOALL``,
    ``ALLGATHER``, ``REDUCESCATTER``; any other type, suffixed ones included, is no communication.  ``NONE`` is
    no communication on purpose; a type of 0 bytes moves nothing either way (TL408).  A comm column and type is
    reported once, at its first row, with the rows and other layers that repeat it.

    Measured: SimAI gives the collective no time (oracle classes ``comm_broadcast``, ``comm_lowercase``,
    ``comm_typo``, ``comm_suffix_unknown``: wrong, 44 of 44 runs that got past the header); ASTRA-sim 1.0 loses
    the collective's time on ``ALLREDUCE_EP``, ``allreduce`` and ``BROADCAST`` alike (Resnet50_DataParallel:
    32515258 cycles instead of 32559138).

    This is an error for both consumers: the simulated iteration lacks communication the file names.

    Why it matters:
        Whoever reads the workload sees a collective that the simulated iteration does not contain, or
        runs over another group than written.

    Example:
        ``norm -1 0 BROADCAST 16384 1 NONE 0 1 NONE 0 100``
        -> norm: fwd_comm_type BROADCAST with fwd_comm_size 16384: SimAI decodes BROADCAST as no collective
        (Workload.cc:1436-1493), so these bytes take no time
    """

    code = "TL405"
    name = "undecoded-comm-type"
    formats = ("simai-workload",)
    aliases = ("unknown-comm-group", "TL406", "broadcast-comm")
    consumers = by_consumer({"simai": Severity.ERROR, "astra-sim-1": Severity.ERROR})

    def problem(self, comm: Comm) -> str | None:
        if comm.type == "NONE" or comm.size == 0:
            return None
        if self.consumer == "astra-sim-1":
            if astra_sim_1_decodes(comm.type):
                return None
            return f"{comm}: ASTRA-sim 1.0 knows only ALLREDUCE, ALLTOALL, ALLREDUCEALLTOALL, ALLGATHER and REDUCESCATTER (Workload.cc:1355-1392), so these bytes take no time"
        family, group = simai_decodes(comm.type, comm.phase)
        if family is None:
            return f"{comm}: SimAI decodes {comm.type} as no collective (Workload.cc:1436-1493), so these bytes take no time"
        if group is not None:
            return None
        if 1 < comm.size < SMALL:
            timed = f"below 1 MiB the collective takes the fixed latency of the default group's size (Layer.cc:967), as a bare {family} would"
        else:
            timed = "the collective takes no time (Layer.cc:1018)"
        return f"{comm}: SimAI gives {comm.type} no group (it knows no suffix, _EP and _DP_EP): {timed}"
