from collections.abc import Iterator

from lint.formats.optprime_log.records import EpochProgressRecord
from lint.formats.optprime_log.rulekit import OptprimeLayout, StartsOverOnRestart
from lint.rule import RuleOptions, Severity, Violation, at


class EpochProgressSequence(StartsOverOnRestart, OptprimeLayout):
    """The epoch progress lines do not count epochs 1, 2, … and batches up to ``nbatches``.

    The training loop (ai-computing/aicomp ``opt_prime/examples/pp_train_*.py``, ``train()``) prints
    ``| epoch E | B/T batches | …`` every ``log_interval`` batches on every rank of the last pipeline stage
    (``if optimus_p.is_last_stage()``): with tensor or data parallelism the stage has TP · DP ranks and
    each prints its own copy, in its own order, interleaved with the others by the OS.  The log is
    therefore read as that many streams (the ranks of the last stage in ``stage2rank``, else TP · DP as
    printed; any number where neither is known), each of which must count: epochs from 1 up by one,
    batches ``log_interval``, 2·``log_interval``, … within an epoch (the first progress line shows the
    interval), and ``T`` equal to the printed ``nbatches``.  A run may stop before an epoch's last batch.
    A total other than ``nbatches`` is reported once per value.  When torchrun restarts the workers
    (``--max-restarts``, see lint/formats/optprime_log/outcome.py ``Attempts``), the new attempt counts from the start.

    Why it matters:
        A skipped, repeated or backward counter means lost or merged output (a re-run appended to the
        log); a total other than ``nbatches`` means the progress lines and the set-up come from
        different runs.  Throughput and loss curves built on the counters are then wrong.

    Example:
        ``| epoch   1 |    19/  323 batches | …`` on line 968, then ``| epoch   1 |    21/  323 batches | …``
        in a log with one last-stage rank
        -> epoch 1: batch 21 after epoch 1, batch 19 (line 968); expected batch 20: progress lines come one per
        batch, from 1 last-stage rank
    """

    code = "TL210"
    name = "epoch-progress-sequence"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: EpochProgressRecord | None = None
        self.streams: list[EpochProgressRecord] = []  # each last-stage rank's latest line
        self.previous: EpochProgressRecord | None = None
        self.reported_totals: set[int] = set()

    def start_over(self) -> None:
        self.first, self.streams, self.previous = None, [], None

    def check_epoch_progress(self, record: EpochProgressRecord) -> Iterator[Violation]:
        nbatches = self.setting("nbatches")
        if nbatches is not None and record.batches != nbatches.value and record.batches not in self.reported_totals:
            self.reported_totals.add(record.batches)
            yield at(record, f"epoch {record.epoch} counts {record.batches} batches, but {nbatches}", field="batches")
        if record.batch > record.batches:
            yield at(record, f"epoch {record.epoch}: batch {record.batch} of {record.batches}", field="batch")
        yield from self._counters(record)
        self.previous = record

    def copies(self) -> int | None:
        """How many ranks print each progress line: the last stage's ranks (None: not known)."""
        if self.stage_map is not None and self.stage_map.stages:
            return len(self.stage_map.stages[max(self.stage_map.stages)])
        tp, dp = self.setting("tp"), self.setting("dp")
        if tp is not None and dp is not None:
            return int(tp.value) * int(dp.value)
        return None

    def _counters(self, record: EpochProgressRecord) -> Iterator[Violation]:
        if self.first is None:
            self.first = record
            if record.epoch != 1:
                yield at(record, f"the first progress line counts epoch {record.epoch}; epochs count from 1", field="epoch")
            self.streams.append(record)
            return
        for index, latest in enumerate(self.streams):
            if self._follows(latest, record):
                self.streams[index] = record
                return
        copies = self.copies()
        if self._starts(record) and (copies is None or len(self.streams) < copies):
            self.streams.append(record)
            return
        yield from self._out_of_sequence(record, copies)

    def _starts(self, record: EpochProgressRecord) -> bool:
        assert self.first is not None
        return (record.epoch, record.batch) == (self.first.epoch, self.first.batch)

    def _expected(self, latest: EpochProgressRecord, epoch: int) -> int | None:
        assert self.first is not None
        if epoch == latest.epoch:
            return latest.batch + self.first.batch
        return self.first.batch if epoch == latest.epoch + 1 else None

    def _follows(self, latest: EpochProgressRecord, record: EpochProgressRecord) -> bool:
        return self._expected(latest, record.epoch) == record.batch

    def _out_of_sequence(self, record: EpochProgressRecord, copies: int | None) -> Iterator[Violation]:
        """Judged against the stream of the line printed last; that stream then goes on from ``record``."""
        assert self.first is not None and self.previous is not None
        index = next((i for i, latest in enumerate(self.streams) if latest is self.previous), len(self.streams) - 1)
        latest, self.streams[index] = self.streams[index], record
        expected = self._expected(latest, record.epoch)
        if expected is None:
            yield at(record, f"epoch {record.epoch} after epoch {latest.epoch} (line {latest.line})", field="epoch")
            return
        first = self.first
        cadence = "one per batch" if first.batch == 1 else f"every {first.batch} batches (the first, line {first.line}, counts batch {first.batch})"
        printers = "" if copies is None else f", from {copies} last-stage rank" + ("s" if copies > 1 else "")
        yield at(
            record,
            f"epoch {record.epoch}: batch {record.batch} after epoch {latest.epoch}, batch {latest.batch} "
            f"(line {latest.line}); expected batch {expected}: progress lines come {cadence}{printers}",
            field="batch",
        )
