from collections import Counter
from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import StageTimes, StepsByStage, spans
from lint.rule import Severity, Violation, at


class SplitLayerOps(StepsByStage):
    """A layer split between stages has ``ops`` that do not add up to a whole layer's.

    ``ops`` counts the timed module calls of a group in a step: a layer's modules times the
    micro-batches.  Where a stage boundary cuts a layer, the stages on either side time part of its
    modules, and their ``ops`` add up to those of a layer timed whole by one stage (seed 002:
    224 + 32 = 256).  A whole layer's ``ops`` is the value a strict majority of the layers timed by one
    stage share; without such a majority nothing is judged.  A step is judged when every stage (PP,
    printed or from ``stage2rank``) timed it; steps alike are reported once.

    This is a warning: a model whose layers differ in their modules (dense and mixture-of-experts
    layers in turn, say) legitimately has layers of different ``ops``.

    Why it matters:
        Parts that do not add up mean modules of the split layer ran untimed, twice, or on no stage:
        the split layer's time, and the balance of the two stages, are misread.

    Example:
        ``layer[13]: … ops=224`` in stage 6's block, ``layer[13]: … ops=16`` in stage 7's
        -> step 1: layer 13 is split across stages 6-7 into 224 (stage 6's block, line 323) + 16 (stage 7's
        block, line 318) = 240 ops; a whole layer has 256 ops (as 9 of the 9 layers timed by a single stage do)
    """

    code = "TL215"
    name = "split-layer-ops"
    severity = Severity.WARNING
    formats = ("optprime-log",)

    def judge(self, step: int, stages: list[StageTimes], alike: str) -> Iterator[Violation]:
        parts: dict[str, list[tuple[StageTimes, int]]] = {}  # layer -> (stage, ops) of each stage that times it
        for times in stages:
            for layer, ops in times.groups:
                if layer.isdigit():
                    parts.setdefault(layer, []).append((times, ops))
        whole = Counter(pieces[0][1] for pieces in parts.values() if len(pieces) == 1)
        if not whole:
            return
        full, agreeing = whole.most_common(1)[0]
        if 2 * agreeing <= whole.total():
            return
        for layer, pieces in parts.items():
            total = sum(ops for _, ops in pieces)
            if len(pieces) > 1 and total != full:
                split = " + ".join(f"{ops} (stage {times.stage}'s block, line {times.line})" for times, ops in pieces)
                yield at(
                    pieces[0][0],
                    f"step {step}{alike}: layer {layer} is split across stages {spans(t.stage for t, _ in pieces)} into "
                    f"{split} = {total} ops; a whole layer has {full} ops (as {agreeing} of the {whole.total()} layers timed by a single stage do)",
                )
