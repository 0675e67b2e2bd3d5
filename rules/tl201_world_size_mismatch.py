from lint.formats.optprime_log.rulekit import SettingProduct
from lint.rule import Severity


class WorldSizeMismatch(SettingProduct):
    """The printed world size is not PP · DP · TP.

    OptimusPrime lays its ranks out on one ``(pp, dp, tp)`` device mesh, so the world size is the
    product of the three sizes.  It prints its data- and tensor-parallel sizes only above 1, so a log
    that prints the pipeline size without them has DP and TP 1.  Checked when the world size and the
    pipeline size are printed.

    Why it matters:
        torch cannot build a mesh of another size: the log was edited, or its settings belong to another
        run, and every rule or tool that derives stages and ranks from them is misled.

    Example:
        ``> World size: 2`` and ``> PP: 1``, with neither ``> DP:`` nor ``> TP:`` printed
        -> `> World size: 2` (line 1) but PP · DP · TP = 1 · 1 · 1 = 1 (`> PP: 1` (line 2), DP 1 (not printed:
        OptimusPrime prints it only above 1), TP 1 (not printed: OptimusPrime prints it only above 1))
    """

    code = "TL201"
    name = "world-size-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)
    product = "world_size"
    factors = ("pp", "dp", "tp")
    formula = "PP · DP · TP"
