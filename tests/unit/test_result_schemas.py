"""Every result file against its schema (schemas/, checked by tests/result_checks.py, which the end-to-end tests run
on each new result directory): the stored real runs of fixtures/, the load test's writer on the hand-made runs of
summary_samples.py, every shipped scenario as the load test writes it, and a file that breaks its schema."""
import glob
import gzip
import json
import os
import re
import shutil
from types import SimpleNamespace

import jsonschema
import pytest
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import results as sched_results
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import schema as sched_summary
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from result_checks import (
    CSV_FILES,
    SCHEMA_DIR,
    csv_problems,
    problems,
    read_rows,
    result_problems,
    summary_problems,
    summary_schema,
    validator,
)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
# Every stored real run: each directory of fixtures/ with a summary.json.
REAL_RUNS = sorted(os.path.relpath(os.path.dirname(path), FIXTURES)
                   for path in glob.glob(os.path.join(FIXTURES, "**", "summary.json"), recursive=True))
# The schemas whose every key or column is described in the schema itself; summary.json's are defined in
# docs/metrics.md (test_summary_schema.py checks that each is).
DESCRIBED = ["scenario.schema.json", "env.schema.json"] + [name + ".schema.json" for name in CSV_FILES]
WRITERS = {"pods.csv": records.SCENARIO_POD_FIELDS, "jobs.csv": records.JOB_FIELDS,
           "timeline.csv": sched_results.TIMELINE_FIELDS}


def undescribed(node, path=""):
    """The properties under ``node`` without a description, as dotted paths."""
    out = []
    for key, child in (node.get("properties") or {}).items():
        out += [] if child.get("description") else [path + key]
        out += undescribed(child, path + key + ".")
    for key in ("items", "additionalProperties", "then", "else"):
        if isinstance(node.get(key), dict):
            out += undescribed(node[key], path)
    for key, child in (node.get("$defs") or {}).items():
        out += undescribed(child, path + key + ".")
    return out


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(SCHEMA_DIR, "*.json"))), ids=os.path.basename)
def test_every_schema_is_a_valid_json_schema_with_a_title_and_description(path):
    schema = validator(os.path.basename(path)).schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["title"] and schema["description"]
    assert schema["$id"] == "kube-sched-bench/" + os.path.basename(path)


@pytest.mark.parametrize("name", DESCRIBED)
def test_every_key_and_column_is_described_shortly(name):
    schema = validator(name).schema
    assert undescribed(schema) == []
    long = [key for key, child in schema["properties"].items() if len(child["description"]) > 160]
    assert long == []


def test_each_version_the_readers_can_read_has_a_schema_that_names_it():
    for version in range(1, sched_summary.SCHEMA_VERSION + 1):
        name = sched_summary.schema_file(version)
        assert validator(name), "no schemas/%s: raising SCHEMA_VERSION keeps the old schema under that name" % name
        schema = validator(name).schema
        assert schema["properties"]["schema_version"]["const"] == version
        assert ("schema_version" in schema["required"]) == (version > 1), version
    assert sched_summary.schema_file(sched_summary.SCHEMA_VERSION) == "summary.schema.json"


def test_a_summary_picks_its_schema_by_its_version_and_none_is_version_1():
    assert summary_schema({}) is validator("summary.v1.schema.json")
    assert summary_schema({"schema_version": 2}) is validator("summary.v2.schema.json")
    assert summary_schema({"schema_version": sched_summary.SCHEMA_VERSION}) is validator("summary.schema.json")
    for unknown in (0, sched_summary.SCHEMA_VERSION + 1, "2", True):
        assert summary_schema({"schema_version": unknown}) is None
        assert summary_problems({"schema_version": unknown}) == ["schema_version: %r has no schema" % (unknown,)]


@pytest.mark.parametrize("run", REAL_RUNS)
def test_every_file_of_a_stored_real_run_follows_its_schema(run):
    directory = os.path.join(FIXTURES, run)
    assert result_problems(directory) == []
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        version = sched_summary.schema_version(json.load(handle))
    assert version >= 2 and {"summary.json", "scenario.json", "pods.csv.gz", "jobs.csv.gz"} <= set(os.listdir(directory))


