"""Node pools, topology labels and GPU pods (issue 65, first slice) end to end on the binary runtime, with the example
scenario tests/unit/fixtures/scenarios/gpu-pools.yml: 16 nodes of 8 GPUs and 4 CPU nodes in 2 blocks of 2 racks;
gangs of 8-GPU pods, single-GPU jobs and CPU jobs. From the kept cluster's API: the fake nodes have their pool's and
topology's labels and nvidia.com/gpu capacity, every pod was bound to a node that has its GPUs, asking for them as
request and limit, and the batch schedulers' queues cover nvidia.com/gpu; from the result files: every job done."""
import json
import os

import recompute
from conftest import audit_events, kept_run, mirror_vars, read_rows, scheduler_results
from kubernetes import client, config
from test_scenario import yunikorn_queue

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "fixtures", "scenarios",
                       "gpu-pools.yml")
GPU = "nvidia.com/gpu"
TOPOLOGY = "topology.sched-bench.io/"
# Each group: jobs, pods a job, GPUs a pod (the example file's).
GROUPS = {"gang": (4, 2, 8), "single": (24, 1, 1), "cpu": (4, 2, 0)}
PODS = sum(jobs * pods for jobs, pods, _ in GROUPS.values())
GPU_NODES = 16


def node_number(name):
    return int(name.rsplit("-", 1)[1])


