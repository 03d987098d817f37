"""Helpers for end-to-end runs of the playbooks on this machine (binary runtime)."""
import contextlib
import gzip
import json
import os
import re
import sys
import uuid
from collections import namedtuple

import ansible_runner
import pytest
from infra.go_mirror import mirror_vars  # noqa: F401 - the Go module mirror's golang_* variables, for the tests
from result_checks import read_rows, result_problems, summary_problems  # noqa: F401 - for the tests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A kept run: its cluster directory (kubeconfigs, logs) and the ansible-runner result.
Kept = namedtuple("Kept", "cluster runner")
# What a test's run is when the test says nothing else (inventories/local runs the seed's workload for two
# schedulers, minutes a run): the default scheduler, 20 fake nodes, 50 jobs of 3 pods.
SMALL_RUN = {"bench_schedulers": ["default"], "bench_nodes": 20, "bench_jobs": 50, "bench_pods_per_job": 3,
             "bench_timeout": 300}


def runner_env():
    env = {
        "ANSIBLE_CONFIG": os.path.join(ROOT, "ansible.cfg"),
        "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
    }
    return env


def run_playbook(tmp_path, playbook, extravars=None, cmdline=None, label="run"):
    """Run a playbook of the project with ansible-runner; return the runner."""
    private = tmp_path / ("runner-" + label)
    private.mkdir(exist_ok=True)
    return ansible_runner.run(
        private_data_dir=str(private),
        project_dir=ROOT,
        playbook=playbook,
        inventory=os.path.join(ROOT, "inventories", "local"),
        extravars=extravars or {},
        cmdline=cmdline,
        envvars=runner_env(),
        quiet=True,
        timeout=3000,
    )


def failure_text(runner):
    """The messages of failed tasks, for assertion messages."""
    lines = []
    for event in runner.events:
        if event.get("event") == "runner_on_failed":
            data = event["event_data"]
            lines.append("%s: %s" % (data.get("task"), data.get("res", {}).get("msg")))
    return "\n".join(lines) or runner.stdout.read()[-3000:]


def task_results(runner, task_name):
    """Results of every run of a task (by name) in a runner's events."""
    return [event["event_data"] for event in runner.events
            if event.get("event") in ("runner_on_ok", "runner_on_failed", "runner_item_on_ok")
            and event["event_data"].get("task") == task_name]


def processes_mentioning(text):
    """PIDs whose command line or environment mentions ``text`` (our components all carry workspace paths:
    on the command line, or as KUBECONFIG like yunikorn-scheduler and the scheduler-plugins controller)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open("/proc/%s/environ" % pid, "rb") as handle:
                environ = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline or text in environ:
            found.append((int(pid), cmdline[:200]))
    return found


def audit_events(path, needle=None, succeeded=False):
    """The completed requests (stage ResponseComplete) of an audit log, gzipped or not, parsed, in order.

    ``needle``: only lines with that text (a cheap filter before parsing); ``succeeded``: only responses below 300.
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if needle is not None and needle not in line:
                continue
            event = json.loads(line)
            if event.get("stage") == "ResponseComplete" and (
                    not succeeded or (event.get("responseStatus") or {}).get("code", 0) < 300):
                yield event


def node_health_writes(path):
    """The node lifecycle controller's status writes of the fake nodes and the load's pods in an audit log: a node
    marked Unknown, its pods NotReady. None while kwok's heartbeat keeps every fake node Ready. (kind's own node and
    its static pods are the kubelet's business.) Its user agent ends in its name, or, with service account
    credentials (kind's kubeadm), in its service account's."""
    writes = []
    for event in audit_events(path, needle="node-controller"):
        ref = event["objectRef"]
        ours = ref.get("name", "").startswith("kwok-node-") if ref["resource"] == "nodes" else (
            ref.get("namespace", "").startswith("sched-bench"))
        if (re.search(r"[/:]node-controller$", event.get("userAgent", "")) and event["verb"] == "update"
                and ref.get("subresource") == "status" and ours):
            writes.append("%s %s %s" % (ref["resource"], ref.get("name", ""), event["stageTimestamp"]))
    return writes


