import math
from collections.abc import Iterator

from lint.rule import Severity, Violation
from lint.rulekit import OptprimeLayout


class BatchCountMismatch(OptprimeLayout):
    """``nbatches`` is not the number of global batches in ``data_size`` samples.

    OptimusPrime's data loader cuts the data set into global batches and keeps the last, partial one,
    so an epoch has ``nbatches = ceil(data_size / GBS)`` batches.  Checked when ``data_size``,
    ``nbatches`` and the global batch size are printed.

    Why it matters:
        The epoch lines count batches out of ``nbatches``: a wrong count makes progress, throughput and
        time-to-train estimates wrong, and means the log was edited or mixes two runs.

    Example:
        ``data_size=10334``, ``nbatches=322`` with ``> GBS: 32``
        -> `nbatches=322` (line 317) but ceil(data_size / GBS) = ceil(10334 / 32) = 323 (`data_size=10334`
        (line 316), `> GBS: 32` (line 12))
    """

    code = "TL203"
    name = "batch-count-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        nbatches, data_size, gbs = (self.setting(name) for name in ("nbatches", "data_size", "gbs"))
        if nbatches is None or data_size is None or gbs is None or not gbs.value:
            return
        expected = math.ceil(data_size.value / gbs.value)
        if nbatches.value != expected:
            yield Violation(
                nbatches.line, 1,
                f"{nbatches} but ceil(data_size / GBS) = ceil({data_size.value} / {gbs.value}) = {expected} ({data_size}, {gbs})",
            )
