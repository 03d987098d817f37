"""Faults on the binary runtime: a component dies mid-run, the playbook is interrupted.
The run says what happened, keeps what was measured, leaves nothing running, and the
next run starts clean."""
import json
import os
import re
import signal
import time

import ansible_runner
import pytest
from conftest import ROOT, failure_text, processes_mentioning, run_playbook, runner_env
from kubernetes import client as k8s_client
from sched_client import api_client, read_json

# Slow the scheduler down (5 bindings a second) so that there is a "mid-run" to hit.
SLOW = dict(bench_nodes=5, bench_jobs=40, bench_pods_per_job=3, bench_scheduler_api_qps=5,
            bench_scheduler_api_burst=5, bench_timeout=40, loadtest_progress_interval=2)
LOADTEST_TASK = "Run the load test against default"


def start_async(tmp_path, extravars, label):
    private = tmp_path / ("runner-" + label)
    private.mkdir()
    thread, runner = ansible_runner.run_async(
        private_data_dir=str(private), project_dir=ROOT, playbook="bench.yml",
        inventory=os.path.join(ROOT, "inventories", "local"), extravars=extravars, envvars=runner_env(),
        quiet=True, timeout=1800)
    return thread, runner


def wait_until_binding(runner, workspace, timeout=900):
    """Wait until the load test's pods are being bound: some are, not all."""
    kubeconfig = os.path.join(workspace, "clusters", "bench", "admin.kubeconfig")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if runner.status in ("successful", "failed", "timeout", "canceled"):
            break
        try:
            client = api_client(kubeconfig, None, 2)
            pods = read_json(k8s_client.CoreV1Api(client).list_namespaced_pod(
                "sched-bench", _preload_content=False, _request_timeout=5))["items"]
            bound = sum(1 for pod in pods if pod["spec"].get("nodeName"))
            if 0 < bound < len(pods):
                return
        except Exception:  # noqa: BLE001 - the cluster is not up yet
            pass
        time.sleep(0.5)
    pytest.fail("the load test never got going (status %s): %s" % (runner.status, failure_text(runner)))


def kill_component(runner, workspace, name, sig=signal.SIGKILL):
    pid_file = os.path.join(workspace, "clusters", "bench", "run", name + ".pid")
    if not os.path.exists(pid_file):
        pytest.fail("%s is not running (run status %s): %s" % (name, runner.status, failure_text(runner)))
    with open(pid_file, encoding="ascii") as handle:
        os.kill(int(handle.read()), sig)


def load_json(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return json.load(handle)


def clean_run_succeeds(tmp_path, bench_vars):
    """The next run on the host needs no manual step."""
    again = dict(bench_vars, bench_run_id=bench_vars["bench_run_id"] + "-next", bench_nodes=5, bench_jobs=5)
    runner = run_playbook(tmp_path, "bench.yml", again, label="next")
    assert runner.rc == 0, failure_text(runner)
    summary = load_json(bench_vars["bench_results_dir"], again["bench_run_id"], "localhost", "default", "summary.json")
    assert summary["complete"] is True
    assert processes_mentioning(bench_vars["bench_workspace"]) == []


@pytest.mark.parametrize("component,reasons", [
    ("kube-scheduler", ("timed out after",)),
    # Depending on the moment: while jobs are still being created, or while waiting for pods.
    ("kube-apiserver", ("lost the watch on pods", "jobs could not be created", "load test failed")),
])
def test_component_dying_mid_run_keeps_what_was_measured(tmp_path, bench_vars, component, reasons):
    extravars = dict(bench_vars, **SLOW)
    thread, runner = start_async(tmp_path, extravars, "fault")
    wait_until_binding(runner, bench_vars["bench_workspace"])
    kill_component(runner, bench_vars["bench_workspace"], component)
    thread.join(900)
    assert runner.rc != 0

    host_dir = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost")
    failed = load_json(host_dir, "failed.json")
    assert failed["task"] == LOADTEST_TASK
    assert any(reason in failed["msg"] for reason in reasons), failed["msg"]
    # While it waited, the terminal was told how far the load test was.
    assert re.search(r"\[localhost\] default: (submit|wait) \d+/\d+ ", runner.stdout.read()), "no progress line"
    summary = load_json(host_dir, "default", "summary.json")
    assert summary["complete"] is False
    assert any(reason in summary["reason"] for reason in reasons), summary["reason"]
    assert 0 < summary["pods_bound"] < 120, summary
    assert os.path.exists(os.path.join(host_dir, "default", "pods.csv"))
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
    if component == "kube-apiserver":
        # The harder fault of the two (the cluster's store goes with it): the next run needs no manual step.
        clean_run_succeeds(tmp_path, bench_vars)


def test_interrupted_playbook_is_cleaned_up_by_the_next_run(tmp_path, bench_vars):
    extravars = dict(bench_vars, **SLOW)
    thread, runner = start_async(tmp_path, extravars, "interrupt")
    wait_until_binding(runner, bench_vars["bench_workspace"])

    def our_load_tests():
        """This run's load test processes: they inherit the play's environment, which names its runner directory
        (other sessions' load tests may run meanwhile)."""
        ours = {pid for pid, _ in processes_mentioning(str(tmp_path / "runner-interrupt"))}
        return [(pid, cmdline) for pid, cmdline in processes_mentioning("AnsiballZ_sched_loadtest") if pid in ours]

    assert our_load_tests(), "the run's load test is not among the processes"
    # What a Ctrl-C at the terminal does: SIGINT to ansible-playbook and its workers.
    playbook_processes = [pid for pid, cmdline in processes_mentioning(str(tmp_path / "runner-interrupt"))
                          if "ansible-playbook" in cmdline]
    assert playbook_processes
    for pid in playbook_processes:
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:   # a worker that finished in the meantime
            pass
    thread.join(300)
    assert runner.status != "successful"
    # Whatever the interruption left behind, the next run on the host starts clean.
    clean_run_succeeds(tmp_path, bench_vars)
    # The load test ran in the background on the host: it must not outlive the run.
    deadline = time.monotonic() + 60
    while our_load_tests() and time.monotonic() < deadline:
        time.sleep(1)
    assert our_load_tests() == []
