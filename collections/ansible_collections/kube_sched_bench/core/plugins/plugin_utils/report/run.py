# -*- coding: utf-8 -*-
"""Reading a run directory for the report: ``load_run`` (reads only), into the data model of model.py.

The layout read is results/<run_id>/<host>/<scheduler>/{summary.json,
timeline.csv, env.json, ...}, repeat k >= 2 of a scheduler in
<scheduler>/repeat-<k>/, and <host>/failed.json for a host that failed.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as result_files
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import version_problem
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import (  # noqa: F401 (METRIC, Stat: read as run.METRIC and run.Stat by the tests)
    METRIC,
    NO_SUMMARY,
    HostResult,
    Run,
    Sample,
    SchedulerResult,
    Stat,
    number_at,
)

CHARTS_DIR = "report-charts"
_REPEAT_DIR = re.compile(r"^repeat-(\d+)$")
# The fetch step renames <scheduler>.partial once every file has arrived.
_PARTIAL_SUFFIX = ".partial"
# Where the run's wall time went, written by callback_plugins/bench_phases.py.
PHASES_FILE = "phases.json"
# The load test's profiles read with go tool pprof (roles/loadtest/tasks/profiles.yml), beside summary.json.
PROFILES_FILE = "profiles.json"
# The report's summary (what library/bench_report.py returns, its gate's outcome among it), beside report.md.
REPORT_SUMMARY = "report.json"


# ---------------------------------------------------------------------------
# Loading a run directory (reads only)
# ---------------------------------------------------------------------------
def read_json_file(path):
    """(document, problem): the parsed JSON object, or None and why not."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, "%s is unreadable: %s" % (os.path.basename(path), exc)
    if not isinstance(document, dict):
        return None, "%s is not a JSON object" % os.path.basename(path)
    return document, None


def parse_timeline(text, column="bound_total"):
    """[(second, value of ``column``)] from timeline.csv text; rows that do not parse are skipped."""
    points = []
    for row in csv.DictReader(io.StringIO(text)):
        try:
            points.append((int(row["second"]), int(row[column])))
        except (KeyError, TypeError, ValueError):
            continue
    return sorted(points)


def _number(text):
    try:
        number = float(text)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def parse_jobs(text):
    """jobs.csv's rows with their times (columns ending in _ms) as numbers or None and ``gang`` as a bool."""
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        parsed = {key: (_number(value) if key.endswith("_ms") else value) for key, value in row.items() if key}
        parsed["gang"] = str(row.get("gang", "")).lower() in ("true", "1", "yes")
        rows.append(parsed)
    return rows


def parse_pod_latencies(text):
    """pods.csv's latency_ms column, for the bound pods."""
    values = (_number(row.get("latency_ms")) for row in csv.DictReader(io.StringIO(text)))
    return [value for value in values if value is not None]


