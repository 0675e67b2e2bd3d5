"""A side of a diff as the differ sees it: one :class:`Profile` per input, whatever its format.

Every category is a mapping ``key -> {field: value}`` so that one comparison serves all formats: a key
only one side has is added or removed, a field whose values differ is changed.  Timing keys hold
samples (milliseconds, kept as value -> count) instead, compared by their medians and a rank test.
``common`` is the per-layer communication profile every format can give (see :mod:`lint.profile.layers`): cross-format pairs are
compared on it alone.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TypeVar

from pydantic import BaseModel, Field, field_validator

from lint.layout import Knob
from lint.profile.stats import median, total

Scalar = int | float | str | bool | None
Items = dict[str, dict[str, Scalar]]
Size = TypeVar("Size", int, float)  # of a message, in bytes (or elements)


class Timing(BaseModel):
    """The samples of one timing key, in ms, as value -> count (see :data:`~lint.profile.stats.Counts`), and how
    often one rank meets it per step (its weight)."""

    counts: dict[float, int]
    per_step: float = 1.0

    @field_validator("counts")
    @classmethod
    def _finite(cls, counts: dict[float, int]) -> dict[float, int]:
        """An infinite or NaN time (damage `tlint check` reports, or a sum past the largest float) is no sample:
        the statistics and the plots would turn it into NaN."""
        return {sample: count for sample, count in counts.items() if math.isfinite(sample)}

    @classmethod
    def of(cls, samples: Iterable[float], per_step: float = 1.0) -> Timing:
        return cls(counts=Counter(samples), per_step=per_step)

    @property
    def count(self) -> int:
        """How many samples there are."""
        return total(self.counts)


class Profile(BaseModel):
    format: str
    path: str
    files: int = 1
    units: dict[str, str] = Field(default_factory=dict)
    config: Items = Field(default_factory=dict)
    structure: Items = Field(default_factory=dict)
    comm: Items = Field(default_factory=dict)
    timing: dict[str, Timing] = Field(default_factory=dict)
    step_key: str | None = None  # the timing key of one whole step: what timing impact is a share of
    total_bytes: float = 0.0  # bytes one step moves: what comm impact is a share of
    plot_keys: list[str] = Field(default_factory=list)  # timing keys of the per-stage plot, in order
    # Config keys copied as the input wrote them, where a field one side lacks was not written there: a
    # change.  Every other config field is inferred or printed, and one side's lacking it means only
    # that side cannot tell it (tp of a run without TP collectives to infer it from): not a change.
    literal_config: list[str] = Field(default_factory=list)
    # The knobs as users name them (lint.layout.KNOBS; None where the side does not tell); the known ones
    # are config items too, keyed by their names.
    knobs: dict[str, Knob] = Field(default_factory=dict)
    mode: str | None = None  # the writer and its mode, where the format's writers have several
    # Patterns (re.search) of 'category key field' whose values follow from the writer's mode: when the two
    # sides' modes differ, such a change is the modes', not the run's.
    mode_sensitive: list[str] = Field(default_factory=list)
    # Items two versions of the writer name differently, keyed by the one name the profile uses: the name
    # this side's files give it (a rename when the other side's differ).
    spellings: dict[str, str] = Field(default_factory=dict)
    common: Profile | None = None
    stages: int | None = None  # the pipeline stages the side covers, where it tells (an AICB workload: one)
    stage_common: Profile | None = None  # ``common`` with each stage's layers numbered from 0, where the side has stages

    @property
    def step_ms(self) -> float | None:
        timing = self.timing.get(self.step_key or "")
        return median(timing.counts) if timing and timing.counts else None


def put(items: Items, key: str, **fields: Scalar) -> None:
    """Adds the known (not None) ``fields`` to ``items[key]``; field names use spaces for underscores."""
    known = {name.replace("_", " "): value for name, value in fields.items() if value is not None}
    if known:
        items.setdefault(key, {}).update(known)


def typical_message(counts: Mapping[Size, int]) -> Size | None:
    """The message size most calls of a kind move (the larger one on a tie); ``counts``: size -> calls.

    Not a median: a kind gathers unrelated collectives (attention and MLP all-reduces, every stage's
    gradient all-reduce), and the median of two of them is a size that no message has.
    """
    if not counts:
        return None
    return max(counts, key=lambda size: (counts[size], size))
