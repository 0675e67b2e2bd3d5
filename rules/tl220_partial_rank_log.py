from collections.abc import Iterator
from itertools import chain

from lint.formats.optprime_log.rulekit import RankOutput, gaps, spans
from lint.rule import Severity, Violation
from lint.runs.model import rank_list

_LISTED = 64  # the most silent ranks a message lists one by one


class PartialRankLog(RankOutput):
    """The log shows the output of only some of the run's ranks.

    torchrun's ``--local-ranks-filter`` prints only the ranks it names, each node of a multi-node job
    writes a log of its own ranks, and ``--redirects 1|3 --log-dir D`` writes each rank's output to a file of
    its own (``D/<run>/attempt_N/<rank>/stdout.log``): such a log is valid, but it shows part of the run.  This says
    which ranks printed output of their own, out of the printed world size; ranks that only torchrun's
    failure report names printed nothing here.

    This is information: nothing is wrong with the log, but the rules that compare ranks or stages
    (TL209, TL214, TL215) see only the ranks it shows.

    Why it matters:
        Conclusions about the whole run (every rank completed, every stage timed its layers) need the
        other ranks' logs too.

    Example:
        a log of a 4-rank job run with ``--local-ranks-filter 0,3``
        -> the log shows the output of ranks 0 and 3; the run has 4 ranks by `total process count: 4` (line
        8): ranks 1 and 2 printed nothing here (torchrun's --local-ranks-filter, one node's log of a
        multi-node job, or one rank's file of --redirects)
    """

    code = "TL220"
    name = "partial-rank-log"
    severity = Severity.INFO
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        world = self.output.world
        if world is None:
            return
        silent = gaps(self.last_output, int(world.value))  # the world size is what the log prints: never listed out
        if not silent:
            return
        count = sum(run.stop - run.start for run in silent)
        listed = rank_list(chain.from_iterable(silent)) if count <= _LISTED else f"{count:,} ranks ({', '.join(map(spans, silent))})"
        shown = f"the output of {rank_list(self.last_output)}" if self.last_output else "no rank's output"
        yield world.violation(
            f"the log shows {shown}; the run has {world.value} ranks by {world}: {listed} printed "
            "nothing here (torchrun's --local-ranks-filter, one node's log of a multi-node job, or one rank's file of --redirects)",
        )
