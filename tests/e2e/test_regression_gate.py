"""bench.yml with repeats and a regression gate that must fail (issue 14): the report gives each figure its
interval and a Gate section, and the run ends with a non-zero exit code and one line per miss, after the
recap; each repeat lands beside the first. A bad gate is in test_bad_input.py.

Two more runs of the same workload, without repeats, land in the same results directory (about 20 s each): the
history of the three (playbooks/history.yml, issue 33) shows them in headless Chromium with their trend charts."""
import csv
import json
import os

import pytest
from conftest import failure_text, new_bench_vars, processes_mentioning, run_playbook, task_results
from infra import chromium

TINY = dict(bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180,
            bench_repeats=3)


@pytest.fixture(name="three_runs", scope="module")
def fixture_three_runs(tmp_path_factory):
    """The gate's run (three repeats, the gate missed), then two runs of one repeat; (bench_vars, the gate run's
    runner, the three run ids in order)."""
    tmp_path = tmp_path_factory.mktemp("gate")
    bench_vars = new_bench_vars(tmp_path)
    gate = {"*": {"latency_p99_ms": "<= 0.001"}, "default": {"pods_bound": ">= 5"}}
    runner = run_playbook(tmp_path, "bench.yml", dict(bench_vars, bench_gate=gate, **TINY), label="gate")
    run_ids = [bench_vars["bench_run_id"]]
    for label in ("second", "third"):
        run_ids.append("%s-%s" % (bench_vars["bench_run_id"], label))
        again = run_playbook(tmp_path, "bench.yml", dict(bench_vars, **dict(TINY, bench_repeats=1),
                                                         bench_run_id=run_ids[-1]), label=label)
        assert again.rc == 0, failure_text(again)
    return bench_vars, runner, run_ids


def test_a_gate_miss_fails_the_run_with_one_line_per_miss(three_runs):
    bench_vars, runner, _ = three_runs
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
    for directory in (first, os.path.join(first, "repeat-2"), os.path.join(first, "repeat-3")):
        with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
            assert json.load(handle)["pods_bound"] == 5
        with open(os.path.join(directory, "env.json"), encoding="utf-8") as handle:
            assert json.load(handle)["workload"]["repeats"] == 3

    # The recap is shown, then the host fails with its misses, one line each.
    assert task_results(runner, "Show the recap of every host and scheduler")
    failed = [event["event_data"] for event in runner.events if event.get("event") == "runner_on_failed"
              and not event["event_data"].get("ignore_errors")]
    assert [event["task"] for event in failed] == [
        "Fail the hosts where something failed or a figure missed the gate"], failure_text(runner)
    message = failed[0]["res"]["msg"]
    p99 = float(row["latency_p99_ms"])
    assert message.splitlines() == [
        "gate missed: host localhost, scheduler default, latency_p99_ms = %s, threshold <= 0.001"
        % format_number(p99)], message
    # The report play printed it too, with how many checks passed.
    stdout = runner.stdout.read()
    assert "gate: 1 of 2 checks passed" in stdout and message.splitlines()[0] in stdout

    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "## Gate: missed" in markdown
    assert "2 checks of bench_gate: 1 missed." in markdown
    assert "| localhost | default | pods_bound | 5 | >= 5 | passed |" in markdown
    assert "95 % confidence interval with 3 or more repeats" in markdown
    assert processes_mentioning(bench_vars["bench_workspace"]) == []


def test_the_history_of_the_three_runs_shows_them_with_their_trend_charts(three_runs, tmp_path):
    bench_vars, _, run_ids = three_runs
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
    assert '<tr data-run="%s">' % run_ids[0] in dom and '<td class="bad">missed</td></tr>' in dom
    for run_id in run_ids:
        assert '<a href="%s/report.html">%s</a>' % (run_id, run_id) in dom
    with open(os.path.join(results, "index.csv"), encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["run_id"], row["repeats_complete"], row["gate"]) for row in rows] == [
        (run_ids[0], "3", "missed"), (run_ids[1], "1", ""), (run_ids[2], "1", "")]
    assert len({row["configuration"] for row in rows}) == 1

    # The gate run's own report, in the same browser: its tables fit a laptop, and what bounded the throughput is a
    # list.
    report = os.path.join(results, run_ids[0], "report.html")
    assert chromium.too_wide(chromium.layout(report)) == []
    assert "<p>What bounded the throughput:</p>\n<ul><li>default: " in chromium.dom(report)


def format_number(value):
    """As the report writes a number (sched_report.format_number)."""
    if abs(value) >= 1000 or float(value).is_integer():
        return "%.0f" % value
    return "%.4g" % value