def _read_text(path):
    try:
        with open(path, "r", encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


def load_sample(directory, repeat):
    summary, problem = read_json_file(os.path.join(directory, "summary.json"))
    env, env_problem = read_json_file(os.path.join(directory, "env.json"))
    if summary is None and problem is None:
        problem = NO_SUMMARY
    unread = version_problem(summary) if summary is not None else None
    if unread is not None:
        # Never read as if current: no figure of it reaches a table, a trend or the gate.
        summary, problem = None, unread[1]
    text = _read_text(os.path.join(directory, "timeline.csv"))
    sample = Sample(repeat, directory, summary, parse_timeline(text), env, problem or env_problem,
                    parse_timeline(text, "backlog"), newer=bool(unread) and unread[0] == "newer")
    sample.profiles, _ = read_json_file(os.path.join(directory, PROFILES_FILE))
    if isinstance((summary or {}).get("scenario_metrics"), dict):
        sample.jobs = parse_jobs(result_files.read_text(directory, "jobs.csv"))
        sample.pod_latency_ms = parse_pod_latencies(result_files.read_text(directory, "pods.csv"))
    return sample


def repeat_dirs(directory):
    """[(repeat number, directory)]: the scheduler's directory is repeat 1, repeat-<k>/ are the others."""
    found = []
    for name in sorted(os.listdir(directory)):
        match = _REPEAT_DIR.match(name)
        if match and os.path.isdir(os.path.join(directory, name)) and int(match.group(1)) > 1:
            found.append((int(match.group(1)), os.path.join(directory, name)))
    return [(1, directory)] + sorted(found)


def failure_entry(value):
    if not isinstance(value, dict):
        return None
    if not (value.get("task") or value.get("msg")):
        return None
    # Messages can span lines (a command's output); tables and headings need one line.
    return {"task": " ".join(str(value.get("task") or "").split()),
            "msg": " ".join(str(value.get("msg") or "").split())}


def expected_repeats(samples):
    """bench_repeats as env.json records it, if it does."""
    for sample in samples:
        for section in ("workload", "knobs"):
            value = number_at(sample.env, (section, "repeats"))
            if value:
                return int(value)
    return 0


def load_scheduler(host, name, directory, failures, host_failure):
    samples = [load_sample(path, repeat) for repeat, path in repeat_dirs(directory)]
    failure = failure_entry(failures.get(name))
    if failure is None:
        for sample in samples:
            failure = failure_entry((sample.env or {}).get("outcome"))
            if failure:
                break
    return SchedulerResult(host, name, samples, failure, host_failure, expected_repeats(samples))


def load_host(name, directory):
    host_failure_doc, problem = read_json_file(os.path.join(directory, "failed.json"))
    host_failure = failure_entry(host_failure_doc)
    if problem:
        host_failure = {"task": "unknown", "msg": problem}
    failures = (host_failure_doc or {}).get("schedulers") or {}
    if not isinstance(failures, dict):
        failures = {}
    host = HostResult(name, failure=host_failure)
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry)
        if entry.startswith(".") or entry.endswith(_PARTIAL_SUFFIX) or not os.path.isdir(path):
            continue
        host.schedulers[entry] = load_scheduler(name, entry, path, failures, host_failure)
    for scheduler, failure in failures.items():
        if scheduler not in host.schedulers and failure_entry(failure):
            host.schedulers[scheduler] = SchedulerResult(name, scheduler, [], failure_entry(failure), host_failure)
    return host


def is_host_dir(path):
    if os.path.isfile(os.path.join(path, "failed.json")):
        return True
    return any(os.path.isdir(os.path.join(path, entry)) for entry in os.listdir(path))


def find_run(value, results_dir):
    """The directory of an earlier run named by ``value``: a directory itself, or a run id in ``results_dir``;
    None if neither."""
    for candidate in (os.path.expanduser(str(value)), os.path.join(str(results_dir), str(value))):
        if os.path.isdir(candidate):
            return os.path.abspath(candidate)
    return None


def load_run(run_dir):
    """Read results/<run_id>/ into a Run. Raises ValueError when it holds no results at all."""
    run_dir = os.path.abspath(run_dir)
    if not os.path.isdir(run_dir):
        raise ValueError("run directory %s does not exist" % run_dir)
    run = Run(os.path.basename(run_dir.rstrip(os.sep)), run_dir)
    phases, _ = read_json_file(os.path.join(run_dir, PHASES_FILE))
    run.phases = phases if phases and isinstance(phases.get("hosts"), dict) else None
    for entry in sorted(os.listdir(run_dir)):
        path = os.path.join(run_dir, entry)
        if entry.startswith(".") or entry == CHARTS_DIR or not os.path.isdir(path) or not is_host_dir(path):
            continue
        run.hosts[entry] = load_host(entry, path)
    add_schedulers_not_run(run)
    if not any(host.failure or any(result.samples for result in host.schedulers.values())
               for host in run.hosts.values()):
        raise ValueError("%s holds no benchmark results: expected %s/<host>/<scheduler>/summary.json"
                         % (run_dir, run_dir))
    return run


def add_schedulers_not_run(run):
    """Give every host an entry for every scheduler of the run, so a missing one shows up as not run."""
    for scheduler in run.scheduler_names:
        for host in run.hosts.values():
            if scheduler not in host.schedulers:
                host.schedulers[scheduler] = SchedulerResult(host.name, scheduler, host_failure=host.failure)
