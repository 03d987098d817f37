"""Topology constraints (issue 65 item 2, second half): a job group's topology ({required: level} or {preferred:
level}), one line per bad value; each job carrying it; each scheduler's mechanism as its forms build it (pod affinity
for the default scheduler, coscheduling and YuniKorn; Topology-Aware Scheduling for Kueue), what it cannot express,
what env.json records, and Kueue's feature gate in a kind release's manager configuration."""
import copy
import json
import os

import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects import builders
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import cluster_checks
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as s
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import kueue, yunikorn
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases import manifests
from result_checks import problems, validator
from scenario_edits import problems_after_edit

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "scenarios", "topology.yml")
RACK = "topology.sched-bench.io/rack"
BLOCK = "topology.sched-bench.io/block"
WORK = {"pod_creation": "job-controller"}
POD_AFFINITY = ("default", "coscheduling", "yunikorn")


def example():
    scenario, found = s.load(EXAMPLE)
    assert found == []
    return scenario


def jobs_by_group():
    out = {}
    for job in s.expand(example()):
        out.setdefault(job["group"], job)
    return out


def template(scheduler, job):
    """The pod template of ``job`` in ``scheduler``'s job objects (a batch Job's)."""
    target = builders.Target(scheduler, "sched-bench", "run-1")
    (body,) = [body for api, body in w.workload(job["index"], target, dict(WORK, **example()["cluster"]), job)
               if api == "batch"]
    return body["spec"]["template"]


def test_each_job_carries_its_groups_topology_and_scenario_json_keeps_it():
    by_group = jobs_by_group()
    assert by_group["rack"]["topology"] == {"required": "rack"}
    assert by_group["block"]["topology"] == {"preferred": "block"}
    assert "topology" not in by_group["free"]
    scaled = s.scaled(example(), 2)[0]
    assert [group.get("topology") for group in scaled["phases"][0]["groups"]] == [
        {"required": "rack"}, {"preferred": "block"}, None]
    assert problems(validator("scenario.schema.json"), json.loads(json.dumps(scaled))) == []


BAD = [
    ("topology: {required: rack}", "topology: {required: row}",
     "line 14: phases[0].groups[0].topology.required='row' is not allowed: use a level of cluster.topology (block, rack)"),
    ("topology: {preferred: block}", "topology: {preferred: 3}",
     "line 16: phases[0].groups[1].topology.preferred=3 is not allowed: use a level of cluster.topology (block, rack)"),
    ("topology: {required: rack}", "topology: {required: rack, preferred: block}",
     "line 14: phases[0].groups[0].topology is not allowed: give exactly one of required, preferred"),
    ("topology: {required: rack}", "topology: {}",
     "line 14: phases[0].groups[0].topology is not allowed: give exactly one of required, preferred"),
    ("topology: {required: rack}", "topology: {within: rack}",
     "line 14: phases[0].groups[0].topology.within is not a field here: use required, preferred"),
    ("topology: {required: rack}", "topology: rack",
     "line 14: phases[0].groups[0].topology='rack' is not allowed: use a mapping of required, preferred"),
    ("jobs: 4, pods_per_job: 4, pod_cpu: \"1\"", "jobs: 4, pods_per_job: 33, pod_cpu: \"1\"",
     "line 13: phases[0].groups[0]: a job of 33 pods that requires one rack is not allowed: a rack holds only 32 such "
     "pods at once"),
]


@pytest.mark.parametrize("old,new,expected", BAD, ids=[expected.split(": ", 1)[1][:60] for _, _, expected in BAD])
def test_each_bad_topology_is_one_line_naming_its_field(tmp_path, old, new, expected):
    path, found = problems_after_edit(EXAMPLE, old, new, tmp_path)
    assert found == ["%s %s" % (path, expected)]


def test_a_topology_without_the_clusters_levels_is_refused(tmp_path):
    with open(EXAMPLE, encoding="utf-8") as handle:
        text = handle.read()
    path = tmp_path / "s.yml"
    path.write_text(text.replace("  topology:\n    levels: [{name: block, count: 2}, {name: rack, count: 2}]\n", ""))
    assert s.load(str(path))[1] == [
        "%s line 12: phases[0].groups[0].topology is not allowed: the scenario's cluster has no topology (give "
        "cluster.topology.levels)" % path,
        "%s line 14: phases[0].groups[1].topology is not allowed: the scenario's cluster has no topology (give "
        "cluster.topology.levels)" % path]


