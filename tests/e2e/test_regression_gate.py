"""bench.yml with repeats and a regression gate that must fail (issue 14): the report gives each figure its
interval and a Gate section, and the run ends with a non-zero exit code and one line per miss, after the
recap; each repeat lands beside the first. A bad gate is in test_bad_input.py.

The gate's run has two CPU hogs beside each of its load tests (issue 33): every repeat is marked busy, with the hogs
among the busiest other processes and none of the benchmark's own there, the report marks the result, and with
bench_gate_busy=refuse the run fails with one line saying how busy the host was instead of judging it. The report
playbook then judges a copy of the same results (bench_gate_busy's default), offline: the miss line.

Two more runs of the same workload, without repeats, land in the same results directory (about 20 s each): the
history of the three (playbooks/history.yml, issue 33) shows them in headless Chromium with their trend charts."""
import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import threading
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT, failure_text, new_bench_vars, processes_mentioning, run_playbook, task_results
from infra import chromium, xsd_subset

TINY = dict(bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180,
            bench_repeats=3)


# Two busy loops beside a tiny load test took 59 to 78 % of this 2-core machine type's CPU time when first measured;
# Ansible polling the load test took about 10 %. Each repeat's other processes are checked to hold the hogs too.
BUSY_THRESHOLD = 20


@contextlib.contextmanager
def hogs_beside_each_load_test(pid_dir, count=2):
    """``count`` CPU hogs (`yes`), stopped (SIGSTOP) except while a load test runs: continued as soon as its pid file
    appears in ``pid_dir``, stopped again when it goes, killed at the end. Yields one entry per load test: the hogs'
    pids and the pids of the pid files beside it (the benchmark's own processes)."""
    pid_file = os.path.join(pid_dir, "loadtest.pid")
    seen, stop = [], threading.Event()
    hogs = []

    def own_pids():
        pids = set()
        for name in os.listdir(pid_dir) if os.path.isdir(pid_dir) else []:
            try:
                with open(os.path.join(pid_dir, name), encoding="utf-8") as handle:
                    pids.add(int(handle.read().strip()))
            except (OSError, ValueError):
                continue
        return pids

    def signal_hogs(signum):
        for hog in hogs:
            os.kill(hog.pid, signum)

    def watch():
        while not stop.is_set():
            if not os.path.exists(pid_file):
                stop.wait(0.01)
                continue
            signal_hogs(signal.SIGCONT)
            entry = {"hogs": {hog.pid for hog in hogs}, "own": set()}
            seen.append(entry)
            while os.path.exists(pid_file) and not stop.is_set():
                entry["own"] |= own_pids()
                stop.wait(0.05)
            signal_hogs(signal.SIGSTOP)

    thread = threading.Thread(target=watch, daemon=True)
    try:
        for _ in range(count):
            hogs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))
            os.kill(hogs[-1].pid, signal.SIGSTOP)
        thread.start()
        yield seen
    finally:
        stop.set()
        if thread.is_alive():
            thread.join()
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.fixture(name="three_runs", scope="module")
def fixture_three_runs(tmp_path_factory):
    """The gate's run (three repeats beside CPU hogs, the gate refused), then two runs of one repeat; (bench_vars,
    the gate run's runner, the three run ids in order, the gate, the load tests the hogs ran beside)."""
    tmp_path = tmp_path_factory.mktemp("gate")
    bench_vars = new_bench_vars(tmp_path)
    gate = {"*": {"latency_p99_ms": "<= 0.001"}, "default": {"pods_bound": ">= 5"}}
    pid_dir = os.path.join(bench_vars["bench_workspace"], "clusters", "bench", "run")
    with hogs_beside_each_load_test(pid_dir) as load_tests:
        runner = run_playbook(tmp_path, "bench.yml", dict(bench_vars, bench_gate=gate, bench_gate_busy="refuse",
                                                          bench_busy_threshold=BUSY_THRESHOLD, **TINY), label="gate")
    run_ids = [bench_vars["bench_run_id"]]
    for label in ("second", "third"):
        run_ids.append("%s-%s" % (bench_vars["bench_run_id"], label))
        again = run_playbook(tmp_path, "bench.yml", dict(bench_vars, **dict(TINY, bench_repeats=1),
                                                         bench_run_id=run_ids[-1]), label=label)
        assert again.rc == 0, failure_text(again)
    return bench_vars, runner, run_ids, gate, load_tests


