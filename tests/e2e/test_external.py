"""bench_runtime external: benchmark a cluster the toolkit did not create.

The "existing" cluster is a binary-runtime cluster started by playbooks/cluster.yml, twice (the second start
changes nothing), without its kwok. The external run brings kwok as a process beside it, creates only its own
namespace and fake nodes, and removes them afterwards; the cluster itself keeps running, untouched, until
cluster.yml stops it (twice: the second stop changes nothing).
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


def changed(runner):
    return (runner.stats or {}).get("changed", {}).get("localhost", 0)


def test_a_cluster_started_twice_is_benchmarked_as_external_and_left_as_it_was(tmp_path, bench_vars):
    cluster = dict(bench_vars, bench_cluster_state="present")
    first = run_playbook(tmp_path, "playbooks/cluster.yml", cluster, label="first")
    assert first.rc == 0, failure_text(first)
    cluster_dir = os.path.join(bench_vars["bench_workspace"], "clusters", "bench")
    try:
        assert changed(first) > 0
        second = run_playbook(tmp_path, "playbooks/cluster.yml", cluster, label="second")
        assert second.rc == 0, failure_text(second)
        assert changed(second) == 0, [
            e["event_data"]["task"] for e in second.events
            if e.get("event") == "runner_on_ok" and e["event_data"].get("res", {}).get("changed")]

        # An existing cluster has no kwok of ours: stop the one cluster.yml started.
        with open(os.path.join(cluster_dir, "run", "kwok.pid"), encoding="ascii") as handle:
            os.kill(int(handle.read()), signal.SIGTERM)
        os.unlink(os.path.join(cluster_dir, "run", "kwok.pid"))
        kubeconfig = os.path.join(cluster_dir, "admin.kubeconfig")
        before = cluster_objects(kubeconfig)

        other = str(tmp_path / "ws-external")
        # The upper half of the test's own block: the cluster's listeners hold ports of the lower half.
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
        down = run_playbook(tmp_path, "playbooks/cluster.yml", dict(bench_vars, bench_cluster_state="absent"),
                            label="down")
    assert down.rc == 0, failure_text(down)
    time.sleep(0.5)
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
    again = run_playbook(tmp_path, "playbooks/cluster.yml", dict(bench_vars, bench_cluster_state="absent"),
                         label="down-again")
    assert again.rc == 0 and changed(again) == 0, failure_text(again)
