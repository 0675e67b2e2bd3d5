"""How changes read: numbers, relative changes, collapsed key ranges.  Shared by the headline and reporters."""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from lint.models.diff import Change
from lint.models.report import Finding

MINUS = "\u2212"
ARROW = "\u2192"
# The mark of a change in tables, and the legend of the mark of a change one sample per side cannot judge.
UNJUDGED_LEGEND = "? one sample on a side: whether the change is significant cannot be judged"
_NUMBER = re.compile(r"\d+")
_SPLIT = re.compile(r"(\d+)")


def mark(change: Change) -> str:
    """``*`` significant, ``?`` not judged (one sample on a side), else nothing."""
    return "*" if change.significant else "" if change.judged else "?"


def left_out(change: Change) -> str | None:
    """Why the text reports leave ``change`` out unless asked for everything (``--all``), or None: what follows
    from the writer modes, and timing that is not significant (within noise, below the threshold, not judged)
    would bury what matters under dozens of lines."""
    if change.cause == "writer mode":
        return "following from the writer modes"
    if change.category == "timing" and not change.significant:
        return "timing, not significant"
    return None


def knob_table(sides: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The knobs of each side in aligned columns, ``?`` where a side does not tell; none when no side tells any."""
    names = list(dict.fromkeys(name for _, knobs in sides for name in knobs))
    if not any(knob is not None for _, knobs in sides for knob in knobs.values()):
        return []
    rows = [["", *names], *([label, *("?" if knobs.get(name) is None else value(knobs[name]) for name in names)] for label, knobs in sides)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) if column == 0 else cell.rjust(width) for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in rows
    ]


def problem_line(finding: Finding, where: str | None = None) -> str:
    """A finding as `tlint check` prints it, 'rank2.txt:5:220: TL001 expected …' (its rank where no line tells
    it); ``where`` names its file otherwise than its path.  Control characters are the reporters' to escape."""
    location = where if where is not None else finding.path or "<run>"
    if finding.line:
        location += f":{finding.line}:{finding.column or 1}"
    rank = f" [rank {finding.rank}]" if finding.rank is not None and finding.line is None else ""
    return f"{location}: {finding.code} {finding.message}{rank}"


def counted(count: int, noun: str) -> str:
    """'1 error', '2 errors'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def number(value: float) -> str:
    """12,345 for whole numbers, four significant digits otherwise; the minus sign is a real one."""
    if float(value).is_integer() and abs(value) < 1e15:
        text = f"{int(value):,}"
    elif abs(value) >= 1000:
        text = f"{value:,.0f}"
    else:
        text = f"{value:.4g}"
    return text.replace("-", MINUS)


def value(item: Any, unit: str = "") -> str:
    if item is None:
        return "\u2014"
    if is_number(item):
        return number(item) + (f" {unit}" if unit else "")
    if isinstance(item, bool):
        return "on" if item else "off"
    return str(item)


def percent(rel_delta: float | None) -> str:
    if rel_delta is None:
        return "n/a"
    sign = "+" if rel_delta > 0 else MINUS if rel_delta < 0 else "\u00b1"
    return f"{sign}{abs(rel_delta) * 100:.1f} %"


def signed(delta: float) -> str:
    return ("+" if delta > 0 else "") + number(delta)


def unit_of(change: Change) -> str:
    if change.category == "timing":
        return "ms"
    return "B" if change.category == "comm" and "bytes" in change.field else ""


def transition(change: Change) -> str:
    """'2 → 4 (+2, +100.0 %)', or the one side there is for an added or removed item."""
    unit = unit_of(change)
    text = f"{value(change.before, unit)} {ARROW} {value(change.after, unit)}"
    if change.delta is not None:
        text += f" ({signed(change.delta)}, {percent(change.rel_delta)})"
    return text


def subject(change: Change) -> str:
    return f"{change.key} {change.field}".strip()


def key_template(key: str) -> tuple[str, int] | None:
    """``key`` with its last number taken out, and that number; None for a key without one."""
    matches = list(_NUMBER.finditer(key))
    if not matches:
        return None
    last = matches[-1]
    return key[: last.start()] + "{}" + key[last.end() :], int(last.group())


def number_ranges(numbers: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8'."""
    ordered = sorted(set(numbers))
    runs: list[list[int]] = []
    for n in ordered:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort 'stage 10' after 'stage 9'.  A run of digits sorts by its length, then its text (as its number
    would, without making one: a damaged file's name may hold more digits than int() takes)."""
    return tuple((len(part.lstrip("0")), part.lstrip("0")) if index % 2 else part for index, part in enumerate(_SPLIT.split(text)))
