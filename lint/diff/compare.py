"""Two profiles -> typed changes, each with its significance and impact, then a headline and a verdict.

Alignment is by key, never by position: adapters name every item by its identity (a config key, a
stage and op, a row's name and occurrence, a layer index), so an item one side lacks is added or
removed and nothing shifts.

Significance:

* config and structure: every change, but bookkeeping (row counts, a log's progress lines: never);
* comm: a numeric change of at least ``threshold`` (relative), any other change;
* timing: the median moved by at least ``threshold`` *and* a two-sided Mann-Whitney U test rejects
  equal distributions at ``alpha``.  The step time is the first question and is tested alone; the
  breakdown (per op, stage, layer, ...) is one family of tests, Holm-corrected, so that among a
  hundred keys noise alone does not flag one.  With a single sample on a side nothing can be said
  about noise: such a change is listed as not judged (never "not significant", which would claim
  the test was made), still ranked by its size; a timing change below the threshold is a change, never
  significant ("identical" means that nothing differs);
* what follows from the two sides' writer modes (the adapters' ``mode_sensitive``), and a rename: never.

Impact orders the changes: config (the knobs first) and structure first, then comm by the share of the
bytes a step moves and timing by the share of the step time (``|Δ median| × occurrences per step / step
time``).  The headline leads with the knobs.  A side `tlint check` finds problems in makes the verdict
inconclusive, whatever changed.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from lint.diff.sides import Problems
from lint.diff.wording import ARROW, counted, is_number, key_template, natural_key, number_ranges, percent, subject, value
from lint.models.categories import CATEGORIES, Category
from lint.models.diff import CategoryCount, Change, DiffReport, DiffSide, DiffSummary, PlotSeries, Spread
from lint.profile.profile import Items, Profile, Scalar, Timing
from lint.profile.side import DiffInputError
from lint.profile.stats import holm, mann_whitney_p, median, quantile

ALPHA = 0.05
HEADLINE_CONFIG = 4  # settings a headline names
DEFAULT_THRESHOLD_PERCENT = 5.0
MS_DECIMALS = 4  # timing values are reported to 0.1 µs: finer digits are float noise
_FIRST = {"config": 0, "structure": 1}  # always listed before comm and timing


@dataclass(frozen=True)
class DiffOptions:
    threshold: float = DEFAULT_THRESHOLD_PERCENT / 100  # relative
    fail_on: tuple[Category, ...] = CATEGORIES
    alpha: float = ALPHA


def diff(a: Profile, b: Profile, options: DiffOptions | None = None, problems: tuple[Problems, Problems] = (Problems(), Problems())) -> DiffReport:
    """The changes from ``a`` to ``b``; ``problems``: what `tlint check` finds wrong with each side (the verdict
    is then inconclusive, whatever changed)."""
    options = options or DiffOptions()
    same_format = a.format == b.format
    left, right, compared = _compared(a, b)
    config = (a.config, b.config) if same_format else (_knob_items(a), _knob_items(b))
    changes = [
        *_items("config", *config, options, shared_only=not same_format, literal=set(left.literal_config) & set(right.literal_config)),
        *_renames(left, right),
        *_items("structure", left.structure, right.structure, options, shared_only=False),
        *_comm(left, right, options),
        *_timing(left, right, options),
    ]
    for change in changes:
        if change.category == "structure" and change.key in BOOKKEEPING:
            change.significant = False
    if same_format and a.mode and b.mode and a.mode != b.mode:  # the modes are said in the headline
        _label_mode_changes(changes, [*a.mode_sensitive, *b.mode_sensitive])
    changes = _collapse(changes)
    changes.sort(key=lambda c: (not c.significant, _FIRST.get(c.category, 2), _knob_place(c), -c.impact, c.category, natural_key(c.key), c.field))
    summary = _summary(changes, options, compared, left.step_key or right.step_key, problems, (a.mode, b.mode))
    return DiffReport(a=_side(a, problems[0]), b=_side(b, problems[1]), changes=changes, summary=summary, plot=_plot(left, right))


def nothing_compared(a: Profile, b: Profile, options: DiffOptions | None, problems: tuple[Problems, Problems], why: str) -> DiffReport:
    """The report of a pair one of whose sides gave nothing to compare (``why`` says which and how): the sides'
    problems, which make it inconclusive, and no change."""
    summary = _summary([], options or DiffOptions(), "full", None, problems, (None, None), nothing=why)
    return DiffReport(a=_side(a, problems[0]), b=_side(b, problems[1]), summary=summary)


def _compared(a: Profile, b: Profile) -> tuple[Profile, Profile, str]:
    """What is compared of each side, and how it is said: the whole profiles of one format; else the per-layer
    profiles, and where one side covers a single pipeline stage (an AICB workload, one rank's trace) each
    side's layers numbered within their stage, a side of several stages folded onto one stage's layers: a
    stage is compared with a stage, not with the model."""
    if a.format == b.format:
        return a, b, "full"
    left, right = a.common, b.common
    if left is None or right is None:  # a format without layers (chakra-et) builds none: it is compared with its own only
        alone, other = (a, b) if left is None else (b, a)
        raise DiffInputError(
            f"{alone.path} ({alone.format}) has no per-layer profile to compare with {other.path} ({other.format}): "
            f"compare it with another {alone.format} file or run"
        )
    if 1 in (a.stages, b.stages):
        return a.stage_common or left, b.stage_common or right, "common per-layer profile of one stage"
    return left, right, "common per-layer profile"


def _knob_items(profile: Profile) -> Items:
    """The config items of ``profile`` that are knobs: what two formats can both state."""
    return {key: fields for key, fields in profile.config.items() if key in profile.knobs}


# -- per category -----------------------------------------------------------------------------------


# Structure items that count what a file holds (rows declared and present, the micro-batch copies AICB
# writes, a log's progress lines): listed, never significant on their own, never a headline.  What they
# count changes with the knobs, which are reported; a row or op that one side lacks is a change of its own.
BOOKKEEPING = frozenset({"rows", "run"})


def _renames(before: Profile, after: Profile) -> Iterator[Change]:
    """An item both sides have under the names two versions of the writer give it: one rename, not a removal
    and an addition (its values are compared under the one name)."""
    for canonical in sorted(before.spellings.keys() & after.spellings.keys()):
        old, new = before.spellings[canonical], after.spellings[canonical]
        if old != new:
            yield Change(category="structure", kind="renamed", key=canonical, field="", before=old, after=new, significant=False, cause="rename")


def _label_mode_changes(changes: list[Change], sensitive: list[str]) -> None:
    """Changes that follow from the two writer modes (patterns of 'category key field' the adapters name) are
    the modes', not the run's: labelled so, never significant."""
    patterns = [re.compile(pattern) for pattern in dict.fromkeys(sensitive)]
    for change in changes:
        text = f"{change.category} {change.key} {change.field}"
        if change.cause is None and any(pattern.search(text) for pattern in patterns):
            change.cause = "writer mode"
            change.significant = False


def _items(
    category: Category,
    before: Items,
    after: Items,
    options: DiffOptions,
    *,
    shared_only: bool,
    literal: frozenset[str] | set[str] = frozenset(),
) -> Iterator[Change]:
    always_significant = category in ("config", "structure")
    for key in sorted(before.keys() | after.keys(), key=natural_key):
        old, new = before.get(key), after.get(key)
        if category == "config":  # settings are compared one by one, even where a side states none of a group
            old, new = old or {}, new or {}
        if old is None or new is None:
            if not shared_only:
                yield _whole(category, key, old, new)
            continue
        for field in [*old, *(name for name in new if name not in old)]:
            x, y = old.get(field), new.get(field)
            unknown_on_one_side = category == "config" and key not in literal and (x is None or y is None)
            if x == y or unknown_on_one_side or (shared_only and (x is None or y is None)):
                continue
            delta, rel = _deltas(x, y)
            yield Change(
                category=category,
                kind="added" if x is None else "removed" if y is None else "changed",
                key=key,
                field=field,
                before=x,
                after=y,
                delta=delta,
                rel_delta=rel,
                significant=always_significant or rel is None or abs(rel) >= options.threshold,
            )


def _whole(category: Category, key: str, old: dict[str, Scalar] | None, new: dict[str, Scalar] | None) -> Change:
    """A key one side lacks: one change, with the other side's fields in a line."""
    present = old if old is not None else new
    assert present is not None
    text = ", ".join(f"{name} {value(item)}" for name, item in present.items())
    return Change(
        category=category,
        kind="added" if old is None else "removed",
        key=key,
        field="",
        before=text if old is not None else None,
        after=text if new is not None else None,
        significant=True,
    )


def _comm(before: Profile, after: Profile, options: DiffOptions) -> Iterator[Change]:
    total = max(before.total_bytes, after.total_bytes) or 1.0
    for change in _items("comm", before.comm, after.comm, options, shared_only=False):
        fields = before.comm.get(change.key) or after.comm.get(change.key) or {}
        if change.field == "":
            moved = max((abs(v) for f, v in fields.items() if "bytes" in f and is_number(v)), default=0.0)
            change.impact = moved / total
        elif "bytes" in change.field and change.delta is not None:
            change.impact = abs(change.delta) / total
        yield change


def _timing(before: Profile, after: Profile, options: DiffOptions) -> Iterator[Change]:
    keys = sorted(before.timing.keys() & after.timing.keys(), key=natural_key)
    keys = [k for k in keys if before.timing[k].counts and after.timing[k].counts]
    p_values = {k: mann_whitney_p(before.timing[k].counts, after.timing[k].counts) for k in keys}
    # The step time is the question asked first, tested alone; the breakdown is one family, Holm-corrected.
    step_key = before.step_key or after.step_key
    breakdown = [k for k in keys if k != step_key]
    adjusted = dict(zip(breakdown, holm([p_values[k] for k in breakdown]), strict=True))
    adjusted.update({k: p_values[k] for k in keys if k == step_key})
    step_ms = before.step_ms or after.step_ms
    for key in keys:
        p_value = adjusted[key]
        old, new = before.timing[key], after.timing[key]
        x, y = round(median(old.counts), MS_DECIMALS), round(median(new.counts), MS_DECIMALS)
        delta, rel = _deltas(x, y)
        assert delta is not None
        if delta == 0 and (old.counts == new.counts or _resolved(old) == _resolved(new)):
            continue  # alike to the reported resolution: times computed from time stamps differ by float noise
        below = delta == 0 or (rel is not None and abs(rel) < options.threshold)  # listed (not identical), never significant
        samples_enough = min(old.count, new.count) >= 2
        weight = max(old.per_step, new.per_step)
        yield Change(
            category="timing",
            kind="changed",
            key=key,
            field="median",
            before=x,
            after=y,
            delta=round(delta, MS_DECIMALS),
            rel_delta=rel,
            significant=not below and samples_enough and p_value < options.alpha,
            judged=samples_enough or below,
            impact=abs(delta) * weight / step_ms if step_ms else abs(rel or 0.0),
            p_value=p_value,
            spread_before=spread(old),
            spread_after=spread(new),
        )


def _resolved(timing: Timing) -> Counter[float]:
    """The samples at the resolution changes are reported in (:data:`MS_DECIMALS`)."""
    resolved: Counter[float] = Counter()
    for sample, count in timing.counts.items():
        resolved[round(sample, MS_DECIMALS)] += count
    return resolved


def _deltas(before: Scalar, after: Scalar) -> tuple[float | None, float | None]:
    if not (is_number(before) and is_number(after)):
        return None, None
    assert isinstance(before, int | float) and isinstance(after, int | float)
    delta = after - before
    return delta, (delta / before if before else None)


def spread(timing: Timing) -> Spread | None:
    counts = timing.counts
    if not counts:
        return None
    return Spread(
        count=timing.count,
        minimum=min(counts),
        p10=quantile(counts, 0.1),
        p25=quantile(counts, 0.25),
        median=median(counts),
        p75=quantile(counts, 0.75),
        p90=quantile(counts, 0.9),
        maximum=max(counts),
    )


def _collapse(changes: list[Change]) -> list[Change]:
    """Changes alike but for the last number in their keys (layer 0..39, row#0..15) become one: 'layer 0-39'."""
    groups: dict[tuple[str, *tuple[object, ...]], list[tuple[int, Change]]] = defaultdict(list)  # (key pattern, what else is alike)
    kept: list[Change] = []
    for change in changes:
        template = key_template(change.key) if change.category != "timing" else None
        if template is None:
            kept.append(change)
            continue
        pattern, index = template
        signature = (pattern, change.category, change.kind, change.field, repr(change.before), repr(change.after), change.significant)
        groups[signature].append((index, change))
    for (pattern, *_), members in groups.items():
        first = members[0][1]
        if len(members) == 1:
            kept.append(first)
            continue
        merged = first.model_copy(
            update={
                "key": pattern.replace("{}", number_ranges([index for index, _ in members])),
                "impact": sum(change.impact for _, change in members),
            }
        )
        kept.append(merged)
    return kept


# -- summary ----------------------------------------------------------------------------------------


def _summary(
    changes: list[Change],
    options: DiffOptions,
    compared: str,
    step_key: str | None,
    problems: tuple[Problems, Problems],
    modes: tuple[str | None, str | None],
    nothing: str | None = None,
) -> DiffSummary:
    """``nothing``: why nothing was compared (a side gave no record), where that is so."""
    counts = {category: CategoryCount() for category in CATEGORIES}
    for change in changes:
        counts[change.category].changes += 1
        counts[change.category].significant += change.significant
    significant = [category for category in CATEGORIES if counts[category].significant]
    verdict = "significant change" if significant else "no significant change" if changes else "identical"
    text = headline(changes, step_key, options.threshold, modes)
    damaged = [
        f"{name} has {counted(side.count, 'error')} (`tlint check` lists {'it' if side.count == 1 else 'them'}): {side.first}"
        for name, side in zip("ab", problems, strict=True)
        if side.count
    ]
    if damaged:
        verdict = "inconclusive"
        text = "; ".join(damaged) + (f"; nothing compared: {nothing}" if nothing else f"; on what could be read: {text}")
    return DiffSummary(
        headline=text,
        verdict=verdict,
        compared=compared,
        threshold_percent=options.threshold * 100,
        counts=counts,
        significant_categories=significant,
        fail_on=list(options.fail_on),
    )


def _knob_place(change: Change) -> int:
    """Config changes in the order users name the knobs, then the other settings."""
    return HEADLINE_KNOBS.index(change.key) if change.category == "config" and change.key in HEADLINE_KNOBS else len(HEADLINE_KNOBS)


# The knobs in the order a headline names them: the ones users set first, then dp and vpp, which follow
# from them (dp from the world and tp·pp; AICB's vpp from the layers and pp).
HEADLINE_KNOBS = ("tp", "pp", "ep", "sp", "layers", "hidden", "experts", "mbs", "seq", "seq·mbs", "gbs", "recompute", "phase", "dp", "vpp")
# seq·mbs is what a workload's rows tell when its name does not tell each: named only where neither is.
TOKENS = "seq·mbs"


def headline(
    changes: list[Change], step_key: str | None, threshold: float = DEFAULT_THRESHOLD_PERCENT / 100, modes: tuple[str | None, str | None] = (None, None)
) -> str:
    """'tp 2 → 4, dp 4 → 2; step time +12.4 % (significant), driven by stage 3 backward_step; tp allreduce bytes
    per step −50.0 % (float32 → bfloat16)': the knobs first, then what else changed most; what follows from
    the writer modes is counted, not named."""
    if not changes:
        return "no difference in config, structure, comm or timing"
    significant = [c for c in changes if c.significant]
    parts: list[str] = []
    config = [c for c in significant if c.category == "config"]
    knobs = [c for c in config if c.key in HEADLINE_KNOBS]
    if any(c.key in ("mbs", "seq") for c in knobs):
        knobs = [c for c in knobs if c.key != TOKENS]
    named = knobs or config  # the knobs lead; the other settings only where no knob changed
    if named:
        parts.append(
            ", ".join(f"{subject(c)} {value(c.before)} {ARROW} {value(c.after)}" for c in named[:HEADLINE_CONFIG])
            + (f" (+{len(named) - HEADLINE_CONFIG} more)" if len(named) > HEADLINE_CONFIG else "")
        )
    by_mode = sum(c.cause == "writer mode" for c in changes)
    if by_mode:
        parts.append(f"written in two modes, {modes[0]} and {modes[1]}: {by_mode:,} difference{'s follow' if by_mode != 1 else ' follows'} from them")
    renamed = [c for c in changes if c.kind == "renamed"]
    if renamed:
        parts.append(", ".join(f"renamed {value(c.before)} {ARROW} {value(c.after)}" for c in renamed))
    structure = [c for c in significant if c.category == "structure"]
    if structure:
        first = structure[0]
        more = f" (+{len(structure) - 1} more structure changes)" if len(structure) > 1 else ""
        moved = f" {value(first.before)} {ARROW} {value(first.after)}" if first.kind == "changed" else ""
        parts.append(f"{first.kind} {subject(first)}{moved}{more}")
    parts += _timing_headline([c for c in changes if c.cause is None and abs(c.rel_delta or 0) >= threshold], step_key)
    comm = [c for c in significant if c.category == "comm"]
    if comm:
        top = next((c for c in comm if c.delta is not None), comm[0])
        dtype = next((c for c in changes if c.category == "comm" and c.key == top.key and c.field == "dtype"), None)
        note = f" ({dtype.before} {ARROW} {dtype.after})" if dtype else ""
        parts.append(f"{subject(top)} {percent(top.rel_delta)}{note}" if top.delta is not None else f"{top.kind} {subject(top)}")
    if not significant:
        return "; ".join(filter(None, [_insignificant(changes, threshold), *parts]))
    return "; ".join(parts)


def _insignificant(changes: list[Change], threshold: float) -> str:
    """Why none of ``changes`` is significant: '3 timing changes within noise or below the 5 % threshold, 1 not judged (one sample on a side)'."""
    own = [c for c in changes if c.cause is None]
    unjudged = sum(not c.judged for c in own)
    why = []
    if len(own) > unjudged:
        why.append(f"{counted(len(own) - unjudged, 'change')} within noise or below the {threshold * 100:g} % threshold")
    if unjudged:
        why.append(f"{unjudged} not judged (one sample on a side)")
    return ", ".join(why)


def judgement(change: Change) -> str:
    """'significant', 'not significant', or why it cannot be said."""
    if change.significant:
        return "significant"
    return "not significant" if change.judged else "significance not judged: one sample on a side"


def _timing_headline(changes: list[Change], step_key: str | None) -> list[str]:
    timing = [c for c in changes if c.category == "timing"]
    step = next((c for c in timing if c.key == step_key), None)
    drivers = [c for c in timing if c.significant and c is not step and not c.key.endswith(" step")]
    if step is not None:
        text = f"{'step time' if step.key == 'step' else step.key} {percent(step.rel_delta)} ({judgement(step)})"
        same_way = [c for c in drivers if (c.delta or 0) * (step.delta or 0) > 0 and c.key.startswith("stage ")] or [
            c for c in drivers if (c.delta or 0) * (step.delta or 0) > 0
        ]
        if same_way:
            text += f", driven by {same_way[0].key}"
        stages = [c for c in timing if c.significant and c.key.startswith("stage ") and c.key.endswith(" step")]
        if stages and not step.significant:  # the step's own test fell short: say what the stage table shows
            more = f" (+{len(stages) - 1} more stages)" if len(stages) > 1 else ""
            text += f"; but {stages[0].key} {percent(stages[0].rel_delta)} is significant{more}"
        return [text]
    if drivers:
        return [f"{drivers[0].key} {percent(drivers[0].rel_delta)} (significant)"]
    return []


def _side(profile: Profile, problems: Problems) -> DiffSide:
    return DiffSide(
        path=profile.path,
        format=profile.format,
        mode=profile.mode,
        config=profile.knobs,
        files=profile.files,
        units=profile.units,
        step_ms=round(profile.step_ms, MS_DECIMALS) if profile.step_ms is not None else None,
        total_bytes=profile.total_bytes or None,
        errors=problems.count,
        problems=list(problems.shown),
    )


def _plot(before: Profile, after: Profile) -> list[PlotSeries]:
    keys = before.plot_keys + [k for k in after.plot_keys if k not in before.plot_keys]
    return [
        PlotSeries(
            label=key,
            before=spread(before.timing[key]) if key in before.timing else None,
            after=spread(after.timing[key]) if key in after.timing else None,
        )
        for key in keys
    ]
