"""``html``: one self-contained page (inline CSS, SVG and one small script; no external assets), titled by
the two sides it compares.

The summary with both sides' knobs, one table per category (what the text reports list: ``--all`` lists
everything), and a per-stage timing plot: for every plotted key (each stage's step time for runs, the
busiest compute keys for workloads) a box plot of side a above one of side b, each side in its colour and
its median a thick bar of a darker shade, on an axis with round tick values and titled axes; a side
without samples of a key says so in its row.  Cells do not wrap: a table wider than the page scrolls.  A
click on a column heading sorts its table (the inline script reads each cell's ``data-sort`` value, so
that "1,234 ms" sorts as the number it is); without scripts the page reads the same, unsorted.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Callable
from typing import TextIO

from lint.diff.wording import UNJUDGED_LEGEND, is_number, mark, percent, signed, subject, unit_of, value
from lint.models.categories import CATEGORIES
from lint.models.diff import Change, DiffReport, PlotSeries, Spread
from lint.report.diff.concise import counts_line, knob_lines, problem_lines, shown, side_line
from lint.report.text import printable

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 2em; }
.summary { border: 1px solid #ccc; border-radius: 6px; padding: .8em 1.2em; background: #fafafa; }
.verdict { font-weight: bold; } .significant-change { color: #b00020; } .no-significant-change { color: #8a6d00; }
.identical { color: #1b7f3b; } .inconclusive { color: #7b1fa2; } .dim { color: #666; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; } th, td { padding: .25em .6em; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { text-align: left; background: #f2f2f2; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.sig td:first-child { color: #b00020; font-weight: bold; }
svg text { font: 11px system-ui, sans-serif; fill: #333; } svg text.axis-title { font-weight: bold; } svg text.none { fill: #8a4b00; font-style: italic; }
th.sortable { cursor: pointer; } th.sortable::after { content: " \\2195"; color: #999; }
.warning { color: #8a4b00; font-weight: bold; }
"""
# Sorts a table by the clicked column: numbers by value, text alphabetically; a second click reverses.
_SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (heading, column) {
    heading.classList.add("sortable");
    heading.addEventListener("click", function () {
      var rows = Array.from(table.querySelectorAll("tr")).slice(1);
      var ascending = heading.dataset.order !== "ascending";
      heading.dataset.order = ascending ? "ascending" : "descending";
      function key(row) {
        var cell = row.children[column], raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent;
        var number = parseFloat(raw);
        return raw !== "" && !isNaN(number) && isFinite(raw) ? number : raw.toLowerCase();
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { table.appendChild(row); });
    });
  });
});
"""
_TICKS = 5  # about this many tick values on the time axis
_ROW_HEIGHT, _LABEL_WIDTH, _PLOT_WIDTH = 34, 190, 560
# Per side: the box and whiskers, and the median's darker shade (a median drawn in black on both sides, in a
# box one pixel wide, could not be told apart or seen).
_COLOURS = ("#9e9e9e", "#1f77b4")
_MEDIANS = ("#303030", "#0b3a66")
_MIN_BOX = 4  # px: a box whose quartiles coincide is still a box


def _text(text: str) -> str:
    """Text of the page: HTML-escaped, its control characters (ESC, BEL, C1) and bidirectional overrides shown as
    escapes, as the text reporters show them (a row name comes from the file, and a page may be read in a
    terminal or reorder what a reader sees)."""
    return html.escape(printable(text))


def render(report: DiffReport, out: TextIO, err: TextIO) -> None:
    summary = report.summary
    title = f"tlint diff: {_name(report.a.path)} → {_name(report.b.path)}"
    knobs = knob_lines(report)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_text(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_text(title)}</h1>",
        '<div class="summary">',
        f'<p class="verdict {summary.verdict.replace(" ", "-")}">{_text(summary.verdict)}</p>',
        f"<p>{_text(summary.headline)}</p>",
        f'<p class="dim">a: {_text(side_line(report.a))}<br>b: {_text(side_line(report.b))}<br>{_text(counts_line(report))}</p>',
        *([f'<div class="scroll"><pre>{chr(10).join(map(_text, knobs))}</pre></div>'] if knobs else []),
        *(f'<p class="warning">{_text(line)}</p>' for line in problem_lines(report)),
        "</div>",
    ]
    listed = shown(report)
    for category in CATEGORIES:
        changes = [c for c in listed if c.category == category]
        if changes:
            parts.append(f"<h2>{category} ({sum(c.significant for c in changes)}/{len(changes)} significant)</h2>")
            parts.append(_table(changes))
    if report.plot:
        per_stage = all(row.label.startswith("stage ") for row in report.plot)
        parts.append(f"<h2>{'timing per stage' if per_stage else 'timing of the busiest compute keys'}</h2>")
        parts.append(_plot(report.plot, "stage" if per_stage else "compute key"))
    parts.append(f"<script>{_SORT_SCRIPT}</script>")
    parts.append("</body></html>")
    out.write("\n".join(parts) + "\n")


def _name(path: str) -> str:
    """A side as a title names it: its last path component."""
    return os.path.basename(os.path.normpath(path)) or path


def _table(changes: list[Change]) -> str:
    rows = [
        '<div class="scroll"><table class="sortable"><tr><th></th><th>key</th><th class="num">before</th><th class="num">after</th><th class="num">Δ</th><th class="num">rel</th></tr>'
    ]
    for change in changes:
        unit = unit_of(change)
        delta = signed(change.delta) if change.delta is not None else ""
        rel = percent(change.rel_delta) if change.delta is not None else ""
        marked = mark(change)
        rows.append(
            f'<tr class="{"sig" if change.significant else ""}"><td>{_text(change.kind)}{marked}</td><td>{_text(subject(change))}</td>'
            f'<td class="num"{_sort_value(change.before)}>{_text(value(change.before, unit))}</td>'
            f'<td class="num"{_sort_value(change.after)}>{_text(value(change.after, unit))}</td>'
            f'<td class="num"{_sort_value(change.delta)}>{_text(delta)}</td><td class="num"{_sort_value(change.rel_delta)}>{_text(rel)}</td></tr>'
        )
    rows.append("</table></div>")
    if not all(change.judged for change in changes):
        rows.append(f'<p class="dim">{UNJUDGED_LEGEND}</p>')
    return "\n".join(rows)


def _sort_value(item: object) -> str:
    """A number's ``data-sort`` attribute: the sort script compares values, not their formatted text."""
    return f' data-sort="{item!r}"' if is_number(item) else ""


