"""Volcano's network-topology-aware form of a scenario: a HyperNode per group of each topology level, and a group's
topology as its Job's (and PodGroup's) networkTopology. Answers written by hand."""
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects import builders
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import volcano
from test_sched_workloads import SCENARIO, target, work

GPU_POOL = {"name": "gpu", "count": 8, "cpu": "64", "memory": "512Gi", "pods": 32, "resources": {"nvidia.com/gpu": 8},
            "labels": {}}
# 2 blocks of 2 racks: 8 nodes, 2 a rack.
TWO_BY_TWO = {"levels": [{"name": "block", "count": 2}, {"name": "rack", "count": 2}]}
CLUSTER = {"nodes": 8, "pools": [GPU_POOL], "topology": TWO_BY_TWO}
LABELS = {"sched-bench.io/role": "scenario"}


def by_name(objects):
    return {body["metadata"]["name"]: body for api, body in objects if api == "volcano-hypernode"}


def test_a_rack_is_a_tier_1_hyper_node_of_its_nodes_by_label_and_a_block_a_tier_2_one_of_its_racks():
    objects = volcano.hyper_nodes(CLUSTER, LABELS)
    # The lowest level first: a block names racks that exist already.
    assert [body["metadata"]["name"] for _, body in objects] == [
        "sched-bench-block-1-rack-1", "sched-bench-block-1-rack-2", "sched-bench-block-2-rack-1",
        "sched-bench-block-2-rack-2", "sched-bench-block-1", "sched-bench-block-2"]
    found = by_name(objects)
    assert found["sched-bench-block-2-rack-1"] == {
        "apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
        "metadata": {"name": "sched-bench-block-2-rack-1", "labels": LABELS},
        "spec": {"tier": 1, "members": [{"type": "Node", "selector": {"labelMatch": {"matchLabels": {
            "topology.sched-bench.io/rack": "block-2-rack-1"}}}}]}}
    assert found["sched-bench-block-2"]["spec"] == {"tier": 2, "members": [
        {"type": "HyperNode", "selector": {"exactMatch": {"name": "sched-bench-block-2-rack-1"}}},
        {"type": "HyperNode", "selector": {"exactMatch": {"name": "sched-bench-block-2-rack-2"}}}]}
    assert found["sched-bench-block-1"]["metadata"]["labels"] is not LABELS


def test_every_fake_node_is_in_exactly_one_rack_hyper_node_and_that_in_its_blocks():
    nodes = builders.fake_nodes("n-", target("volcano"), dict(CLUSTER, node_cpu=None, node_memory=None, node_pods=None))
    found = by_name(volcano.hyper_nodes(CLUSTER, LABELS))
    for name, node in nodes:
        labels = node["metadata"]["labels"]
        racks = [hyper for hyper, body in found.items() if body["spec"]["tier"] == 1
                 and body["spec"]["members"][0]["selector"]["labelMatch"]["matchLabels"].items() <= labels.items()]
        assert len(racks) == 1, (name, racks)
        block = found["sched-bench-" + labels["topology.sched-bench.io/block"]]
        assert {"type": "HyperNode", "selector": {"exactMatch": {"name": racks[0]}}} in block["spec"]["members"]


def test_three_levels_give_three_tiers_and_no_topology_no_hyper_node():
    levels = {"levels": [{"name": "zone", "count": 1}, {"name": "block", "count": 2}, {"name": "rack", "count": 3}]}
    found = by_name(volcano.hyper_nodes(dict(CLUSTER, nodes=12, pools=[dict(GPU_POOL, count=12)], topology=levels),
                                        LABELS))
    assert sorted((body["spec"]["tier"], name) for name, body in found.items())[-3:] == [
        (2, "sched-bench-zone-1-block-1"), (2, "sched-bench-zone-1-block-2"), (3, "sched-bench-zone-1")]
    assert sum(body["spec"]["tier"] == 1 for body in found.values()) == 6
    assert len(found["sched-bench-zone-1-block-2"]["spec"]["members"]) == 3
    assert volcano.hyper_nodes({"nodes": 8, "pools": [GPU_POOL]}, LABELS) == []


def test_a_scenarios_hyper_nodes_come_with_its_queues_and_are_cluster_scoped_objects_of_their_api():
    plain = w.cluster_objects(SCENARIO, [], target("volcano"), {"cpu": "8", "memory": "16Gi"})
    assert "volcano-hypernode" not in [api for api, _ in plain]
    scenario = dict(SCENARIO, cluster=CLUSTER)
    objects = w.cluster_objects(scenario, [], target("volcano"), {"cpu": "8", "memory": "16Gi"})
    assert [api for api, _ in objects][:len(plain)] == [api for api, _ in plain]
    hyper = [body for api, body in objects if api == "volcano-hypernode"]
    assert len(hyper) == 6 and all(body["metadata"]["labels"]["sched-bench.io/role"] == "scenario" for body in hyper)
    group, version, plural = w.CLUSTER_APIS["volcano-hypernode"]
    assert ("%s/%s" % (group, version), plural) == (hyper[0]["apiVersion"], "hypernodes")


@pytest.mark.parametrize("request_,expected", [
    ({"required": "rack"}, {"mode": "hard", "highestTierAllowed": 1}),
    ({"required": "block"}, {"mode": "hard", "highestTierAllowed": 2}),
    ({"preferred": "block"}, {"mode": "soft", "highestTierAllowed": 2}),
    ({"preferred": "rack"}, {"mode": "soft", "highestTierAllowed": 1}),
])
def test_a_groups_topology_is_its_jobs_and_pod_groups_network_topology(request_, expected):
    job_work = work(topology=TWO_BY_TWO, job_topology=request_)
    assert volcano.network_topology(job_work) == expected
    native = w.Native(None, "sched-bench-team-a", 3, True)
    ((_, job),) = volcano.job_objects("j-0", target("volcano"), job_work, native, True)
    assert job["spec"]["networkTopology"] == expected and job["spec"]["minAvailable"] == 3
    (_, group), *_pods = volcano.direct_objects("j-0", target("volcano"), job_work, native)
    assert group["spec"]["networkTopology"] == expected


def test_a_job_without_a_topology_has_no_network_topology():
    native = w.Native(None, "test-queue", 3, False)
    for job_work in (work(), work(topology=TWO_BY_TWO), work(topology=TWO_BY_TWO, job_topology=None)):
        assert volcano.network_topology(job_work) is None
        ((_, job),) = volcano.job_objects("j-0", target("volcano"), job_work, native, True)
        assert "networkTopology" not in job["spec"]
        assert "networkTopology" not in volcano.pod_group("j-0", target("volcano"), job_work, native)[1]["spec"]


@pytest.mark.parametrize("request_", [{"required": "zone"}, {"nearby": "rack"}])
def test_a_topology_of_no_level_of_the_cluster_is_refused_naming_the_levels(request_):
    with pytest.raises(ValueError, match=r"job_topology .* is not allowed: .*\(block, rack\)"):
        volcano.network_topology(work(topology=TWO_BY_TWO, job_topology=request_))


def test_the_descriptor_declares_its_topology_mechanism_and_upstream_page():
    assert volcano.DESCRIPTOR["topology"]["mechanism"].startswith("network-topology-aware")
    assert volcano.DESCRIPTOR["topology"]["source"] == "https://volcano.sh/en/docs/network_topology_aware_scheduling/"
