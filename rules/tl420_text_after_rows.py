from collections.abc import Iterator

from lint.formats.simai_workload.records import TrailingText
from lint.formats.simai_workload.rulekit import reader
from lint.rule import Rule, RuleOptions, Severity, Violation, at, by_consumer


class TextAfterRows(Rule):
    """Text that is not a layer row follows the declared layer rows.

    SimAI (aliyun/SimAI ``astra-sim-alibabacloud/astra-sim/workload/Workload.cc``,
    ``Workload::initialize_workload``) reads line 1 with ``getline``, the row count on line 2, then exactly
    that many rows with ``>>`` and closes the file; ASTRA-sim 1.0 (astra-sim/astra-sim branch
    ``ASTRA-sim-1.0``, same function) does the same.  Whatever follows the last declared row is never
    read.  Hand-made SimAI examples keep free-text notes there (measurements, an MTU, a formula).  Both
    read the rows token by token, so tokens past the columns of the last declared row are never read
    either (and shift nothing) when every row before it has its columns: they are such text too, not a
    row with extra columns (TL002); the fixtures of Kirrito-k423/SimAI-Ascend append checksums there,
    which its own reader takes.  One
    finding per file, at the first such text, naming the line where the simulators stop reading.  A
    well-formed layer row after the declared ones is TL403's finding, not this one.

    Measured: SimAI simulates such a file as written (oracle classes ``text_after_rows``,
    ``extra_tokens_last_row``: fine, 22 of 22 runs that got past the header), and so does ASTRA-sim 1.0 (notes
    after the rows of its Resnet50_DataParallel example change nothing).

    This is a warning for both consumers, not a syntax error: they never see the text, so the workload
    simulates as its declared rows say; the text is reported because it may be rows that were meant to be read.

    Why it matters:
        Notes after the rows are harmless, but rows written in another layout (or a count that was not
        updated after rows were added) look the same: the simulation silently leaves them out.

    Example:
        line 2 says ``1``, line 3 is the row, line 5 is ``13197 *10 126152``, two lines follow
        -> text after the 1 declared layer row: SimAI stops reading at line 3, so line 5
        ('13197 *10 126152') and 2 more lines are never read
    """

    code = "TL420"
    name = "text-after-rows"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING, "astra-sim-1": Severity.WARNING})

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.first: TrailingText | None = None
        self.lines = 0

    def check_trailing_text(self, record: TrailingText) -> Iterator[Violation]:
        self.first = self.first or record
        self.lines += 1
        return iter(())

    def finish(self) -> Iterator[Violation]:
        first = self.first
        if first is None:
            return
        rows = f"{first.declared} declared layer row{'s' if first.declared != 1 else ''}"
        more = f" and {self.lines - 1} more line{'s' if self.lines > 2 else ''}" if self.lines > 1 else ""
        where = f"the rest of line {first.line}" if first.line == first.last_read else f"line {first.line}"
        yield at(
            first,
            f"text after the {rows}: {reader(self.consumer)} stops reading at line {first.last_read}, so {where} "
            f"('{' '.join(first.text.split())[:40]}'){more} {'is' if self.lines == 1 else 'are'} never read",
        )