def test_a_gate_miss_fails_the_run_with_one_line_per_miss(three_runs, tmp_path):
    bench_vars, runner, _, gate, load_tests = three_runs

    assert runner.rc != 0
    run_dir = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"])
    # The benchmark itself went through: three complete repeats, every pod bound.
    with open(os.path.join(run_dir, "report.csv"), encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["status"], row["repeats"], row["repeats_complete"]) == ("complete", "3", "3")
    assert row["latency_p99_ms_ci_low"] and row["latency_p99_ms_ci_high"]
    assert float(row["latency_p99_ms_ci_low"]) <= float(row["latency_p99_ms"]) <= float(row["latency_p99_ms_ci_high"])
    # Repeat k lands in repeat-<k>/ beside the first.
    first = os.path.join(run_dir, "localhost", "default")
    loads = []
    for directory in (first, os.path.join(first, "repeat-2"), os.path.join(first, "repeat-3")):
        with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
            summary = json.load(handle)
        assert summary["pods_bound"] == 5
        loads.append(summary["host_load"])
        with open(os.path.join(directory, "env.json"), encoding="utf-8") as handle:
            environment = json.load(handle)
        assert environment["workload"]["repeats"] == 3
        assert environment["knobs"]["busy_threshold"] == BUSY_THRESHOLD

    # Every load test had its hogs, and was marked busy with them among the busiest other processes; the cluster,
    # kwok, the scheduler and the load test itself are the benchmark's, never other processes.
    assert len(load_tests) == 3, load_tests
    for load, seen in zip(loads, load_tests):
        assert (load["busy"], load["threshold_percent"]) == (True, BUSY_THRESHOLD), load
        assert load["other_cpu_percent"] > BUSY_THRESHOLD and load["cpus"] == os.cpu_count(), load
        assert load["own_processes"] >= 6 and load["own_cpu_percent"] > 0, load
        top = {entry["pid"]: entry for entry in load["top_other"]}
        hogs = [top[pid] for pid in seen["hogs"] if pid in top]
        assert hogs and {hog["name"] for hog in hogs} == {"yes"}, (load, seen)
        assert load["other_cpu_percent"] >= sum(hog["cpu_percent"] for hog in hogs), load
        assert len(seen["own"]) >= 6 and not set(top) & seen["own"], (load, seen)
        assert load["loadavg_before"] >= 0 and load["loadavg_after"] >= 0

    # The recap is shown, then the host fails: the gate refused to judge the busy result, in one line.
    assert task_results(runner, "Show the recap of every host and scheduler")
    failed = [event["event_data"] for event in runner.events if event.get("event") == "runner_on_failed"
              and not event["event_data"].get("ignore_errors")]
    assert [event["task"] for event in failed] == [
        "Fail the hosts where something failed or a figure missed the gate"], failure_text(runner)
    (line,) = failed[0]["res"]["msg"].splitlines()
    worst = max(loads, key=lambda load: load["other_cpu_percent"])
    assert line.startswith("gate refused: host localhost, scheduler default was measured on a busy host in run %s, "
                           "other processes used %s %% of the host's %d CPUs (over the %d %% threshold; the busiest: "
                           % (bench_vars["bench_run_id"], "%g" % worst["other_cpu_percent"], os.cpu_count(),
                              BUSY_THRESHOLD)), line
    assert line.endswith("; busy in 3 of 3 repeats, the figures are the busiest one's; not judged "
                         "(bench_gate_busy=refuse)"), line
    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "## Gate: refused" in markdown
    assert "0 checks of bench_gate: all passed. 1 result not judged: measured on a busy host" in markdown
    assert "Measured on a busy host (other processes above bench_busy_threshold" in markdown
    assert "complete (3/3 repeats); busy host (%g %% other CPU)" % worst["other_cpu_percent"] in markdown
    assert "Measured on a busy host (bench_busy_threshold):\n\n- default: other processes used" in markdown
    assert row["host_busy"] == "true" and float(row["host_other_cpu_percent"]) == worst["other_cpu_percent"]
    # The gate as JUnit XML for a CI system: the refused result's gated figures are skipped, with the refusal's line.
    assert junit_outcomes(run_dir) == {("gate.localhost.default", "pods_bound >= 5"): ("skipped", line),
                                       ("gate.localhost.default", "latency_p99_ms <= 0.001"): ("skipped", line),
                                       ("run.localhost", "host ran"): ("passed", None)}

    # Judged (bench_gate_busy's default), offline, on a copy (the history below shows the run as it ended): the
    # report playbook fails on the miss, one line.
    run_dir = shutil.copytree(run_dir, str(tmp_path / "judged"))
    judged = run_playbook(tmp_path, "playbooks/report.yml", {"bench_report_run_dir": run_dir, "bench_gate": gate},
                          label="judge")
    assert judged.rc == 2, failure_text(judged)
    (failed,) = [event["event_data"] for event in judged.events if event.get("event") == "runner_on_failed"]
    message = failed["res"]["msg"]
    p99 = float(row["latency_p99_ms"])
    assert message.splitlines() == [
        "gate missed: host localhost, scheduler default, latency_p99_ms = %s, threshold <= 0.001"
        % format_number(p99)], message
    # The report play printed it too, with how many checks passed.
    stdout = judged.stdout.read()
    assert "gate: 1 of 2 checks passed" in stdout and message.splitlines()[0] in stdout

    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "## Gate: missed" in markdown
    assert "2 checks of bench_gate: 1 missed." in markdown
    assert "| localhost | default | pods_bound | 5 | >= 5 | passed |" in markdown
    assert "95 % confidence interval with 3 or more repeats" in markdown
    # gate.junit.xml names the failing figure, with its value and limit in the failure's text.
    outcomes = junit_outcomes(run_dir)
    assert outcomes[("gate.localhost.default", "latency_p99_ms <= 0.001")] == ("failure", message.splitlines()[0])
    assert outcomes[("gate.localhost.default", "pods_bound >= 5")] == ("passed", None)
    assert processes_mentioning(bench_vars["bench_workspace"]) == []



