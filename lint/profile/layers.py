"""The per-layer communication profile every format can give: what cross-format pairs are compared on.

For each transformer layer (numbered from 0 across the whole model) and phase (``fwd``; ``bwd`` =
input gradient + weight gradient): the activation collectives of the tensor- and expert-parallel
groups by kind, with their count per pass and message bytes, and the layer's compute time in ms where
the format knows it.  Data-parallel gradient synchronisation is left out: one format does it per
layer (neusight-tsv's ``X_grad`` rows), the others once per step or bucket, so it cannot be aligned by
layer.  The knobs both sides tell are compared with it (from the full profiles).

Keys: ``layers`` (count), ``layer {i} {phase}`` (collectives per pass), ``layers {phase} {group}
{kind}`` (message bytes, bytes per pass), ``layers {phase} compute`` (samples: one median per layer).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from lint.profile.profile import Items, Profile, Timing, put, typical_message
from lint.profile.stats import median

LAYER_GROUPS = frozenset({"tp", "ep"})
PHASES = ("fwd", "bwd")


class LayerProfileBuilder:
    """Collects the per-layer profile.  ``times`` says how many alike events one call stands for: a run's
    adapter hands over what each rank's worker counted, not every event."""

    def __init__(self) -> None:
        self._passes: Counter[int] = Counter()
        self._messages: dict[tuple[int, str, str, str], Counter[int]] = defaultdict(Counter)  # message bytes -> calls
        self._compute: dict[tuple[int, str], Counter[float]] = defaultdict(Counter)  # ms -> passes

    def layer_pass(self, layer: int, times: int = 1) -> None:
        """One more execution of ``layer`` (a micro-batch, a workload pass): counts are per pass."""
        self._passes[layer] += times

    def collective(self, layer: int, phase: str, group: str, kind: str, message_bytes: int, times: int = 1) -> None:
        if group in LAYER_GROUPS:
            self._messages[layer, phase, group, kind][message_bytes] += times

    def compute(self, layer: int, phase: str, ms: float, times: int = 1) -> None:
        self._compute[layer, phase][ms] += times

    def build(self, format_name: str, path: str, files: int, units: dict[str, str]) -> Profile:
        structure: Items = {}
        comm: Items = {}
        put(structure, "layers", count=len(self._passes))
        per_kind: dict[tuple[str, str, str], Counter[int]] = defaultdict(Counter)
        bytes_per_pass: Counter[tuple[str, str, str]] = Counter()
        for (layer, phase, group, kind), messages in sorted(self._messages.items()):
            passes = self._passes[layer] or 1
            calls = messages.total()
            structure.setdefault(f"layer {layer} {phase}", {})[f"{group} {kind}"] = round(calls / passes, 3)
            per_kind[phase, group, kind].update(messages)
            bytes_per_pass[phase, group, kind] += round(sum(size * count for size, count in messages.items()) / passes)
        for (phase, group, kind), messages in per_kind.items():
            put(comm, f"layers {phase} {group} {kind}", message_bytes=typical_message(messages), bytes_per_pass=bytes_per_pass[phase, group, kind])
        timing = {}
        for phase in PHASES:
            per_layer = [median(samples) for (_, p), samples in sorted(self._compute.items()) if p == phase and samples]
            if per_layer:
                timing[f"layers {phase} compute"] = Timing.of(per_layer)
        return Profile(
            format=format_name,
            path=path,
            files=files,
            units=units,
            structure=structure,
            comm=comm,
            timing=timing,
            total_bytes=float(sum(bytes_per_pass.values())),
        )
