"""Topology constraints (issue 65 item 2, second half) end to end on the binary runtime, with the example scenario
tests/unit/fixtures/scenarios/topology.yml: 8 nodes in 2 blocks of 2 racks; gangs of 4 pods that require one rack,
jobs of 2 pods that prefer one block, jobs with no topology. From the kept cluster's API: what each scheduler was
given (the default scheduler, coscheduling and YuniKorn: pod affinity on the pods; Kueue: its Topology, the flavor
that names it, its ClusterQueue without cohort, the pod sets' annotations and the topology assignment of each
workload) and that every pod of a job that requires a rack is bound in one rack; from the result files: every job
done, the mechanism in env.json and what each cannot express."""
import os

import pytest
from conftest import kept_run, mirror_vars, read_rows, scheduler_results
from kubernetes import client, config

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "fixtures", "scenarios",
                       "topology.yml")
RACK = "topology.sched-bench.io/rack"
BLOCK = "topology.sched-bench.io/block"
JOB_LABEL = "sched-bench.io/job"
# Each group: jobs, pods a job (the example file's).
GROUPS = {"rack": (4, 4), "block": (4, 2), "free": (4, 2)}
PODS = sum(jobs * pods for jobs, pods in GROUPS.values())


def group_of(pod_name):
    return pod_name.split("-")[0]


def job_of(pod):
    """A pod's Job, by the job controller's label."""
    return pod.metadata.labels["job-name"]


def api_of(kept):
    return config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig"))


def scenario_pods(core):
    pods = [pod for pod in core.list_namespaced_pod("sched-bench").items if group_of(pod.metadata.name) in GROUPS]
    assert len(pods) == PODS, sorted(pod.metadata.name for pod in pods)
    return pods


def check_one_rack_each(core, pods):
    """Every pod bound; the pods of each job that requires a rack all on nodes of one rack."""
    racks = {node.metadata.name: node.metadata.labels[RACK]
             for node in core.list_node(label_selector="sched-bench.io/role=fake-node").items}
    assert len(set(racks.values())) == 4, racks
    by_job = {}
    for pod in pods:
        assert pod.spec.node_name in racks, pod.metadata.name
        if group_of(pod.metadata.name) == "rack":
            by_job.setdefault(job_of(pod), set()).add(racks[pod.spec.node_name])
    assert len(by_job) == GROUPS["rack"][0] and all(len(found) == 1 for found in by_job.values()), by_job


# What each scheduler cannot express of the example (its gangs; nothing of its topology).
UNSUPPORTED = {"default": ["gang"], "coscheduling": [], "yunikorn": [], "kueue": ["gang"]}


def check_results(bench_vars, scheduler, mechanism):
    out, summary, env = scheduler_results(bench_vars, scheduler)
    assert summary["complete"] is True, (scheduler, summary.get("reason"))
    assert summary["pods_bound"] == summary["pods_created"] == PODS, scheduler
    assert summary["unsupported"] == UNSUPPORTED[scheduler], summary["unsupported"]
    assert env["versions"]["scheduler"]["topology_mechanism"] == mechanism, env["versions"]["scheduler"]
    assert all(row["all_bound"] for row in read_rows(out, "jobs.csv")), scheduler
    return out


@pytest.mark.parametrize("scheduler", ["default", "coscheduling", "yunikorn"])
def test_pod_affinity_keeps_a_jobs_pods_in_one_rack(tmp_path, bench_vars, scheduler):
    with kept_run(tmp_path, bench_vars, "topology-" + scheduler, bench_schedulers=[scheduler], bench_scenario=EXAMPLE,
                  **mirror_vars()) as kept:
        core = client.CoreV1Api(api_of(kept))
        pods = scenario_pods(core)
        check_one_rack_each(core, pods)
        for pod in pods:
            group, affinity = group_of(pod.metadata.name), pod.spec.affinity.pod_affinity
            if group == "free":
                assert affinity is None and JOB_LABEL not in pod.metadata.labels, pod.metadata.name
                continue
            assert pod.metadata.labels[JOB_LABEL] == job_of(pod)
            if group == "rack":
                (term,) = affinity.required_during_scheduling_ignored_during_execution
            else:
                (weighted,) = affinity.preferred_during_scheduling_ignored_during_execution
                assert weighted.weight == 100
                term = weighted.pod_affinity_term
            assert term.topology_key == (RACK if group == "rack" else BLOCK)
            assert term.label_selector.match_labels == {JOB_LABEL: job_of(pod)}
    check_results(bench_vars, scheduler, "pod-affinity")


