# -*- coding: utf-8 -*-
"""Rendering a results directory's History (sched_history): index.html with inline SVG trend charts (no script, no
file fetched from anywhere) and index.csv. Text in, text out; unit-tested in tests/unit/test_history.py."""
from __future__ import annotations

import csv
import html
import io
import math
from urllib.parse import quote

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import CHARTS, differences
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import describe as describe_configuration
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import format_number, format_stat
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.csv_table import csv_value
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import (
    METRIC,
    METRICS,
    NOT_AVAILABLE,
    describe_failure,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.render import _STYLE as REPORT_STYLE

WIDTH, HEIGHT = 380, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 30, 34
TIME_FORMAT = "%Y-%m-%d %H:%M"
_STYLE = REPORT_STYLE + """
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg.trend { border: 1px solid #ddd; background: #fff; font-size: 11px; }
svg.trend .grid { stroke: #eee; }
svg.trend .axis { stroke: #999; }
svg.trend .title { font-weight: bold; font-size: 12px; }
svg.trend polyline { fill: none; stroke-width: 1.5; }
svg.trend .interval { stroke-width: 1.2; }
.s0 { stroke: #1f77b4; fill: #1f77b4; }
.s1 { stroke: #d62728; fill: #d62728; }
text.s0, text.s1 { stroke: none; }
section.series { margin: 1.5em 0; }
td.when { white-space: nowrap; }
"""


# ---------------------------------------------------------------------------
# Chart geometry: pure numbers
# ---------------------------------------------------------------------------
def nice_ticks(highest, count=4):
    """``count`` + 1 evenly spaced ticks from 0 whose last is the smallest round number (1, 2, 2.5 or 5 times a power
    of ten, times ``count``) at or above ``highest``."""
    if highest is None or highest <= 0:
        return [float(index) for index in range(count + 1)]
    raw = highest / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(factor * magnitude for factor in (1, 2, 2.5, 5, 10) if factor * magnitude * count >= highest * (1 - 1e-12))
    return [round(step * index, 12) for index in range(count + 1)]


def interval(stat):
    """(low, high) of a point's bar as the report shows it: the 95 % interval from three repeats on, else the min-max
    of the repeats when they differ; None without one."""
    if stat.median is None:
        return None
    if stat.ci_low is not None:
        return (stat.ci_low, stat.ci_high) if stat.ci_low != stat.ci_high else None
    return (stat.low, stat.high) if stat.spread else None


def x_positions(times, width=WIDTH):
    """Pixel x of each time, in proportion between the plot's edges; one time (or all equal) in the middle."""
    first, last = min(times), max(times)
    span = (last - first).total_seconds()
    plot = width - LEFT - RIGHT
    if span <= 0:
        return [LEFT + plot / 2.0 for _ in times]
    return [LEFT + plot * (moment - first).total_seconds() / span for moment in times]


def y_position(value, top_value, height=HEIGHT):
    plot = height - TOP - BOTTOM
    return TOP + plot - plot * value / top_value


# ---------------------------------------------------------------------------
# SVG and HTML
# ---------------------------------------------------------------------------
def _n(value):
    return ("%.1f" % value).rstrip("0").rstrip(".")


def trend_svg(series, name, title, keys):
    """One chart of a Series: a line per figure in ``keys`` through each run's median, a bar per interval."""
    escape = html.escape
    points = series.points
    xs = x_positions([point.started for point in points])
    highest = max([value for point in points for key in keys
                   for value in (point.stats[key].median, *(interval(point.stats[key]) or ()))
                   if value is not None] or [0.0])
    ticks = nice_ticks(highest)
    out = ['<svg class="trend" data-chart="%s" width="%d" height="%d" viewBox="0 0 %d %d" role="img" '
           'aria-label="%s">' % (name, WIDTH, HEIGHT, WIDTH, HEIGHT, escape(title)),
           '<text class="title" x="%d" y="16">%s</text>' % (LEFT, escape(title))]
    for tick in ticks:
        y = y_position(tick, ticks[-1])
        out.append('<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/>' % (LEFT, WIDTH - RIGHT, _n(y), _n(y)))
        out.append('<text x="%d" y="%s" text-anchor="end">%s</text>' % (LEFT - 4, _n(y + 4), format_number(tick)))
    bottom = HEIGHT - BOTTOM
    out.append('<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>' % (LEFT, WIDTH - RIGHT, bottom, bottom))
    first, last = points[0].started, points[-1].started
    out.append('<text x="%d" y="%d">%s</text>' % (LEFT, bottom + 16, first.strftime(TIME_FORMAT)))
    if last != first:
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (WIDTH - RIGHT, bottom + 16,
                                                                        last.strftime(TIME_FORMAT)))
    for index, key in enumerate(keys):
        metric = METRIC[key]
        css = "s%d" % index
        drawn = [(x, point) for x, point in zip(xs, points) if point.stats[key].median is not None]
        if len(drawn) > 1:
            out.append('<polyline class="%s" data-figure="%s" points="%s"/>' % (css, key, " ".join(
                "%s,%s" % (_n(x), _n(y_position(point.stats[key].median, ticks[-1]))) for x, point in drawn)))
        for x, point in drawn:
            stat = point.stats[key]
            bar = interval(stat)
            if bar is not None:
                low, high = (y_position(value, ticks[-1]) for value in bar)
                out.append('<g class="interval %s" data-run="%s" data-figure="%s">' % (css, escape(point.run_id), key))
                out.append('<line x1="%s" x2="%s" y1="%s" y2="%s"/>' % (_n(x), _n(x), _n(low), _n(high)))
                for y in (low, high):
                    out.append('<line x1="%s" x2="%s" y1="%s" y2="%s"/>' % (_n(x - 4), _n(x + 4), _n(y), _n(y)))
                out.append("</g>")
            out.append('<circle class="%s" data-run="%s" data-figure="%s" data-value="%s" cx="%s" cy="%s" r="3.5">'
                       "<title>%s</title></circle>" % (
                           css, escape(point.run_id), key, csv_value(stat.median), _n(x),
                           _n(y_position(stat.median, ticks[-1])), escape("run %s, %s UTC: %s %s (%d repeat%s)" % (
                               point.run_id, point.started.strftime(TIME_FORMAT), metric.label, format_stat(stat),
                               point.repeats, "" if point.repeats == 1 else "s"))))
        if len(keys) > 1:
            label = metric.label.split(" ")[0]
            out.append('<text class="%s" x="%d" y="16" text-anchor="end">%s</text>' % (
                css, WIDTH - RIGHT - 40 * (len(keys) - 1 - index), escape(label)))
    out.append("</svg>")
    return "".join(out)


