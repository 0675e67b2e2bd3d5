from collections.abc import Iterator

from lint.formats.megatron_trace.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class DuplicateRank(Rule):
    """Two files of one run claim the same rank.

    A run has one trace file per rank; a rank is read from the file's records (``rank:R:``) and, for a
    file without records, from its name.  The writer (``megatron/profiler/cmd.py``
    ``write_list_to_file``) names each file ``…_rank{R}_{time stamp}.txt`` with the rank it traced, so
    files of one run never share a rank; a file that names rank R again under a later time stamp is a
    re-run, grouped as another run (docs/formats/megatron-trace.md, "File names and runs").

    Why it matters:
        Two files for one rank are two runs mixed in one directory (a re-run, a copy): every cross-rank
        check would compare this rank against itself from another job, and a simulator would replay it twice.

    Example:
        ``traces/trace_rank2_20241224105912.txt`` and ``traces/trace_rank9_20241224105912.txt`` both hold
        ``rank:2:`` records
        -> rank 2 is also claimed by .../trace_rank2_20241224105912.txt
    """

    code = "TL501"
    name = "duplicate-rank"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        for duplicate in run.duplicates:
            first = run.ranks[duplicate.rank]  # type: ignore[index]
            yield Violation(duplicate.line_of_rank, 1, f"rank {duplicate.rank} is also claimed by {first.path}", duplicate.rank, path=duplicate.path)
