"""Option checks and object builders of the load test."""
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import coscheduling, knob_checks, volcano

WORK = dict(nodes=3, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=2, pods_per_job=3, pod_cpu="1",
            pod_memory="200Mi", pod_duration=30.0, wait_for="bound", timeout=60.0, submit_concurrency=4,
            client_qps=10.0, client_burst=10, queue_quota="cluster", pod_creation="job-controller",
            arrival="open-loop", submit_processes=1)


def target(scheduler="default"):
    return w.Target(scheduler, "sched-bench", "r1")


def work(**changes):
    return dict(WORK, **changes)


def params(**changes):
    out = dict(scheduler="default", namespace="sched-bench", run_label="r1", workload=work())
    out.update(changes)
    return out


@pytest.mark.parametrize("text,value", [
    ("500m", 0.5), ("2", 2), ("1.5", 1.5), ("200Mi", 200 * 2 ** 20), ("1Gi", 2 ** 30), ("1k", 1000), ("3M", 3e6)])
def test_parse_quantity(text, value):
    assert rules.parse_quantity(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "-1", "10 Mi", "5mi"])
def test_parse_quantity_rejects(text):
    with pytest.raises(ValueError):
        rules.parse_quantity(text)


def test_valid_options_pass():
    assert w.validate(params()) is None


@pytest.mark.parametrize("changes,needle", [
    ({"scheduler": "kube-batch"}, "scheduler must be one of"),
    ({"namespace": "Bad_NS"}, "namespace must be a DNS label"),
    ({"run_label": "a/b"}, "run_label must be a valid label value"),
    ({"workload": work(nodes=0)}, "workload.nodes=0 is not allowed: use a whole number of at least 1"),
    ({"workload": work(jobs=-1)}, "workload.jobs=-1 is not allowed"),
    ({"workload": work(pods_per_job=0)}, "workload.pods_per_job=0 is not allowed"),
    ({"workload": work(timeout=0)}, "workload.timeout=0 is not allowed: use a number greater than 0"),
    ({"workload": work(client_qps=-5)}, "workload.client_qps=-5 is not allowed"),
    ({"workload": work(pod_duration=-1)}, "workload.pod_duration=-1 is not allowed: use seconds, 0 or more"),
    ({"workload": work(wait_for="running")}, "workload.wait_for='running' is not allowed: use one of bound, completed"),
    ({"workload": work(pod_cpu="lots")}, "workload.pod_cpu='lots' is not allowed: use a Kubernetes quantity"),
    ({"workload": work(pod_cpu="64")}, "a pod must fit a fake node (workload.node_cpu=32"),
    ({"workload": work(pod_memory="512Gi")}, "a pod must fit a fake node"),
    ({"workload": work(pod_creation="pods")},
     "workload.pod_creation='pods' is not allowed: use one of job-controller, direct"),
    ({"scheduler": "kueue", "workload": work(pod_creation="direct")},
     "workload.pod_creation=direct is not supported by kueue: Kueue admits only the kinds of workload it is "
     "configured to manage, and its plain-pod integration is off"),
    ({"workload": {"nodes": 3}}, "workload lacks node_cpu, node_memory"),
])
def test_bad_options_give_one_line(changes, needle):
    problem = w.validate(params(**changes))
    assert needle in problem
    assert "\n" not in problem


def test_the_play_and_the_module_share_the_rules():
    """The same value breaks the same rule on both sides, named as each side's user wrote it."""
    bench = dict(("bench_" + name, value) for name, value in work(pod_duration=-1).items())
    assert rules.problems({k[6:]: v for k, v in bench.items()}, "bench_%s") == [
        "bench_pod_duration=-1 is not allowed: use seconds, 0 or more"]
    assert rules.workload_problems(work(pod_duration=-1)) == [
        "workload.pod_duration=-1 is not allowed: use seconds, 0 or more"]


