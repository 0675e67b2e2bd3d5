from collections.abc import Iterator

from lint.models.optprime_log import EpochProgressRecord
from lint.rule import RuleOptions, Severity, Violation, at
from lint.rulekit import OptprimeLayout


class EpochProgressSequence(OptprimeLayout):
    """The epoch progress lines do not count epochs 1, 2, … and batches up to ``nbatches``.

    The training loop prints ``| epoch E | B/T batches | …`` every ``log_interval`` batches: epochs count
    from 1 up by one, the batch counter of an epoch counts ``log_interval``, 2·``log_interval``, … (the
    first progress line of the log shows the interval; seed 002 prints every batch), and
    ``T`` is the epoch's batch count, the printed ``nbatches``.  A run may stop before an epoch's last
    batch.  A total other than ``nbatches`` is reported once per value.

    Why it matters:
        A skipped, repeated or backward counter means lost or merged output (a re-run appended to the
        log); a total other than ``nbatches`` means the progress lines and the set-up come from
        different runs.  Throughput and loss curves built on the counters are then wrong.

    Example:
        ``| epoch   1 |     3/  323 batches | …`` on line 400, then ``| epoch   1 |     5/  323 batches | …``
        -> epoch 1: batch 5 after epoch 1, batch 3 (line 400); expected batch 4: progress lines come one
        per batch
    """

    code = "TL210"
    name = "epoch-progress-sequence"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: EpochProgressRecord | None = None
        self.previous: EpochProgressRecord | None = None
        self.reported_totals: set[int] = set()

    def check_epoch_progress(self, record: EpochProgressRecord) -> Iterator[Violation]:
        nbatches = self.setting("nbatches")
        if nbatches is not None and record.batches != nbatches.value and record.batches not in self.reported_totals:
            self.reported_totals.add(record.batches)
            yield at(record, f"epoch {record.epoch} counts {record.batches} batches, but {nbatches}")
        if record.batch > record.batches:
            yield at(record, f"epoch {record.epoch}: batch {record.batch} of {record.batches}")
        yield from self._counters(record)
        self.previous = record

    def _counters(self, record: EpochProgressRecord) -> Iterator[Violation]:
        first, previous = self.first, self.previous
        if first is None or previous is None:
            self.first = record
            if record.epoch != 1:
                yield at(record, f"the first progress line counts epoch {record.epoch}; epochs count from 1")
            return
        if record.epoch == previous.epoch:
            expected = previous.batch + first.batch
        elif record.epoch == previous.epoch + 1:
            expected = first.batch
        else:
            yield at(record, f"epoch {record.epoch} after epoch {previous.epoch} (line {previous.line})")
            return
        if record.batch != expected:
            cadence = "one per batch" if first.batch == 1 else f"every {first.batch} batches (the first, line {first.line}, counts batch {first.batch})"
            yield at(
                record,
                f"epoch {record.epoch}: batch {record.batch} after epoch {previous.epoch}, batch {previous.batch} "
                f"(line {previous.line}); expected batch {expected}: progress lines come {cadence}",
            )
