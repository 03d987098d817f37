# -*- coding: utf-8 -*-
"""The Prometheus text exposition format, read: samples, their change between two scrapes, and quantiles of a
histogram estimated from its buckets as Prometheus' ``histogram_quantile`` does.

Pure functions, no I/O: the scrapes are read by metrics/scrape.py, the figures they give are chosen in
metrics/internals.py, and both are defined in docs/metrics.md ("The scheduler's internals").
A scrape is {metric name: {labels: value}}, ``labels`` a sorted tuple of (name, value) pairs.
"""
from __future__ import annotations

import math

_ESCAPES = {"\\": "\\", '"': '"', "n": "\n"}


def _labels(text, start):
    """(labels tuple, index after the closing brace) of the label set that opens at ``text[start] == '{'``."""
    pairs, index = [], start + 1
    while True:
        while index < len(text) and text[index] in " ,":
            index += 1
        if text[index] == "}":
            return tuple(sorted(pairs)), index + 1
        equals = text.index("=", index)
        name = text[index:equals].strip()
        if text[equals + 1] != '"':
            raise ValueError("label %s has no quoted value" % name)
        index, value = equals + 2, []
        while text[index] != '"':
            if text[index] == "\\":
                value.append(_ESCAPES.get(text[index + 1], text[index + 1]))
                index += 2
            else:
                value.append(text[index])
                index += 1
        pairs.append((name, "".join(value)))
        index += 1


def parse_line(line):
    """(name, labels, value) of one sample line, or None for a comment or an empty line."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    brace = line.find("{")
    space = line.find(" ")
    if brace != -1 and (space == -1 or brace < space):
        name = line[:brace]
        labels, end = _labels(line, brace)
        rest = line[end:].split()
    else:
        name, rest = line[:space], line[space:].split()
        labels = ()
    return name, labels, float(rest[0])


def parse(text):
    """{name: {labels: value}} of a scrape's text; a line that cannot be read is left out."""
    scrape = {}
    for line in text.splitlines():
        try:
            sample = parse_line(line)
        except (ValueError, IndexError):
            continue
        if sample is not None:
            scrape.setdefault(sample[0], {})[sample[1]] = sample[2]
    return scrape


def increase(before, after, name):
    """{labels: how much the counter ``name`` grew between the scrapes} (a series that is new, or that restarted
    lower, counts from 0, as Prometheus' ``increase`` reads a counter reset)."""
    old = before.get(name, {})
    grown = {}
    for labels, value in after.get(name, {}).items():
        start = old.get(labels, 0.0)
        grown[labels] = value - start if value >= start else value
    return grown


def matches(labels, where):
    """Whether a labels tuple has every (name, value) of the dict ``where``."""
    found = dict(labels)
    return all(found.get(name) == value for name, value in where.items())


def by_label(series, label, where=None):
    """{value of ``label``: sum} over the series (a {labels: value}) that match ``where``."""
    totals = {}
    for labels, value in series.items():
        if matches(labels, where or {}):
            key = dict(labels).get(label, "")
            totals[key] = totals.get(key, 0.0) + value
    return totals


def _bound(text):
    return math.inf if text in ("+Inf", "Inf") else float(text)


def buckets(series, where=None):
    """[(upper bound, cumulative count)], ascending, summed over the ``_bucket`` series (a {labels: value}) that
    match ``where`` (all of them: the histogram of every label value together)."""
    totals = {}
    for labels, value in series.items():
        found = dict(labels)
        if "le" in found and matches(labels, where or {}):
            bound = _bound(found["le"])
            totals[bound] = totals.get(bound, 0.0) + value
    return sorted(totals.items())


def histogram_quantile(fraction, cumulative):
    """The ``fraction`` quantile (0 to 1) of a histogram's [(upper bound, cumulative count)] as Prometheus'
    ``histogram_quantile`` estimates it: the bucket where the rank fraction x count falls, and a linear
    interpolation inside it (from 0 for the first bucket when its bound is positive); a rank in the +Inf bucket
    reads as the highest finite bound. None for an empty histogram."""
    if not cumulative or cumulative[-1][1] <= 0:
        return None
    if cumulative[-1][0] != math.inf:
        return None
    total = cumulative[-1][1]
    rank = fraction * total
    lower_bound, lower_count = 0.0, 0.0
    for index, (bound, count) in enumerate(cumulative):
        if count >= rank:
            if bound == math.inf:
                return cumulative[index - 1][0] if index > 0 else None
            if index == 0 and bound <= 0:
                return bound
            if count == lower_count:
                return bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (count - lower_count)
        lower_bound, lower_count = bound, count
    return None
