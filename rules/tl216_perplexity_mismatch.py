import math
from collections.abc import Iterator

from lint.formats.optprime_log.records import EpochProgressRecord
from lint.rule import Rule, Severity, Violation, at

# loss and ppl are printed with 2 decimals: the loss they come from is within 0.005 of the printed one.
ROUNDING = 0.005


def _exp(exponent: float) -> float:
    """e to the ``exponent``; inf where a float cannot hold it."""
    try:
        return math.exp(exponent)
    except OverflowError:
        return math.inf


class PerplexityMismatch(Rule):
    """An epoch line's ``ppl`` is not ``exp(loss)``.

    The training loop prints ``ppl = exp(loss)`` of the unrounded loss, both with 2 decimals, so the
    printed ppl lies between ``exp(loss − 0.005)`` and ``exp(loss + 0.005)`` of the printed loss (give or
    take the ppl's own rounding): seed 002 prints loss 21.49 with ppl 2152814925.50, not
    exp(21.49) = 2152724314.53.  Lines with a loss or ppl that is not a number are TL217's.

    Why it matters:
        The two columns report one value; when they disagree one was edited or mangled, and loss curves
        drawn from either are suspect.

    Example:
        ``| epoch   1 |     3/  323 batches | lr 0.00 | ms/batch 1625.92 | loss  9.07 | ppl  8000.00``
        -> epoch 1, batch 3: ppl 8000.00 is not exp(loss): the printed loss 9.07 ± 0.005 gives 8647.28
        to 8734.19
    """

    code = "TL216"
    name = "perplexity-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def check_epoch_progress(self, record: EpochProgressRecord) -> Iterator[Violation]:
        if not record.finite:
            return
        low, high = _exp(record.loss - ROUNDING), _exp(record.loss + ROUNDING)
        if not low - ROUNDING <= record.ppl <= high + ROUNDING:
            yield at(
                record,
                f"epoch {record.epoch}, batch {record.batch}: ppl {record.ppl:.2f} is not exp(loss): the printed loss "
                f"{record.loss:.2f} ± {ROUNDING} gives {low:.2f} to {high:.2f}",
                field="ppl",
            )
