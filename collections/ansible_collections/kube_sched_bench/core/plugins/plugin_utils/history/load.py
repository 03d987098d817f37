# -*- coding: utf-8 -*-
"""The history of a results directory: every run under it, and each host × scheduler × configuration's figures over
time (library/bench_history.py writes it; sched_history_render turns it into HTML and CSV).

A configuration is what must be the same for two runs' figures to be drawn on one line: the scenario and workload,
the versions (the version matrix's pins, the components' and the scheduler's own, and summary.json's schema
version, which changes how figures are defined: docs/metrics.md#versions), the runtime and the knobs of the system
under test. Repeats, the timeout and the calibration's knobs are not part of it. Unit-tested in
tests/unit/test_history.py.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import schema as result_schema
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import own_version
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import METRIC
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import REPORT_SUMMARY, load_run, read_json_file

# Written into the results directory itself, never a run.
INDEX_FILES = ("index.html", "index.csv")
# The trend charts: (name, title, figures drawn on it).
CHARTS = (
    ("throughput", "Mean throughput (pods/s)", ("throughput_pods_per_s",)),
    ("latency", "Scheduling latency (ms)", ("latency_p50_ms", "latency_p99_ms")),
    ("makespan", "Makespan (s)", ("makespan_s",)),
)
TREND_KEYS = tuple(key for _, _, keys in CHARTS for key in keys)
# Workload fields that do not change what is measured: how many times, and how long to wait at most.
NOT_WORKLOAD = ("repeat", "repeats", "timeout")
# env.json's knobs of the system under test (the rest: calibration, reporting).
KNOB_PREFIXES = ("scheduler_", "controller_manager_", "scenario")
_GATE_HEADING = re.compile(r"^## Gate: (\w+)\s*$", re.M)


@dataclass
class Point:
    """One run's figures of one host and scheduler: the Stat of each figure over the run's complete repeats."""
    run_id: str
    started: datetime
    stats: dict                 # metric key -> sched_report_run.Stat
    repeats: int                # complete repeats the stats come from


@dataclass
class Series:
    host: str
    scheduler: str
    key: str                    # short hash of the configuration
    configuration: dict
    points: list = field(default_factory=list)      # Point, oldest first


@dataclass
class RunEntry:
    run_id: str
    started: datetime | None
    hosts: list
    failed_hosts: list
    schedulers: list
    scenarios: list             # descriptions of the run's workloads
    max_repeats: int
    results: int                # host × scheduler results
    complete: int               # of which complete
    gate: str | None            # passed, missed, ... or None without a gate
    report: str | None          # the report's path relative to the results directory


@dataclass
class History:
    runs: list                  # RunEntry, newest first
    series: list                # Series, by host, scheduler and first run
    skipped: list               # (directory name, why) of the directories that hold no run
    # (RunEntry, HostResult, scheduler, Series or None, SchedulerResult) for the CSV; a host that failed before any
    # scheduler: scheduler "" and no result.
    rows: list


def parse_time(text):
    """An ISO 8601 time as summary.json and env.json write it, in UTC; None if it is none."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def run_started(run):
    """When the run's first load test started (summary.json's started_at), else the first env.json's recorded_at."""
    samples = [sample for host in run.hosts.values() for result in host.schedulers.values() for sample in result.samples]
    for times in ([parse_time((sample.summary or {}).get("started_at")) for sample in samples],
                  [parse_time((sample.env or {}).get("recorded_at")) for sample in samples]):
        known = [moment for moment in times if moment is not None]
        if known:
            return min(known)
    return None


def configuration(result):
    """What two runs of a host and scheduler must share to be drawn on one line, from its first measured repeat."""
    sample = (result.usable_samples or [None])[0]
    if sample is None:
        return None
    summary, env = sample.summary or {}, sample.env or {}
    workload = summary.get("workload") if isinstance(summary.get("workload"), dict) else env.get("workload") or {}
    versions = env.get("versions") or {}
    pins = versions.get("pins") or {}
    deployed = versions.get("scheduler") if isinstance(versions.get("scheduler"), dict) else {}
    return {
        "scenario": summary.get("scenario") or (env.get("knobs") or {}).get("scenario") or "burst",
        "scenario_scale": summary.get("scenario_scale", 1),
        "schema_version": result_schema.schema_version(summary),
        "workload": {key: value for key, value in sorted(workload.items()) if key not in NOT_WORKLOAD},
        "versions": {"kubernetes": pins.get("kubernetes"), "scheduler": deployed.get("version") or pins.get(result.name),
                     "components": versions.get("components") or {}},
        "runtime": env.get("runtime"),
        "knobs": {key: value for key, value in sorted((env.get("knobs") or {}).items())
                  if key.startswith(KNOB_PREFIXES)},
    }


def configuration_key(config):
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode("utf-8")).hexdigest()[:10]


