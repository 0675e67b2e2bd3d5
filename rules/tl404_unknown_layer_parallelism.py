from collections.abc import Iterator

from lint.formats.simai_workload.records import KINDS, LayerRow
from lint.rule import Rule, Severity, Violation, at


class UnknownLayerParallelism(Rule):
    """A ``HYBRID_CUSTOMIZED`` row's 13th column is not a parallelism kind.

    In a ``HYBRID_CUSTOMIZED`` workload each row ends with the layer's own parallelism (the ASTRA-sim
    1.0 generator writes ``DATA``, ``MODEL``, ``HYBRID_DATA_MODEL`` or ``HYBRID_MODEL_DATA``), which
    the simulator decodes like the workload's kind.  Whether the 13th column is there at all - it must be
    for this kind and must not be for any other - is checked by the parser: a row without it, or a
    13-column row in another kind, is a TL002 column-count finding.

    This is a warning: the row still reads; the column just decodes to no parallelism, so the layer gets
    none of its own.

    Why it matters:
        The 13th column is the only reason to write a ``HYBRID_CUSTOMIZED`` workload: a layer whose
        parallelism does not decode is simulated on other dimensions than the ones it was written for.

    Example:
        ``layer_64_2_mlp2 -1 14144 ALLGATHER 147456 ... 1414 MODLE``
        -> layer_64_2_mlp2: 13th column 'MODLE' is not a parallelism kind, so the layer gets no
        parallelism of its own (known kinds: DATA, ...)
    """

    code = "TL404"
    name = "unknown-layer-parallelism"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        if _unknown(row):
            yield at(
                row,
                f"{row.name}: 13th column '{row.parallelism}' is not a parallelism kind, so the layer gets no "
                f"parallelism of its own (known kinds: {', '.join(sorted(KINDS))})",
            )


def _unknown(row: LayerRow) -> bool:
    return row.parallelism is not None and row.parallelism not in KINDS
