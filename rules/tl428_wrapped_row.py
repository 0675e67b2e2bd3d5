from collections.abc import Iterator

from lint.formats.simai_workload.records import WrappedRow
from lint.formats.simai_workload.rulekit import reader
from lint.rule import Rule, Severity, Violation, at, by_consumer

# Where each consumer reads a row, word by word with `>>`.
READS = {"simai": "Workload.cc:1284-1311", "astra-sim-1": "Workload.cc:1320-1352"}


class RowOverLines(Rule):
    """A layer row is written over several lines.

    Both consumers read the rows word by word with C++ ``>>`` (``Workload::initialize_workload``: SimAI
    ``Workload.cc:1284-1311``, aliyun/SimAI cef83f9d; ASTRA-sim 1.0 ``Workload.cc:1320-1352``, branch
    ``ASTRA-sim-1.0``), which passes over line ends like any blank: the words of a row split over two lines are
    one row to them.  tlint reads them so too when the lines together hold exactly one row's columns and make
    a well-formed row; otherwise each line is judged on its own (TL002).  No writer wraps rows: AICB writes one
    row per line (``SIMAI_workload.dump_file``), ASTRA-sim's generator too.

    Measured: SimAI simulates the file as written (oracle class ``row_split_over_2_lines``: fine, 11 of 11 runs
    that got past the header); so does ASTRA-sim 1.0 (its Resnet50_DataParallel example with one row wrapped:
    the same 32559138 cycles).

    This is information for both consumers: the row is read as meant; other readers that take one row per
    line (scripts, a spreadsheet) would not.

    Why it matters:
        A wrapped row usually comes from a hand edit or a copy through a tool that wraps long lines.

    Example:
        ``conv1 -1 13003 NONE 0 12864`` on line 3, ``NONE 0 32291 ALLREDUCE 37632 3229`` on line 4
        -> the row of conv1 is written over lines 3 to 4: ASTRA-sim 1.0 reads it as one row (it reads rows
        word by word with >>, Workload.cc:1320-1352)
    """

    code = "TL428"
    name = "wrapped-row"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.INFO, "astra-sim-1": Severity.INFO})

    def check_wrapped_row(self, wrapped: WrappedRow) -> Iterator[Violation]:
        yield at(
            wrapped,
            f"the row of {wrapped.name} is written over lines {wrapped.line} to {wrapped.last_line}: {reader(self.consumer)} reads it as one "
            f"row (it reads rows word by word with >>, {READS[self.consumer or 'simai']})",
        )