@pytest.mark.parametrize("module_name", ["sched_loadtest", "bench_calibrate"])
def test_module_documents_every_workload_field_with_its_type(module_name):
    """The modules take their ``workload`` docs from the fragment, which the knob table writes."""
    import importlib
    import os
    import sys

    import yaml
    module = importlib.import_module(module_name)
    assert yaml.safe_load(module.DOCUMENTATION)["extends_documentation_fragment"] == ["bench_workload"]
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "doc_fragments"))
    try:
        fragment = importlib.import_module("bench_workload").ModuleDocFragment
    finally:
        sys.path.pop(0)
    documented = yaml.safe_load(fragment.DOCUMENTATION)["options"]["workload"]["suboptions"]
    assert list(documented) == list(rules.WORKLOAD)
    assert {name: spec["type"] for name, spec in documented.items()} == {
        name: spec["type"] for name, spec in rules.workload_options().items()}


def test_fake_node_is_kwok_managed_tainted_and_sized():
    (name, node), = w.fake_nodes("kwok-node-", target(), work(nodes=1))
    assert name == "kwok-node-0" and node["metadata"]["name"] == name
    assert node["metadata"]["labels"] == {"type": "kwok", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                          "kubernetes.io/arch": "amd64", w.ROLE_LABEL: "fake-node", w.RUN_LABEL: "r1"}
    assert node["metadata"]["labels"]["type"] == "kwok"
    assert node["metadata"]["annotations"][w.KWOK_NODE_ANNOTATION] == "fake"
    assert node["spec"]["taints"] == [{"key": "kwok.x-k8s.io/node", "value": "fake", "effect": "NoSchedule"}]
    assert node["status"]["capacity"] == {"cpu": "32", "memory": "256Gi", "pods": "110"}


def pod_spec(body):
    if body["kind"] == "Job" and body["apiVersion"] == "batch/v1":
        return body["spec"]["template"]
    return body["spec"]["tasks"][0]["template"]


@pytest.mark.parametrize("scheduler", knob_checks.SCHEDULERS)
def test_every_workload_tolerates_kwok_and_asks_for_resources(scheduler):
    objects = w.workload(7, target(scheduler), work())
    api, body = objects[-1]
    template = pod_spec(body)
    spec = template["spec"]
    assert body["metadata"]["name"] == "job-00007"
    assert spec["tolerations"][0]["key"] == "kwok.x-k8s.io/node"
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "200Mi"}
    assert template["metadata"]["annotations"][w.DURATION_ANNOTATION] == "30s"
    assert api == ("volcano" if scheduler == "volcano" else "batch")
    for other_api, other in objects:
        assert other["metadata"]["labels"][w.RUN_LABEL] == "r1"
        assert other_api == "batch" or other["apiVersion"] == "/".join(w.CUSTOM_APIS[other_api][:2])


def only(objects):
    assert len(objects) == 1, objects
    return objects[0][1]


