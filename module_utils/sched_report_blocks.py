# -*- coding: utf-8 -*-
"""The report's vocabulary: blocks (headings, paragraphs, tables, images) and chart data.

sched_report and sched_report_scenarios build them; sched_report_render turns them into Markdown, HTML and PNG.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ansible.module_utils.sched_report_run import NOT_AVAILABLE


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
