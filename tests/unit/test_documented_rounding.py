"""Every value of the result files (summary.json, pods.csv, jobs.csv, timeline.csv, scenario.json) is in one of
docs/metrics.md's tables, rounded no finer than its **rounding** column says and `null` (an empty cell) only where its
**null when** column allows it.

What is checked: the stored real runs under fixtures/ (contend-default, contend-volcano, and why/, one burst per
scheduler with every "why" figure), and the files the load test's writer (loadtest/results.write_files) writes for
the hand-made runs of summary_samples.py, once more with every time off the round tenth of a second, so that each
computed figure has digits to round."""
import copy
import csv
import decimal
import io
import json
import os
import re

import pytest
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import results as sched_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as result_files
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records
from result_checks import ROOT

METRICS_DOC = os.path.join(ROOT, "docs", "metrics.md")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RUNS = ["contend-default", "contend-volcano"] + ["why/" + name for name in sorted(os.listdir(os.path.join(FIXTURES, "why")))]
# The section of docs/metrics.md each file's tables are in (a heading starts it, the next of these ends it); "Measured
# from outside the files" lists keys defined above, so its table is none of summary.json's.
SECTIONS = {"### pods.csv": "pods.csv", "### jobs.csv": "jobs.csv", "### timeline.csv": "timeline.csv",
            "### scenario.json": "scenario.json", "### Size": None, "## summary.json": "summary.json",
            "### Measured from outside the files": None, "## The report": None}
DECIMALS = {"1 decimal": 1, **{"%d decimals" % digits: digits for digits in range(2, 7)}}
VOCABULARY = {"integer", "as given", "—"} | set(DECIMALS)
LATENCY_KEYS = {"p50", "p90", "p99", "max", "mean"}
NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def documented():
    """{file: {key: (rounding, null when)}} from the tables of docs/metrics.md that have both columns."""
    out, section, columns = {}, None, None
    with open(METRICS_DOC, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            for heading, name in SECTIONS.items():
                if line == heading or line.startswith(heading + " "):
                    section, columns = name, None
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] if line.startswith("|") else None
            if not cells:
                columns = None
            elif "rounding" in cells and "null when" in cells:
                columns = (cells.index("rounding"), cells.index("null when"))
            elif columns and section and not set(cells[0]) <= {"-"}:
                keys = re.findall(r"`([^`]+)`", cells[0])
                roundings = cells[columns[0]].split("; ")
                assert len(roundings) in (1, len(keys)), "%s: one rounding, or one per key: %s" % (section, line)
                for key, rounding in zip(keys, roundings * len(keys) if len(roundings) == 1 else roundings):
                    assert rounding in VOCABULARY, "%s: %r is not in the vocabulary" % (key, rounding)
                    assert key not in out.setdefault(section, {}), "%s: %s is in two rows" % (section, key)
                    out[section][key] = (rounding, cells[columns[1]])
    return out


DOC = documented()


def decimals(value):
    exponent = decimal.Decimal(repr(value)).as_tuple().exponent
    return max(0, -exponent)


def value_problem(value, rounding, null_when):
    """Why ``value`` (JSON) breaks its row (None: it keeps it)."""
    if value is None:
        return "null, and its row says never" if null_when == "never" else None
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if rounding == "—":
        return "a number where the row says — (not a number)" if number else None
    if rounding == "as given":
        return None
    if not number:
        return "%s where the row says a number (%s)" % (type(value).__name__, rounding)
    if rounding == "integer":
        return None if isinstance(value, int) else "a float where the row says integer"
    if decimals(value) > DECIMALS[rounding]:
        return "%d decimals where the row says %s" % (decimals(value), rounding)
    return None


def cell_problem(cell, rounding, null_when):
    """Why a CSV ``cell`` breaks its row (None: it keeps it)."""
    if cell == "":
        return "empty, and its row says never" if null_when == "never" else None
    if rounding == "—":
        return "a number where the row says — (not a number)" if NUMBER.fullmatch(cell) else None
    if rounding == "as given":
        return None
    if rounding == "integer":
        return None if re.fullmatch(r"-?\d+", cell) else "not an integer"
    if not re.fullmatch(r"-?\d+(\.\d{1,%d})?" % DECIMALS[rounding], cell):
        return "not a number of at most %s" % rounding
    return None


def row_for(path, table):
    """The documented key of a value's path (a list of keys, a list's items as ``name[]``): the one with the fewest
    ``*`` of those that match; a list of plain values is documented by its key."""
    def matches(key, parts):
        pattern = key.split(".")
        return len(pattern) == len(parts) and all(
            want == got or (want == "*" and not got.endswith("[]")) or (want == "*[]" and got.endswith("[]"))
            for want, got in zip(pattern, parts))

    tries = [path] + ([path[:-1] + [path[-1][:-2]]] if path and path[-1].endswith("[]") else [])
    found = [key for parts in tries for key in table if matches(key, parts)]
    return min(found, key=lambda key: key.count("*")) if found else None