def check_nodes(core):
    """The 20 fake nodes: pool, topology and hostname labels, and capacity = allocatable with the pool's GPUs."""
    nodes = core.list_node(label_selector="sched-bench.io/role=fake-node").items
    assert len(nodes) == 20, [node.metadata.name for node in nodes]
    for node in nodes:
        number, labels = node_number(node.metadata.name), node.metadata.labels
        gpu = number < GPU_NODES
        rack = number // 5  # 5 nodes a rack, 2 racks a block
        assert labels["sched-bench.io/pool"] == ("gpu" if gpu else "cpu"), labels
        assert labels[TOPOLOGY + "block"] == "block-%d" % (rack // 2 + 1), labels
        assert labels[TOPOLOGY + "rack"] == "block-%d-rack-%d" % (rack // 2 + 1, rack % 2 + 1), labels
        assert labels["kubernetes.io/hostname"] == node.metadata.name
        assert (labels.get("accelerator") == "fake-h100") is gpu
        assert node.status.capacity.get(GPU) == node.status.allocatable.get(GPU) == ("8" if gpu else None), node.status
    return {node.metadata.name for node in nodes}


def check_pods(core, names):
    """Every pod of the scenario bound to a fake node that has its GPUs, which it asks for as request and limit."""
    pods = core.list_namespaced_pod("sched-bench").items
    pods = [pod for pod in pods if pod.metadata.name.split("-")[0] in GROUPS]
    assert len(pods) == PODS, [pod.metadata.name for pod in pods]
    for pod in pods:
        gpus = GROUPS[pod.metadata.name.split("-")[0]][2]
        resources = pod.spec.containers[0].resources
        assert (resources.requests or {}).get(GPU) == (resources.limits or {}).get(GPU) == (str(gpus) if gpus else None)
        assert pod.spec.node_name in names, pod.metadata.name
        if gpus:
            assert node_number(pod.spec.node_name) < GPU_NODES, (pod.metadata.name, pod.spec.node_name)


def check_results(bench_vars, scheduler):
    """The result files: complete, every job's pods bound, GPU pods on GPU nodes; the sums of the pools."""
    out, summary, _env = scheduler_results(bench_vars, scheduler)
    assert summary["complete"] is True, (scheduler, summary.get("reason"))
    assert summary["pods_bound"] == summary["pods_created"] == PODS, scheduler
    assert summary["workload"]["nodes"] == 20 and summary["workload"]["node_cpu"] is None
    assert summary["capacity"]["pods"] == 16 * 32 + 4 * 110 and summary["makespan_bound"]["seconds"] is None
    gpus = {group: gpu for group, (_, _, gpu) in GROUPS.items()}
    for row in read_rows(out, "pods.csv"):
        assert row["bound"] and row["node"], row
        if gpus[row["job"].rsplit("-", 1)[0]]:
            assert node_number(row["node"]) < GPU_NODES, row
    with open(os.path.join(out, "scenario.json"), encoding="utf-8") as handle:
        cluster = json.load(handle)["cluster"]
    assert [pool["resources"] for pool in cluster["pools"]] == [{GPU: 8}, {}]
    check_placement(out, summary["placement"])
    assert recompute.differences(out, summary) == [], scheduler
    return out


def check_placement(out, placement):
    """summary.json's placement (docs/metrics.md#placement) present and in range, and pods.csv's block and rack right
    after node, as the node's number says (5 nodes a rack, 2 racks a block; recompute.differences recomputes them all)."""
    gpu = placement["gpu"]
    assert gpu["total"] == GPU_NODES * 8, gpu
    assert 0 < gpu["allocated_share_mean"] <= gpu["allocated_share_peak"] <= 1, gpu
    assert gpu["pending_s"] > 0 and 0 <= gpu["stranded_share"] <= 1, gpu
    multi = sum(jobs for jobs, pods, _ in GROUPS.values() if pods > 1)
    assert placement["locality"]["jobs"] == multi, placement["locality"]
    assert [level["level"] for level in placement["locality"]["levels"]] == ["block", "rack"]
    for level in placement["locality"]["levels"]:
        assert 0 <= level["one_group_share"] <= 1 and 1 <= level["groups_p50"] <= level["groups_max"] <= 2, level
    assert [(size["pods"], size["jobs"], size["jobs_all_bound"]) for size in placement["by_pods"]] == [
        (1, GROUPS["single"][0], GROUPS["single"][0]), (2, multi, multi)]
    head = placement["head_of_line"]
    assert (head["largest_gpus"], head["largest_jobs"], head["single_jobs"]) == (16, GROUPS["gang"][0], GROUPS["single"][0])
    assert head["largest_wait_p50_ms"] > 0 and head["single_wait_p50_ms"] > 0 and head["ratio"] > 0, head
    rows = read_rows(out, "pods.csv")
    assert list(rows[0])[2:5] == ["node", "block", "rack"]
    for row in rows:
        rack = node_number(row["node"]) // 5
        assert (row["block"], row["rack"]) == ("block-%d" % (rack // 2 + 1), "block-%d-rack-%d" % (rack // 2 + 1, rack % 2 + 1))


def created_pod_requests(audit_gz):
    """The GPUs each pod created in the test's namespace asked for, by the server's answer to its creation."""
    found = {}
    for event in audit_events(audit_gz, '"pods"', succeeded=True):
        ref = event.get("objectRef") or {}
        if (event.get("verb") == "create" and ref.get("resource") == "pods" and not ref.get("subresource")
                and ref.get("namespace") == "sched-bench" and event.get("responseObject")):
            container = event["responseObject"]["spec"]["containers"][0]
            found[event["responseObject"]["metadata"]["name"]] = (
                container["resources"].get("requests", {}).get(GPU), container["resources"].get("limits", {}).get(GPU))
    return found


def test_the_default_scheduler_binds_gpu_pods_on_labelled_gpu_nodes(tmp_path, bench_vars):
    with kept_run(tmp_path, bench_vars, "gpu-default", bench_schedulers=["default"], bench_scenario=EXAMPLE,
                  **mirror_vars()) as kept:
        core = client.CoreV1Api(config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig")))
        check_pods(core, check_nodes(core))
    check_results(bench_vars, "default")


def test_kueue_and_volcano_queues_cover_the_gpus(tmp_path, bench_vars):
    """Kueue's ClusterQueue covers nvidia.com/gpu (else it never admits a GPU job), Volcano's Queue has the GPUs in
    its capability; both bind every pod."""
    with kept_run(tmp_path, bench_vars, "gpu-queues", bench_schedulers=["kueue", "volcano"], bench_scenario=EXAMPLE,
                  bench_fetch_audit_log=True, **mirror_vars()) as kept:
        api = config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig"))
        core = client.CoreV1Api(api)
        check_pods(core, check_nodes(core))
        queue = client.CustomObjectsApi(api).get_cluster_custom_object(
            "scheduling.volcano.sh", "v1beta1", "queues", "sched-bench-default")
        assert queue["spec"]["capability"][GPU] == "128", queue["spec"]
    for scheduler in ("kueue", "volcano"):
        out = check_results(bench_vars, scheduler)
        requests = created_pod_requests(os.path.join(out, "audit.log.gz"))
        assert len(requests) == PODS, (scheduler, sorted(requests))
        for name, (request, limit) in requests.items():
            gpus = GROUPS[name.split("-")[0]][2]
            assert request == limit == (str(gpus) if gpus else None), (scheduler, name)
    # Kueue admits a Job only when its ClusterQueue covers every resource its pods ask for: it admitted every one.
    out = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost", "kueue")
    jobs = read_rows(out, "jobs.csv")
    assert len(jobs) == sum(count for count, _, _ in GROUPS.values()) and all(row["admitted"] for row in jobs), jobs


def test_yunikorns_tenant_queue_has_the_gpus_as_max(tmp_path, bench_vars):
    """YuniKorn: its tenant queue's max (its REST API) has the cluster's GPUs; every pod bound, each gang whole."""
    with kept_run(tmp_path, bench_vars, "gpu-yunikorn", bench_schedulers=["yunikorn"], bench_scenario=EXAMPLE,
                  **mirror_vars()) as kept:
        queue = yunikorn_queue("root.sched-bench-default")
        core = client.CoreV1Api(config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig")))
        check_pods(core, check_nodes(core))
    assert queue["maxResource"][GPU] == 128, queue["maxResource"]
    out = check_results(bench_vars, "yunikorn")
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        assert json.load(handle)["scenario_metrics"]["gang"]["full_gangs"] == GROUPS["gang"][0]
