from lint.formats.optprime_log.rulekit import SettingProduct
from lint.rule import Severity


class GlobalBatchMismatch(SettingProduct):
    """The printed global batch size is not GAS · MBS · DP.

    A step of OptimusPrime runs GAS micro-batches of MBS samples on each of the DP data-parallel
    replicas, so its global batch is ``GAS · MBS · DP`` samples.  DP is 1 where the log prints the
    pipeline size without it (OptimusPrime prints it only above 1).  Checked when GBS, GAS and MBS are
    printed (upstream example scripts print no MBS).

    Why it matters:
        The batch size sets the number of batches per epoch and every per-sample figure derived from
        the log; settings that do not multiply out come from an edited log or from two different runs.

    Example:
        ``> GAS: 32``, ``> GBS: 32``, ``> MBS: 2``, ``> DP: 1``
        -> `> GBS: 32` (line 12) but GAS · MBS · DP = 32 · 2 · 1 = 64 (`> GAS: 32` (line 11), `> MBS: 2`
        (line 13), `> DP: 1` (line 15))
    """

    code = "TL202"
    name = "global-batch-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)
    product = "gbs"
    factors = ("gas", "mbs", "dp")
    formula = "GAS · MBS · DP"
