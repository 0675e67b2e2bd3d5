from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import OptprimeLayout, spans
from lint.rule import Severity, Violation, at

_LISTED = 64  # the most ranks of a stage a message lists one by one


class Stage2rankLayout(OptprimeLayout):
    """``stage2rank`` is not the pipeline of the run's ``(pp, dp, tp)`` mesh.

    OptimusPrime lays its ranks out on a ``(pp, dp, tp)`` device mesh, the pipeline outermost: its
    ``stage2rank`` has the PP stages 0..PP−1, and stage ``s`` holds the DP·TP ranks
    ``s·DP·TP … (s+1)·DP·TP − 1``, so the stages hold every rank of the world once.  PP is the printed
    pipeline size (else the map's own stage count); DP and TP are 1 where the log prints the pipeline
    size without them (OptimusPrime prints them only above 1).

    Why it matters:
        ``stage2rank`` decides which rank runs which sub-module and who sends activations to whom: a
        rank on two stages, on none, or on the wrong one means a broken set-up or an edited log, and the
        stage of every timing line is misread.

    Example:
        ``stage2rank = {0: [0], 1: [1], …, 7: [7, 8]}`` with ``> DP: 1`` and ``> TP: 1``
        -> stage 7 has ranks [7, 8]; the (pp, dp, tp) mesh gives it ranks [7] (DP · TP = 1 · 1 ranks a stage:
        `> DP: 1` (line 15), `> TP: 1` (line 14))
    """

    code = "TL205"
    name = "stage2rank-layout"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def finish(self) -> Iterator[Violation]:
        stage_map, pp, dp, tp = self.stage_map, self.setting("pp"), self.setting("dp"), self.setting("tp")
        count = self.stage_count()  # known whenever stage2rank is
        if stage_map is None or count is None:
            return
        # Counts are compared first: PP, DP and TP are whatever the log prints (any int64), never listed out.
        if len(stage_map.stages) != count or sorted(stage_map.stages) != list(range(count)):
            source = f"{pp} gives" if pp is not None else f"a pipeline of {count} stages has"
            yield at(stage_map, f"stage2rank lists stages {spans(stage_map.stages)}; {source} stages {spans(range(count))}", field="stages")
        if dp is None or tp is None:
            return
        width = dp.value * tp.value
        for stage, ranks in stage_map.stages.items():
            expected = range(stage * width, (stage + 1) * width)
            # a stage past the pipeline has no place in the mesh: reported above
            if stage < count and (len(ranks) != width or ranks != tuple(expected)):
                shown = list(expected) if width <= _LISTED else f"[{spans(expected)}]"
                yield at(
                    stage_map,
                    f"stage {stage} has ranks {list(ranks)}; the (pp, dp, tp) mesh gives it ranks {shown} "
                    f"(DP · TP = {dp.value} · {tp.value} ranks a stage: {dp}, {tp})",
                    field="stages",
                )
