"""bench_runtime external: benchmark a cluster the toolkit did not create.

The "existing" cluster is a binary-runtime cluster from an earlier run kept
running (bench_keep_cluster), without its kwok. The external run brings kwok as
a process beside it, creates only its own namespace and fake nodes, and removes
them afterwards; the cluster itself keeps running, untouched.
"""
import json
import os
import signal
import time
import uuid

from conftest import failure_text, processes_mentioning, run_playbook
from kubernetes import client as k8s_client
from sched_client import api_client, read_json


def cluster_objects(kubeconfig):
    core = k8s_client.CoreV1Api(api_client(kubeconfig, None, 2))
    namespaces = {item["metadata"]["name"] for item in read_json(
        core.list_namespace(_preload_content=False))["items"]}
    nodes = {item["metadata"]["name"] for item in read_json(core.list_node(_preload_content=False))["items"]}
    return namespaces, nodes


def test_external_cluster_is_benchmarked_and_left_as_it_was(tmp_path, bench_vars):
    existing = dict(bench_vars, bench_nodes=2, bench_jobs=2, bench_pods_per_job=1, bench_keep_cluster=True)
    first = run_playbook(tmp_path, "bench.yml", existing, label="existing")
    assert first.rc == 0, failure_text(first)
    cluster_dir = os.path.join(bench_vars["bench_workspace"], "clusters", "bench")
    try:
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
    finally:
        down = run_playbook(tmp_path, "playbooks/teardown.yml", bench_vars, label="down")
        assert down.rc == 0, failure_text(down)
    time.sleep(0.5)
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
