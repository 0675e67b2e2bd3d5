from collections.abc import Iterator

from lint.formats.megatron_trace.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class LayoutDisagreement(Rule):
    """Two sources state different parallel layouts for one run.

    The layout of a run is stated by the command line (``--tp/--pp/--dp/--ep``), by a
    ``[tool.tlint.runs."<glob>"]`` table, by the log or workload that table names, and is inferred from
    the traces themselves (pp from the stage ids).  They must agree.

    Why it matters:
        Every cross-rank check groups ranks by this layout; a disagreement means the traces are not of the
        job the configuration (or the log, or the workload) describes, and comparing them is meaningless.

    Example:
        ``--pp 4`` for a run whose traces hold stage ids 0-1
        -> pp 2 from the stage ids of the traces disagrees with pp 4 from the command line
    """

    code = "TL504"
    name = "layout-disagreement"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        claims = run.layout.claims
        for index, claim in enumerate(claims):
            for other in claims[index + 1 :]:
                if other.dimension == claim.dimension and other.value != claim.value:
                    yield Violation(
                        None,
                        None,
                        f"{claim.dimension} {claim.value} from {claim.source} disagrees with {other.dimension} {other.value} from {other.source}",
                    )
