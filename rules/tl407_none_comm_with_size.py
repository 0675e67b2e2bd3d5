from lint.formats.simai_workload.records import Comm
from lint.formats.simai_workload.rulekit import AicbOnly, OncePerLayerComm, reader
from lint.rule import Severity, by_consumer


class NoneCommWithSize(AicbOnly, OncePerLayerComm):
    """A ``NONE`` comm column has a non-zero size, in a file that does not come from AICB.

    ``NONE`` means no communication.  Both consumers ignore the size next to it: SimAI
    (``Workload::initialize_workload``, ``Workload.cc:1436-1493``) and ASTRA-sim 1.0 (``Workload.cc:1355-1392``)
    give a type they do not map ``ComType::None``, whatever its size, and no time (SimAI's
    ``Layer::compute_time``, ``Layer.cc:950-951``).  Measured: SimAI simulates such a file as written (oracle
    class ``none_with_size``: fine, 11 of 11 runs that got past the header).  AICB leaves sizes
    next to ``NONE`` on purpose: its path without measured compute times
    (``SIMAI_workload.workload_generate``) keeps the TP activation size on sequence-parallel rows whose
    comm it set to ``NONE`` (``embedding_layer`` forward and input gradient, the input gradient of every
    ``*_row``), and only the AIOB path zeroes them.  So files whose header shows they come from AICB
    (TL410 describes the header) are not checked.  A comm column and type is reported once, at its first row, with the rows and other layers that repeat it.

    This is information for both consumers: they ignore the size, so nothing is mis-simulated; in a
    hand-made file the size may still tell of a comm type that was lost.

    Why it matters:
        A size next to ``NONE`` in a hand-written workload is traffic its author computed and the
        simulation drops: either the comm type was lost or the size is stale.

    Example:
        ``attention_row -1 1 REDUCESCATTER 16777216 1 NONE 16777216 1 NONE 0 100``, twice, in an ASTRA-sim file
        -> attention_row: ig_comm_type NONE with ig_comm_size 16777216: ASTRA-sim 1.0 reads NONE as no
        communication and ignores these bytes (and 1 more attention_row rows)
    """

    code = "TL407"
    name = "none-comm-with-size"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.INFO, "astra-sim-1": Severity.INFO})

    def problem(self, comm: Comm) -> str | None:
        if self.from_aicb or comm.type != "NONE" or comm.size == 0:
            return None
        return f"{comm}: {reader(self.consumer)} reads NONE as no communication and ignores these bytes"
