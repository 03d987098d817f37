"""The gate as JUnit XML (plugin_utils/report/junit.py, gate.junit.xml): valid against schemas/junit.xsd (the format
CI systems read), one test case per host and per host × scheduler × gated figure, the value, the limit and the
verdict in a miss's text, a refused (busy) result as skipped; and the validator itself refuses what the schema
does not allow."""
import os
import xml.etree.ElementTree as ET

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import build as report
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import gate as gate_module
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import task as report_task
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.junit import render_junit
from infra import xsd_subset
from report_fixtures import env, summary, write_failed, write_result

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
XSD = os.path.join(ROOT, "schemas", "junit.xsd")
GATE = {"*": {"latency_p99_ms": "<= 25"}, "default": {"pods_bound": ">= 150"}}
BUSY = {"cpus": 2, "window_s": 5.0, "other_cpu_percent": 61.0, "own_cpu_percent": 30.0, "loadavg_before": 0.4,
        "loadavg_after": 2.5, "busy": True, "threshold_percent": 25.0,
        "top_other": [{"pid": 9, "name": "yes", "cpu_percent": 60.0}], "own_processes": 7}


@pytest.fixture(name="three_hosts")
def fixture_three_hosts(tmp_path):
    """lab-01.example: p99 30 ms (misses <= 25); lab-02: quiet and fast; lab-03: failed; lab-04: measured busy."""
    run_dir = tmp_path / "r1"
    write_result(str(run_dir / "lab-01.example" / "default"), summary(), env_doc=env("lab-01.example"))
    fast = summary(latency={"p50": 5.0, "p90": 8.0, "p99": 9.0, "max": 12.0, "mean": 6.0})
    write_result(str(run_dir / "lab-02" / "default"), fast, env_doc=env("lab-02"))
    write_failed(str(run_dir / "lab-03"), "Build kube-apiserver", "go: module lookup disabled")
    busy = summary()
    busy["host_load"] = BUSY
    write_result(str(run_dir / "lab-04" / "default"), busy, env_doc=env("lab-04"))
    return str(run_dir)


def junit_of(run_dir, gate_value=GATE, busy="refuse"):
    gate, problems = gate_module.parse_gate(gate_value)
    assert problems == []
    built = report.build_report(run_data.load_run(run_dir), None, gate, busy)
    return render_junit(built.run, built.gate, built.gate_checks, built.gate_refused)


def cases(text):
    """{(classname, name): (outcome, the outcome element or None)} of a JUnit document."""
    found = {}
    for case in ET.fromstring(text).iter("testcase"):
        outcome = next(iter(case), None)
        found[(case.get("classname"), case.get("name"))] = (outcome.tag if outcome is not None else "passed", outcome)
    return found


def test_the_gate_as_junit_validates_and_has_one_case_per_host_scheduler_and_figure(three_hosts):
    text = junit_of(three_hosts)
    assert xsd_subset.problems(XSD, text) == []
    found = cases(text)
    assert {key: outcome for key, (outcome, _) in found.items()} == {
        ("run.lab-01_example", "host ran"): "passed",
        ("gate.lab-01_example.default", "pods_bound >= 150"): "passed",
        ("gate.lab-01_example.default", "latency_p99_ms <= 25"): "failure",
        ("run.lab-02", "host ran"): "passed",
        ("gate.lab-02.default", "pods_bound >= 150"): "passed",
        ("gate.lab-02.default", "latency_p99_ms <= 25"): "passed",
        ("run.lab-03", "host ran"): "failure",
        # The gate judges every scheduler of the run on every host: a failed host's figures miss.
        ("gate.lab-03.default", "pods_bound >= 150"): "failure",
        ("gate.lab-03.default", "latency_p99_ms <= 25"): "failure",
        ("run.lab-04", "host ran"): "passed",
        ("gate.lab-04.default", "pods_bound >= 150"): "skipped",
        ("gate.lab-04.default", "latency_p99_ms <= 25"): "skipped",
    }
    miss = found[("gate.lab-01_example.default", "latency_p99_ms <= 25")][1]
    assert miss.get("message") == "gate missed: host lab-01.example, scheduler default, latency_p99_ms = 30, threshold <= 25"
    assert miss.text.splitlines()[1:] == ["measured: 30", "limit: <= 25", "verdict: missed"]
    failed = found[("run.lab-03", "host ran")][1]
    assert failed.get("message") == "host lab-03 failed at Build kube-apiserver: go: module lookup disabled"
    skipped = found[("gate.lab-04.default", "pods_bound >= 150")][1]
    assert skipped.get("message").startswith("gate refused: host lab-04, scheduler default was measured on a busy host")

    root = ET.fromstring(text)
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("12", "4", "0", "2")
    suites = {suite.get("hostname"): suite for suite in root.iter("testsuite")}
    assert [(suites[host].get("tests"), suites[host].get("failures"), suites[host].get("skipped"))
            for host in ("lab-01.example", "lab-02", "lab-03", "lab-04")] == [
        ("3", "1", "0"), ("3", "0", "0"), ("3", "3", "0"), ("3", "0", "2")]


