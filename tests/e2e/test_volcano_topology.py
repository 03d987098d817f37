"""Volcano's network-topology-aware scheduling end to end on the binary runtime, with the example scenario
tests/unit/fixtures/scenarios/volcano-topology.yml: 6 GPU nodes in one block of 2 racks of 3, gangs of 2 pods of 8 GPUs
that require one rack and single-GPU jobs that prefer one block. A rack holds one gang whole and half of another, so
a gang placed without the constraint spans both racks when three run at once. From the kept cluster's API: the
HyperNodes of the racks (tier 1, their nodes by label) and of the block (tier 2, the racks), each Job's
networkTopology, every pod of a required-rack gang in one rack; from vc-scheduler's configuration file: the
network-topology-aware plugin; from the result files: every job done."""
import os

import yaml
from conftest import kept_run, mirror_vars, read_rows, scheduler_results
from kubernetes import client, config

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "fixtures", "scenarios",
                       "volcano-topology.yml")
RACK = "topology.sched-bench.io/rack"
# Each group: jobs, pods a job, its Jobs' networkTopology (the example file's).
GROUPS = {"rack": (6, 2, {"mode": "hard", "highestTierAllowed": 1}),
          "near": (2, 2, {"mode": "soft", "highestTierAllowed": 2})}
PODS = sum(jobs * pods for jobs, pods, _ in GROUPS.values())


def check_hyper_nodes(custom):
    """The scenario's HyperNodes: a rack each at tier 1 whose members are its nodes by label, the block at tier 2."""
    found = {item["metadata"]["name"]: item["spec"] for item in custom.list_cluster_custom_object(
        "topology.volcano.sh", "v1alpha1", "hypernodes")["items"]}
    racks = ["sched-bench-block-1-rack-1", "sched-bench-block-1-rack-2"]
    assert sorted(found) == ["sched-bench-block-1"] + racks, found
    for rack in racks:
        assert found[rack] == {"tier": 1, "members": [{"type": "Node", "selector": {"labelMatch": {
            "matchLabels": {RACK: rack[len("sched-bench-"):]}}}}]}, found[rack]
    assert found["sched-bench-block-1"] == {"tier": 2, "members": [
        {"type": "HyperNode", "selector": {"exactMatch": {"name": rack}}} for rack in racks]}


def check_jobs(custom):
    """Every Volcano Job of the scenario with its group's networkTopology, and finished."""
    jobs = custom.list_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "sched-bench", "jobs")["items"]
    assert len(jobs) == sum(count for count, _, _ in GROUPS.values()), [job["metadata"]["name"] for job in jobs]
    for job in jobs:
        group = job["metadata"]["name"].rsplit("-", 1)[0]
        assert job["spec"]["networkTopology"] == GROUPS[group][2], job["spec"]


def check_racks(core):
    """Every pod of a required-rack gang bound, all of a gang's pods in one rack; how many gangs used each rack."""
    racks = {node.metadata.name: node.metadata.labels[RACK]
             for node in core.list_node(label_selector="sched-bench.io/role=fake-node").items}
    assert len(racks) == 6 and sorted(set(racks.values())) == ["block-1-rack-1", "block-1-rack-2"], racks
    gangs = {}
    for pod in core.list_namespaced_pod("sched-bench").items:
        job = pod.metadata.labels.get("volcano.sh/job-name", "")
        if job.startswith("rack-"):
            assert pod.spec.node_name in racks, (pod.metadata.name, pod.spec.node_name)
            gangs.setdefault(job, set()).add(racks[pod.spec.node_name])
    assert len(gangs) == GROUPS["rack"][0], sorted(gangs)
    assert {job: len(used) for job, used in gangs.items() if len(used) != 1} == {}, gangs
    return gangs


def test_volcano_keeps_each_gang_that_requires_a_rack_in_one_rack_of_its_hyper_nodes(tmp_path, bench_vars):
    with kept_run(tmp_path, bench_vars, "volcano-topology", bench_schedulers=["volcano"], bench_scenario=EXAMPLE,
                  bench_timeout=240, **mirror_vars()) as kept:
        api = config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig"))
        custom = client.CustomObjectsApi(api)
        check_hyper_nodes(custom)
        check_jobs(custom)
        check_racks(client.CoreV1Api(api))
        with open(os.path.join(kept.cluster, "volcano", "volcano-scheduler.conf"), encoding="utf-8") as handle:
            conf = yaml.safe_load(handle)
        assert {"name": "network-topology-aware"} in conf["tiers"][-1]["plugins"], conf
    out, summary, _env = scheduler_results(bench_vars, "volcano")
    assert summary["complete"] is True, summary.get("reason")
    assert summary["pods_bound"] == summary["pods_created"] == PODS
    assert summary["unsupported"] == [], summary["unsupported"]
    jobs = read_rows(out, "jobs.csv")
    assert len(jobs) == sum(count for count, _, _ in GROUPS.values()) and all(row["all_bound"] for row in jobs), jobs