def test_the_history_of_the_three_runs_shows_them_with_their_trend_charts(three_runs, tmp_path):
    bench_vars, _, run_ids, _, _ = three_runs
    results = bench_vars["bench_results_dir"]
    runner = run_playbook(tmp_path, "playbooks/history.yml", {"bench_results_dir": results}, label="history")
    assert runner.rc == 0, failure_text(runner)

    page = os.path.join(results, "index.html")
    measured = chromium.layout(page)
    assert chromium.too_wide(measured) == []
    (runs,) = [table for table in measured["tables"] if table["runs"]]
    assert runs["runs"] == run_ids[::-1]
    # One line (localhost, default, one workload): throughput, latency (p50 and p99) and makespan, each with a point
    # per run, and the bars of the repeats of the gate's run.
    charts = {chart["chart"]: chart for chart in measured["charts"]}
    assert len(measured["charts"]) == len(charts) == 3 and len({chart["line"] for chart in measured["charts"]}) == 1
    assert charts["throughput"]["runs"] == charts["makespan"]["runs"] == run_ids
    assert sorted(charts["latency"]["runs"]) == sorted(run_ids * 2)
    assert all(chart["width"] > 300 and chart["height"] > 200 for chart in charts.values())
    assert {run for chart in charts.values() for run in chart["intervals"]} == {run_ids[0]}

    dom = chromium.dom(page)
    assert '<tr data-run="%s">' % run_ids[0] in dom and '<td>refused</td></tr>' in dom
    for run_id in run_ids:
        assert '<a href="%s/report.html">%s</a>' % (run_id, run_id) in dom
    with open(os.path.join(results, "index.csv"), encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["run_id"], row["repeats_complete"], row["gate"]) for row in rows] == [
        (run_ids[0], "3", "refused"), (run_ids[1], "1", ""), (run_ids[2], "1", "")]
    assert len({row["configuration"] for row in rows}) == 1

    # The gate run's own report, in the same browser: its tables fit a laptop, and what bounded the throughput is a
    # list.
    report = os.path.join(results, run_ids[0], "report.html")
    assert chromium.too_wide(chromium.layout(report)) == []
    assert "<p>What bounded the throughput:</p>\n<ul><li>default: " in chromium.dom(report)


def junit_outcomes(run_dir):
    """{(classname, name): (outcome, its message)} of a run's gate.junit.xml, once it validates against
    schemas/junit.xsd."""
    with open(os.path.join(run_dir, "gate.junit.xml"), encoding="utf-8") as handle:
        text = handle.read()
    assert xsd_subset.problems(os.path.join(ROOT, "schemas", "junit.xsd"), text) == []
    found = {}
    for case in ET.fromstring(text).iter("testcase"):
        outcome = next(iter(case), None)
        found[(case.get("classname"), case.get("name"))] = (
            ("passed", None) if outcome is None else (outcome.tag, outcome.get("message")))
    return found


def format_number(value):
    """As the report writes a number (sched_report.format_number)."""
    if abs(value) >= 1000 or float(value).is_integer():
        return "%.0f" % value
    return "%.4g" % value