def test_the_stored_real_runs_cover_every_file_and_the_last_two_versions():
    files = {name for run in REAL_RUNS for name in os.listdir(os.path.join(FIXTURES, run))}
    assert {"summary.json", "scenario.json", "env.json", "pods.csv.gz", "jobs.csv.gz", "timeline.csv"} <= files
    versions = set()
    for run in REAL_RUNS:
        with open(os.path.join(FIXTURES, run, "summary.json"), encoding="utf-8") as handle:
            versions.add(sched_summary.schema_version(json.load(handle)))
    assert {2, sched_summary.SCHEMA_VERSION} <= versions


def as_version_1(directory):
    """A stored real run's summary.json as version 1 wrote it (docs/metrics.md#versions): no schema_version, the
    peak the busiest aligned second of timeline.csv."""
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    del summary["schema_version"]
    summary["peak_throughput_pods_per_s"] = max(int(row["bound"]) for row in read_rows(directory, "timeline.csv"))
    return summary


def test_a_version_1_file_follows_the_version_1_schema_and_not_the_current_one():
    summary = as_version_1(os.path.join(FIXTURES, "why", "default"))
    assert summary_problems(summary) == []
    assert any("'schema_version' is a required property" in line
               for line in problems(validator("summary.schema.json"), summary))
    summary["peak_throughput_pods_per_s"] += 0.5
    del summary["pods_bound"]
    assert summary_problems(summary) == ["(top): 'pods_bound' is a required property",
                                         "peak_throughput_pods_per_s: %r is not of type 'integer'"
                                         % summary["peak_throughput_pods_per_s"]]


def write_hand_made_run(directory, run):
    """The load test's writer (loadtest/results.py) on a hand-made run of summary_samples.py: its rows, its scenario
    as the bench role hands it over (scaled, filter_plugins/bench_checks.py's scenario_of) with the moments of the
    load test's own clock (clock_events)."""
    summary, timeline, jobs, pods, scenario = run[:5]
    scenario = sched_scenarios.scaled(scenario, 1.0)[0]
    clock = SimpleNamespace(submit_start_us=summary_samples.T0, submit_end_us=summary_samples.T0 + 50_000,
                            release_us=None)
    events = sched_results.Results.clock_events(clock, None, "audit")
    sched_results.write_files(str(directory), summary, sched_results._csv_text(
        records.SCENARIO_POD_FIELDS, records.scenario_pod_rows(pods, jobs)), timeline, {
        "jobs.csv": sched_results._csv_text(records.JOB_FIELDS, records.job_rows(jobs, pods)),
        "scenario.json": json.dumps(dict(scenario, events=events), indent=1, sort_keys=True) + "\n"})


@pytest.mark.parametrize("kind", ["scenario", "burst"])
def test_what_the_load_tests_writer_writes_follows_the_schemas(tmp_path, kind):
    if kind == "scenario":
        run = summary_samples.scenario_run(tmp_path)
    else:
        run = summary_samples.burst_run()
        run = run + (sched_scenarios.burst(dict(summary_samples.WORK, jobs=2)),)
    write_hand_made_run(tmp_path / "result", run)
    assert result_problems(str(tmp_path / "result")) == []
    assert sorted(os.listdir(tmp_path / "result")) == ["jobs.csv.gz", "pods.csv.gz", "scenario.json", "summary.json",
                                                       "timeline.csv"]


@pytest.mark.parametrize("name", CSV_FILES)
def test_the_csv_schemas_have_the_writers_columns_in_order(name):
    assert list(validator(name + ".schema.json").schema["properties"]) == WRITERS[name]


