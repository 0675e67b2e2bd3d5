from collections.abc import Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.neusight_tsv.rulekit import NeusightRowMessages, Said
from lint.rule import Severity


class NonzeroProcessTime(NeusightRowMessages):
    """A row has a ``process_time`` other than 0; this writer always writes 0.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``: ``Work_Item.process_time`` keeps its default 0.

    This is a warning: the column is there for writers that measure a per-layer processing overhead,
    and their tables legitimately fill it.

    Why it matters:
        Consumers add ``process_time`` to the layer's compute; in a table from this writer a non-zero
        value is not a measurement but a shifted or hand-edited column, and it lengthens the simulated
        step.

    Example:
        ``addmm  9.9808843806386  None  0  0.0  None  0  0.0  None  0  9.98``
        -> addmm has process_time 9.98; this writer always writes 0
    """

    code = "TL308"
    name = "nonzero-process-time"
    severity = Severity.WARNING
    formats = ("neusight-tsv",)

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        if row.process_time:
            yield "process_time", f"{row.name} has process_time {row.process_time}; this writer always writes 0"
