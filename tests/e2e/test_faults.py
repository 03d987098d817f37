"""Faults on the binary runtime: a component dies mid-run, the playbook is interrupted (Ctrl-C, SIGTERM,
SIGKILL). The run says what happened, keeps what was measured, leaves nothing running (an interrupted one
through the host's guard), and the next run starts clean."""
import json
import os
import re
import signal
import time

import ansible_runner
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import api_client, read_json
from conftest import ROOT, failure_text, processes_mentioning, read_rows, run_playbook, runner_env
from kubernetes import client as k8s_client

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


@pytest.mark.parametrize("component", ["kube-scheduler", "kube-apiserver"])
def test_component_dying_mid_run_keeps_what_was_measured(tmp_path, bench_vars, component):
    extravars = dict(bench_vars, **SLOW)
    thread, runner = start_async(tmp_path, extravars, "fault")
    wait_until_binding(runner, bench_vars["bench_workspace"])
    kill_component(runner, bench_vars["bench_workspace"], component)
    thread.join(900)
    assert runner.rc != 0

    host_dir = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost")
    failed = load_json(host_dir, "failed.json")
    assert failed["task"] == LOADTEST_TASK
    # The wait watches the cluster's processes: the one that died is named, and the load test is stopped at once
    # (not left to time out), writing what it measured.
    assert re.match(r"%s \(pid \d+\) stopped while the job ran; the job then said: interrupted by signal 15" % component,
                    failed["msg"]), failed["msg"]
    # While it waited, the terminal was told how far the load test was.
    assert re.search(r"\[localhost\] default: (submit|wait) \d+/\d+ ", runner.stdout.read()), "no progress line"
    summary = load_json(host_dir, "default", "summary.json")
    assert summary["complete"] is False
    assert "interrupted by signal 15" in summary["reason"], summary["reason"]
    assert 0 < summary["pods_bound"] < 120, summary
    assert os.path.exists(os.path.join(host_dir, "default", "pods.csv.gz"))
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
    if component == "kube-apiserver":
        # The harder fault of the two (the cluster's store goes with it): the next run needs no manual step.
        clean_run_succeeds(tmp_path, bench_vars)


# The seed's size (100 nodes, 1,000 jobs of 3 pods) with a slow scheduler: a full control plane and a load test
# that would keep running for minutes.
SEED_SLOW = dict(SLOW, bench_nodes=100, bench_jobs=1000, bench_timeout=600)


def ppid(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def interrupt(how, pids):
    """Interrupt ansible-playbook (``pids``: it and its workers) as a user, a CI runner or the OOM killer would."""
    main = next(pid for pid in pids if ppid(pid) not in pids)
    if how == "ctrl-c":
        # What the terminal does: SIGINT to the foreground process group (ansible-runner's pty is not ours).
        group = os.getpgid(main)
        assert group != os.getpgrp()
        os.killpg(group, signal.SIGINT)
    else:
        os.kill(main, {"sigterm": signal.SIGTERM, "sigkill": signal.SIGKILL}[how])


# SIGTERM comes while the load test is still submitting, 20 jobs a second: the 1,000 jobs of the burst, queued at
# once, would keep it busy for 50 s, beyond the 25 s the host's guard gives it to write what it measured.
SUBMITTING = {"sigterm": {"bench_client_qps": 20, "bench_client_burst": 20}}


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "sigkill"])
def test_an_interrupted_run_stops_on_the_host_and_keeps_what_it_measured(tmp_path, bench_vars, how):
    workspace = bench_vars["bench_workspace"]
    thread, runner = start_async(tmp_path, dict(bench_vars, **SEED_SLOW, **SUBMITTING.get(how, {})), how)
    wait_until_binding(runner, workspace)
    runner_dir = str(tmp_path / ("runner-" + how))

    def our_load_tests():
        """This run's load test processes: they inherit the play's environment, which names its runner directory
        (other sessions' load tests may run meanwhile)."""
        ours = {pid for pid, _ in processes_mentioning(runner_dir)}
        return [(pid, cmdline) for pid, cmdline in processes_mentioning("AnsiballZ_sched_loadtest") if pid in ours]

    assert our_load_tests(), "the run's load test is not among the processes"
    assert os.path.exists(os.path.join(workspace, "run.lock"))
    playbook = {pid for pid, cmdline in processes_mentioning(runner_dir) if "ansible-playbook" in cmdline}
    interrupted_at = time.monotonic()
    interrupt(how, playbook)

    # With no other command run: within 60 s nothing of the run is left on the host and its lock is free.
    def left():
        return (processes_mentioning(workspace) + our_load_tests()
                + ([(0, "run.lock")] if os.path.exists(os.path.join(workspace, "run.lock")) else []))

    while left() and time.monotonic() < interrupted_at + 60:
        time.sleep(1)
    assert left() == [], "60 s after the interruption (%s): %s" % (how, left())
    print("%s: the host was clean %.1f s after the interruption" % (how, time.monotonic() - interrupted_at))
    thread.join(120)
    assert runner.status != "successful"
    if how != "sigkill":
        assert "Interrupted by SIG" in runner.stdout.read(), "no line says what was interrupted"

    # What was measured comes back with one command and is reported as incomplete.
    fetched = run_playbook(tmp_path, "playbooks/fetch.yml", bench_vars, label="fetch")
    assert fetched.rc == 0, failure_text(fetched)
    run_dir = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"])
    summary = load_json(run_dir, "localhost", "default", "summary.json")
    assert summary["complete"] is False
    assert "interrupted" in summary["reason"], summary["reason"]
    assert 0 < summary["pods_bound"] < 3000, summary["pods_bound"]
    if how in SUBMITTING:
        # Stopped mid-submission: the jobs created so far are the run's, in jobs.csv as in the summary.
        assert 0 < summary["jobs_submitted"] < 1000, summary["jobs_submitted"]
        jobs = read_rows(os.path.join(run_dir, "localhost", "default"), "jobs.csv")
        assert len(jobs) == summary["jobs_submitted"]
    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        assert "default: incomplete: interrupted" in handle.read()
    if how == "sigkill":
        # The next run on the host needs no manual step either.
        clean_run_succeeds(tmp_path, bench_vars)