def runs_table(history):
    escape = html.escape
    rows = ['<table id="runs">', "<tr>%s</tr>" % "".join("<th>%s</th>" % header for header in (
        "Run", "Started (UTC)", "Hosts", "Schedulers", "Workload", "Repeats", "Results", "Gate"))]
    for entry in history.runs:
        run = escape(entry.run_id)
        if entry.report:
            run = '<a href="%s">%s</a>' % (escape(quote(entry.report)), run)
        results = "%d of %d complete" % (entry.complete, entry.results)
        if entry.failed_hosts:
            results += "; failed: %s" % ", ".join(entry.failed_hosts)
        cells = [run, escape(entry.started.strftime(TIME_FORMAT) if entry.started else NOT_AVAILABLE),
                 escape(", ".join(entry.hosts)), escape(", ".join(entry.schedulers)),
                 escape("; ".join(entry.scenarios) or NOT_AVAILABLE), str(entry.max_repeats), escape(results),
                 escape(entry.gate or "none")]
        tone = {"passed": ' class="better"', "missed": ' class="bad"'}.get(entry.gate, "")
        cells[-1] = "<td%s>%s</td>" % (tone, cells[-1])
        rows.append('<tr data-run="%s"><td>%s</td><td class="when">%s</td>%s%s</tr>' % (
            escape(entry.run_id), cells[0], cells[1], "".join("<td>%s</td>" % cell for cell in cells[2:-1]), cells[-1]))
    rows.append("</table>")
    return "\n".join(rows)


