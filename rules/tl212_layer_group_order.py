from lint.formats.optprime_log.records import LayerTimingRecord, TimingHeaderRecord, layer_position
from lint.formats.optprime_log.rulekit import group_owner
from lint.rule import Rule, RuleOptions, Severity, Violation, at


class LayerGroupOrder(Rule):
    """A timing block prints its layer groups out of order, or one twice.

    The timing add-on prints a step's groups in model order, each once: ``embed`` first, the layer
    indices ascending, ``lm_head`` last.

    Why it matters:
        A group out of place or repeated means two blocks' output got mixed (or an edit): the groups
        that follow may belong to another rank or step, and per-layer times are attributed wrongly.

    Example:
        ``  layer[1]: …`` on line 341, then ``  layer[0]: …`` in the same block
        -> layer[0] (rank 0, step 1) after layer[1] (line 341): groups are printed embed, layers
        ascending, lm_head
    """

    code = "TL212"
    name = "layer-group-order"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.last: dict[int, tuple[LayerTimingRecord, float]] = {}  # rank -> the latest group of its open block, its position

    def check_timing_header(self, record: TimingHeaderRecord) -> tuple[()]:
        self.last.pop(record.rank, None)
        return ()

    def check_layer_timing(self, record: LayerTimingRecord) -> tuple[Violation, ...]:
        if record.rank is None:
            return ()
        position = layer_position(record.layer)
        last = self.last.get(record.rank)
        self.last[record.rank] = (record, position)
        if last is None or position > last[1]:
            return ()  # the usual case, without a generator: this runs for every layer record
        previous, before = last
        if position == before:
            return (at(record, f"layer[{record.layer}] ({group_owner(record)}) again (line {previous.line})", field="layer"),)
        return (
            at(
                record,
                f"layer[{record.layer}] ({group_owner(record)}) after layer[{previous.layer}] (line {previous.line}): "
                "groups are printed embed, layers ascending, lm_head",
                field="layer",
            ),
        )
