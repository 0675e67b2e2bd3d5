import math
from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import OptprimeLayout, Setting
from lint.rule import Severity, Violation


class BatchCountMismatch(OptprimeLayout):
    """``nbatches`` is not the number of batches the writer's data loader makes of ``data_size`` samples
    with the batch the log declares.

    ``nbatches = len(dataloader)`` (``opt_prime/examples/pp_train_*.py``); the loader keeps the last,
    partial batch.  Which loader depends on the writer:

    - ai-computing/aicomp ``Optimus_p.prepare_dataloader(datasets, batch_size)``: with DP > 1 a
      ``DistributedSampler`` gives each of the DP replicas ``ceil(data_size / DP)`` samples, batched by the
      printed ``batch size`` (the loader's own): ``ceil(ceil(data_size / DP) / batch size)``; with DP = 1,
      ``ceil(data_size / batch size)``;
    - eungyeonglee-dev/aicomp: the printed ``> GBS`` is the global batch (``--batch-size``, "global batch
      size", with ``gas = GBS / (MBS · DP)`` in ``examples/pp_train_llama4.py``).  Its ``prepare_dataloader``
      batches each replica's share by ``GBS // DP`` since commit 3b096d1 ("fixed per-rank batch"):
      ``ceil(ceil(data_size / DP) / (GBS // DP))``; its ``train_llama.py`` batches the whole data set by
      GBS: ``ceil(data_size / GBS)``.

    Before 3b096d1 the fork's ``prepare_dataloader`` batched each replica's share by the whole GBS, as
    upstream does with its per-replica ``batch size``.  A ``> GBS`` log whose ``nbatches`` is that count,
    ``ceil(ceil(data_size / DP) / GBS)``, and none of the above, comes from a run whose DP replicas each took
    GBS samples a step: it trained on a global batch of GBS · DP, and, as ``Optimus_p.prepare_labels``
    cuts a replica's batch into GAS micro-batches, on micro-batches of MBS · DP.  That is reported, naming
    the effective global batch, as an error: the writer's own guarantee (the declared global batch, the
    one its ``gas`` is derived from) is broken in a way that changes the training the log records - the
    loss, ``ms/batch`` and memory are those of a batch DP times larger, and the fork's
    ``get_fasop_steptimelog.sh`` files that ``ms/batch`` under the declared MBS, DP and GBS.  The writer's
    own debug print of such a run says so (``effective_global_batch_used_by_stage0=128`` with
    ``expected GBS=32``, ``dp=4``).

    Any other count no writer version gives is reported.  Checked when ``data_size``, ``nbatches`` and a
    batch size are printed; DP is the printed one (1 where the pipeline size is printed without it).

    Why it matters:
        The epoch lines count batches out of ``nbatches``: a wrong count makes progress, throughput and
        time-to-train estimates wrong, and means the log was edited or mixes two runs - or that the run
        trained on another global batch than the one it declares.

    Example:
        ``data_size=10334``, ``nbatches=81`` with ``> GBS: 32`` and ``> DP: 4``
        -> `nbatches=81` (line 7) = ceil(ceil(10334 / 4) / 32): each of the 4 data-parallel replicas took batches
        of the whole `> GBS: 32` (line 2), as eungyeonglee-dev/aicomp's loader did before commit 3b096d1, so the
        run trained on a global batch of 128 = 32 · 4, not 32 (a global batch of 32 makes ceil(10334 / 32) = 323
        batches of `data_size=10334` (line 6))
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
        global_batch = batch.label.strip().startswith("> GBS")
        counts = [(math.ceil(samples / size), f"ceil({samples} / {size})")]
        per_replica = size // dp if global_batch else size  # the loader's batch of each replica's share
        if dp > 1 and per_replica:
            counts.append((math.ceil(math.ceil(samples / dp) / per_replica), f"ceil(ceil({samples} / {dp}) / {per_replica})"))
        if nbatches.value in {count for count, _ in counts}:
            return
        if global_batch and dp > 1 and nbatches.value == math.ceil(math.ceil(samples / dp) / size):
            yield self._replicas_took_the_global_batch(nbatches, data_size, batch, dp)
            return
        ways = " or ".join(f"{formula} = {count}" for count, formula in counts)
        yield nbatches.violation(
            f"{nbatches} but the data loader makes {' or '.join(str(count) for count, _ in counts)} batches of {data_size} with {batch} and DP {dp}: {ways}",
        )

    @staticmethod
    def _replicas_took_the_global_batch(nbatches: Setting, data_size: Setting, batch: Setting, dp: int) -> Violation:
        samples, size = int(data_size.value), int(batch.value)
        return Violation(
            nbatches.line,
            1,
            f"{nbatches} = ceil(ceil({samples} / {dp}) / {size}): each of the {dp} data-parallel replicas took batches of the whole {batch}, "
            f"as eungyeonglee-dev/aicomp's loader did before commit 3b096d1, so the run trained on a global batch of {size * dp} = {size} · {dp}, "
            f"not {size} (a global batch of {size} makes ceil({samples} / {size}) = {math.ceil(samples / size)} batches of {data_size})",
        )
