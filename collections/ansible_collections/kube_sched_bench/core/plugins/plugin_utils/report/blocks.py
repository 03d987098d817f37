# -*- coding: utf-8 -*-
"""The report's vocabulary: blocks (headings, paragraphs, tables, images) and chart data.

sched_report and sched_report_scenarios build them; sched_report_render turns them into Markdown, HTML and PNG.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import NOT_AVAILABLE


@dataclass
class Cell:
    text: str
    tone: str | None = None     # better, worse, bad: only colours the HTML


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Paragraph:
    text: str


@dataclass
class Table:
    headers: list
    rows: list                  # lists of Cell
    caption: str = ""


def split_table(table, groups, keep=1):
    """The table as one table per group of columns, each led by the first ``keep`` columns, so that a wide table
    fits a laptop's screen. ``groups``: (caption, [header, ...]) in order; a column no group names joins the last
    group, and a group left without columns is dropped."""
    named = {header for _, headers in groups for header in headers}
    rest = [header for header in table.headers[keep:] if header not in named]
    tables = []
    for index, (caption, headers) in enumerate(groups):
        wanted = set(headers) | (set(rest) if index == len(groups) - 1 else set())
        columns = [column for column, header in enumerate(table.headers) if column >= keep and header in wanted]
        if columns:
            lead = list(range(keep))
            tables.append(Table([table.headers[column] for column in lead + columns],
                                [[row[column] for column in lead + columns] for row in table.rows], caption))
    return tables


def chunk_columns(table, per_table, keep=1):
    """A table with a column per host as several tables of at most ``per_table`` such columns, each led by the
    first ``keep`` columns."""
    columns = list(range(keep, len(table.headers)))
    if len(columns) <= per_table:
        return [table]
    tables = []
    for start in range(0, len(columns), per_table):
        chosen = list(range(keep)) + columns[start:start + per_table]
        tables.append(Table([table.headers[column] for column in chosen],
                            [[row[column] for column in chosen] for row in table.rows], table.caption))
    return tables


@dataclass
class Image:
    path: str                   # relative to the report
    alt: str


@dataclass
class LineChart:
    file_name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict                # label -> (xs, ys)


@dataclass
class BarChart:
    file_name: str
    title: str
    ylabel: str
    categories: list
    series: dict                # label -> [value or None per category]
    ranges: dict                # label -> [(low, high) or None per category]
    log_scale: bool = False


@dataclass
class AreaChart:
    """Stacked shares over time, with each label's target as a dashed line."""
    file_name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict                # label -> (xs, ys)
    targets: dict               # label -> (xs, ys)


@dataclass
class StackedBarChart:
    file_name: str
    title: str
    ylabel: str
    categories: list
    stacks: dict                # segment label -> [height or None per category]


def slug(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text) or "_"


def format_number(value):
    """Four significant digits, no exponent; n/a for None."""
    if value is None:
        return NOT_AVAILABLE
    if abs(value) >= 1000 or float(value).is_integer():
        return "%.0f" % value
    return "%.4g" % value


def format_stat(stat):
    """'median', 'median [interval]' with an interval that is not a point, else 'median (min–max)' when
    the samples differ."""
    if stat.median is None:
        return NOT_AVAILABLE
    text = format_number(stat.median)
    if stat.ci_low is not None:
        if stat.ci_low != stat.ci_high:
            text += " [%s–%s]" % (format_number(stat.ci_low), format_number(stat.ci_high))
    elif stat.spread:
        text += " (%s–%s)" % (format_number(stat.low), format_number(stat.high))
    return text
