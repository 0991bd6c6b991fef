"""Charts as inline SVG, written at build time: the site reads with JavaScript off, makes no
request for them, and prints as it shows.

Hand-written rather than drawn by a plotting library: four small chart kinds, each a few dozen
elements, render in microseconds per page (thousands of pages per snapshot), carry their own
``<title>`` and ``aria-label`` text, and take their colours from the site's CSS.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in its number: "1 signal", "3 signals", "1 week"."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def percent(value: float) -> str:
    """A share as people read it: ``0.0345`` → ``3.45%``."""
    return f"{value * 100:.2f}%"


def _points(values: Sequence[float], width: float, height: float, pad: float) -> list[str]:
    top = max(values, default=0.0) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    return [
        f"{_fmt(pad + i * step)},{_fmt(height - pad - (value / top) * (height - 2 * pad))}"
        for i, value in enumerate(values)
    ]


def sparkline(values: Sequence[float], *, label: str, width: int = 120, height: int = 28) -> Markup:
    """A line of ``values`` (oldest first) with the last point marked; ``label`` is what a
    screen reader says instead."""
    points = _points(values, width, height, 3)
    last = points[-1].split(",") if points else ["0", "0"]
    return Markup(
        f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
        f'<polyline points="{" ".join(points)}"/>'
        f'<circle cx="{last[0]}" cy="{last[1]}" r="2.5"/></svg>'
    )


def _axes(width: int, height: int, pad: tuple[int, int, int, int], top_label: str) -> str:
    left, top, right, bottom = pad
    return (
        f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - right}" '
        f'y2="{height - bottom}"/>'
        f'<line class="grid" x1="{left}" y1="{top}" x2="{width - right}" y2="{top}"/>'
        f'<text class="tick" x="{left - 4}" y="{top + 4}" text-anchor="end">'
        f"{escape(top_label)}</text>"
        f'<text class="tick" x="{left - 4}" y="{height - bottom + 4}" text-anchor="end">0</text>'
    )


def _week_ticks(
    weeks: Sequence[str], xs: Sequence[float], height: int, bottom: int, every: int = 3
) -> str:
    return "".join(
        f'<text class="tick" x="{_fmt(x)}" y="{height - bottom + 16}" text-anchor="middle">'
        f"{escape(week)}</text>"
        for i, (week, x) in enumerate(zip(weeks, xs, strict=True))
        if (len(weeks) - 1 - i) % every == 0
    )


def share_chart(values: Sequence[float], weeks: Sequence[str], *, label: str) -> Markup:
    """Weekly share of voice (oldest first) as a line with a labelled point per week."""
    width, height = 600, 220
    left, top, right, bottom = 56, 12, 28, 28
    peak = max(values, default=0.0) or 1.0
    step = (width - left - right) / max(len(values) - 1, 1)
    xs = [left + i * step for i in range(len(values))]
    ys = [height - bottom - (v / peak) * (height - top - bottom) for v in values]
    dots = "".join(
        f'<circle cx="{_fmt(x)}" cy="{_fmt(y)}" r="3.5"><title>week of {escape(week)}: '
        f"{percent(value)}</title></circle>"
        for x, y, week, value in zip(xs, ys, weeks, values, strict=True)
    )
    line = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in zip(xs, ys, strict=True))
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>'
        f"{_axes(width, height, (left, top, right, bottom), percent(peak))}"
        f'<polyline class="series" points="{line}"/>{dots}'
        f"{_week_ticks(weeks, xs, height, bottom)}</svg>"
    )


def bar_chart(counts: Sequence[int], weeks: Sequence[str], *, label: str) -> Markup:
    """Counts per week (oldest first) as bars, each with its number as a tooltip."""
    width, height = 600, 200
    left, top, right, bottom = 48, 12, 28, 28
    peak = max(counts, default=0) or 1
    slot = (width - left - right) / max(len(counts), 1)
    bars = []
    xs = []
    for i, (count, week) in enumerate(zip(counts, weeks, strict=True)):
        bar_height = count / peak * (height - top - bottom)
        x = left + i * slot + slot * 0.15
        xs.append(x + slot * 0.35)
        bars.append(
            f'<rect x="{_fmt(x)}" y="{_fmt(height - bottom - bar_height)}" '
            f'width="{_fmt(slot * 0.7)}" height="{_fmt(bar_height)}">'
            f"<title>week of {escape(week)}: {counted(count, 'signal')}</title></rect>"
        )
    return Markup(
        f'<svg class="chart bars" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>'
        f"{_axes(width, height, (left, top, right, bottom), str(peak))}{''.join(bars)}"
        f"{_week_ticks(weeks, xs, height, bottom)}</svg>"
    )


def heatmap(labels: Sequence[str], counts: Sequence[Sequence[int]], *, label: str) -> Markup:
    """A square matrix of counts (``counts[i][j]`` for ``labels[i]`` with ``labels[j]``),
    darker for more; the diagonal is left blank (a theme with itself says nothing)."""
    cell, left, top = 34, 220, 220
    size = len(labels)
    width, height = left + size * cell + 8, top + size * cell + 8
    peak = max((c for i, row in enumerate(counts) for j, c in enumerate(row) if i != j), default=0)
    parts = []
    for i, name in enumerate(labels):
        y = top + i * cell
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{y + cell / 2 + 4}" '
            f'text-anchor="end">{escape(name)}</text>'
        )
        x = left + i * cell + cell / 2
        parts.append(
            f'<text class="tick" transform="translate({_fmt(x + 4)},{top - 6}) rotate(-60)">'
            f"{escape(name)}</text>"
        )
        for j, count in enumerate(counts[i]):
            if i == j:
                continue
            level = 0 if not peak else min(5, round(count / peak * 5))
            tip = f"{labels[i]} with {labels[j]}: {counted(count, 'signal')}"
            parts.append(
                f'<g class="cell l{level}"><rect x="{left + j * cell}" y="{y}" width="{cell - 2}" '
                f'height="{cell - 2}"><title>{escape(tip)}</title></rect>'
                f'<text x="{left + j * cell + (cell - 2) / 2}" y="{y + cell / 2 + 3}" '
                f'text-anchor="middle">{count}</text></g>'
            )
    return Markup(
        f'<svg class="chart heat" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>{"".join(parts)}</svg>'
    )
