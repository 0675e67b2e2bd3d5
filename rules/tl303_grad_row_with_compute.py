from collections.abc import Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.formats.neusight_tsv.rulekit import NeusightRowMessages, Said
from lint.rule import Severity

_COMPUTE_TIMES = ("forward_compute_time", "backward_compute_time", "weight_grad_compute_time")


class GradRowWithCompute(NeusightRowMessages):
    """A gradient row (``X_grad``) has a non-zero compute time.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``: ``set_comm`` zeroes all three latencies of ``allreduce`` ops.

    This is an error: the writer guarantees the zeros.

    A gradient row stands for the all-reduce of a layer's gradient and nothing else: the writer sets its
    forward, backward and weight-grad compute times to ``0``; the layer's compute is on the row ``X``
    that follows it.

    Why it matters:
        Compute on a gradient row is simulated a second time next to the layer's own row, and usually
        means the layer's values were written under the gradient row's name (a shifted table).

    Example:
        ``transformer_h_0_ln_1_grad  0.23625882749911398  None  0  0  ALLREDUCE_ASYNC  2560  0  None  0  0``
        -> transformer_h_0_ln_1_grad has forward_compute_time 0.23625882749911398; a gradient row only
        all-reduces, so its compute times are 0
    """

    code = "TL303"
    name = "grad-row-with-compute"
    severity = Severity.ERROR
    formats = ("neusight-tsv",)

    def messages(self, row: LayerRecord) -> Iterator[Said]:
        if row.grad_of is None:
            return
        columns = [column for column in _COMPUTE_TIMES if getattr(row, column)]
        if columns:
            times = " and ".join(f"{column} {getattr(row, column)}" for column in columns)
            yield columns[0], f"{row.name} has {times}; a gradient row only all-reduces, so its compute times are 0"
