from collections.abc import Iterator

from lint.formats.optprime_log.rulekit import SINGLE_MODULE_GROUPS, StageTimes, StepsByStage, gaps, spans, timing_groups
from lint.rule import Severity, Violation, at


class TimedLayerCoverage(StepsByStage):
    """The stages' timing of a step does not cover the model: a layer, ``embed`` or ``lm_head`` is missing.

    The stages split the model between them, so in every step their timing blocks together hold
    ``embed``, every layer 0..L−1 (a layer split at a stage boundary is in two blocks) and ``lm_head``,
    and ``embed`` and ``lm_head`` each in one block.  The log does not print the model's layer count L:
    the highest layer a stage times stands for L−1, so a missing last layer goes unnoticed.  A step is
    judged when every stage (PP, printed or from ``stage2rank``) timed it; steps alike are reported once.

    Why it matters:
        A layer no stage times ran without its timing hooks or not at all: per-layer and per-stage
        costs read from the log, and any simulation calibrated on them, leave out part of the model.

    Example:
        stages 0-7 of a 16-layer model, stage 3 timing layers 5 and 7 but not 6 in step 5
        -> step 5: no stage times layer 6; the stages time embed, layers 0-5, 7-15, lm_head (layers 0-15, up to
        the highest layer a stage times)
    """

    code = "TL214"
    name = "timed-layer-coverage"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def judge(self, step: int, stages: list[StageTimes], alike: str) -> Iterator[Violation]:
        timed_by: dict[str, list[int]] = {}  # group -> the stages that time it
        for times in stages:
            for layer, _ in times.groups:
                timed_by.setdefault(layer, []).append(times.stage)
        layers = max((int(layer) for layer in timed_by if layer.isdigit()), default=-1) + 1
        first = min(stages, key=lambda times: times.line)
        # a layer counts as timed under the name the writer prints for it (str(int)); the count can be any int64
        missing_layers = gaps((int(layer) for layer in timed_by if layer.isdigit() and layer == str(int(layer))), layers)
        missing = [group for group in SINGLE_MODULE_GROUPS if group not in timed_by]
        if missing or missing_layers:
            yield at(
                first,
                f"step {step}{alike}: no stage times {timing_groups(missing, missing_layers)}; the stages time {timing_groups(timed_by)} "
                f"(layers {spans(range(layers))}, up to the highest layer a stage times)",
            )
        for group in SINGLE_MODULE_GROUPS:
            if len(timed_by.get(group, ())) > 1:
                yield at(first, f"step {step}{alike}: stages {spans(timed_by[group])} time {group}; it is one module, on one stage")
