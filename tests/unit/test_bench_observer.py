"""make bench-observer's rows (hack/bench_observer.py) from stored real summaries: each figure taken from where
docs/metrics.md defines it, the API server's CPU per request from its own request counter, and a run without an
audit log (timing from the watch, no audit bytes) still given a row."""
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.join(ROOT, "hack"))
import bench_observer  # noqa: E402 - hack/ is not a package

FIXTURE = ROOT / "tests" / "unit" / "fixtures" / "burst-backlog-default" / "summary.json"


def summary():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_a_row_takes_each_figure_from_the_summary():
    found = summary()
    row = bench_observer.row("light", found)
    requests = sum(found["internals"]["processes"]["kube-apiserver"]["requests_by_verb"].values())
    apiserver = [each for each in found["component_cost"]["components"] if each["component"] == "kube-apiserver"][0]
    assert row["apiserver_cpu_ms_per_request"] == round(apiserver["cpu_seconds"] * 1000 / requests, 3)
    assert row["apiserver_requests_per_pod"] == round(requests / found["pods_bound"], 2)
    assert row["audit_kb_per_pod"] == round(found["audit_log_bytes"] / found["pods_bound"] / 1000, 2)
    assert (row["harness_percent"], row["kwok_cpu_ms_per_pod"], row["loadgen_cpu_ms_per_pod"]) == (
        found["component_cost"]["harness_percent"], 2.083, 2.083)
    assert (row["policy"], row["scheduler"], row["timing_source"]) == ("light", "default", "audit")


def test_a_run_without_an_audit_log_or_internals_still_has_its_row():
    found = dict(summary(), audit_log_bytes=None, timing_source="watch", internals=None)
    row = bench_observer.row("off", found)
    assert (row["audit_kb_per_pod"], row["apiserver_requests_per_pod"], row["apiserver_cpu_ms_per_request"]) == (
        None, None, None)
    lines = bench_observer.table([row]).splitlines()
    assert len(lines) == 2 and lines[1].split()[:2] == ["off", "default"] and " watch " in lines[1]
