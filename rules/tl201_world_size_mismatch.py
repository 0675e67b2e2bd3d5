from lint.rule import Severity
from lint.rulekit import SettingProduct


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
        ``> World size: 8``, ``> TP: 2``, ``> DP: 1``, ``> PP: 8``
        -> `> World size: 8` (line 9) but PP · DP · TP = 8 · 1 · 2 = 16 (`> PP: 8` (line 16), `> DP: 1`
        (line 15), `> TP: 2` (line 14))
    """

    code = "TL201"
    name = "world-size-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)
    product = "world_size"
    factors = ("pp", "dp", "tp")
    formula = "PP · DP · TP"