def _plot(series: list[PlotSeries], rows_title: str) -> str:
    spreads = [s for row in series for s in (row.before, row.after) if s is not None]
    ticks = nice_ticks(min((s.minimum for s in spreads), default=0.0), max((s.maximum for s in spreads), default=1.0))
    low, high = ticks[0], ticks[-1]
    height = _ROW_HEIGHT * len(series) + 64
    width = _LABEL_WIDTH + _PLOT_WIDTH + 50  # room for the last tick label

    def x(ms: float) -> float:
        return _LABEL_WIDTH + (ms - low) / (high - low) * _PLOT_WIDTH

    shapes = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="timing per {rows_title}">']
    shapes.append(f'<text class="axis-title" x="4" y="14">{_text(rows_title)}</text>')
    for index, row in enumerate(series):
        top = index * _ROW_HEIGHT + 24
        shapes.append(f'<text x="4" y="{top + 17}">{_text(row.label)}</text>')
        for offset, (spread, side) in enumerate(zip((row.before, row.after), "ab", strict=True)):
            y = top + 4 + offset * 13
            if spread is not None:
                shapes.append(_box(spread, y, offset, x))
            else:  # said, not left blank: a blank row reads as a side that took no time
                shapes.append(f'<text class="none" x="{_LABEL_WIDTH + 4}" y="{y + 9}">{side}: no samples</text>')
    axis = height - 40
    shapes.append(f'<line x1="{_LABEL_WIDTH}" y1="{axis}" x2="{_LABEL_WIDTH + _PLOT_WIDTH}" y2="{axis}" stroke="#999"/>')
    decimals = tick_decimals(ticks)
    for ms in ticks:
        shapes.append(f'<line x1="{x(ms):.1f}" y1="{axis}" x2="{x(ms):.1f}" y2="{axis + 4}" stroke="#999"/>')
        shapes.append(f'<text x="{x(ms):.1f}" y="{axis + 16}" text-anchor="middle">{ms:,.{decimals}f}</text>')
    title_x = _LABEL_WIDTH + _PLOT_WIDTH / 2
    shapes.append(
        f'<text class="axis-title" x="{title_x:.1f}" y="{axis + 34}" text-anchor="middle">time (ms): whiskers min–max, box p25–p75, bar median</text>'
    )
    shapes.append(f'<text x="4" y="{axis + 16}"><tspan fill="{_MEDIANS[0]}">■ a</tspan>  <tspan fill="{_MEDIANS[1]}">■ b</tspan></text>')
    shapes.append("</svg>")
    return "\n".join(shapes)


def nice_ticks(low: float, high: float, count: int = _TICKS) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) that cover ``low`` to ``high``."""
    if not high > low:
        low, high = (low - 1, high + 1) if low == 0 else (low - abs(low) * 0.1, high + abs(high) * 0.1)
    raw = (high - low) / count
    power = 10.0 ** math.floor(math.log10(raw))  # a float, as the times are: an int power would outgrow them
    step = next(power * f for f in (1, 2, 5, 10) if power * f >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    if not math.isfinite(last):  # rounded up past the largest float: the ticks stop below the highest time
        last = math.floor(high / step) * step
    return [round(first + i * step, 12) for i in range(round((last - first) / step) + 1)]


def tick_decimals(ticks: list[float]) -> int:
    """Decimals enough to tell the ticks apart, and no more."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    return max(0, -math.floor(math.log10(step))) if step < 1 else 0


def _box(spread: Spread, y: float, side: int, at: Callable[[float], float]) -> str:
    """Whiskers min-max, box p25-p75 (at least :data:`_MIN_BOX` wide, about its median), the median a thick bar of
    the side's darker shade; ``side`` 0 for a, 1 for b; ``at`` maps ms to the plot's x."""
    colour, median = _COLOURS[side], _MEDIANS[side]
    left, right = at(spread.p25), at(spread.p75)
    if right - left < _MIN_BOX:
        middle = at(spread.median)
        left, right = middle - _MIN_BOX / 2, middle + _MIN_BOX / 2
    return (
        f"<g><title>{'ab'[side]}: {spread.count} samples, median {value(round(spread.median, 2))} ms</title>"
        f'<line x1="{at(spread.minimum):.1f}" y1="{y + 5}" x2="{at(spread.maximum):.1f}" y2="{y + 5}" stroke="{colour}"/>'
        f'<rect x="{left:.1f}" y="{y}" width="{right - left:.1f}" height="10" fill="{colour}" opacity="0.6"/>'
        f'<line class="median" x1="{at(spread.median):.1f}" y1="{y - 2}" x2="{at(spread.median):.1f}" y2="{y + 12}" stroke="{median}" stroke-width="3"/></g>'
    )
