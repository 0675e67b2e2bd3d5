import math
from collections.abc import Iterator

from lint.rule import Severity, Violation
from lint.rulekit.optprime import OptprimeLayout


class BatchCountMismatch(OptprimeLayout):
    """``nbatches`` is not the number of batches the writer's data loader makes of ``data_size`` samples.

    ``nbatches = len(dataloader)`` (``opt_prime/examples/pp_train_*.py``); the loader keeps the last,
    partial batch.  Which loader depends on the writer:

    - ai-computing/aicomp ``Optimus_p.prepare_dataloader(datasets, batch_size)``: with DP > 1 a
      ``DistributedSampler`` gives each of the DP replicas ``ceil(data_size / DP)`` samples, batched by the
      printed ``batch size`` (the loader's own): ``ceil(ceil(data_size / DP) / batch size)``; with DP = 1,
      ``ceil(data_size / batch size)``;
    - eungyeonglee-dev/aicomp: the printed ``> GBS`` is the global batch.  Its ``prepare_dataloader`` gave
      each replica the sampler's share batched by GBS (as upstream, until commit 3b096d1 "fixed per-rank
      batch"), then by ``GBS // DP``; its ``train_llama.py`` batches the whole data set by GBS:
      ``ceil(data_size / GBS)``.

    A count no writer version gives is reported.  Checked when ``data_size``, ``nbatches`` and a batch size are
    printed; DP is the printed one (1 where the pipeline size is printed without it).

    Why it matters:
        The epoch lines count batches out of ``nbatches``: a wrong count makes progress, throughput and
        time-to-train estimates wrong, and means the log was edited or mixes two runs.

    Example:
        ``data_size=10400``, ``nbatches=323`` with ``> GBS: 32`` and ``> DP: 1``
        -> `nbatches=323` (line 317) but the data loader makes 325 batches of `data_size=10400` (line 316) with
        `> GBS: 32` (line 12) and DP 1: ceil(10400 / 32) = 325
    """

    code = "TL203"
    name = "batch-count-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        nbatches, data_size, batch = (self.setting(name) for name in ("nbatches", "data_size", "gbs"))
        if nbatches is None or data_size is None or batch is None or not batch.value:
            return
        dp_setting = self.setting("dp")
        dp = int(dp_setting.value) if dp_setting is not None and dp_setting.value else 1
        samples, size = int(data_size.value), int(batch.value)
        counts = [(math.ceil(samples / size), f"ceil({samples} / {size})")]
        if dp > 1:
            global_batch = batch.label.strip().startswith("> GBS")
            for per_replica in (size, size // dp) if global_batch else (size,):
                if per_replica:
                    counts.append((math.ceil(math.ceil(samples / dp) / per_replica), f"ceil(ceil({samples} / {dp}) / {per_replica})"))
        if nbatches.value in {count for count, _ in counts}:
            return
        ways = " or ".join(f"{formula} = {count}" for count, formula in counts)
        yield nbatches.violation(
            f"{nbatches} but the data loader makes {' or '.join(str(count) for count, _ in counts)} batches of {data_size} with {batch} and DP {dp}: {ways}",
        )
