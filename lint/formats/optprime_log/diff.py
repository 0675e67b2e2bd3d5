"""``optprime-log`` files as diff profiles (docs/formats/optprime-log.md).

* knobs tp, pp, dp (printed, or implied: :func:`lint.layout.optprime_sizes`), mbs and gbs as printed; config:
  world, micro-batches (gas), data size, batches per epoch, parameters, IR mode, model class;
* structure ``run`` (ranks seen, ranks that completed, the last step and the number of progress lines:
  bookkeeping), ``stage S``: the layer groups the stage times (``embed 0 1`` …) and ``stage2rank``;
* timing, with the first step dropped as warm-up when there are two or more (the seed's step 1 is 5-10×
  slower): ``layer K forward`` (the group's total per step, samples over steps and the ranks timing it),
  ``stage S forward`` (the stage's timed total per step), ``ms/batch`` from the progress lines, which is
  also the step key.  An optprime log records no communication: the comm category stays empty.

Per-layer (common) profile: layer K's forward compute per micro-batch (its totals over every stage
that runs part of it, ÷ GAS), so a log can be compared with a workload or a trace on compute time.
"""

from __future__ import annotations

import math
from collections import defaultdict

from lint.formats.optprime_log.summary import OptprimeLog, StepTimes
from lint.layout import Knobs, optprime_sizes
from lint.profile.layers import LayerProfileBuilder
from lint.profile.profile import Profile, Timing, put
from lint.profile.side import Reading, single_source
from lint.read.source import Source

NAME = "optprime-log"


def load(path: str, sources: list[Source], reading: Reading) -> Profile:
    source = single_source(path, sources, NAME)
    found = reading.records(source, NAME)
    log = OptprimeLog.from_records(found)
    units = {"time": "ms (printed with 3 decimals)", "comm": "none recorded"}
    profile = Profile(format=NAME, path=path, files=1, units=units)
    settings = log.config
    sizes = optprime_sizes(settings)
    mbs, gbs = (value if isinstance(value := settings.get(name), int) else None for name in ("mbs", "gbs"))
    knobs = Knobs(tp=sizes.tp, pp=sizes.pp, dp=sizes.dp, mbs=mbs, gbs=gbs, phase="train")
    profile.knobs = knobs.values()
    others = {
        "world": sizes.world,
        "micro-batches": settings.get("gas"),
        "data size": settings.get("data_size"),
        "batches per epoch": settings.get("nbatches"),
        "parameters": settings.get("parameters"),
        "ir": settings.get("ir"),
        "model class": settings.get("model_class"),
    }
    for key, known in [*knobs.values().items(), *others.items()]:
        if known is not None:
            profile.config[key] = {"": known}
    last_step = max((step.step for step in log.steps), default=None)
    put(  # what the log holds (bookkeeping), not how the run was configured
        profile.structure,
        "run",
        ranks_seen=len(log.ranks_seen),
        ranks_completed=len(log.completed_ranks),
        last_step=last_step,
        progress_lines=len(log.epochs) or None,
    )
    if log.stage2rank is not None:
        put(profile.structure, "stage2rank", **{f"stage {stage}": " ".join(map(str, ranks)) for stage, ranks in sorted(log.stage2rank.items())})

    steps = [step for step in log.steps if step.step > 1 or last_step == 1]  # step 1 warms up
    layer_samples: dict[str, list[float]] = defaultdict(list)
    stage_samples: dict[int, list[float]] = defaultdict(list)
    for step in steps:
        put(profile.structure, f"stage {step.stage}", layers=" ".join(step.layers))
        stage_samples[step.stage].append(sum(step.total_ms))
        for layer, total in zip(step.layers, step.total_ms, strict=True):
            layer_samples[f"layer {layer} forward"].append(total)
    timing = {key: Timing.of(samples) for key, samples in layer_samples.items()}
    timing |= {f"stage {stage} forward": Timing.of(samples) for stage, samples in sorted(stage_samples.items())}
    batch_times = [epoch.ms_per_batch for epoch in log.epochs if epoch.ms_per_batch is not None and math.isfinite(epoch.ms_per_batch)]
    if len(batch_times) > 1:
        batch_times = batch_times[1:]
    if batch_times:
        timing["ms/batch"] = Timing.of(batch_times)
        profile.step_key = "ms/batch"
    profile.timing = timing
    profile.plot_keys = [f"stage {stage} forward" for stage in sorted(stage_samples)]
    profile.common = _layers(steps, settings.get("gas")).build(NAME, path, 1, units)
    return profile


def _layers(steps: list[StepTimes], gas: int | str | None) -> LayerProfileBuilder:
    builder = LayerProfileBuilder()
    micro_batches = gas if isinstance(gas, int) and gas > 0 else 1
    per_step: dict[tuple[int, int], float] = defaultdict(float)  # (step, layer) -> ms over the stages sharing it
    for step in steps:
        for layer, total in zip(step.layers, step.total_ms, strict=True):
            if layer.isdigit():
                per_step[step.step, int(layer)] += total
    for (_, index), total in sorted(per_step.items()):
        builder.layer_pass(index)
        builder.compute(index, "fwd", total / micro_batches)
    return builder
