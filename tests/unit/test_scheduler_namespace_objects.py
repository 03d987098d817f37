"""Resource names for the objects the load test creates in its namespace (sched_workloads.plurals)."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads

KUEUE_V1BETA1 = {
    "kind": "APIResourceList",
    "groupVersion": "kueue.x-k8s.io/v1beta1",
    "resources": [
        {"name": "clusterqueues", "kind": "ClusterQueue", "namespaced": False},
        {"name": "clusterqueues/status", "kind": "ClusterQueue", "namespaced": False},
        {"name": "localqueues", "kind": "LocalQueue", "namespaced": True},
        {"name": "localqueues/status", "kind": "LocalQueue", "namespaced": True},
        {"name": "workloads", "kind": "Workload", "namespaced": True},
    ],
}


def test_namespaced_kinds_map_to_their_resource_names():
    assert workloads.plurals(KUEUE_V1BETA1) == {"LocalQueue": "localqueues", "Workload": "workloads"}


def test_cluster_scoped_kinds_and_subresources_are_left_out():
    plurals = workloads.plurals(KUEUE_V1BETA1)
    assert "ClusterQueue" not in plurals
    assert all("/" not in name for name in plurals.values())


def test_an_empty_group_has_no_kinds():
    assert workloads.plurals({"resources": None}) == {}
    assert workloads.plurals({}) == {}
