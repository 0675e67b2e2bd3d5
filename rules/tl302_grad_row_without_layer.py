from collections.abc import Iterable, Iterator

from lint.formats.neusight_tsv.records import LayerRecord
from lint.rule import Rule, RuleOptions, Severity, Violation, at


class GradRowWithoutLayer(Rule):
    """A gradient row ``X_grad`` is not immediately followed by the row of its layer ``X``.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``, which appends each ``_grad`` row and, right after it, the layer's own row.

    This is an error: the writer guarantees the order.

    For each layer with weights the writer emits the layer's data-parallel gradient all-reduce as a row
    named after the layer with a ``_grad`` suffix, directly before the layer's own row:
    ``transformer_h_0_ln_1_grad`` then ``transformer_h_0_ln_1``.  A row is a gradient row when its name
    ends in ``_grad``.  When the line after a gradient row is not a valid row (a syntax finding), the pair
    is not judged.

    Why it matters:
        Consumers attach the all-reduce to the row that follows it: a gradient row before another layer
        (or at the end of the table) synchronises the wrong layer's gradient, or none, and the
        overlap of gradient traffic with the backward pass is simulated at the wrong point.

    Example:
        ``addmm_grad`` on line 12, then ``matmul_9`` on line 13 (the ``addmm`` row is missing)
        -> addmm_grad is followed by matmul_9 (line 13); the row of its layer addmm must come right after it
    """

    code = "TL302"
    name = "grad-row-without-layer"
    severity = Severity.ERROR
    formats = ("neusight-tsv",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.grad: LayerRecord | None = None  # the previous row, when it is a gradient row

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        grad, self.grad = self.grad, (row if row.grad_of is not None else None)
        # A line that failed to parse may sit between them: then the row that really followed is unknown.
        if grad is not None and row.line == grad.line + 1 and row.name != grad.grad_of:
            return [at(grad, f"{grad.name} is followed by {row.name} (line {row.line}); the row of its layer {grad.grad_of} must come right after it")]
        return ()

    def finish(self) -> Iterator[Violation]:
        if self.grad is not None:
            yield at(self.grad, f"{self.grad.name} is the last row; the row of its layer {self.grad.grad_of} must follow it")
