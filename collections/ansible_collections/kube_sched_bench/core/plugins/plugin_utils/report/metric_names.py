# -*- coding: utf-8 -*-
"""summary.json's numbers as Prometheus metrics: each number's name, unit, labels and value, by Prometheus' naming
conventions (https://prometheus.io/docs/practices/naming/): a ``kube_sched_bench_`` prefix, snake case, base units
(seconds, bytes, ratios) as the name's suffix, converted from the file's ms, µs, MiB, kB and percent.

A number's name is its path in summary.json joined with ``_`` (``throughput_pods_per_s`` ->
``kube_sched_bench_throughput_pods_per_second``); a unit carried by an enclosing key moves to the end
(``latency_ms.p99`` -> ``kube_sched_bench_latency_p99_seconds``). The maps whose keys are names rather than fields
(processes, tenants, verbs ...) give a label instead (LABELLED). Lists are left out (their items are in the result
files); booleans are 1 or 0. No I/O here; openmetrics.py writes the file. docs/ci-and-python.md lists the rules.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

PREFIX = "kube_sched_bench_"
# Paths ("*": any key) whose keys are names: each key becomes the label's value instead of a part of the name.
LABELLED = {
    ("internals", "processes"): "process",
    ("internals", "processes", "*", "requests_by_verb"): "verb",
    ("internals", "processes", "*", "queue_adds"): "queue",
    ("internals", "processes", "*", "reconciles"): "controller",
    ("internals", "processes", "*", "attempts"): "result",
    ("internals", "processes", "*", "admission_attempts"): "result",
    ("internals", "processes", "*", "allocation_attempts"): "result",
    ("api_requests", "by_role"): "role",
    ("scenario_metrics", "fair_share", "tenants"): "tenant",
}
# Not a figure: how the file is laid out.
LEFT_OUT = {("schema_version",)}
# Unit suffixes of summary.json's keys, longest first: (suffix, the name's new suffix, OpenMetrics unit, factor).
UNITS = (
    ("_per_s", "_per_second", None, 1.0),
    ("_percent", "_ratio", "ratio", 0.01),
    ("_seconds", "_seconds", "seconds", 1.0),
    ("_bytes", "_bytes", "bytes", 1.0),
    ("_ms", "_seconds", "seconds", 0.001),
    ("_us", "_seconds", "seconds", 0.000001),
    ("_mb", "_bytes", "bytes", 1048576.0),     # MiB (docs/metrics.md)
    ("_kb", "_bytes", "bytes", 1024.0),
    ("_s", "_seconds", "seconds", 1.0),
)
# Suffixes OpenMetrics gives the samples of counters, summaries and histograms: a gauge's name must not end so.
RESERVED = ("_total", "_created", "_count", "_sum", "_bucket", "_info", "_gcount", "_gsum")
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_]")


@dataclass(frozen=True)
class Figure:
    name: str           # the metric's name
    unit: str | None    # OpenMetrics' unit: seconds, bytes, ratio, or None
    source: str         # the path in summary.json, "<label>" for a labelled key
    labels: tuple       # ((label, value), ...) from the labelled maps
    value: float


def _unit_of(key):
    if key in ("seconds", "bytes"):         # makespan_bound.seconds: the key is the unit
        return "", ("_" + key, "_" + key, key, 1.0)
    for suffix, *rest in UNITS:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)], (suffix, *rest)
    return key, None


def _clean(part):
    return _NOT_NAME.sub("_", part).lower()


def figure_of(path, labels, value):
    """The Figure of a number at ``path`` (the keys that are not labels), or None when it is no figure."""
    path = [key for key in path if not key.startswith("<")]     # a labelled key is a label, not a part of the name
    parts, carried = [], None
    for key in path[:-1]:
        base, unit = _unit_of(key)
        parts.append(base)
        carried = unit or carried
    leaf, unit = _unit_of(path[-1])
    unit = unit or carried
    parts.append("observations" if leaf == "count" else leaf)
    name = PREFIX + "_".join(_clean(part) for part in parts if part)
    if unit:
        name += unit[1]
        value = value * unit[3]
    elif name.endswith(RESERVED):
        name += "_value"
    return Figure(name, unit[2] if unit else None, "", tuple(labels), float(value))


def _label_of(path):
    for pattern, label in LABELLED.items():
        if len(pattern) == len(path) and all(want in ("*", have) for want, have in zip(pattern, path)):
            return label
    return None


def figures(summary, path=(), shown=(), labels=()):
    """Every Figure of a summary.json document (a dict), in the file's order."""
    found = []
    for key, value in summary.items():
        here, described = path + (key,), shown + (key,)
        if isinstance(value, dict):
            label = _label_of(here)
            if label:
                for name, inner in value.items():
                    if isinstance(inner, dict):
                        found += figures(inner, here + (name,), described + ("<%s>" % label,),
                                         labels + ((label, str(name)),))
                    elif _is_number(inner):
                        found.append(_figure(described + ("<%s>" % label,), described, labels + ((label, str(name)),),
                                             inner))
                continue
            found += figures(value, here, described, labels)
        elif _is_number(value) and here not in LEFT_OUT:
            found.append(_figure(described, described, labels, value))
    return found


def _figure(source, named, labels, value):
    figure = figure_of(named, labels, float(value))
    return Figure(figure.name, figure.unit, ".".join(source), figure.labels, figure.value)


def _is_number(value):
    return isinstance(value, (bool, int, float)) and (isinstance(value, bool) or math.isfinite(value))
