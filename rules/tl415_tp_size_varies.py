from collections.abc import Iterator

from lint.models.simai_workload import LayerRow
from lint.rule import Rule, RuleOptions, Severity, Violation, at


class TpSizeVaries(Rule):
    """Rows of one layer name carry TP collectives of different sizes.

    A layer row repeats once per layer instance and micro-batch, and a transformer layer's TP
    collectives move its activation, whose size does not change: every row of one name has the same TP
    collective size, per comm column.  TP collectives are the suffix-less ``ALLREDUCE``, ``ALLGATHER``
    and ``REDUCESCATTER`` of the forward and input-gradient columns.  The forward and input-gradient
    sizes of one row are not compared: MoE dispatch rows legitimately differ there.  Each further size
    is reported once, at its first row.

    This is a warning: SimAI's own micro-benchmark examples reuse one name for probes of different
    sizes (``simai__example__microAllReduce_16g.txt``, ``simai__example__microAllReduce_32g.txt`` and
    ``simai__server__workspaces__default_7807720d-03f__LLaMA-7B-tp8-pp1-dp1-ep1-g8-mpc23gs9.txt``:
    ``embedding_layer`` all-reduces 16777216 then 67108864 bytes), and the simulators accept it.

    Why it matters:
        In a model workload, a layer instance with another activation size was generated from another
        model config (or edited by hand): its TP traffic, usually the largest, is off by that factor.

    Example:
        ``attention_layer -1 1 ALLREDUCE 16777216 ...`` on line 8, ``attention_layer -1 1 ALLREDUCE 33554432 ...``
        on line 40
        -> attention_layer: fwd TP ALLREDUCE of 33554432 bytes; the first attention_layer row (line 8) has
        16777216
    """

    code = "TL415"
    name = "tp-size-varies"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: dict[tuple[str, str], tuple[LayerRow, int]] = {}  # (layer, phase) -> first row, its size
        self.reported: set[tuple[str, str, int]] = set()

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        for comm in row.comms():
            if not comm.is_tp_collective:
                continue
            first, size = self.first.setdefault((row.name, comm.phase), (row, comm.size))
            key = (row.name, comm.phase, comm.size)
            if comm.size != size and key not in self.reported:
                self.reported.add(key)
                yield at(
                    row,
                    f"{row.name}: {comm.phase} TP {comm.type} of {comm.size} bytes; the first {row.name} row "
                    f"(line {first.line}) has {size}",
                )
