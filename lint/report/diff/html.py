"""``html``: one self-contained page (inline CSS and SVG, no scripts or external assets).

The summary, one table per category, and a per-stage timing plot: for every plotted key (each stage's
step time for runs, the busiest compute keys for workloads) a box plot of side a above one of side b.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TextIO

from lint.diff.wording import percent, signed, subject, unit_of, value
from lint.models.diff import CATEGORIES, Change, DiffReport, PlotSeries, Spread
from lint.report.diff.concise import counts_line, side_line

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 2em; }
.summary { border: 1px solid #ccc; border-radius: 6px; padding: .8em 1.2em; background: #fafafa; }
.verdict { font-weight: bold; } .significant-change { color: #b00020; } .no-significant-change { color: #8a6d00; }
.identical { color: #1b7f3b; } .dim { color: #666; }
table { border-collapse: collapse; width: 100%; } th, td { padding: .25em .6em; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f2f2f2; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.sig td:first-child { color: #b00020; font-weight: bold; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
"""
_ROW_HEIGHT, _LABEL_WIDTH, _PLOT_WIDTH = 34, 190, 560
_COLOURS = ("#9e9e9e", "#1f77b4")


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    summary = report.summary
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', "<title>tlint diff</title>",
        f"<style>{_CSS}</style></head><body>", "<h1>tlint diff</h1>", '<div class="summary">',
        f'<p class="verdict {summary.verdict.replace(" ", "-")}">{escape(summary.verdict)}</p>',
        f"<p>{escape(summary.headline)}</p>",
        f'<p class="dim">a: {escape(side_line(report.a))}<br>b: {escape(side_line(report.b))}<br>{escape(counts_line(report))}</p>',
        "</div>",
    ]
    for category in CATEGORIES:
        changes = [c for c in report.changes if c.category == category]
        if changes:
            parts.append(f"<h2>{category} ({sum(c.significant for c in changes)}/{len(changes)} significant)</h2>")
            parts.append(_table(changes))
    if report.plot:
        per_stage = all(row.label.startswith("stage ") for row in report.plot)
        parts.append(f"<h2>{'timing per stage' if per_stage else 'timing of the busiest compute keys'}</h2>")
        parts.append(_plot(report.plot))
    parts.append("</body></html>")
    out.write("\n".join(parts) + "\n")


def _table(changes: list[Change]) -> str:
    rows = ['<table><tr><th></th><th>key</th><th class="num">before</th><th class="num">after</th><th class="num">Δ</th><th class="num">rel</th></tr>']
    for change in changes:
        unit = unit_of(change)
        delta = signed(change.delta) if change.delta is not None else ""
        rel = percent(change.rel_delta) if change.delta is not None else ""
        mark = "*" if change.significant else ""
        rows.append(
            f'<tr class="{"sig" if change.significant else ""}"><td>{escape(change.kind)}{mark}</td><td>{escape(subject(change))}</td>'
            f'<td class="num">{escape(value(change.before, unit))}</td><td class="num">{escape(value(change.after, unit))}</td>'
            f'<td class="num">{escape(delta)}</td><td class="num">{escape(rel)}</td></tr>'
        )
    rows.append("</table>")
    return "\n".join(rows)


def _plot(series: list[PlotSeries]) -> str:
    spreads = [s for row in series for s in (row.before, row.after) if s is not None]
    low = min((s.minimum for s in spreads), default=0.0)
    high = max((s.maximum for s in spreads), default=1.0)
    high = high if high > low else low + 1.0
    height = _ROW_HEIGHT * len(series) + 30
    width = _LABEL_WIDTH + _PLOT_WIDTH + 50  # room for the last tick label

    def x(ms: float) -> float:
        return _LABEL_WIDTH + (ms - low) / (high - low) * _PLOT_WIDTH

    shapes = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="timing per stage">']
    for index, row in enumerate(series):
        top = index * _ROW_HEIGHT + 4
        shapes.append(f'<text x="4" y="{top + 17}">{escape(row.label)}</text>')
        for offset, (spread, colour) in enumerate(zip((row.before, row.after), _COLOURS)):
            if spread is not None:
                shapes.append(_box(spread, top + 4 + offset * 13, colour, x))
    axis = height - 22
    shapes.append(f'<line x1="{_LABEL_WIDTH}" y1="{axis}" x2="{_LABEL_WIDTH + _PLOT_WIDTH}" y2="{axis}" stroke="#999"/>')
    for fraction in (0, 0.25, 0.5, 0.75, 1):
        ms = low + (high - low) * fraction
        shapes.append(f'<text x="{x(ms):.1f}" y="{axis + 14}" text-anchor="middle">{escape(value(round(ms, 2)))} ms</text>')
    shapes.append(f'<text x="4" y="{axis + 14}"><tspan fill="{_COLOURS[0]}">■ a</tspan>  <tspan fill="{_COLOURS[1]}">■ b</tspan></text>')
    shapes.append("</svg>")
    return "\n".join(shapes)


def _box(spread: Spread, y: float, colour: str, at: Callable[[float], float]) -> str:
    """Whiskers min-max, box p25-p75, a black median; ``at`` maps ms to the plot's x."""
    return (
        f'<g><title>{spread.count} samples, median {value(round(spread.median, 2))} ms</title>'
        f'<line x1="{at(spread.minimum):.1f}" y1="{y + 5}" x2="{at(spread.maximum):.1f}" y2="{y + 5}" stroke="{colour}"/>'
        f'<rect x="{at(spread.p25):.1f}" y="{y}" width="{max(at(spread.p75) - at(spread.p25), 1):.1f}" height="10" fill="{colour}" opacity="0.6"/>'
        f'<line x1="{at(spread.median):.1f}" y1="{y - 1}" x2="{at(spread.median):.1f}" y2="{y + 11}" stroke="#000" stroke-width="2"/></g>'
    )
