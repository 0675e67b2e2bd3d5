from collections.abc import Iterator

from lint.formats.simai_workload.records import KINDS, LayerRow
from lint.rule import Rule, Severity, Violation, at, by_consumer


class UnknownLayerParallelism(Rule):
    """A ``HYBRID_CUSTOMIZED`` row's 13th column is not a parallelism kind.

    In a ``HYBRID_CUSTOMIZED`` workload each row ends with the layer's own parallelism (the ASTRA-sim
    1.0 generator writes ``DATA``, ``MODEL``, ``HYBRID_DATA_MODEL`` or ``HYBRID_MODEL_DATA``), which
    ASTRA-sim 1.0 decodes like the workload's kind (``Workload.cc:1395-1405``, ``Workload::initialize_workload``,
    branch ``ASTRA-sim-1.0``).  A word it cannot decode leaves the layer with the workload's own dimensions,
    and ``decode_involved_dimensions`` has none for ``HYBRID_CUSTOMIZED``: the layer's collectives are issued
    over an empty list of dimensions.  Whether the 13th column is there at all - it must be for this kind and
    must not be for any other - is checked by the parser: a row without it, or a 13-column row in another
    kind, is a TL002 column-count finding.

    Measured: ASTRA-sim 1.0 ends with a segmentation fault on the example
    ``sample_per_layer_parallel_HybridCustomized.txt`` with one layer's ``HYBRID_DATA_MODEL`` changed to
    ``MODLE``.  SimAI does not simulate ``HYBRID_CUSTOMIZED`` at all (TL424), so the rule holds for
    ASTRA-sim 1.0 only.

    This is an error: the simulator crashes.

    Why it matters:
        The 13th column is the only reason to write a ``HYBRID_CUSTOMIZED`` workload, and a word the
        simulator cannot decode there ends the simulation.

    Example:
        ``layer_64_2_mlp2 -1 14144 ALLGATHER 147456 ... 1414 MODLE``
        -> layer_64_2_mlp2: 13th column 'MODLE' is no parallelism ASTRA-sim 1.0 decodes: the layer's collectives
        get no dimension and the simulator crashes (Workload.cc:1398; it knows DATA, ...)
    """

    code = "TL404"
    name = "unknown-layer-parallelism"
    formats = ("simai-workload",)
    consumers = by_consumer({"astra-sim-1": Severity.ERROR})

    def check_layer_row(self, row: LayerRow) -> Iterator[Violation]:
        if _unknown(row):
            yield at(
                row,
                f"{row.name}: 13th column '{row.parallelism}' is no parallelism ASTRA-sim 1.0 decodes: the layer's collectives "
                f"get no dimension and the simulator crashes (Workload.cc:1398; it knows {', '.join(sorted(KINDS))})",
            )


def _unknown(row: LayerRow) -> bool:
    return row.parallelism is not None and row.parallelism not in KINDS