def test_judged_busy_results_are_checked_and_a_failed_scheduler_misses_with_its_reason(tmp_path):
    run_dir = tmp_path / "r"
    write_result(str(run_dir / "h" / "default"), summary(), env_doc=env("h"))
    write_result(str(run_dir / "h" / "volcano"), None, env_doc=env("h", "volcano",
                                                                  outcome={"task": "Deploy", "msg": "no image"}))
    text = junit_of(str(run_dir), {"*": {"throughput_pods_per_s": ">= 20"}}, busy="judge")
    assert xsd_subset.problems(XSD, text) == []
    outcome, failure = cases(text)[("gate.h.volcano", "throughput_pods_per_s >= 20")]
    assert outcome == "failure" and "no value: failed: Deploy: no image" in failure.get("message")


def test_without_a_gate_only_the_hosts_are_cases(three_hosts):
    text = junit_of(three_hosts, None)
    assert xsd_subset.problems(XSD, text) == []
    assert {key: outcome for key, (outcome, _) in cases(text).items()} == {
        ("run.lab-01_example", "host ran"): "passed", ("run.lab-02", "host ran"): "passed",
        ("run.lab-03", "host ran"): "failure", ("run.lab-04", "host ran"): "passed"}


def test_the_report_action_writes_gate_junit_xml_beside_the_report(three_hosts):
    result = report_task.write_report({"run_dir": three_hosts, "compare_to": None, "output_dir": None, "gate": GATE,
                                       "gate_busy": "refuse"}, check_mode=False)
    assert result["gate_junit"] == os.path.join(three_hosts, "gate.junit.xml")
    with open(result["gate_junit"], encoding="utf-8") as handle:
        assert handle.read() == junit_of(three_hosts)


@pytest.mark.parametrize("broken, problem", [
    ('<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"/></testsuite></testsuites>',
     "/testsuites/testsuite[1]/testcase[1]: required attribute classname is missing"),
    ('<testsuites><testsuite name="s" tests="x" failures="0" errors="0"/></testsuites>',
     "/testsuites/testsuite[1]: attribute tests: 'x' is not an xs:nonNegativeInteger"),
    ('<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c" classname="k">'
     '<failure/></testcase></testsuite></testsuites>',
     "/testsuites/testsuite[1]/testcase[1]/failure[1]: required attribute message is missing"),
    ('<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c" classname="k">'
     '<skipped/><failure message="m"/></testcase></testsuite></testsuites>',
     "/testsuites/testsuite[1]/testcase[1]: unexpected <failure> as child 2"),
    ('<testsuites><testcase name="c" classname="k"/></testsuites>', "/testsuites: unexpected <testcase> as child 1"),
    ('<testsuites><testsuite name="s" tests="0" failures="0" errors="0" time="-1"/></testsuites>',
     "/testsuites/testsuite[1]: attribute time: -1 is below 0"),
    ('<testsuites colour="red"/>', "/testsuites: attribute colour is not declared"),
    ("<results/>", "root <results> is not a global element of the schema"),
])
def test_the_validator_refuses_what_the_schema_does_not_allow(broken, problem):
    assert xsd_subset.problems(XSD, broken) == [problem]
