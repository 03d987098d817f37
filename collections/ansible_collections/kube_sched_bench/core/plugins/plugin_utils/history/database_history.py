# -*- coding: utf-8 -*-
"""history.sqlite read back into the History that index.html is rendered from (render.render_html): its runs, newest
first, and its trend lines, each point a run's Stat of the trend charts' figures. Reads only."""
from __future__ import annotations

import json
import sqlite3

from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import DATABASE_SCHEMA_VERSION, newer_line
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.history.load import (
    TREND_KEYS,
    Point,
    RunEntry,
    Series,
    ordered_history,
    parse_time,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import Stat


def _unique(values):
    seen = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


def _entry(run, results):
    """A RunEntry from a runs row and its results rows (in the order they were written)."""
    measured = [row for row in results if row["scheduler"]]
    workloads = [row["description"].split(";")[0] for row in measured if row["description"]]
    return RunEntry(run["run_id"], parse_time(run["started"]), _unique(row["host"] for row in results),
                    _unique(row["host"] for row in results if row["host_failed"]),
                    _unique(row["scheduler"] for row in measured), _unique(workloads), run["max_repeats"],
                    len(measured), sum(1 for row in measured if row["status"] == "complete"), run["gate"], run["report"])


def _point(row, started):
    stats = {key: Stat(row[key], row[key + "_min"], row[key + "_max"], row["repeats_complete"], row[key + "_ci_low"],
                       row[key + "_ci_high"]) for key in TREND_KEYS}
    return Point(row["run_id"], started, stats, row["repeats_complete"])


class NewerDatabase(ValueError):
    """history.sqlite was written by a newer toolkit: refused whole, never half-read."""


def database_version(connection):
    return connection.execute("PRAGMA user_version").fetchone()[0]


def newer_database(path):
    """The newer-toolkit line of the history.sqlite at ``path``, or None (none there, or one this toolkit reads)."""
    try:
        connection = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        try:
            version = database_version(connection)
        finally:
            connection.close()
    except sqlite3.Error:
        return None
    return newer_line(version, DATABASE_SCHEMA_VERSION, "database schema") if version > DATABASE_SCHEMA_VERSION else None


def read_history(path, skipped=()):
    """The History of history.sqlite at ``path`` (without the CSV's rows: index.csv is written from the files).
    Raises NewerDatabase for a database a newer toolkit wrote."""
    connection = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    connection.row_factory = sqlite3.Row
    try:
        version = database_version(connection)
        if version > DATABASE_SCHEMA_VERSION:
            raise NewerDatabase("%s was %s" % (path, newer_line(version, DATABASE_SCHEMA_VERSION, "database schema")))
        runs = connection.execute("SELECT * FROM runs").fetchall()
        results = connection.execute(
            "SELECT results.*, configurations.description, configurations.document FROM results "
            "LEFT JOIN configurations USING (configuration) ORDER BY results.rowid").fetchall()
    finally:
        connection.close()
    entries, series = [], {}
    for run in runs:
        rows = [row for row in results if row["run_id"] == run["run_id"]]
        entry = _entry(run, rows)
        entries.append(entry)
        for row in rows:
            if row["configuration"] is None or not row["repeats_complete"]:
                continue
            key = (row["host"], row["scheduler"], row["configuration"])
            line = series.setdefault(key, Series(row["host"], row["scheduler"], row["configuration"],
                                                 json.loads(row["document"])))
            if entry.started is not None:
                line.points.append(_point(row, entry.started))
    return ordered_history(entries, series, skipped, [])
