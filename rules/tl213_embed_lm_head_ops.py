from lint.formats.optprime_log.records import LayerTimingRecord
from lint.formats.optprime_log.rulekit import SINGLE_MODULE_GROUPS, OptprimeLayout, group_owner
from lint.rule import Severity, Violation, at


class EmbedLmHeadOps(OptprimeLayout):
    """The ``embed`` or ``lm_head`` group does not count one call per micro-batch.

    ``ops`` counts the timed module calls of a group in a step.  ``embed`` and ``lm_head`` are one module
    each, run once per micro-batch, so their ``ops`` is the number of micro-batches of a step: GAS
    (``> GAS:``, or ``num of mbatch:`` in upstream scripts).  Checked where GAS is printed before the
    timing, as OptimusPrime's set-up does.

    Why it matters:
        Another count means micro-batches were skipped or run twice, or the timing hooks double-count:
        the per-op times of the group, and the GAS the log claims, cannot both be right.

    Example:
        ``> GAS: 32``, then ``  layer[embed]: total=57.152ms, ops=16, avg/op=3.572ms``
        -> layer[embed] (rank 0, step 1) counts 16 ops; it runs once per micro-batch: `> GAS: 32` (line 11)
    """

    code = "TL213"
    name = "embed-lm-head-ops"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def check_layer_timing(self, record: LayerTimingRecord) -> tuple[Violation, ...]:
        if record.layer not in SINGLE_MODULE_GROUPS:
            return ()  # the usual case, without a generator: this runs for every layer record
        gas = self.settings.get("gas")
        if gas is None or record.ops == gas.value:
            return ()
        return (at(record, f"layer[{record.layer}] ({group_owner(record)}) counts {record.ops} ops; it runs once per micro-batch: {gas}", field="ops"),)
