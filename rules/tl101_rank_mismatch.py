from lint.formats.megatron_trace.rulekit import SameInEveryRecord
from lint.rule import Severity


class RankMismatch(SameInEveryRecord):
    """A record names another rank than the file's first record.

    The instrumentation writes one file per process (``{prefix}_rank{R}_….txt``) and prefixes every line
    with that process's global rank, so every record of a file carries the same ``rank:R:``.

    Writer: ``CMD.__str__`` in ``megatron/profiler/cmd.py`` prefixes each record with the process's
    ``rank_id``, and ``write_list_to_file`` writes one process's list to one file, so this is an error.

    Why it matters:
        A file that mixes ranks is a concatenation or a copy gone wrong; a simulator that replays it as
        one rank schedules another rank's operations on this one.

    Example:
        The first line says ``rank:7:`` and line 40 ``rank:6:forward_step(...)``
        -> rank 6 in a file of rank 7 (first record: line 1)
    """

    code = "TL101"
    name = "rank-mismatch"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    field = "rank"
