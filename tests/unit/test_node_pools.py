"""Node pools, their topology and GPU pods (issue 65's first slice): the scenario file's cluster.pools,
cluster.topology and pod_gpu, one line per bad value; the fake nodes kwok gets (labels, capacity); the pods' GPU
requests in every scheduler's form; the fit checks, the capacity and the queues that count GPUs."""
import json
import os
import shutil

import jsonschema
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity as c
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools, rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import metrics as m
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as s
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks, kueue, volcano, yunikorn
from result_checks import SCHEMA_PATH, problems, validator
from scenario_edits import problems_after_edit

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "scenarios", "gpu-pools.yml")
GPU = "nvidia.com/gpu"
# The knobs' workload (the seed's node size, which a cluster of pools leaves aside).
KNOBS = dict(nodes=100, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=1000, pods_per_job=3, pod_cpu="1",
             pod_memory="200Mi", pod_duration=30.0, pod_creation="job-controller", arrival="open-loop",
             queue_quota="cluster", wait_for="bound", timeout=300, submit_concurrency=8, submit_processes=1,
             client_qps=100.0, client_burst=200)


def example():
    scenario, problems = s.load(EXAMPLE)
    assert problems == []
    return scenario


def example_work():
    """The load test's workload with the example's cluster merged in (as load.py merges it)."""
    return dict(KNOBS, **example()["cluster"])


def test_the_example_loads_into_pools_and_a_topology():
    cluster = example()["cluster"]
    assert cluster == {
        "nodes": 20,
        "pools": [{"name": "gpu", "count": 16, "cpu": "64", "memory": "512Gi", "pods": 32, "resources": {GPU: 8},
                   "labels": {"accelerator": "fake-h100"}},
                  {"name": "cpu", "count": 4, "cpu": "32", "memory": "128Gi", "pods": 110, "resources": {},
                   "labels": {}}],
        "topology": {"levels": [{"name": "block", "count": 2}, {"name": "rack", "count": 2}]}}
    assert node_pools.totals(cluster) == {"nodes": 20, "millicores": (16 * 64 + 4 * 32) * 1000,
                                          "memory_bytes": (16 * 512 + 4 * 128) * 2 ** 30, "pods": 16 * 32 + 4 * 110,
                                          "resources": {GPU: 128}}


def test_jobs_carry_their_gpus_and_only_when_asked():
    jobs = s.expand(example())
    by_group = {job["group"]: job for job in jobs}
    assert by_group["gang"]["pod_gpu"] == 8 and by_group["single"]["pod_gpu"] == 1
    assert "pod_gpu" not in by_group["cpu"]
    # The shipped scenarios ask for none: their jobs are as before.
    assert not any("pod_gpu" in job for name in ("gang", "mixed") for job in s.expand(s.load(name)[0]))


def test_the_one_size_form_is_one_pool_and_renders_as_before():
    cluster = s.load("gang")[0]["cluster"]
    assert set(cluster) == {"nodes", "node_cpu", "node_memory", "node_pods"}
    (pool,) = node_pools.pools(cluster)
    assert (pool["count"], pool["cpu"], pool["resources"], pool["labels"]) == (
        cluster["nodes"], cluster["node_cpu"], {}, {})