def json_problems(value, table, path=()):
    """One line per value of a JSON document (or per key) that no row documents or whose row it breaks."""
    path = list(path)
    if path:
        key = row_for(path, table)
        if key is None:
            return ["%s: in no table" % ".".join(path)]
        if isinstance(value, dict) and set(value) == LATENCY_KEYS:
            return ["%s.%s: %s" % (".".join(path), name, problem) for name, item in sorted(value.items())
                    for problem in [value_problem(item, *table[key])] if problem]
        if not isinstance(value, (dict, list)):
            problem = value_problem(value, *table[key])
            return ["%s: %r: %s" % (".".join(path), value, problem)] if problem else []
    out = []
    if isinstance(value, dict):
        for name, item in value.items():
            out += json_problems(item, table, path + [name])
    elif isinstance(value, list):
        for item in value:
            out += json_problems(item, table, path[:-1] + [path[-1] + "[]"])
    return out


def csv_problems(text, table):
    out = []
    rows = list(csv.DictReader(io.StringIO(text)))
    for column in (rows[0] if rows else {}):
        if column not in table:
            out.append("%s: in no table" % column)
    for number, row in enumerate(rows, 1):
        out += ["row %d, %s: %r: %s" % (number, column, cell, problem) for column, cell in row.items()
                if column in table for problem in [cell_problem(cell, *table[column])] if problem]
    return out


def directory_problems(directory):
    """{file: problems} of one result directory, for each of the files it has."""
    out = {}
    for name in ("summary.json", "scenario.json"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                out[name] = json_problems(json.load(handle), DOC[name])
    for name in ("pods.csv", "jobs.csv", "timeline.csv"):
        text = result_files.read_text(directory, name)
        if text:
            out[name] = csv_problems(text, DOC[name])
    return out


def test_every_file_has_its_tables_in_the_vocabulary():
    assert set(DOC) == {"summary.json", "pods.csv", "jobs.csv", "timeline.csv", "scenario.json"}
    assert DOC["pods.csv"]["latency_ms"] == ("3 decimals", "never bound")
    assert DOC["summary.json"]["scenario_metrics.fair_share.jain_index"][0] == "4 decimals"


@pytest.mark.parametrize("run", RUNS)
def test_a_stored_real_run_is_rounded_and_null_as_documented(run):
    found = directory_problems(os.path.join(FIXTURES, run))
    assert {"summary.json", "scenario.json", "pods.csv", "jobs.csv"} <= set(found)
    assert found == {name: [] for name in found}


def _write(summary, timeline, jobs, pods, scenario, out):
    sched_load.write_files(str(out), summary,
                           sched_load._csv_text(records.SCENARIO_POD_FIELDS, records.scenario_pod_rows(pods, jobs)),
                           timeline, {"jobs.csv": sched_load._csv_text(records.JOB_FIELDS, records.job_rows(jobs, pods)),
                                      "scenario.json": json.dumps(scenario)})
    return str(out)


def _off_the_tenth(run):
    """The hand-made scenario run with every time moved by a few microseconds (a different number for each), built
    again: makespan, rates, shares and pod-seconds then have digits beyond any rounding."""
    scenario, jobs = run[4], run[5]
    pods = copy.deepcopy(run[3])
    for number, pod in enumerate(pods):
        for key in ("created_us", "bound_us", "ended_us", "completed_us"):
            if pod.get(key) is not None:
                pod[key] += 7919 * (number + 1) % 99991 + len(key)
    created = {job["name"]: job["created_us"] + 31 for job in run[2]}
    return summary_samples._build(scenario, jobs, pods, created, dict(summary_samples.WORK)) + (scenario, jobs)


def test_what_the_load_tests_writer_writes_is_rounded_and_null_as_documented(tmp_path):
    run = summary_samples.scenario_run(tmp_path)
    burst = summary_samples.burst_run()
    uneven = _off_the_tenth(run)
    assert uneven[0]["makespan_s"] != round(uneven[0]["makespan_s"], 3)
    for name, (summary, timeline, jobs, pods, scenario) in {
            "scenario": run[:5], "uneven": uneven[:5],
            "burst": burst[:4] + ({"name": "burst", "burst": True},)}.items():
        found = directory_problems(_write(summary, timeline, jobs, pods, scenario, tmp_path / name))
        assert set(found) == {"summary.json", "scenario.json", "pods.csv", "jobs.csv", "timeline.csv"}
        assert found == {file: [] for file in found}, name


def test_a_value_finer_than_documented_undocumented_or_null_where_never_fails():
    summary = summary_samples.burst_run()[0]
    assert json_problems(summary, DOC["summary.json"]) == []
    summary = copy.deepcopy(summary)
    summary["makespan_s"] = 1.2345678
    summary["latency_ms"]["p50"] = 0.1 + 0.2
    summary["brand_new"] = 1
    summary["scenario_metrics"]["breakdown"]["new_figure"] = [1]
    summary["pods_bound"] = None
    summary["scheduler"] = 3
    problems = json_problems(summary, DOC["summary.json"])
    assert sorted(line.split(":")[0] for line in problems) == [
        "brand_new", "latency_ms.p50", "makespan_s", "pods_bound", "scenario_metrics.breakdown.new_figure",
        "scheduler"], problems
    text = "job,pod,latency_ms,new_column\nj,p,1.2345,x\nj,p2,,y\n"
    assert csv_problems(text, DOC["pods.csv"]) == ["new_column: in no table",
                                                   "row 1, latency_ms: '1.2345': not a number of at most 3 decimals"]
