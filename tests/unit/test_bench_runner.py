"""The Python entry point (plugin_utils/runner: bench.run on ansible-runner): ansible-runner's events become the
BenchEvents a caller follows, each host's outcome and the results directory are gathered from them, and the make
helpers (hack/bench_matrix.py, hack/bench_loadgen.py) run bench.yml through it. ansible-runner itself is replaced by
a fake that replays events here; tests/e2e/test_python_entry_point.py runs the real thing."""
import argparse
import os
import sys
import types

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner import bench as runner_bench
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.events import bench_events
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.runner.outcome import Outcome

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "hack"))
import bench_loadgen  # noqa: E402 - hack/ is not a package
import bench_matrix  # noqa: E402
import bench_run  # noqa: E402

EVENTS = [
    {"event": "playbook_on_play_start", "event_data": {"play": "Benchmark every host"}},
    {"event": "playbook_on_task_start", "event_data": {"task": "Run the load test"}},
    {"event": "verbose", "stdout": "[lab-01] default: wait 1200/3000 pods bound (3000 created), 24.1 s elapsed"},
    {"event": "verbose", "stdout": "PLAY RECAP ***"},
    {"event": "runner_on_failed", "event_data": {"host": "lab-02", "task": "Start kube-apiserver",
                                                 "res": {"msg": "port 26443\nin use"}}},
    {"event": "runner_on_failed", "event_data": {"host": "lab-01", "task": "Probe", "ignore_errors": True,
                                                 "res": {"msg": "ignored"}}},
    {"event": "runner_on_unreachable", "event_data": {"host": "lab-03", "task": "Gathering Facts",
                                                      "res": {"msg": "ssh: connect to host lab-03 port 22: timed out"}}},
    {"event": "runner_on_ok", "event_data": {"host": "localhost", "task": "Write the report", "res": {
        "report_html": "/srv/results/r1/report.html", "summary": {"gate": {"verdict": "missed", "checks": 2}}}}},
    {"event": "runner_on_ok", "event_data": {"host": "lab-01", "task": "Show the recap of every host and scheduler",
                                             "res": {"msg": ["lab-01  default: done", "lab-01  volcano: done",
                                                             "lab-02  default: failed at Start kube-apiserver: port",
                                                             "lab-03  (all): not run, the host dropped out"]}}},
    {"event": "runner_on_failed", "event_data": {"host": "lab-02", "task": "Fail the hosts where something failed",
                                                 "res": {"msg": "lab-02: see results/r1/lab-02/failed.json"}}},
    {"event": "playbook_on_stats", "event_data": {"ok": {"lab-01": 40, "lab-02": 12, "localhost": 3},
                                                  "failures": {"lab-02": 1}, "dark": {"lab-03": 1}, "rescued": {"lab-02": 1}}},
]


def test_events_become_plays_tasks_progress_failures_and_the_recap():
    found = [(event.kind, event.host, event.text) for raw in EVENTS for event in bench_events(raw)]
    assert found == [
        ("play", None, "Benchmark every host"),
        ("task", None, "Run the load test"),
        ("progress", "lab-01", "default: wait 1200/3000 pods bound (3000 created), 24.1 s elapsed"),
        ("failed", "lab-02", "Start kube-apiserver: port 26443 in use"),
        ("unreachable", "lab-03", "Gathering Facts: ssh: connect to host lab-03 port 22: timed out"),
        ("failed", "lab-02", "Fail the hosts where something failed: lab-02: see results/r1/lab-02/failed.json"),
        ("stats", None, "lab-01 ok=40 failed=0 unreachable=0; lab-02 ok=12 failed=1 unreachable=0; "
                        "lab-03 ok=0 failed=0 unreachable=1; localhost ok=3 failed=0 unreachable=0"),
    ]
    (progress,) = bench_events(EVENTS[2])
    assert progress.line == "[lab-01] default: wait 1200/3000 pods bound (3000 created), 24.1 s elapsed"


def test_each_hosts_outcome_and_the_results_directory_come_from_the_events():
    outcome = Outcome()
    for event in EVENTS:
        outcome.feed(event)
    assert outcome.results_dir == "/srv/results/r1"
    assert {host: entry.status for host, entry in outcome.hosts.items()} == {
        "lab-01": "ok", "lab-02": "failed", "lab-03": "unreachable"}
    assert outcome.hosts["lab-01"].schedulers == {"default": "done", "volcano": "done"}
    assert outcome.hosts["lab-02"].schedulers == {"default": "failed at Start kube-apiserver: port"}
    assert outcome.hosts["lab-02"].failures == ["Start kube-apiserver: port 26443 in use",
                                                "Fail the hosts where something failed: lab-02: see results/r1/lab-02/failed.json"]
    assert outcome.hosts["lab-03"].schedulers == {"(all)": "not run, the host dropped out"}