def test_fake_nodes_get_pool_and_topology_labels_and_gpu_capacity():
    nodes = w.fake_nodes("kwok-node-", w.Target("default", "sched-bench", "r1"), example_work())
    assert [name for name, _ in nodes] == ["kwok-node-%d" % index for index in range(20)]
    labels = {name: body["metadata"]["labels"] for name, body in nodes}
    # 20 nodes in 2 blocks of 2 racks: 5 a rack, in order.
    racks = [labels[name]["topology.sched-bench.io/rack"] for name, _ in nodes]
    assert racks == ["block-1-rack-1"] * 5 + ["block-1-rack-2"] * 5 + ["block-2-rack-1"] * 5 + ["block-2-rack-2"] * 5
    assert [labels[name]["topology.sched-bench.io/block"] for name, _ in nodes] == ["block-1"] * 10 + ["block-2"] * 10
    assert labels["kwok-node-0"] == {
        "accelerator": "fake-h100", "sched-bench.io/pool": "gpu", "topology.sched-bench.io/block": "block-1",
        "topology.sched-bench.io/rack": "block-1-rack-1", "type": "kwok", "kubernetes.io/hostname": "kwok-node-0",
        "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", w.ROLE_LABEL: "fake-node", w.RUN_LABEL: "r1"}
    assert labels["kwok-node-16"]["sched-bench.io/pool"] == "cpu" and "accelerator" not in labels["kwok-node-16"]
    status = dict(nodes)["kwok-node-15"]["status"]
    assert status["capacity"] == status["allocatable"] == {"cpu": "64", "memory": "512Gi", "pods": "32", GPU: "8"}
    assert dict(nodes)["kwok-node-16"]["status"]["capacity"] == {"cpu": "32", "memory": "128Gi", "pods": "110"}


def test_a_topology_over_the_one_size_form_labels_its_nodes():
    work = dict(KNOBS, nodes=6, topology={"levels": [{"name": "zone", "count": 3}]})
    nodes = w.fake_nodes("n", w.Target("default", "sched-bench", ""), work)
    assert [body["metadata"]["labels"]["topology.sched-bench.io/zone"] for _, body in nodes] == [
        "zone-1", "zone-1", "zone-2", "zone-2", "zone-3", "zone-3"]
    assert "sched-bench.io/pool" not in nodes[0][1]["metadata"]["labels"]


@pytest.mark.parametrize("scheduler", knob_checks.SCHEDULERS)
def test_every_schedulers_pods_ask_for_their_gpus_as_requests_and_limits(scheduler):
    gang = next(job for job in s.expand(example()) if job["group"] == "gang")
    for creation in ("job-controller", "direct"):
        if knob_checks.pod_creation_problems(creation, [scheduler], "%s"):
            continue
        objects = w.workload(0, w.Target(scheduler, "sched-bench", "r1"), dict(example_work(), pod_creation=creation),
                             gang)
        templates = [body["spec"]["template"] if body["kind"] == "Job" and "template" in body["spec"]
                     else body["spec"]["tasks"][0]["template"] if body["kind"] == "Job" else body
                     for _, body in objects if body["kind"] in ("Job", "Pod")]
        assert templates, (scheduler, creation)
        for template in templates:
            resources = template["spec"]["containers"][0]["resources"]
            assert resources["requests"][GPU] == resources["limits"][GPU] == "8", (scheduler, creation)


