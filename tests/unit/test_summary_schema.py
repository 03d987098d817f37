"""summary.json's schema (schemas/summary.schema.json) and its definitions (docs/metrics.md) against what the load
test builds (the merge of module_utils/loadtest/measurements/, on the hand-made runs of summary_samples.py)."""
import copy
import os
import re

import jsonschema
import pytest
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules as sched_rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import schema as sched_summary
from result_checks import ROOT, SCHEMA, key_paths, summary_problems

METRICS_DOC = os.path.join(ROOT, "docs", "metrics.md")


@pytest.fixture(scope="module")
def summaries(tmp_path_factory):
    return {"burst": summary_samples.burst_run()[0],
            "scenario": summary_samples.scenario_run(tmp_path_factory.mktemp("scenario"))[0]}


def documented_keys():
    """The keys docs/metrics.md defines: each `key` in the first cell of a table row."""
    keys = set()
    with open(METRICS_DOC, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("| `"):
                keys.update(re.findall(r"`([a-z0-9_.*\[\]]+)`", line.split("|")[1]))
    return keys


def schema_paths(node=SCHEMA, prefix=""):
    """Every key the schema describes, as key_paths writes them (a latency summary as one key)."""
    if node.get("$ref") == "#/$defs/latency":
        return set()
    if "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    out = set()
    for key, child in (node.get("properties") or {}).items():
        path = (prefix + "." if prefix else "") + key
        out.add(path)
        out |= schema_paths(child, path)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        path = (prefix + "." if prefix else "") + "*"
        out.add(path)
        out |= schema_paths(extra, path)
    if isinstance(node.get("items"), dict):
        out |= schema_paths(node["items"], prefix + "[]")
    return out


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", ["burst", "scenario"])
def test_what_the_load_test_builds_follows_the_schema(summaries, name):
    assert summary_problems(summaries[name]) == []
    assert summaries[name]["schema_version"] == sched_summary.SCHEMA_VERSION


def test_a_key_the_schema_does_not_describe_fails(summaries):
    summary = copy.deepcopy(summaries["scenario"])
    summary["scenario_metrics"]["gang"]["new_figure"] = 1
    summary["brand_new"] = True
    problems = summary_problems(summary)
    assert len(problems) == 2 and "brand_new" in problems[0] + problems[1], problems
    del summary["scheduler"]
    assert any("'scheduler' is a required property" in line for line in summary_problems(summary))


def test_every_key_built_is_in_the_schema_and_defined_in_the_metrics_doc(summaries):
    built = key_paths(summaries["burst"]) | key_paths(summaries["scenario"])
    assert built - schema_paths() == set(), "keys the schema does not describe"
    assert built - documented_keys() == set(), "keys docs/metrics.md does not define"


def test_every_key_the_schema_describes_is_defined_in_the_metrics_doc():
    assert schema_paths() - documented_keys() == set()


def test_the_workload_in_the_schema_is_the_workload_knobs():
    assert set(SCHEMA["properties"]["workload"]["properties"]) == set(sched_rules.WORKLOAD)