def render_html(history, title):
    escape = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           "<title>%s</title>" % escape(title), "<style>%s</style>" % _STYLE, "</head>", "<body>",
           "<h1>%s</h1>" % escape(title)]
    dated = [entry.started for entry in history.runs if entry.started]
    text = "%d run%s" % (len(history.runs), "" if len(history.runs) == 1 else "s")
    if dated:
        text += ", from %s to %s UTC" % (min(dated).strftime(TIME_FORMAT), max(dated).strftime(TIME_FORMAT))
    text += (". A trend line is one host, scheduler and configuration (scenario, workload, versions, runtime and "
             "the scheduler's and controller's knobs): runs that differ in any of them are never drawn on one line. "
             "A point is a run's median over its complete repeats; its bar, the 95 % interval of that median from 3 "
             "repeats on, else the repeats' min–max.")
    out.append("<p>%s</p>" % escape(text))
    if history.skipped:
        out.append("<p>Left out, no results in them: %s.</p>" % escape("; ".join(
            "%s (%s)" % (name, why) for name, why in history.skipped)))
    out += ['<h2 id="runs-heading">Runs</h2>', runs_table(history), '<h2 id="trends">Trends</h2>']
    if not history.series:
        out.append("<p>No run has complete results yet.</p>")
    groups = {}
    for line in history.series:
        groups.setdefault((line.host, line.scheduler), []).append(line)
    for (host, scheduler), lines in groups.items():
        apart = differences({line.key: line.configuration for line in lines})
        for line in lines:
            out.append('<section class="series" id="series-%s" data-host="%s" data-scheduler="%s" data-config="%s">'
                       % (line.key, escape(host), escape(scheduler), line.key))
            out.append("<h3>%s · %s</h3>" % (escape(host), escape(scheduler)))
            text = describe_configuration(line.configuration, scheduler)
            text += "; %d run%s" % (len(line.points), "" if len(line.points) == 1 else "s")
            if apart:
                text += ". Apart from the other lines of %s on %s by: %s" % (scheduler, host, apart[line.key])
            out.append("<p>%s.</p>" % escape(text))
            out.append('<div class="charts">%s</div>' % "".join(
                trend_svg(line, name, chart_title, keys) for name, chart_title, keys in CHARTS))
            out.append("</section>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def csv_fields():
    fields = ["run_id", "started", "host", "scheduler", "configuration", "workload", "status", "reason", "repeats",
              "repeats_complete", "gate", "report"]
    for metric in METRICS:
        fields += [metric.key, metric.key + "_min", metric.key + "_max", metric.key + "_ci_low",
                   metric.key + "_ci_high"]
    return fields


def render_csv(history):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=csv_fields(), lineterminator="\n")
    writer.writeheader()
    for entry, host, scheduler, line, result in sorted(history.rows, key=lambda row: (
            row[0].started is None, row[0].started.isoformat() if row[0].started else "", row[0].run_id,
            row[1].name, row[2])):
        row = {"run_id": entry.run_id, "started": entry.started.strftime("%Y-%m-%dT%H:%M:%SZ") if entry.started else "",
               "host": host.name, "scheduler": scheduler, "configuration": line.key if line else "",
               "workload": describe_configuration(line.configuration, scheduler) if line else "",
               "gate": entry.gate or "", "report": entry.report or ""}
        if result is None:
            row.update(status="failed", reason="host failed at " + describe_failure(host.failure or {}))
            writer.writerow(row)
            continue
        row.update(status=result.status, reason=result.reason or "", repeats=result.repeats,
                   repeats_complete=len(result.complete_samples))
        for metric in METRICS:
            stat = result.stat(metric)
            row.update({metric.key: csv_value(stat.median), metric.key + "_min": csv_value(stat.low),
                        metric.key + "_max": csv_value(stat.high), metric.key + "_ci_low": csv_value(stat.ci_low),
                        metric.key + "_ci_high": csv_value(stat.ci_high)})
        writer.writerow(row)
    return buffer.getvalue()