def audit_bindings(path):
    """pod name -> (created, bound) stage timestamps read straight from a gzipped audit log."""
    created, bound = {}, {}
    for event in audit_events(path, '"pods"', succeeded=True):
        ref = event.get("objectRef") or {}
        if event.get("verb") != "create" or ref.get("resource") != "pods":
            continue
        if ref.get("subresource") == "binding":
            bound.setdefault(ref["name"], event["stageTimestamp"])
        elif not ref.get("subresource"):
            name = event.get("responseObject", {}).get("metadata", {}).get("name")
            if name:
                created.setdefault(name, event["stageTimestamp"])
    return created, bound


# What a scheduler's result directory holds on the controller (docs/metrics.md).
RESULT_FILES = ["env.json", "jobs.csv.gz", "pods.csv.gz", "scenario.json", "summary.json", "timeline.csv"]


def result_files(scraped):
    """RESULT_FILES with what a load test keeps of its "why" (bench_internals, the default): the /proc samples and the
    two scrapes of each process whose metrics endpoint it read (``scraped``)."""
    return sorted(RESULT_FILES + ["component-samples.json"]
                  + ["metrics-%s-%s.prom.gz" % (process, moment) for process in scraped for moment in ("before", "after")])


def scheduler_results(bench_vars, scheduler):
    """(directory, summary.json, env.json) of a scheduler's results on localhost in the run of ``bench_vars``."""
    out = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost", scheduler)
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    assert result_problems(out) == [], "%s: a result file does not follow its schema (schemas/)" % out
    with open(os.path.join(out, "env.json"), encoding="utf-8") as handle:
        env = json.load(handle)
    return out, summary, env


@pytest.fixture
def bench_vars(tmp_path):
    """Extra variables that keep a test's run apart from any other on this machine."""
    return new_bench_vars(tmp_path)


def new_bench_vars(tmp_path):
    """bench_vars for a run under ``tmp_path`` (module-scoped fixtures call it with their own directory)."""
    # Below the kernel's ephemeral range (32768 and up): a client's outgoing connection
    # could otherwise take a port between the free-port check and the listener's start. Each pytest session of
    # `make test` has its own blocks (SCHED_BENCH_E2E_PORT_BLOCKS, hack/test.sh): a test of the other session could
    # otherwise bind a port of the same block between this run's free-port check and its listener's start.
    first, last = (int(port) for port in os.environ.get("SCHED_BENCH_E2E_PORT_BLOCKS", "21000-29999").split("-"))
    port = first + (uuid.uuid4().int % ((last + 1 - first) // 100)) * 100
    return {
        **SMALL_RUN,
        "bench_run_id": "e2e-" + uuid.uuid4().hex[:8],
        "bench_results_dir": str(tmp_path / "results"),
        "bench_workspace": str(tmp_path / "ws"),
        "bench_port_range_start": port,
        "bench_port_range_end": port + 99,
        # The host calibration adds 10 s to a run; test_spine.py turns it on and checks it.
        "bench_calibrate": False,
    }


@contextlib.contextmanager
def kept_run(tmp_path, bench_vars, label, failing=(), **extra):
    """A finished small run whose cluster is left running (yields the cluster directory and the runner); torn down
    afterwards, leaving no process. ``failing``: the schedulers that must fail (the run then exits non-zero)."""
    extravars = dict(bench_vars, bench_nodes=5, bench_jobs=5, bench_pods_per_job=1, bench_pod_duration=1,
                     bench_timeout=180, bench_keep_cluster=True)
    extravars.update(extra)
    runner = run_playbook(tmp_path, "bench.yml", extravars, label=label)
    try:
        if failing:
            assert runner.rc != 0
            failed = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost",
                                  "failed.json")
            with open(failed, encoding="utf-8") as handle:
                assert sorted(json.load(handle).get("schedulers") or {}) == sorted(failing), failure_text(runner)
        else:
            assert runner.rc == 0, failure_text(runner)
        yield Kept(os.path.join(bench_vars["bench_workspace"], "clusters", "bench"), runner)
    finally:
        down = dict(bench_vars)
        down.pop("bench_run_id")
        teardown = run_playbook(tmp_path, "playbooks/teardown.yml", down, label="down")
        assert teardown.rc == 0, failure_text(teardown)
        assert processes_mentioning(bench_vars["bench_workspace"]) == []
