from lint.models.simai_workload import Comm
from lint.rule import Severity
from lint.rulekit import OncePerLayerComm


class NoneCommWithSize(OncePerLayerComm):
    """A ``NONE`` comm column has a non-zero size.

    ``NONE`` means no communication, and the size next to it should be 0.  A layer that repeats is
    reported once, at its first row, with the number of rows alike.

    This is a warning: real files break it, and the simulators ignore the size.  AICB's path without
    measured compute times leaves sizes next to ``NONE`` (``simai__example__workload_gpt7b_64g.txt``:
    ``embedding_layer`` forward and input gradient, and the input gradient of every ``attention_row`` and
    ``mlp_row``, ``NONE 16777216``).

    Why it matters:
        A size next to ``NONE`` is traffic the writer computed and the simulation drops: either the
        comm type was lost (a sequence-parallel all-gather written as ``NONE``) or the size is stale.

    Example:
        ``attention_row -1 1 REDUCESCATTER 16777216 1 NONE 16777216 1 NONE 0 100``
        -> attention_row: ig_comm_type NONE with ig_comm_size 16777216, expected 0: NONE moves nothing, so
        these bytes are not simulated (and 255 more attention_row rows)
    """

    code = "TL407"
    name = "none-comm-with-size"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def problem(self, comm: Comm) -> str | None:
        if comm.type != "NONE" or comm.size == 0:
            return None
        return f"{comm}, expected 0: NONE moves nothing, so these bytes are not simulated"
