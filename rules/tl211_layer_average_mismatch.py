from lint.formats.optprime_log.records import LayerTimingRecord
from lint.formats.optprime_log.rulekit import group_owner
from lint.rule import Rule, Severity, Violation, at

# total and avg/op are both rounded to 3 decimals: total/ops and avg/op then differ by 0.0005 at the
# most; the slack absorbs binary floating point, in which 0.0005 itself is inexact.
TOLERANCE_MS = 0.0005
FLOAT_SLACK = 1e-9


class LayerAverageMismatch(Rule):
    """A layer group's ``avg/op`` is not its ``total`` divided by its ``ops``.

    The timing add-on prints ``total``, ``ops`` and ``avg/op = total / ops`` for each group, the times
    rounded to 3 decimals: ``|total / ops − avg/op| ≤ 0.0005``.

    Why it matters:
        The three numbers of a group contradict each other: one was edited or mangled (two ranks'
        output interleaved inside a number), and any per-op or per-layer time read from the group may
        be wrong.

    Example:
        ``  layer[13]: total=114.492ms, ops=32, avg/op=3.600ms``
        -> layer[13] (rank 7, step 1): total 114.492 ms / 32 ops = 3.5779 ms, but avg/op=3.600ms (off by
        0.0221 ms; the 3-decimal rounding allows 0.0005)
    """

    code = "TL211"
    name = "layer-average-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def check_layer_timing(self, record: LayerTimingRecord) -> tuple[Violation, ...]:
        if not record.ops:
            return ()
        average = record.total_ms / record.ops
        off = abs(average - record.avg_ms)
        if not off > TOLERANCE_MS + FLOAT_SLACK:  # (not <=: a NaN is no finding)
            return ()  # the usual case, without a generator: this runs for every layer record
        return (
            at(
                record,
                f"layer[{record.layer}] ({group_owner(record)}): total {record.total_ms:.3f} ms / {record.ops} ops = "
                f"{average:.4f} ms, but avg/op={record.avg_ms:.3f}ms (off by {off:.4f} ms; the 3-decimal rounding allows {TOLERANCE_MS})",
                field="avg_ms",
            ),
        )