def test_scheduler_specific_fields():
    kueue = only(w.workload(1, target("kueue"), work()))
    assert kueue["spec"]["suspend"] is True
    assert kueue["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default-local-queue"
    volcano = only(w.workload(1, target("volcano"), work()))
    assert volcano["spec"]["minAvailable"] == 3 and volcano["spec"]["queue"] == "test-queue"
    assert volcano["spec"]["tasks"][0]["replicas"] == 3
    yunikorn = only(w.workload(1, target("yunikorn"), work()))
    labels = yunikorn["spec"]["template"]["metadata"]["labels"]
    assert yunikorn["spec"]["template"]["spec"]["schedulerName"] == "yunikorn"
    assert labels["queue"] == "root.sandbox" and labels["applicationId"] == "sched-bench-job-00001"
    default = only(w.workload(1, target(), work()))
    assert "schedulerName" not in default["spec"]["template"]["spec"]
    assert default["spec"]["parallelism"] == default["spec"]["completions"] == 3


def test_coscheduling_makes_a_pod_group_per_job_before_the_job():
    (group_api, group), (job_api, job) = w.workload(4, target("coscheduling"), work(pods_per_job=5))
    assert (group_api, job_api) == ("podgroup", "batch")
    assert group["kind"] == "PodGroup" and group["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"
    assert group["metadata"] == {"name": "job-00004", "namespace": "sched-bench",
                                 "labels": {w.ROLE_LABEL: "load", w.RUN_LABEL: "r1"}}
    assert group["spec"] == {"minMember": 5}
    template = job["spec"]["template"]
    assert template["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] == "job-00004"
    assert template["spec"]["schedulerName"] == "scheduler-plugins-scheduler"
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 5


def direct(scheduler, **changes):
    return w.workload(12, target(scheduler), work(pod_creation="direct", **changes))


def pods_of(objects):
    return [body for api, body in objects if api == "pod"]


@pytest.mark.parametrize("scheduler", knob_checks.DIRECT_POD_SCHEDULERS)
def test_direct_pods_carry_their_jobs_template_and_no_job(scheduler):
    """The same pod template as the job's, named after the job, labelled with it, and no Job object at all."""
    objects = direct(scheduler)
    job_template = pod_spec(w.workload(12, target(scheduler), work())[-1][1])
    pods = pods_of(objects)
    assert [pod["metadata"]["name"] for pod in pods] == ["job-00012-0", "job-00012-1", "job-00012-2"]
    assert {body["kind"] for _api, body in objects} <= {"Pod", "PodGroup"}
    assert objects[-len(pods):] == [("pod", pod) for pod in pods]
    for pod in pods:
        assert (pod["apiVersion"], pod["kind"], pod["metadata"]["namespace"]) == ("v1", "Pod", "sched-bench")
        assert "ownerReferences" not in pod["metadata"]
        assert pod["spec"] == job_template["spec"]
        labels = dict(pod["metadata"]["labels"])
        assert labels.pop(w.JOB_LABEL) == "job-00012"
        assert labels == job_template["metadata"]["labels"]
    # Each pod is its own object: changing one leaves the others alone.
    pods[0]["metadata"]["labels"]["x"] = "y"
    assert "x" not in pods[1]["metadata"]["labels"]


def test_direct_pods_of_the_default_scheduler_and_yunikorn_come_alone():
    assert [api for api, _body in direct("default")] == ["pod"] * 3
    yunikorn = pods_of(direct("yunikorn"))
    # The job's pods are one YuniKorn application in its queue.
    assert {pod["metadata"]["labels"]["applicationId"] for pod in yunikorn} == {"sched-bench-job-00012"}
    assert {pod["metadata"]["labels"]["queue"] for pod in yunikorn} == {"root.sandbox"}
    assert {pod["spec"]["schedulerName"] for pod in yunikorn} == {"yunikorn"}


def test_direct_coscheduling_pods_follow_their_pod_group():
    (group_api, group), *pods = direct("coscheduling", pods_per_job=4)
    assert group_api == "podgroup" and group["spec"] == {"minMember": 4}
    assert [api for api, _body in pods] == ["pod"] * 4
    assert {body["metadata"]["labels"][coscheduling.POD_GROUP_LABEL] for _api, body in pods} == {"job-00012"}


def test_direct_volcano_pods_follow_the_pod_group_the_load_test_makes():
    """The group Volcano v1.11's job controller made for a vcjob of 3 pods of 1 CPU / 200Mi (read from a kept
    cluster): gang size, queue and the gang's quota usage; here for pods of 1.5 CPU / 300Mi."""
    (group_api, group), *pods = direct("volcano", pod_cpu="1500m", pod_memory="300Mi")
    assert group_api == "volcano-podgroup"
    assert group["apiVersion"] == "/".join(w.CUSTOM_APIS["volcano-podgroup"][:2]) == "scheduling.volcano.sh/v1beta1"
    assert group["metadata"]["name"] == "job-00012"
    assert group["spec"] == {"minMember": 3, "queue": "test-queue", "minResources": {
        "count/pods": "3", "pods": "3", "cpu": "4500m", "requests.cpu": "4500m", "limits.cpu": "4500m",
        "memory": "900Mi", "requests.memory": "900Mi", "limits.memory": "900Mi"}}
    for _api, pod in pods:
        assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == "job-00012"
        assert pod["spec"]["schedulerName"] == "volcano"


def test_kueue_takes_no_direct_pods():
    assert knob_checks.DIRECT_POD_SCHEDULERS == ("default", "volcano", "yunikorn", "coscheduling")
    with pytest.raises(ValueError, match="workload.pod_creation=direct is not supported by kueue"):
        direct("kueue")


# -- scenarios: each scheduler's native form of tenants, priorities and gangs --

SCENARIO = {"name": "two", "tenants": {"team-a": 1.0, "team-b": 2.0},
            "cluster": {"nodes": 2, "node_cpu": "4", "node_memory": "8Gi", "node_pods": 10}}
JOB = {"index": 0, "name": "g-00000", "group": "g", "tenant": "team-b", "priority": 100, "gang": True,
       "pods_per_job": 4, "pod_millicores": 500, "pod_memory_bytes": 2 ** 30, "pod_duration": 5.0, "arrival_s": 0.0}
LOOSE = dict(JOB, name="l-00000", tenant="team-a", priority=0, gang=False, pods_per_job=2)


def last_pod_spec(objects):
    api, body = objects[-1]
    return body["spec"]["tasks"][0]["template"]["spec"] if api == "volcano" else body["spec"]["template"]["spec"]


def test_a_scenario_job_gives_its_name_pods_size_and_duration():
    ((api, job),) = w.workload(7, target(), work(), JOB)
    assert api == "batch" and job["metadata"]["name"] == "g-00000"
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 4
    template = job["spec"]["template"]
    assert template["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert template["metadata"]["annotations"][w.DURATION_ANNOTATION] == "5s"


def test_default_takes_priority_but_no_gang_nor_tenant():
    assert last_pod_spec(w.workload(0, target(), work(), JOB))["priorityClassName"] == "sched-bench-priority-100"
    assert w.unsupported("default", {"gang", "fair_share", "priority"}) == ["fair_share", "gang"]
    objects = w.cluster_objects(SCENARIO, [JOB, LOOSE], target(), {"cpu": "8", "memory": "16Gi"})
    assert [(api, body["metadata"]["name"], body["value"]) for api, body in objects] == [
        ("priorityclass", "sched-bench-priority-0", 0), ("priorityclass", "sched-bench-priority-100", 100)]
    assert objects[0][1]["metadata"]["labels"][w.RUN_LABEL] == "r1"


def test_volcano_puts_each_job_in_its_tenants_weighted_queue_and_gangs_by_min_available():
    ((api, gang),) = w.workload(0, target("volcano"), work(), JOB)
    ((_, loose),) = w.workload(1, target("volcano"), work(), LOOSE)
    assert api == "volcano"
    assert (gang["spec"]["queue"], gang["spec"]["minAvailable"], gang["spec"]["priorityClassName"]) == (
        "sched-bench-team-b", 4, "sched-bench-priority-100")
    assert (loose["spec"]["queue"], loose["spec"]["minAvailable"], loose["spec"]["tasks"][0]["replicas"]) == (
        "sched-bench-team-a", 1, 2)
    assert last_pod_spec([(api, gang)])["priorityClassName"] == "sched-bench-priority-100"
    assert w.unsupported("volcano", {"gang", "fair_share", "priority"}) == []
    queues = [body for api, body in w.cluster_objects(SCENARIO, [JOB], target("volcano"), {"cpu": "8", "memory": "16Gi"})
              if api == "volcano-queue"]
    assert [(q["metadata"]["name"], q["spec"]["weight"], q["spec"]["capability"]) for q in queues] == [
        ("sched-bench-team-a", 1, {"cpu": "8", "memory": "16Gi"}), ("sched-bench-team-b", 2, {"cpu": "8", "memory": "16Gi"})]


def test_volcano_direct_pods_have_the_gangs_group_in_the_tenants_queue():
    objects = w.workload(0, target("volcano"), work(pod_creation="direct"), LOOSE)
    group = objects[0][1]
    assert (group["spec"]["queue"], group["spec"]["minMember"], group["spec"]["minResources"]["cpu"]) == (
        "sched-bench-team-a", 1, "500m")
    assert len(objects) == 3 and objects[1][1]["spec"]["priorityClassName"] == "sched-bench-priority-0"


def test_volcano_weights_become_whole_numbers_keeping_their_ratios():
    assert volcano.integer_weights({"a": 1.0, "b": 2.0}) == {"a": 1, "b": 2}
    assert volcano.integer_weights({"a": 1.0, "b": 1.5}) == {"a": 100, "b": 150}


def test_coscheduling_gangs_only_the_gang_jobs():
    assert w.workload(0, target("coscheduling"), work(), JOB)[0][1]["spec"]["minMember"] == 4
    assert w.workload(0, target("coscheduling"), work(), LOOSE)[0][1]["spec"]["minMember"] == 1


def test_scenario_features():
    jobs = [JOB, LOOSE]
    assert w.scenario_features(SCENARIO, jobs) == {"gang", "fair_share", "priority"}
    assert w.scenario_features(dict(SCENARIO, tenants={"default": 1.0}), [LOOSE]) == set()


def test_a_scenarios_job_survives_the_preemption_of_a_pod_and_the_bursts_does_not_change():
    ((_, job),) = w.workload(0, target(), work(), JOB)
    assert job["spec"]["podFailurePolicy"] == {
        "rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    assert job["spec"]["backoffLimit"] == 0
    ((_, burst),) = w.workload(0, target(), work())
    assert "podFailurePolicy" not in burst["spec"]


def test_with_a_scenario_its_biggest_job_is_what_must_fit_the_nodes_and_the_queues():
    scenario, problems = sched_scenarios.load("gang")    # 16 nodes of 16 CPU, gangs of up to 16 pods of 2 CPU
    assert problems == []
    small_nodes = work(node_cpu="500m", node_memory="1Gi")
    assert "a pod must fit a fake node" in w.validate(params(workload=small_nodes))
    assert w.validate(params(workload=small_nodes, scenario=scenario)) is None
    assert w.validate(params(scheduler="volcano", workload=work(queue_quota={"cpu": "31", "memory": "1Ti"}),
                             scenario=scenario)).startswith("workload.queue_quota={'cpu': '31', 'memory': '1Ti'} is not "
                                                            "allowed: the queues would hold 31 CPU")


def test_kueue_gives_each_tenant_a_cohort_queue_with_its_weights_part_and_a_priority_class():
    ((_, job),) = w.workload(0, target("kueue"), work(), JOB)
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "sched-bench-team-b"
    assert job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "sched-bench-priority-100"
    assert job["spec"]["suspend"] is True and "priorityClassName" not in job["spec"]["template"]["spec"]
    ((_, burst),) = w.workload(0, target("kueue"), work())
    assert burst["metadata"]["labels"] == {"sched-bench.io/role": "load", "sched-bench.io/run": "r1",
                                           "kueue.x-k8s.io/queue-name": "default-local-queue"}
    assert w.unsupported("kueue", {"gang", "fair_share", "priority"}) == ["gang"]
    objects = w.cluster_objects(SCENARIO, [JOB, LOOSE], target("kueue"), {"cpu": "9", "memory": "3Gi"})
    assert [(api, body["metadata"]["name"]) for api, body in objects] == [
        ("kueue-priorityclass", "sched-bench-priority-0"), ("kueue-priorityclass", "sched-bench-priority-100"),
        ("kueue-clusterqueue", "sched-bench-team-a"), ("kueue-localqueue", "sched-bench-team-a"),
        ("kueue-clusterqueue", "sched-bench-team-b"), ("kueue-localqueue", "sched-bench-team-b")]
    quotas = {body["metadata"]["name"]: body["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
              for api, body in objects if api == "kueue-clusterqueue"}
    assert quotas == {"sched-bench-team-a": [{"name": "cpu", "nominalQuota": "3"}, {"name": "memory", "nominalQuota": "1Gi"}],
                      "sched-bench-team-b": [{"name": "cpu", "nominalQuota": "6"}, {"name": "memory", "nominalQuota": "2Gi"}]}
    assert {body["spec"]["cohort"] for api, body in objects if api == "kueue-clusterqueue"} == {"sched-bench"}
    assert {body["metadata"]["name"]: body["spec"]["fairSharing"] for api, body in objects
            if api == "kueue-clusterqueue"} == {"sched-bench-team-a": {"weight": "1"}, "sched-bench-team-b": {"weight": "2"}}
    local = dict(objects)["kueue-localqueue"]
    assert (local["metadata"]["namespace"], local["spec"]["clusterQueue"]) == ("sched-bench", "sched-bench-team-b")
