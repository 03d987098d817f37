# -*- coding: utf-8 -*-
"""The history of a results directory as a SQLite database (history.sqlite beside index.html): the runs, each
host × scheduler's result with every figure's median and interval, the knobs and workload it ran with and the
versions it ran on. ``database_bytes`` builds it from a History (load.py); database_history.py reads it back for
index.html. The schema and three example queries: docs/ci-and-python.md (tests/unit/test_history_database.py runs
the queries of that page). No file is written here: task.py writes the bytes.
"""
from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from datetime import timezone

from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import DATABASE_SCHEMA_VERSION
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import configuration, configuration_key, describe
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import METRICS

DATABASE_FILE = "history.sqlite"
# Each figure of the report (model.METRICS) is a column of results (its median over the complete repeats), with
# <figure>_min, _max, _ci_low and _ci_high beside it, as in index.csv.
STAT_SUFFIXES = ("", "_min", "_max", "_ci_low", "_ci_high")
FIGURE_COLUMNS = ",\n".join("    %s%s REAL" % (metric.key, suffix) for metric in METRICS for suffix in STAT_SUFFIXES)
FIGURES_COMMENT = "    -- then for each figure F of the report: F REAL (its median), F_min, F_max, F_ci_low, F_ci_high REAL"
# The schema as docs/ci-and-python.md shows it (the test compares them); SCHEMA has the figures' columns written out.
SCHEMA_TEMPLATE = """CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    started TEXT,               -- UTC, ISO 8601 (2026-11-02T09:30:00Z): the first load test's start
    max_repeats INTEGER,
    gate TEXT,                  -- passed, missed, refused, 'missed and refused', or NULL without a gate
    report TEXT                 -- the report's path relative to the results directory
);
CREATE TABLE configurations (
    configuration TEXT PRIMARY KEY,     -- a short hash: results of one configuration share a trend line
    description TEXT,           -- 'burst, 20 nodes, 50 jobs x 3 pods; Kubernetes v1.32.2, binary runtime'
    document TEXT               -- the configuration as JSON: scenario, workload, versions, runtime, knobs
);
CREATE TABLE results (
    run_id TEXT REFERENCES runs,
    host TEXT,
    scheduler TEXT,             -- '' for a host that failed before any scheduler
    host_failed INTEGER,        -- 1 when the host failed (its failed.json)
    status TEXT,                -- complete, partial, failed, incomplete, newer, unreadable, not run
    reason TEXT,
    repeats INTEGER,
    repeats_complete INTEGER,
    busy_host INTEGER,          -- 1 when a repeat its figures come from was measured on a busy host
    configuration TEXT REFERENCES configurations,
%s
    PRIMARY KEY (run_id, host, scheduler)
);
CREATE TABLE knobs (
    run_id TEXT, host TEXT, scheduler TEXT,
    section TEXT,               -- knobs or workload (env.json's sections), each name without its bench_ prefix
    name TEXT,
    value,                      -- a number, a text, or JSON for a list or mapping
    PRIMARY KEY (run_id, host, scheduler, section, name)
);
CREATE TABLE versions (
    run_id TEXT, host TEXT, scheduler TEXT,
    source TEXT,                -- set (the version set), pin (the version matrix), component (what the binary says),
                                -- deployed (the scheduler's own version)
    component TEXT,
    version TEXT,
    PRIMARY KEY (run_id, host, scheduler, source, component)
);
""" % FIGURES_COMMENT
SCHEMA = SCHEMA_TEMPLATE.replace(FIGURES_COMMENT, FIGURES_COMMENT + "\n" + FIGURE_COLUMNS + ",")


def utc_text(moment):
    """A time as runs.started holds it: UTC, ISO 8601, microseconds only when there are any."""
    if moment is None:
        return None
    text = moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return text + (".%06d" % moment.microsecond if moment.microsecond else "") + "Z"


def _scalar(value):
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return value


def _env(result):
    for sample in result.usable_samples + result.samples:
        if sample.env:
            return sample.env
    return {}


def _figures(result):
    values = []
    for metric in METRICS:
        stat = result.stat(metric)
        values += [stat.median, stat.low, stat.high, stat.ci_low, stat.ci_high]
    return values


def _result_row(entry, host, scheduler, result, config_key):
    if result is None:
        return [entry.run_id, host.name, scheduler, 1, "failed", None, 0, 0, 0, None] + [None] * len(METRICS) * 5
    return [entry.run_id, host.name, scheduler, int(bool(host.failure)), result.status, result.reason,
            result.repeats, len(result.complete_samples), int(result.busy_host), config_key] + _figures(result)


def _versions(env, result):
    versions = env.get("versions") if isinstance(env.get("versions"), dict) else {}
    rows = [("set", "set", versions.get("set"))]
    rows += [("pin", name, value) for name, value in sorted((versions.get("pins") or {}).items())
             if isinstance(value, str)]
    rows += [("component", name, value) for name, value in sorted((versions.get("components") or {}).items())]
    if result.version:
        rows.append(("deployed", result.name, result.version))
    return [row for row in rows if row[2]]


def fill(connection, history):
    """Insert a History's runs, results, knobs and versions into an empty database of SCHEMA."""
    for entry in history.runs:
        connection.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?)", (
            entry.run_id, utc_text(entry.started), entry.max_repeats,
            entry.gate, entry.report))
    marks = ", ".join("?" * (10 + len(METRICS) * 5))
    for entry, host, scheduler, _, result in history.rows:
        config = configuration(result) if result is not None else None
        key = configuration_key(config) if config is not None else None
        if key is not None:
            connection.execute("INSERT OR IGNORE INTO configurations VALUES (?, ?, ?)",
                               (key, describe(config, scheduler), json.dumps(config, sort_keys=True)))
        connection.execute("INSERT INTO results VALUES (%s)" % marks, _result_row(entry, host, scheduler, result, key))
        if result is None:
            continue
        env = _env(result)
        for section in ("knobs", "workload"):
            for name, value in sorted((env.get(section) or {}).items()):
                connection.execute("INSERT INTO knobs VALUES (?, ?, ?, ?, ?, ?)",
                                   (entry.run_id, host.name, scheduler, section, name, _scalar(value)))
        for source, component, version in _versions(env, result):
            connection.execute("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?)",
                               (entry.run_id, host.name, scheduler, source, component, str(version)))


def database_bytes(history):
    """history.sqlite's bytes for a History: the same History gives the same bytes."""
    handle, path = tempfile.mkstemp(suffix=".sqlite")
    os.close(handle)
    try:
        connection = sqlite3.connect(path)
        try:
            connection.executescript(SCHEMA)
            connection.execute("PRAGMA user_version = %d" % DATABASE_SCHEMA_VERSION)
            with connection:
                fill(connection, history)
            connection.execute("VACUUM")
        finally:
            connection.close()
        with open(path, "rb") as stored:
            return stored.read()
    finally:
        os.unlink(path)
