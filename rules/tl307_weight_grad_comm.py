from collections.abc import Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.neusight_tsv.rulekit import NeusightRowMessages, Said
from lint.rule import Severity


class WeightGradComm(NeusightRowMessages):
    """A row has a weight-grad comm; this writer leaves ``weight_grad_comm_type`` ``None``.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``: ``to_work_item`` always writes ``weight_grad_comm_type="None"``, size 0.

    The writer puts each layer's gradient all-reduce on its own ``X_grad`` row (as a backward comm) and
    writes ``None`` with size ``0`` in the weight-grad comm columns of every row.  A ``None`` with a
    size is TL301's finding.

    This is a warning: the columns exist for writers that attach the gradient all-reduce to the
    weight-gradient computation, and a table from such a writer legitimately fills them.

    Why it matters:
        In a table from this writer that also has ``_grad`` rows, a weight-grad comm all-reduces the
        same gradient a second time, doubling the simulated data-parallel traffic of that layer.

    Example:
        ``addmm  9.98  None  0  0.0  None  0  0.0  ALLREDUCE_ASYNC  4919040  0``
        -> addmm has a weight-grad ALLREDUCE_ASYNC comm of 4919040 elements; this writer all-reduces
        gradients on _grad rows and leaves the weight-grad comm None
    """

    code = "TL307"
    name = "weight-grad-comm"
    severity = Severity.WARNING
    formats = ("neusight-tsv",)

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        if row.weight_grad_comm_type is not None:
            yield (
                "weight_grad_comm_type",
                f"{row.name} has a weight-grad {row.weight_grad_comm_type} comm of {row.weight_grad_comm_size} elements; "
                "this writer all-reduces gradients on _grad rows and leaves the weight-grad comm None",
            )
