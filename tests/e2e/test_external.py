"""A kept cluster (bench_keep_cluster), used as printed, then benchmarked as an external one.

The run that keeps its binary-runtime cluster prints how to use it and how to stop it: the kubectl
command it prints, run as pasted, lists the fake nodes, and the stop command is `make teardown` with what
this run needs. Then bench_runtime external benchmarks that cluster as one the toolkit did not create,
without its kwok: the external run brings kwok as a process beside it, creates only its own namespace and
fake nodes, and removes them afterwards; the cluster itself keeps running, untouched.
"""
import json
import os
import shlex
import signal
import subprocess
import time
import uuid

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import api_client, read_json
from conftest import ROOT, failure_text, new_bench_vars, processes_mentioning, run_playbook
from kubernetes import client as k8s_client


def cluster_objects(kubeconfig):
    core = k8s_client.CoreV1Api(api_client(kubeconfig, None, 2))
    namespaces = {item["metadata"]["name"] for item in read_json(
        core.list_namespace(_preload_content=False))["items"]}
    nodes = {item["metadata"]["name"] for item in read_json(core.list_node(_preload_content=False))["items"]}
    return namespaces, nodes


def printed(runner, label):
    """What the run printed after ``label`` for its kept cluster (one host: one line)."""
    with runner.stdout as handle:
        found = [line.strip()[len(label):].strip() for line in handle if line.strip().startswith(label)]
    assert len(found) == 1, (label, found)
    return found[0]


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """A finished run that kept its cluster: (its tmp_path, bench_vars, runner); stopped afterwards with nothing but
    the workspace, as the stop command it printed says."""
    tmp_path = tmp_path_factory.mktemp("kept")
    bench_vars = new_bench_vars(tmp_path)
    existing = dict(bench_vars, bench_nodes=2, bench_jobs=2, bench_pods_per_job=1, bench_keep_cluster=True)
    first = run_playbook(tmp_path, "bench.yml", existing, label="existing")
    try:
        assert first.rc == 0, failure_text(first)
        yield tmp_path, bench_vars, first
    finally:
        down = run_playbook(tmp_path, "playbooks/teardown.yml", {"bench_workspace": bench_vars["bench_workspace"]},
                            label="down")
        assert down.rc == 0, failure_text(down)
        time.sleep(0.5)
        assert processes_mentioning(bench_vars["bench_workspace"]) == []


def test_the_kept_cluster_is_used_and_stopped_as_the_run_says(kept, tmp_path):
    _tmp, bench_vars, first = kept
    workspace = bench_vars["bench_workspace"]
    assert printed(first, "kubeconfig:") == os.path.join(workspace, "clusters", "bench", "admin.kubeconfig")
    command = printed(first, "use it:")
    # kubectl's own build, not one the host may have.
    assert shlex.split(command)[0] == os.path.join(workspace, "bin", "kubectl")
    # Pasted into a shell elsewhere, with nothing of the run's environment.
    run = subprocess.run(command, shell=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},  # noqa: S602
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, command + "\n" + run.stdout + run.stderr
    rows = [line.split() for line in run.stdout.splitlines()]
    assert rows[0][:2] == ["NAME", "STATUS"], run.stdout
    assert sorted(row[0] for row in rows[1:]) == ["kwok-node-0", "kwok-node-1"], run.stdout
    assert {row[1] for row in rows[1:]} == {"Ready"}, run.stdout
    # `make teardown` (in the project) runs playbooks/teardown.yml on inventories/local with ARGS as extra vars:
    # the fixture stops the cluster with exactly these.
    stop = shlex.split(printed(first, "stop it:"))
    assert stop in (["make", "teardown", "ARGS=-e bench_workspace=" + shlex.quote(workspace)],
                    ["make", "-C", ROOT, "teardown", "ARGS=-e bench_workspace=" + shlex.quote(workspace)]), stop


def test_external_cluster_is_benchmarked_and_left_as_it_was(kept):
    tmp_path, bench_vars, _first = kept
    cluster_dir = os.path.join(bench_vars["bench_workspace"], "clusters", "bench")
    # An existing cluster has no kwok of ours: stop the one the first run started.
    with open(os.path.join(cluster_dir, "run", "kwok.pid"), encoding="ascii") as handle:
        os.kill(int(handle.read()), signal.SIGTERM)
    os.unlink(os.path.join(cluster_dir, "run", "kwok.pid"))
    kubeconfig = os.path.join(cluster_dir, "admin.kubeconfig")
    before = cluster_objects(kubeconfig)

    other = str(tmp_path / "ws-external")
    # The upper half of the test's own block: the existing cluster's listeners hold ports of the lower half.
    port = bench_vars["bench_port_range_start"] + 50
    external = dict(bench_vars, bench_runtime="external", bench_external_kubeconfig=kubeconfig,
                    bench_external_audit_log=os.path.join(cluster_dir, "audit", "audit.log"),
                    bench_run_id="Ext-" + uuid.uuid4().hex[:6], bench_workspace=other,
                    bench_port_range_start=port, bench_port_range_end=port + 20,
                    bench_nodes=5, bench_jobs=10, bench_pods_per_job=2)
    runner = run_playbook(tmp_path, "bench.yml", external, label="external")
    assert runner.rc == 0, failure_text(runner)

    out = os.path.join(bench_vars["bench_results_dir"], external["bench_run_id"], "localhost", "default")
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    assert summary["complete"] is True, summary.get("reason")
    assert summary["pods_bound"] == 20 and summary["timing_source"] == "audit"
    assert summary["namespace"] == "sched-bench-" + external["bench_run_id"].lower()

    # Only what the run created was removed; the cluster itself is still there.
    assert cluster_objects(kubeconfig) == before
    assert processes_mentioning(other) == []
    assert processes_mentioning(cluster_dir)