def describe(config, scheduler):
    """'burst, 20 nodes, 50 jobs × 3 pods; Kubernetes v1.32.2, binary runtime'."""
    workload = config["workload"]
    what = str(config["scenario"])
    if config.get("scenario_scale") not in (None, 1, 1.0):
        what += " × %s" % config["scenario_scale"]
    sizes = []
    if "nodes" in workload:
        sizes.append("%s nodes" % workload["nodes"])
    if "jobs" in workload:
        pods = workload.get("pods_per_job", "?")
        sizes.append("%s jobs × %s pod%s" % (workload["jobs"], pods, "" if pods == 1 else "s"))
    versions = config["versions"]
    parts = [", ".join([what] + sizes)]
    stack = []
    if versions.get("kubernetes"):
        stack.append("Kubernetes %s" % versions["kubernetes"])
    if versions.get("scheduler") and own_version(scheduler):    # not the control plane's kube-scheduler
        stack.append("%s %s" % (scheduler, versions["scheduler"]))
    if config.get("runtime"):
        stack.append("%s runtime" % config["runtime"])
    if stack:
        parts.append(", ".join(stack))
    return "; ".join(parts)


def flat(document, prefix=""):
    out = {}
    for key, value in document.items():
        if isinstance(value, dict) and value:
            out.update(flat(value, "%s%s." % (prefix, key)))
        else:
            out[prefix + str(key)] = json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
    return out


def differences(configs):
    """{key: 'field value, ...'}: what sets each configuration apart from the others of the same host and scheduler;
    empty with one configuration."""
    if len(configs) < 2:
        return {}
    flats = {key: flat(config) for key, config in configs.items()}
    fields = sorted({name for values in flats.values() for name in values})
    differing = [name for name in fields if len({json.dumps(values.get(name)) for values in flats.values()}) > 1]
    return {key: ", ".join("%s %s" % (name, "(none)" if values.get(name) is None else values[name])
                           for name in differing) for key, values in flats.items()}


def gate_verdict(run_dir):
    """The gate's outcome the run's report recorded: passed, missed (or what report.json says), None without a gate.
    A report written before report.json existed: its Markdown's Gate heading."""
    document, _ = read_json_file(os.path.join(run_dir, REPORT_SUMMARY))
    if document is not None:
        version = document.get("schema_version", 1)
        if isinstance(version, int) and version > result_schema.REPORT_SCHEMA_VERSION:
            return "report.json " + result_schema.newer_line(version, result_schema.REPORT_SCHEMA_VERSION)
        gate = document.get("gate")
        if not isinstance(gate, dict):
            return None
        return str(gate.get("verdict") or ("missed" if gate.get("missed") else "passed"))
    try:
        with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
            found = _GATE_HEADING.search(handle.read())
    except OSError:
        return None
    return found.group(1) if found else None


def run_entry(run, results_dir, gate):
    results = [result for host in run.hosts.values() for result in host.schedulers.values()]
    scenarios = []
    for result in results:
        config = configuration(result)
        if config is not None:
            text = describe(config, result.name).split(";")[0]
            if text not in scenarios:
                scenarios.append(text)
    report = os.path.join(run.path, "report.html")
    return RunEntry(run.run_id, run_started(run), list(run.hosts), [host.name for host in run.failed_hosts],
                    run.scheduler_names, scenarios, run.max_repeats, len(results),
                    sum(1 for result in results if result.status == "complete"), gate,
                    os.path.relpath(report, results_dir) if os.path.isfile(report) else None)


def point_of(run_id, started, result):
    return Point(run_id, started, {key: result.stat(METRIC[key]) for key in TREND_KEYS},
                 len(result.complete_samples))


def build_history(runs, results_dir, gates=None, skipped=()):
    """The History of loaded runs (sched_report_run.Run); ``gates``: run id -> gate verdict."""
    gates = gates or {}
    entries, series, rows = [], {}, []
    for run in runs:
        entry = run_entry(run, results_dir, gates.get(run.run_id))
        entries.append(entry)
        for host in run.hosts.values():
            if not host.schedulers:
                rows.append((entry, host, "", None, None))
            for scheduler, result in host.schedulers.items():
                line = None
                config = configuration(result)
                if config is not None and result.has_numbers:
                    key = configuration_key(config)
                    line = series.setdefault((host.name, scheduler, key), Series(host.name, scheduler, key, config))
                    if entry.started is not None:
                        line.points.append(point_of(run.run_id, entry.started, result))
                rows.append((entry, host, scheduler, line, result))
    return ordered_history(entries, series, skipped, rows)


def ordered_history(entries, series, skipped, rows):
    """The History of ``entries`` and ``series`` (read from the files or from history.sqlite): each line's points
    in time order, the lines by host, scheduler and first point, the runs newest first (those without a start last)."""
    for line in series.values():
        line.points.sort(key=lambda point: (point.started, point.run_id))
    lines = sorted((line for line in series.values() if line.points), key=lambda line: (
        line.host, line.scheduler, line.points[0].started, line.key))
    oldest = datetime.min.replace(tzinfo=timezone.utc)
    entries.sort(key=lambda entry: (entry.started is not None, entry.started or oldest, entry.run_id), reverse=True)
    return History(entries, lines, list(skipped), rows)


def load_history(results_dir):
    """Read every run under ``results_dir`` (reads only) and build its History."""
    runs, skipped, gates = [], [], {}
    for name in sorted(os.listdir(results_dir)):
        path = os.path.join(results_dir, name)
        if name.startswith(".") or not os.path.isdir(path):
            continue
        try:
            run = load_run(path)
        except (OSError, ValueError) as exc:
            skipped.append((name, str(exc)))
            continue
        runs.append(run)
        gates[run.run_id] = gate_verdict(path)
    return build_history(runs, results_dir, gates, skipped)