def check_kueue_objects(custom):
    """The Topology, the flavor that names it, and the tenant's ClusterQueue: both flavors, no cohort, active."""
    topology = custom.get_cluster_custom_object("kueue.x-k8s.io", "v1alpha1", "topologies", "sched-bench")
    assert [level["nodeLabel"] for level in topology["spec"]["levels"]] == [BLOCK, RACK, "kubernetes.io/hostname"]
    flavor = custom.get_cluster_custom_object("kueue.x-k8s.io", "v1beta1", "resourceflavors", "sched-bench-topology")
    assert flavor["spec"] == {"nodeLabels": {"sched-bench.io/role": "fake-node"}, "topologyName": "sched-bench"}, \
        flavor["spec"]
    queue = custom.get_cluster_custom_object("kueue.x-k8s.io", "v1beta1", "clusterqueues", "sched-bench-default")
    assert "cohort" not in queue["spec"], queue["spec"]
    assert [entry["name"] for entry in queue["spec"]["resourceGroups"][0]["flavors"]] == ["sched-bench-topology", "default"]
    active = [cond for cond in queue["status"]["conditions"] if cond["type"] == "Active"]
    assert active and active[0]["status"] == "True", queue["status"]


def check_kueue_assignments(custom):
    """Each workload of a job that asks for a topology was admitted to the topology flavor with a topology assignment
    (TAS ran, so its feature gate was on); the others to the default flavor without one."""
    workloads = custom.list_namespaced_custom_object("kueue.x-k8s.io", "v1beta1", "sched-bench", "workloads")["items"]
    assert len(workloads) == sum(jobs for jobs, _ in GROUPS.values()), [w["metadata"]["name"] for w in workloads]
    for workload in workloads:
        group = workload["metadata"]["ownerReferences"][0]["name"].split("-")[0]
        (assignment,) = workload["status"]["admission"]["podSetAssignments"]
        flavors = set(assignment["flavors"].values())
        if group == "free":
            assert flavors == {"default"} and "topologyAssignment" not in assignment, assignment
        else:
            assert flavors == {"sched-bench-topology"}, assignment
            assert assignment["topologyAssignment"]["levels"] == ["kubernetes.io/hostname"], assignment
            assert sum(domain["count"] for domain in assignment["topologyAssignment"]["domains"]) == GROUPS[group][1]


def test_kueue_keeps_a_jobs_pods_in_one_rack_by_topology_aware_scheduling(tmp_path, bench_vars):
    with kept_run(tmp_path, bench_vars, "topology-kueue", bench_schedulers=["kueue"], bench_scenario=EXAMPLE,
                  **mirror_vars()) as kept:
        api = api_of(kept)
        core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
        check_kueue_objects(custom)
        check_kueue_assignments(custom)
        pods = scenario_pods(core)
        check_one_rack_each(core, pods)
        annotations = {"rack": ("kueue.x-k8s.io/podset-required-topology", RACK),
                       "block": ("kueue.x-k8s.io/podset-preferred-topology", BLOCK)}
        for pod in pods:
            group = group_of(pod.metadata.name)
            if group in annotations:
                key, value = annotations[group]
                assert pod.metadata.annotations[key] == value, pod.metadata.annotations
                # TAS's label, and the node it assigned as the pod's nodeSelector, where kube-scheduler bound it.
                assert pod.metadata.labels.get("kueue.x-k8s.io/tas") == "true", pod.metadata.labels
                assert pod.spec.node_selector["kubernetes.io/hostname"] == pod.spec.node_name, pod.spec.node_selector
        # Its manager started with the feature gate this scenario turns on (bench_process logs each start's argv).
        with open(os.path.join(kept.cluster, "logs", "kueue.log"), encoding="utf-8") as handle:
            started = [line for line in handle if line.startswith("--- ") and " starting " in line]
        assert started and "--feature-gates=VisibilityOnDemand=false,TopologyAwareScheduling=true" in started[-1].split()
    check_results(bench_vars, "kueue", "topology-aware-scheduling")
