from collections.abc import Iterator

from lint.formats.optprime_log.records import EpochProgressRecord
from lint.rule import Rule, Severity, Violation, at


class NonFiniteLoss(Rule):
    """An epoch line's loss or perplexity is ``nan`` or ``inf``.

    A training run whose loss is not a number has diverged (or met bad data, or an fp16 overflow):
    every later update is garbage even if the job goes on and completes.

    Why it matters:
        The run's timing may look normal, but the model it trained is broken; a log with a non-finite
        loss is not a valid reference for performance or accuracy.

    Example:
        ``| epoch   1 |     2/    4 batches | lr 0.00 | ms/batch 812.40 | loss   nan | ppl      nan``
        -> epoch 1, batch 2: loss nan, ppl nan: the training diverged
    """

    code = "TL217"
    name = "non-finite-loss"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def check_epoch_progress(self, record: EpochProgressRecord) -> Iterator[Violation]:
        if not record.finite:
            yield at(record, f"epoch {record.epoch}, batch {record.batch}: loss {record.loss}, ppl {record.ppl}: the training diverged", field="loss")