def test_a_failure_the_play_rescued_does_not_fail_the_host():
    outcome = Outcome()
    for event in (EVENTS[4], {"event": "playbook_on_stats", "event_data": {"ok": {"lab-02": 9}, "rescued": {"lab-02": 1}}}):
        outcome.feed(event)
    assert (outcome.hosts["lab-02"].status, len(outcome.hosts["lab-02"].failures)) == ("ok", 1)


@pytest.fixture(name="fake_runner")
def fixture_fake_runner(monkeypatch):
    """ansible_runner.run replaced: it replays EVENTS to the handler and records its arguments."""
    calls = []

    def fake_run(**kwargs):
        calls.append(kwargs)
        assert os.path.isdir(kwargs["private_data_dir"])
        for event in EVENTS:
            assert kwargs["event_handler"](event) is True
        return types.SimpleNamespace(rc=2, status="failed")

    monkeypatch.setattr(runner_bench.ansible_runner, "run", fake_run)
    return calls


def test_run_streams_the_events_and_returns_the_outcome(fake_runner):
    seen = []
    result = runner_bench.run(os.path.join(ROOT, "inventories", "local"), {"bench_jobs": 5}, on_event=seen.append,
                              cmdline="-v")
    assert [event.kind for event in seen] == ["play", "task", "progress", "failed", "unreachable", "failed", "stats"]
    assert (result.rc, result.status, result.results_dir) == (2, "failed", "/srv/results/r1")
    assert result.gate == {"verdict": "missed", "checks": 2}
    assert result.hosts["lab-01"].schedulers["volcano"] == "done"
    (call,) = fake_runner
    assert (call["project_dir"], call["playbook"], call["extravars"], call["cmdline"]) == (ROOT, "bench.yml",
                                                                                          {"bench_jobs": 5}, "-v")
    assert call["inventory"] == os.path.join(ROOT, "inventories", "local")
    assert call["envvars"]["ANSIBLE_CONFIG"] == os.path.join(ROOT, "ansible.cfg")
    assert call["envvars"]["PATH"].startswith(os.path.dirname(sys.executable) + os.pathsep)
    assert not os.path.exists(call["private_data_dir"]), "the temporary artifacts directory is removed"


def test_the_matrix_helper_runs_bench_through_the_entry_point_and_logs_its_events(fake_runner, tmp_path):
    args = argparse.Namespace(schedulers=["default"], inventory=bench_run.LOCAL, ansible_args=["-e", "x=1"],
                              directory=str(tmp_path))
    assert bench_matrix.run_bench(args, "m-1", "/tmp/scenario.yml") == 2
    (call,) = fake_runner
    assert call["extravars"] == {"bench_run_id": "m-1", "bench_scenario": "/tmp/scenario.yml",
                                 "bench_schedulers": ["default"]}
    assert call["cmdline"] == "-e x=1"
    log = (tmp_path / "m-1.log").read_text().splitlines()
    assert log[:3] == ["Benchmark every host", "Run the load test",
                       "[lab-01] default: wait 1200/3000 pods bound (3000 created), 24.1 s elapsed"]


def test_the_loadgen_helper_stops_with_the_failures_of_a_failed_run(fake_runner):
    args = argparse.Namespace(scheduler="default", nodes=10, jobs=20, pods_per_job=3, ansible_args=[])
    with pytest.raises(SystemExit) as stopped:
        bench_loadgen.run_bench("lg-1", 2, args)
    assert str(stopped.value).splitlines() == [
        "bench.yml with bench_submit_processes=2 failed:", "[lab-02] Start kube-apiserver: port 26443 in use",
        "[lab-03] Gathering Facts: ssh: connect to host lab-03 port 22: timed out",
        "[lab-02] Fail the hosts where something failed: lab-02: see results/r1/lab-02/failed.json"]
    (call,) = fake_runner
    assert call["extravars"]["bench_submit_processes"] == 2 and call["extravars"]["bench_pod_creation"] == "direct"
    assert call["cmdline"] is None
