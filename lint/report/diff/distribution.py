"""Timing distributions drawn in text: a box bar per side on a scale both sides share."""

from __future__ import annotations

from lint.models.diff import Spread

WIDTH = 24


def scale(*spreads: Spread | None) -> tuple[float, float]:
    """The ms range both bars are drawn on: from the lowest p10 to the highest p90."""
    present = [s for s in spreads if s is not None]
    low = min((s.p10 for s in present), default=0.0)
    high = max((s.p90 for s in present), default=1.0)
    return low, high if high > low else low + 1.0


def box_bar(spread: Spread | None, low: float, high: float, width: int = WIDTH) -> str:
    """'   ──━━━┃━━──      ': whiskers p10-p90, box p25-p75, the median as a bar."""
    if spread is None:
        return " " * width

    def at(value: float) -> int:
        return min(width - 1, max(0, round((value - low) / (high - low) * (width - 1))))

    cells = [" "] * width
    for i in range(at(spread.p10), at(spread.p90) + 1):
        cells[i] = "\u2500"
    for i in range(at(spread.p25), at(spread.p75) + 1):
        cells[i] = "\u2501"
    cells[at(spread.median)] = "\u2503"
    return "".join(cells)
