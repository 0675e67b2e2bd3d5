from collections.abc import Iterator

from lint.formats.simai_workload.records import Header
from lint.rule import Rule, Severity, Violation, at


class PpCommMismatch(Rule):
    """``pp_comm`` is 0 with a pipeline, or not 0 without one.

    ``pp_comm`` is the size of the activation one pipeline stage sends the next: AICB writes
    ``2·mbs·seq·hidden`` (divided by tp under sequence parallelism) when ``pp > 1`` and ``pp_comm: 0``
    when ``pp: 1``.  Checked only when the header has both keys: headers older than ``pp_comm``
    (AICB generations 1 to 3, which may have ``pp: 16``) are not asked for it.

    This is a warning: SimAI (``Workload::initialize_workload``) checks exactly this pair, prints
    "Input workload format mismatch" and goes on; the pipeline sends are timed from ``pp_comm`` in
    ``Layer::report``.

    Why it matters:
        With ``pp > 1`` and ``pp_comm: 0`` the simulated pipeline sends move nothing, and the pipeline
        looks free; ``pp_comm`` without a pipeline shows the header was edited by hand.

    Example:
        ``... pp: 4 vpp: 8 ga: 1 all_gpus: 512 pp_comm: 0 ...``
        -> pp: 4 with pp_comm: 0, expected the size of one activation: SimAI simulates the pipeline
        sends as empty and warns "Input workload format mismatch"
    """

    code = "TL413"
    name = "pp-comm-mismatch"
    severity = Severity.WARNING
    formats = ("simai-workload",)

    def check_header(self, header: Header) -> Iterator[Violation]:
        pp, pp_comm = header.read("pp"), header.read("pp_comm")
        if pp is None or pp_comm is None:
            return
        if pp == 1 and pp_comm != 0:
            yield at(
                header,
                f'pp_comm: {header.pp_comm} with pp: 1, expected pp_comm: 0: a single stage sends no activations; SimAI warns "Input workload format mismatch"',
            )
        elif pp > 1 and pp_comm == 0:
            yield at(
                header,
                f"pp: {pp} with pp_comm: 0, expected the size of one activation: SimAI simulates the pipeline sends "
                f'as empty and warns "Input workload format mismatch"',
            )