def documented(section):
    """The keys or columns docs/metrics.md defines in its section ``### <section>``: each `key` in the first cell of
    a table row, up to the next section."""
    keys, inside = set(), False
    with open(os.path.join(SCHEMA_DIR, "..", "docs", "metrics.md"), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(("## ", "### ")):
                inside = line.strip() == "### " + section
            elif inside and line.startswith("| `"):
                keys.update(re.findall(r"`([a-z0-9_.*\[\]]+)`", line.split("|")[1]))
    return keys


def schema_paths(schema, node=None, prefix=""):
    """Every key ``schema`` describes, as docs/metrics.md writes them (``a.b``, list items ``[]``, the keys of a map
    by name ``*``)."""
    node = schema if node is None else node
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    out = set()
    named = prefix.endswith("thresholds")
    for key, child in (node.get("properties") or {}).items():
        path = (prefix + "." if prefix else "") + ("*" if named else key)
        out |= {path} | schema_paths(schema, child, path)
    if isinstance(node.get("additionalProperties"), dict):
        out.add(prefix + ".*")
    if isinstance(node.get("items"), dict):
        out |= schema_paths(schema, node["items"], prefix + "[]")
    return out


@pytest.mark.parametrize("name", CSV_FILES + ("scenario.json",))
def test_every_key_and_column_a_schema_describes_is_defined_in_the_metrics_doc_and_back(name):
    assert schema_paths(validator(name.replace(".json", "") + ".schema.json").schema) == documented(name)


# The size each shipped scenario runs at end to end besides its own: an eighth (tests/e2e/test_shipped_scenarios.py),
# a quarter for ai-training, whose racks of 8 nodes hold a gang of 16 GPUs only from a quarter up.
E2E_SCALES = {"ai-training": 0.25}


@pytest.mark.parametrize("name", sched_scenarios.shipped_names())
def test_every_shipped_scenario_as_the_load_test_writes_it_follows_the_schema(name):
    loaded = (sched_scenarios.burst(summary_samples.WORK) if name == sched_scenarios.BURST
              else sched_scenarios.load(name)[0])
    for scale in ([1] if name == sched_scenarios.BURST else [1, E2E_SCALES.get(name, 0.125)]):
        scenario, found = sched_scenarios.scaled(loaded, scale)
        assert found == []
        assert problems(validator("scenario.schema.json"), json.loads(json.dumps(scenario))) == [], scale


def broken_copy(tmp_path, run="why/default"):
    directory = tmp_path / "result"
    shutil.copytree(os.path.join(FIXTURES, run), directory)
    return directory


def test_a_csv_file_that_breaks_its_schema_is_reported(tmp_path):
    directory = broken_copy(tmp_path)
    header = (directory / "timeline.csv").read_text().splitlines()[0]
    (directory / "timeline.csv").write_text(header + "\n0,60,60,60,60,0\n1,x1,61,0,60,1\n2,0,61,1,61,0\n3,1\n")
    with gzip.open(directory / "pods.csv.gz", "rt", encoding="utf-8") as handle:
        pods = handle.read().replace("how_ended", "ending", 1)
    with gzip.open(directory / "pods.csv.gz", "wt", encoding="utf-8") as handle:
        handle.write(pods)
    found = result_problems(str(directory))
    assert len(found) == 3, found
    assert found[0].startswith("pods.csv: the header ") and "ending" in found[0]
    assert found[1].startswith("timeline.csv line 3, created: 'x") and "does not match" in found[1]
    assert found[2] == "timeline.csv line 5: 2 cells, the header names 6"


def test_a_csv_header_out_of_order_or_short_is_reported_by_version():
    header = ",".join(WRITERS["timeline.csv"])
    swapped = header.replace("created,created_total", "created_total,created")
    assert csv_problems(header + "\n", "timeline.csv") == []
    assert csv_problems(swapped + "\n", "timeline.csv", 1)[0].startswith("timeline.csv: the header ")
    pods_v2 = ",".join(column for column in WRITERS["pods.csv"] if column not in ("completed", "held_created"))
    assert csv_problems(pods_v2 + "\n", "pods.csv", 2) == []
    assert csv_problems(pods_v2 + "\n", "pods.csv")[0].startswith("pods.csv: the header ")
    pods_v1 = "job,pod,node,created,bound,latency_ms\nj,j-1,,2026-11-30T10:00:00.000000Z,,\n"
    assert csv_problems(pods_v1, "pods.csv", 1) == []
    assert csv_problems(pods_v1, "pods.csv", 2)[0].startswith("pods.csv: the header ")


def test_a_json_file_that_breaks_its_schema_is_reported(tmp_path):
    directory = broken_copy(tmp_path)
    for name, change in (("scenario.json", lambda doc: doc.pop("cluster")),
                         ("env.json", lambda doc: doc.update(outcome={"status": "bad"}, extra=1)),
                         ("summary.json", lambda doc: doc.update(schema_version=sched_summary.SCHEMA_VERSION + 1))):
        document = json.loads((directory / name).read_text())
        change(document)
        (directory / name).write_text(json.dumps(document))
    found = result_problems(str(directory))
    assert found[0] == "summary.json schema_version: %d has no schema" % (sched_summary.SCHEMA_VERSION + 1)
    assert found[1] == "scenario.json (top): 'cluster' is a required property"
    assert [line.split(":")[0] for line in found[2:]] == ["env.json (top)", "env.json outcome"], found
