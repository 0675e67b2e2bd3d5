from collections.abc import Iterator

from lint.models.neusight_tsv import LayerRecord
from lint.rule import Rule, Severity, Violation, at


class AllZeroRow(Rule):
    """A layer row has every time 0 and no comm.

    The writer only writes rows with some compute time or comm size: a layer that takes no time and
    moves nothing is left out.  Even a tiny predicted time counts (seed 003's ``getitem`` rows take
    ``4.791370158793459e-09`` ms, an 8-byte memory op).  A comm type with size 0 is TL301's finding, and
    a gradient row without its all-reduce TL304's.

    Why it matters:
        An all-zero row is a layer whose values were lost (a failed prediction written as zeros, a
        truncated copy): the simulator runs it as free, and the step time it reports is too short.

    Example:
        ``getitem_4  0.0  None  0  0.0  None  0  0.0  None  0  0``
        -> getitem_4 has every time 0 and no comm; the writer only writes rows with some compute time or comm
        size
    """

    code = "TL306"
    name = "all-zero-row"
    severity = Severity.ERROR
    formats = ("neusight-tsv",)

    def check_layer(self, row: LayerRecord) -> Iterator[Violation]:
        if row.grad_of is not None:
            return
        times = (row.forward_compute_time, row.backward_compute_time, row.weight_grad_compute_time, row.process_time)
        comms = (row.forward_comm_type, row.forward_comm_size, row.backward_comm_type, row.backward_comm_size,
                 row.weight_grad_comm_type, row.weight_grad_comm_size)
        if not any(times) and not any(comms):
            yield at(row, f"{row.name} has every time 0 and no comm; the writer only writes rows with some compute time or comm size")
