"""The measurement contract (module_utils/loadtest/measurements/): summary.json is the merge of the registered
measurements' parts; each declares its keys, and the declared keys, the schema's and the ones docs/metrics.md
defines are the same set. A planted key in any one of the three, or a part that writes a key it did not declare,
fails."""
import json
import os
import re

import pytest
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import measurements
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import (
    MOMENTS,
    Measurement,
    context_of,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "schemas", "summary.schema.json")
METRICS_DOC = os.path.join(ROOT, "docs", "metrics.md")
MODULES = os.path.join(ROOT, "collections", "ansible_collections", "kube_sched_bench", "core", "plugins",
                       "module_utils", "loadtest", "measurements")


def schema_keys(path=SCHEMA):
    with open(path, encoding="utf-8") as handle:
        return set(json.load(handle)["properties"])


def documented_keys(text=None):
    """summary.json's top-level keys that docs/metrics.md defines: the first cell of its summary.json tables."""
    if text is None:
        with open(METRICS_DOC, encoding="utf-8") as handle:
            text = handle.read()
    section = text.split("\n## summary.json", 1)[1].split("\n## ", 1)[0]
    section = section.split("### Measured from outside the files", 1)[0]
    found = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            found.update(re.findall(r"`([a-z0-9_]+)`(?![.\[])", line.split("|")[1]))
    return found


def disagreements(declared, schema, documented):
    """One line per key that is in one of the three sets and not in all of them."""
    lines = []
    for key in sorted(declared | schema | documented):
        missing = [name for name, keys in (("a measurement", declared), ("the schema", schema),
                                           ("docs/metrics.md", documented)) if key not in keys]
        if missing:
            lines.append("%s: not in %s" % (key, " nor ".join(missing)))
    return lines


def test_the_measurements_the_schema_and_the_doc_name_the_same_keys():
    assert disagreements(measurements.keys(), schema_keys(), documented_keys()) == []


def test_a_key_in_one_place_only_is_found():
    declared, schema, documented = measurements.keys(), schema_keys(), documented_keys()
    assert disagreements(declared | {"gpu_share"}, schema, documented) == [
        "gpu_share: not in the schema nor docs/metrics.md"]
    assert disagreements(declared, schema | {"outage_s"}, documented) == [
        "outage_s: not in a measurement nor docs/metrics.md"]
    assert disagreements(declared - {"host_load"}, schema, documented) == ["host_load: not in a measurement"]


def test_each_key_has_one_measurement_and_each_measurement_one_module():
    owners = {}
    for measurement in measurements.REGISTERED:
        for key in measurement.keys:
            owners.setdefault(key, []).append(measurement.name)
        assert set(measurement.hooks) <= set(MOMENTS), measurement.name
    assert {key: names for key, names in owners.items() if len(names) > 1} == {}
    modules = {name[:-3] for name in os.listdir(MODULES) if name.endswith(".py")} - {"__init__", "contract"}
    assert modules == set(measurements.NAMES)


def test_a_part_with_a_key_its_measurement_does_not_declare_fails_at_once():
    planted = Measurement("planted", ("declared",), lambda context, summary: {"declared": 1, "sneaked_in": 2})
    context = context_of({}, {"records": [], "job_created": {}, "job_admitted": None}, {"submitted": []}, {})
    with pytest.raises(ValueError, match="measurement planted wrote keys it does not declare: sneaked_in"):
        measurements.merge(context, (planted,))


def test_a_measurement_reads_the_parts_merged_before_it_and_its_own_looks():
    first = Measurement("first", ("a",), lambda context, summary: {"a": 2})
    second = Measurement("second", ("b",), lambda context, summary: {
        "b": summary["a"] * (context.looks.get("second") or {}).get("begin", 0)})
    context = context_of({}, {"records": [], "job_created": {}, "job_admitted": None}, {"submitted": []}, {},
                         looks={"second": {"begin": 21}})
    assert measurements.merge(context, (first, second)) == {"a": 2, "b": 42}


def test_the_load_tests_summary_is_the_merge_of_every_registered_measurement(tmp_path):
    for summary in (summary_samples.burst_run()[0], summary_samples.scenario_run(tmp_path)[0]):
        assert set(summary) <= measurements.keys()
        assert measurements.keys() - set(summary) <= {"scheduler_cost"}


def test_the_architecture_lists_every_measurement_with_its_looks():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as handle:
        section = handle.read().split("\n## Measurements\n", 1)[1].split("\n### ", 1)[0]
    rows = [line.split("|")[1:4] for line in section.splitlines() if line.startswith("| `")]
    documented = {name.strip().strip("`"): set(re.findall(r"`([a-z_]+)`", looks)) for name, _, looks in rows}
    assert documented == {measurement.name: set(measurement.hooks) for measurement in measurements.REGISTERED}
