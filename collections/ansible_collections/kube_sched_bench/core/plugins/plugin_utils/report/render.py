# -*- coding: utf-8 -*-
"""Rendering a built report: Markdown, HTML and CSV text, and PNG charts (matplotlib, imported when drawing)."""
from __future__ import annotations

import csv
import html
import io
import math

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import (
    AreaChart,
    Heading,
    Image,
    LineChart,
    Paragraph,
    StackedBarChart,
    Table,
)


# ---------------------------------------------------------------------------
# Renderers: text in, text out
# ---------------------------------------------------------------------------
def markdown_cell(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def paragraph_parts(text):
    """[(is_list, [line, ...])]: a paragraph's runs of text lines and of list items ("- " lines, without it)."""
    parts = []
    for line in text.split("\n"):
        is_item = line.startswith("- ")
        if not parts or parts[-1][0] != is_item:
            parts.append((is_item, []))
        parts[-1][1].append(line[2:] if is_item else line)
    return parts


def render_markdown(report):
    out = []
    for block in report.blocks:
        if isinstance(block, Heading):
            out.append("%s %s" % ("#" * block.level, block.text))
        elif isinstance(block, Paragraph):
            # A blank line before a list, which not every Markdown reader lets interrupt a paragraph.
            out.append("\n\n".join("\n".join(("- " + line) if is_list else line for line in lines)
                                    for is_list, lines in paragraph_parts(block.text)))
        elif isinstance(block, Table):
            lines = ["**%s**\n" % block.caption] if block.caption else []
            lines += ["| " + " | ".join(markdown_cell(header) for header in block.headers) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(markdown_cell(cell.text) for cell in row) + " |" for row in block.rows]
            out.append("\n".join(lines))
        elif isinstance(block, Image):
            out.append("![%s](%s)" % (block.alt, block.path))
    return "\n\n".join(out) + "\n"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.better { color: #1a7f37; }
td.worse { color: #cf222e; }
td.bad { background: #ffebe9; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
td.long { overflow-wrap: anywhere; }
img { width: 100%; max-width: 580px; display: inline-block; vertical-align: top; margin: 0.5em 1em 0.5em 0; }
"""
# A cell with a word longer than this (a path, a URL, JSON) may break it anywhere rather than widen its table.
LONG_WORD = 40


def cell_classes(cell):
    classes = [cell.tone] if cell.tone else []
    if any(len(word) > LONG_WORD for word in str(cell.text).split()):
        classes.append("long")
    return ' class="%s"' % " ".join(classes) if classes else ""


def render_html(report):
    escape = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           "<title>%s</title>" % escape(report.title), "<style>%s</style>" % _STYLE, "</head>", "<body>"]
    for block in report.blocks:
        if isinstance(block, Heading):
            anchor = ' id="%s"' % escape(block.anchor) if block.anchor else ""
            out.append("<h%d%s>%s</h%d>" % (block.level, anchor, escape(block.text), block.level))
        elif isinstance(block, Paragraph):
            for is_list, lines in paragraph_parts(block.text):
                if is_list:
                    out.append("<ul>%s</ul>" % "".join("<li>%s</li>" % escape(line) for line in lines))
                else:
                    out.append("<p>%s</p>" % escape("\n".join(lines)))
        elif isinstance(block, Table):
            out.append("<table>")
            if block.caption:
                out.append("<caption>%s</caption>" % escape(block.caption))
            out.append("<tr>%s</tr>" % "".join("<th>%s</th>" % escape(header) for header in block.headers))
            for row in block.rows:
                out.append("<tr>%s</tr>" % "".join("<td%s>%s</td>" % (cell_classes(cell), escape(cell.text))
                                                   for cell in row))
            out.append("</table>")
        elif isinstance(block, Image):
            out.append('<img src="%s" alt="%s">' % (escape(block.path), escape(block.alt)))
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def render_csv(report):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=report.csv_fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(report.csv_rows)
    return buffer.getvalue()


def render_png(chart):
    """PNG bytes of a chart. Imports matplotlib here so that the rest works without it."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 4.5), dpi=100)
    axes = figure.subplots()
    if isinstance(chart, LineChart):
        draw_lines(axes, chart)
    elif isinstance(chart, AreaChart):
        draw_areas(axes, chart)
    elif isinstance(chart, StackedBarChart):
        draw_stacked_bars(axes, chart)
    else:
        draw_bars(axes, chart)
    axes.set_title(chart.title)
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    # No timestamp in the PNG, so the same results give the same bytes.
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def draw_lines(axes, chart):
    for label, (xs, ys) in chart.series.items():
        axes.plot(xs, ys, marker="." if len(xs) < 30 else None, label=label)
    axes.set_xlabel(chart.xlabel)
    axes.set_ylabel(chart.ylabel)
    axes.set_xlim(left=0)
    axes.set_ylim(bottom=0)
    axes.legend(loc="lower right")


def draw_bars(axes, chart):
    count = max(len(chart.series), 1)
    width = 0.8 / count
    positions = range(len(chart.categories))
    for index, (label, values) in enumerate(chart.series.items()):
        xs = [position - 0.4 + width * (index + 0.5) for position in positions]
        heights = [math.nan if value is None else value for value in values]
        axes.bar(xs, heights, width, label=label)
        ranged = [(x, value, span) for x, value, span in zip(xs, values, chart.ranges.get(label) or [])
                  if value is not None and span is not None]
        if ranged:
            axes.errorbar([x for x, _, _ in ranged], [value for _, value, _ in ranged],
                          yerr=[[value - span[0] for _, value, span in ranged],
                                [span[1] - value for _, value, span in ranged]],
                          fmt="none", ecolor="black", capsize=3)
    axes.set_xticks(list(positions))
    axes.set_xlim(-0.5, len(chart.categories) - 0.5)
    axes.set_xticklabels([category if any(values[index] is not None for values in chart.series.values())
                          else category + "\n(no results)" for index, category in enumerate(chart.categories)])
    axes.set_ylabel(chart.ylabel)
    if chart.log_scale:
        axes.set_yscale("log")
    axes.legend()


def draw_areas(axes, chart):
    """Stacked areas, and each target drawn dashed at the height where its area would end if every share met it."""
    labels = list(chart.series)
    xs = chart.series[labels[0]][0]
    areas = axes.stackplot(xs, *[chart.series[label][1] for label in labels], labels=labels, alpha=0.7, step="post")
    cumulative = [0.0] * len(xs)
    for label, area in zip(labels, areas):
        target_xs, target_ys = chart.targets.get(label, (xs, [None] * len(xs)))
        cumulative = [low + (value or 0.0) for low, value in zip(cumulative, target_ys)]
        axes.step(target_xs, cumulative, where="post", linestyle="--", color=area.get_facecolor()[0], alpha=1.0)
    axes.set_xlabel(chart.xlabel)
    axes.set_ylabel(chart.ylabel)
    axes.set_xlim(left=0)
    axes.set_ylim(0, 1)
    axes.legend(loc="lower right")


def draw_stacked_bars(axes, chart):
    positions = list(range(len(chart.categories)))
    bottoms = [0.0] * len(positions)
    for label, heights in chart.stacks.items():
        values = [value or 0.0 for value in heights]
        axes.bar(positions, values, 0.6, bottom=bottoms, label=label)
        bottoms = [bottom + value for bottom, value in zip(bottoms, values)]
    axes.set_xticks(positions)
    axes.set_xticklabels(chart.categories)
    axes.set_ylabel(chart.ylabel)
    axes.legend()
