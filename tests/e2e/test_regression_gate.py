"""bench.yml with repeats and a regression gate that must fail (issue 14): the report gives each figure its
interval and a Gate section, and the run ends with a non-zero exit code and one line per miss, after the
recap; each repeat lands beside the first. A bad gate is in test_bad_input.py."""
import csv
import json
import os

from conftest import failure_text, processes_mentioning, run_playbook, task_results

TINY = dict(bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180,
            bench_repeats=3)


def test_a_gate_miss_fails_the_run_with_one_line_per_miss(tmp_path, bench_vars):
    gate = {"*": {"latency_p99_ms": "<= 0.001"}, "default": {"pods_bound": ">= 5"}}
    runner = run_playbook(tmp_path, "bench.yml", dict(bench_vars, bench_gate=gate, **TINY), label="gate")

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


def format_number(value):
    """As the report writes a number (sched_report.format_number)."""
    if abs(value) >= 1000 or float(value).is_integer():
        return "%.0f" % value
    return "%.4g" % value