def test_a_pod_without_gpus_asks_for_none():
    objects = w.workload(0, w.Target("default", "sched-bench", ""), KNOBS)
    assert GPU not in objects[0][1]["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]


def test_the_fit_checks_count_gpus_and_pools():
    cluster = example()["cluster"]
    gang = {"pod_cpu": "8", "pod_memory": "64Gi", "pod_gpu": 8}
    assert c.pods_at_once(dict(cluster, **gang)) == 16  # one a GPU node; none on the CPU nodes
    single = {"pod_cpu": "2", "pod_memory": "8Gi", "pod_gpu": 1}
    assert c.pods_at_once(dict(cluster, **single)) == 16 * 8
    cpu_only = {"pod_cpu": "4", "pod_memory": "8Gi"}
    assert c.pods_at_once(dict(cluster, **cpu_only)) == 16 * 16 + 4 * 8
    # A GPU pod on nodes of one size (no GPUs) fits nowhere.
    assert c.pods_per_node(dict(KNOBS, pod_gpu=1)) == 0


def test_capacity_sums_the_pools_and_leaves_the_makespan_bound_to_one_size():
    work = example_work()
    assert c.capacity(work, "default") == {"cpu": 1152.0, "memory": "8704Gi", "memory_bytes": 8704 * 2 ** 30,
                                           "pods": 952, "limited_by": "cluster"}
    assert c.capacity(work, "kueue")["cpu"] == 1152.0
    scenario = example()
    assert records.uniform_work(scenario, work) is None
    summary = records.summary_workload(scenario, work, s.expand(scenario))
    assert (summary["nodes"], summary["node_cpu"], summary["node_memory"], summary["node_pods"]) == (20, None, None, None)
    assert "pools" not in summary and "topology" not in summary


def test_the_queues_cover_the_clusters_gpus():
    work = example_work()
    assert rules.queue_quota("cluster", work) == {"cpu": "1152", "memory": "8704Gi", GPU: "128"}
    assert rules.queue_quota("seed", work) == {"cpu": "1000", "memory": "1000Gi", GPU: "128"}
    assert rules.queue_quota({"cpu": 10, "memory": "1Gi"}, work)[GPU] == "128"
    # The one-size form has none: as before.
    assert rules.queue_quota("cluster", KNOBS) == {"cpu": "3200", "memory": "25Ti"}
    assert w.tenant_quotas({"a": 1, "b": 2}, {"cpu": "3", "memory": "3Gi", GPU: "128"}) == {
        "a": {"cpu": "1", "memory": "1Gi", GPU: "42"}, "b": {"cpu": "2", "memory": "2Gi", GPU: "85"}}


def test_each_schedulers_queue_has_gpu_quota():
    scenario, target = example(), w.Target("kueue", "sched-bench", "r1")
    capability = rules.queue_quota("cluster", example_work())
    queue = next(body for api, body in kueue.cluster_objects(scenario, s.expand(scenario), target, capability, {})
                 if api == "kueue-clusterqueue")
    (group,) = queue["spec"]["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", GPU]
    assert group["flavors"][0]["resources"][2] == {"name": GPU, "nominalQuota": "128"}
    queue = next(body for api, body in volcano.cluster_objects(scenario, [], target, capability, {})
                 if api == "volcano-queue")
    assert queue["spec"]["capability"][GPU] == "128"
    # YuniKorn's configuration is made from bench_queue_quota's CPU and memory only: the GPUs come from the cluster.
    (config,) = yunikorn.config_queues(scenario, {"cpu": "1152", "memory": "8704Gi"})
    assert config["resources"]["max"] == {"vcore": "1152", "memory": "8704Gi", GPU: "128"}


def test_volcanos_own_podgroup_counts_the_gangs_gpus():
    gang = next(job for job in s.expand(example()) if job["group"] == "gang")
    objects = w.workload(0, w.Target("volcano", "sched-bench", ""), dict(example_work(), pod_creation="direct"), gang)
    group = objects[0][1]["spec"]["minResources"]
    assert group[GPU] == group["requests." + GPU] == "16"


def test_a_stall_counts_the_gpus_left_on_each_node():
    # Two nodes of 8 GPUs, 6 taken on each by a long job: a gang of two 4-GPU pods fits the CPU but not the GPUs;
    # a gang of two 2-GPU pods fits.
    cluster = {"nodes": 2, "pools": [{"name": "gpu", "count": 2, "cpu": "64", "memory": "512Gi", "pods": 32,
                                      "resources": {GPU: 8}, "labels": {}}]}

    def job(name, pods, gpu, gang=False, created=0):
        return {"name": name, "tenant": "default", "priority": 0, "gang": gang, "pods_per_job": pods,
                "pod_millicores": 1000, "pod_memory_bytes": 2 ** 30, "pod_duration": 100.0, "arrival_s": 0.0,
                "created_us": created, "admitted_us": None, "pod_gpu": gpu}

    taken = [{"job": "busy", "pod": "b-%d" % index, "node": "kwok-node-%d" % index, "created_us": 0, "bound_us": 0,
              "ended_us": None} for index in range(2)]
    for gpu, stalled in ((4, False), (2, True)):
        jobs = [job("busy", 2, 6), job("g", 2, gpu, gang=True, created=1_000_000)]
        assert m.stalls(jobs, taken, cluster, 0, 60_000_000, 20)["stalled"] is stalled, gpu


def test_a_scale_scales_each_pool_and_keeps_the_topology_even():
    scaled, problems = s.scaled(example(), 2)
    assert problems == [] and [pool["count"] for pool in scaled["cluster"]["pools"]] == [32, 8]
    assert scaled["cluster"]["nodes"] == 40
    assert s.scaled(example(), 0.5)[1] == [
        "bench_scenario_scale=0.5 is not allowed with scenario gpu-pools: it leaves 10 fake nodes, which do not divide "
        "evenly among the topology's 4 groups of level rack"]


def test_the_load_tests_own_check_leaves_the_knobs_node_size_aside_for_pools():
    params = dict(scheduler="default", namespace="sched-bench", run_label="r1", scenario=example(),
                  workload=dict(KNOBS, node_cpu="1"))
    assert w.validate(params) is None


# (old, new, the one problem); each on the example file.
BAD = [
    ("count: 16,", "count: 0,", "line 5: cluster.pools[0].count=0 is not allowed: use a whole number of at least 1"),
    ('cpu: "64"', "cpu: lots", "line 5: cluster.pools[0].cpu='lots' is not allowed: use a Kubernetes quantity greater "
                               "than 0 such as 500m, 2, 200Mi"),
    ("pods: 32,", "pods: 32, gpus: 8,", "line 5: cluster.pools[0].gpus is not a field here: use name, count, cpu, "
                                         "memory, pods, resources, labels"),
    ("nvidia.com/gpu: 8", "gpu: 8", "line 5: cluster.pools[0].resources.gpu is not allowed: use an extended "
                                    "resource: a domain, '/' and a name, such as nvidia.com/gpu, outside kubernetes.io "
                                    "and k8s.io and sched-bench.io"),
    ("nvidia.com/gpu: 8", "example.com/fpga: 0", "line 5: cluster.pools[0].resources.example.com/fpga=0 is not "
                                                 "allowed: use a whole number of at least 1"),
    ("accelerator: fake-h100", "type: gpu", "line 6: cluster.pools[0].labels.type is not allowed: use a label key: an "
                                            "optional domain and '/', then at most 63 letters, digits, '-', '_' or '.', "
                                            "not type nor in kubernetes.io or k8s.io or sched-bench.io (the toolkit "
                                            "sets those)"),
    ("accelerator: fake-h100", "accelerator: 100", "line 6: cluster.pools[0].labels.accelerator=100 is not allowed: "
                                                   "use a label value: a string of at most 63 letters, digits, '-', "
                                                   "'_' or '.' (quote a number)"),
    ("{name: cpu, count: 4,", "{name: gpu, count: 4,", "line 7: cluster.pools[1].name='gpu' is not allowed: another "
                                                       "pool has that name"),
    ("  pools:\n", "  nodes: 20\n  pools:\n", "line 4: cluster.nodes is not allowed with cluster.pools: each pool "
                                              "gives its count, cpu, memory and pods"),
    ("{name: rack, count: 2}", "{name: rack, count: 3}", "line 8: cluster.topology is not allowed: its 6 groups of "
                                                         "level rack do not divide the 20 fake nodes evenly: use a "
                                                         "node count that is a multiple of 6"),
    ("{name: rack, count: 2}", "{name: block, count: 2}", "line 9: cluster.topology.levels[1].name='block' is not "
                                                          "allowed: another level has that name"),
    ("{name: rack, count: 2}", "{name: node, count: 2}", "line 9: cluster.topology.levels[1].name='node' is not "
                                                         "allowed: pods.csv has a column of that name (use another, "
                                                         "such as rack or block)"),
    ("{name: rack, count: 2}", "{name: rack, count: 2, kind: x}", "line 9: cluster.topology.levels[1].kind is not a "
                                                                  "field here: use name, count"),
    ("pod_gpu: 8,", "pod_gpu: -1,", "line 13: phases[0].groups[0].pod_gpu=-1 is not allowed: use a whole number of "
                                    "GPUs, 0 or more"),
    ("pod_gpu: 8,", "pod_gpu: 9,", "line 13: phases[0].groups[0]: a pod of 8 CPU, 64Gi memory and 9 GPUs "
                                   "(nvidia.com/gpu) is not allowed: it fits no fake node (gpu: 64 CPU, 512Gi memory, "
                                   "32 pods, 8 GPUs; cpu: 32 CPU, 128Gi memory, 110 pods, 0 GPUs)"),
    ("jobs: 4, pods_per_job: 2, pod_gpu: 8", "jobs: 4, pods_per_job: 17, pod_gpu: 8",
     "line 13: phases[0].groups[0]: a gang of 17 pods is not allowed: the cluster holds only 16 such pods at once"),
]


@pytest.mark.parametrize("old,new,expected", BAD, ids=[expected.split(":")[1].strip() for _, _, expected in BAD])
def test_each_bad_value_is_one_line_naming_its_field(tmp_path, old, new, expected):
    path, found = problems_after_edit(EXAMPLE, old, new, tmp_path)
    assert found == ["%s %s" % (path, expected)]


def test_the_level_labels_must_fit_a_label_value(tmp_path):
    path = tmp_path / "s.yml"
    shutil.copy(EXAMPLE, path)
    path.write_text(path.read_text().replace("{name: block, count: 2}", "{name: %s, count: 2}" % ("a" * 38)).replace(
        "{name: rack, count: 2}", "{name: %s, count: 2}" % ("b" * 38)))
    (problem,) = s.load(str(path))[1]
    assert problem.startswith("%s line 8: cluster.topology is not allowed: its labels, such as " % path)
    assert problem.endswith("would be longer than 63 characters: use shorter level names")


def test_gpus_on_nodes_of_one_size_and_in_a_trace_are_refused(tmp_path):
    path = tmp_path / "s.yml"
    path.write_text("description: x\ncluster: {nodes: 2, node_cpu: '4', node_memory: 8Gi, node_pods: 10}\n"
                    "phases:\n  - name: p\n    groups:\n"
                    "      - {name: g, jobs: 1, pods_per_job: 1, pod_cpu: '1', pod_memory: 1Gi, pod_duration: 1,\n"
                    "         pod_gpu: 1, arrival: {kind: at_once}}\n"
                    "      - {name: t, pod_gpu: 1, arrival: {kind: trace, file: t.csv}}\n")
    (tmp_path / "t.csv").write_text("arrival_s,pods_per_job,pod_cpu,pod_memory,pod_duration,tenant,priority\n"
                                    "0,1,1,1Gi,1,default,0\n")
    assert s.load(str(path))[1] == [
        "%s line 6: phases[0].groups[0]: a pod of 1 CPU, 1Gi memory and 1 GPUs (nvidia.com/gpu) is not allowed: it "
        "fits no fake node (nodes: 4 CPU, 8Gi memory, 10 pods, 0 GPUs)" % path,
        "%s line 8: phases[0].groups[1].pod_gpu is not allowed with arrival kind trace: a trace's jobs ask for no "
        "GPUs" % path]


def test_scenario_json_and_the_summarys_workload_of_pools_follow_their_schemas():
    scenario = example()
    assert problems(validator("scenario.schema.json"), json.loads(json.dumps(s.scaled(scenario, 1)[0]))) == []
    workload = records.summary_workload(scenario, example_work(), s.expand(scenario))
    schema = validator(os.path.basename(SCHEMA_PATH)).schema
    assert problems(jsonschema.Draft202012Validator(schema["properties"]["workload"]), workload) == []