def test_required_and_preferred_pod_affinity_among_a_jobs_pods():
    base = {"metadata": {"labels": {}}, "spec": {"affinity": {"nodeAffinity": {"x": 1}}}}
    required = builders.job_topology_affinity("j-1", copy.deepcopy(base), {"job_topology": {"required": "rack"}})
    term = {"labelSelector": {"matchLabels": {builders.JOB_LABEL: "j-1"}}, "topologyKey": RACK}
    assert required["metadata"]["labels"] == {builders.JOB_LABEL: "j-1"}
    assert required["spec"]["affinity"] == {"nodeAffinity": {"x": 1}, "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    preferred = builders.job_topology_affinity("j-1", copy.deepcopy(base), {"job_topology": {"preferred": "block"}})
    assert preferred["spec"]["affinity"]["podAffinity"] == {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": dict(term, topologyKey=BLOCK)}]}
    assert builders.job_topology_affinity("j-1", copy.deepcopy(base), {"job_topology": None}) == base


@pytest.mark.parametrize("scheduler", POD_AFFINITY)
def test_the_pod_affinity_schedulers_keep_a_jobs_pods_together(scheduler):
    by_group = jobs_by_group()
    rack = template(scheduler, by_group["rack"])
    assert rack["metadata"]["labels"][builders.JOB_LABEL] == "rack-00000"
    assert rack["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {"labelSelector": {"matchLabels": {builders.JOB_LABEL: "rack-00000"}}, "topologyKey": RACK}]
    block = template(scheduler, by_group["block"])
    (term,) = block["spec"]["affinity"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert term["weight"] == 100 and term["podAffinityTerm"]["topologyKey"] == BLOCK
    free = template(scheduler, by_group["free"])
    assert "podAffinity" not in free["spec"]["affinity"] and builders.JOB_LABEL not in free["metadata"]["labels"]


def test_yunikorns_placeholders_carry_the_term_and_the_jobs_label():
    rack = template("yunikorn", jobs_by_group()["rack"])
    (group,) = json.loads(rack["metadata"]["annotations"][yunikorn.TASK_GROUPS])
    assert group["labels"] == {builders.JOB_LABEL: "rack-00000"}
    assert group["affinity"]["podAffinity"] == rack["spec"]["affinity"]["podAffinity"]


def test_kueue_annotates_the_pod_set_with_the_levels_label():
    by_group = jobs_by_group()
    annotations = {name: template("kueue", job)["metadata"]["annotations"] for name, job in by_group.items()}
    assert annotations["rack"][kueue.TOPOLOGY_ANNOTATIONS["required"]] == RACK
    assert annotations["block"][kueue.TOPOLOGY_ANNOTATIONS["preferred"]] == BLOCK
    assert not set(kueue.TOPOLOGY_ANNOTATIONS.values()) & set(annotations["free"])
    assert "podAffinity" not in template("kueue", by_group["rack"])["spec"]["affinity"]


def kueue_objects(scenario):
    target = builders.Target("kueue", "sched-bench", "run-1")
    return w.cluster_objects(scenario, s.expand(scenario), target, {"cpu": "128", "memory": "512Gi"})


def test_kueues_topology_its_flavor_and_queues_without_cohort_nor_preemption():
    objects = kueue_objects(example())
    assert [api for api, _ in objects][:2] == ["kueue-topology", "kueue-resourceflavor"]
    topology, flavor = objects[0][1], objects[1][1]
    assert topology["apiVersion"] == "kueue.x-k8s.io/v1alpha1" and topology["metadata"]["name"] == kueue.TOPOLOGY
    assert topology["spec"]["levels"] == [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": "kubernetes.io/hostname"}]
    assert flavor["spec"] == {"nodeLabels": {"sched-bench.io/role": "fake-node"}, "topologyName": kueue.TOPOLOGY}
    (queue,) = [body for api, body in objects if api == "kueue-clusterqueue"]
    assert not {"cohort", "preemption", "fairSharing"} & set(queue["spec"])
    flavors = queue["spec"]["resourceGroups"][0]["flavors"]
    assert [entry["name"] for entry in flavors] == [kueue.TOPOLOGY_FLAVOR, kueue.FLAVOR]
    assert flavors[0]["resources"] == flavors[1]["resources"]


def test_kueue_without_a_topology_keeps_its_cohort_and_preemption():
    scenario = example()
    for group in scenario["phases"][0]["groups"]:
        group.pop("topology", None)
    objects = kueue_objects(scenario)
    assert not [api for api, _ in objects if api in ("kueue-topology", "kueue-resourceflavor")]
    (queue,) = [body for api, body in objects if api == "kueue-clusterqueue"]
    assert queue["spec"]["cohort"] == kueue.COHORT and queue["spec"]["preemption"]["withinClusterQueue"] == "LowerPriority"
    assert [entry["name"] for entry in queue["spec"]["resourceGroups"][0]["flavors"]] == [kueue.FLAVOR]


def test_what_each_scheduler_cannot_express_with_a_topology():
    scenario = example()
    features = w.scenario_features(scenario, s.expand(scenario))
    assert features == {"topology", "gang"}
    assert w.unsupported("default", features) == ["gang"]
    assert w.unsupported("coscheduling", features) == w.unsupported("yunikorn", features) == []
    # Kueue gives up its cohort and its preemption for a topology flavor (v0.10).
    assert w.unsupported("kueue", features | {"fair_share", "priority"}) == ["fair_share", "gang", "priority"]
    assert w.unsupported("kueue", {"fair_share", "priority"}) == []


def test_env_json_records_the_mechanism_only_when_a_group_asks():
    scenario = example()
    assert schedulers.topology_record("default", scenario) == "pod-affinity"
    assert schedulers.topology_record("kueue", scenario) == "topology-aware-scheduling"
    assert schedulers.topology_record("kueue", None) is None
    for group in scenario["phases"][0]["groups"]:
        group.pop("topology", None)
    assert schedulers.topology_record("default", scenario) is None


def test_a_descriptors_topology_is_checked():
    descriptor = copy.deepcopy(schedulers.get("default"))
    assert schedulers.problems(descriptor) == []
    descriptor["topology"] = {"mechanism": "x", "source": "docs", "unsupported": "y", "gives_up": {"speed": "z"},
                              "how": 1}
    assert schedulers.problems(descriptor) == [
        "scheduler default: the topology key how is unknown",
        "scheduler default: topology names either its mechanism or why it is unsupported, not both",
        "scheduler default: topology mechanism x names no https page as its source",
        "scheduler default: topology gives up feature speed, which is unknown (use gang, fair_share, priority)"]


def test_a_scheduler_without_a_mechanism_says_why(monkeypatch):
    monkeypatch.setitem(schedulers.DESCRIPTORS, "default", dict(schedulers.get("default"), topology={
        "unsupported": "it cannot"}))
    assert schedulers.topology_mechanism("default") == (schedulers.UNSUPPORTED, "it cannot")
    assert schedulers.topology_record("default", example()) == "unsupported: it cannot"
    without = {key: value for key, value in schedulers.get("coscheduling").items() if key != "topology"}
    monkeypatch.setitem(schedulers.DESCRIPTORS, "coscheduling", without)
    assert schedulers.topology_mechanism("coscheduling") == (schedulers.UNSUPPORTED, schedulers.TOPOLOGY_UNDECLARED)


MANAGER_CONFIG = """
apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta1
    kind: Configuration
    clientConnection: {qps: 50, burst: 100}
"""


def test_kind_gets_the_feature_gates_in_the_managers_configuration():
    docs = [yaml.safe_load(MANAGER_CONFIG)]
    out, applied = manifests.controller_knobs(docs, {}, 100, 200, {"TopologyAwareScheduling": True})
    config = yaml.safe_load(out[0]["data"]["controller_manager_config.yaml"])
    assert config["featureGates"] == {"TopologyAwareScheduling": True}
    assert config["clientConnection"] == {"qps": 100, "burst": 200}
    assert applied == ["ConfigMap kueue-system/kueue-manager-config: controller_manager_config.yaml clientConnection "
                       "qps=100, burst=200, featureGates TopologyAwareScheduling=true"]
    out, _ = manifests.controller_knobs(docs, {}, 100, 200)
    assert "featureGates" not in yaml.safe_load(out[0]["data"]["controller_manager_config.yaml"])


def test_a_domains_room_counts_the_nodes_dealt_to_it_pool_by_pool():
    gpu_pools = os.path.join(os.path.dirname(EXAMPLE), "gpu-pools.yml")
    cluster = s.load(gpu_pools)[0]["cluster"]
    gpu_pod = {"pod_cpu": "8", "pod_memory": "64Gi", "pod_gpu": 8}
    # 4 racks of 5 nodes: the first three racks hold GPU nodes only, the last one GPU node and the 4 CPU nodes.
    assert cluster_checks.domain_room(cluster, "rack", gpu_pod) == 5
    assert cluster_checks.domain_room(cluster, "block", gpu_pod) == 10
    assert cluster_checks.topology_fit_problem(cluster, dict(gpu_pod, pods_per_job=6, topology={"required": "rack"})) == (
        "a job of 6 pods that requires one rack is not allowed: a rack holds only 5 such pods at once")
    assert cluster_checks.topology_fit_problem(cluster, dict(gpu_pod, pods_per_job=6, topology={"preferred": "rack"})) is None


def test_a_scale_that_leaves_no_rack_big_enough_is_refused():
    # Half the nodes: 4 nodes, 1 a rack (16 CPUs, 16 pods of 1 CPU): the rack group's 4 pods still fit.
    assert s.scaled(example(), 0.5)[1] == []
    scenario = example()
    scenario["phases"][0]["groups"][0]["pods_per_job"] = 20
    assert s.scaled(scenario, 0.5)[1] == [
        "bench_scenario_scale=0.5 is not allowed with scenario topology: group rack: a job of 20 pods that requires "
        "one rack is not allowed: a rack holds only 16 such pods at once"]
