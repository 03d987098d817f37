"""Option checks and object builders of the load test."""
import pytest

import sched_workloads as w

BASE = dict(scheduler="default", nodes=3, jobs=2, pods_per_job=3, node_pods=110, concurrency=4, burst=10,
            qps=10.0, timeout=60.0, pod_duration=30.0, wait_for="bound", namespace="sched-bench",
            run_label="r1", node_cpu="32", node_memory="256Gi", pod_cpu="1", pod_memory="200Mi")


def params(**changes):
    out = dict(BASE)
    out.update(changes)
    return out


@pytest.mark.parametrize("text,value", [
    ("500m", 0.5), ("2", 2), ("1.5", 1.5), ("200Mi", 200 * 2 ** 20), ("1Gi", 2 ** 30), ("1k", 1000), ("3M", 3e6)])
def test_parse_quantity(text, value):
    assert w.parse_quantity(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "-1", "10 Mi", "5mi"])
def test_parse_quantity_rejects(text):
    with pytest.raises(ValueError):
        w.parse_quantity(text)


def test_valid_options_pass():
    assert w.validate(params()) is None


@pytest.mark.parametrize("changes,needle", [
    ({"scheduler": "kube-batch"}, "scheduler must be one of"),
    ({"nodes": 0}, "nodes must be at least 1, got 0"),
    ({"jobs": -1}, "jobs must be at least 1"),
    ({"pods_per_job": 0}, "pods_per_job must be at least 1"),
    ({"timeout": 0}, "timeout must be greater than 0"),
    ({"qps": -5}, "qps must be greater than 0"),
    ({"pod_duration": -1}, "pod_duration must be 0 or more"),
    ({"namespace": "Bad_NS"}, "namespace must be a DNS label"),
    ({"run_label": "a/b"}, "run_label must be a valid label value"),
    ({"pod_cpu": "lots"}, "pod_cpu must be a Kubernetes quantity"),
    ({"pod_cpu": "64"}, "does not fit any fake node"),
    ({"pod_memory": "512Gi"}, "does not fit any fake node"),
])
def test_bad_options_give_one_line(changes, needle):
    problem = w.validate(params(**changes))
    assert needle in problem
    assert "\n" not in problem


def test_capacity_note_when_nodes_are_too_small():
    assert w.capacity_note(params()) is None
    assert "hold 3 pods at once" in w.capacity_note(params(nodes=1, node_pods=3))


def test_fake_node_is_kwok_managed_tainted_and_sized():
    node = w.fake_node("kwok-node-0", params())
    assert node["metadata"]["labels"]["type"] == "kwok"
    assert node["metadata"]["annotations"][w.KWOK_NODE_ANNOTATION] == "fake"
    assert node["spec"]["taints"] == [{"key": "kwok.x-k8s.io/node", "value": "fake", "effect": "NoSchedule"}]
    assert node["status"]["capacity"] == {"cpu": "32", "memory": "256Gi", "pods": "110"}


def pod_spec(body):
    if body["kind"] == "Job" and body["apiVersion"] == "batch/v1":
        return body["spec"]["template"]
    return body["spec"]["tasks"][0]["template"]


@pytest.mark.parametrize("scheduler", w.SCHEDULERS)
def test_every_workload_tolerates_kwok_and_asks_for_resources(scheduler):
    objects = w.workload(7, params(scheduler=scheduler))
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
    kueue = only(w.workload(1, params(scheduler="kueue")))
    assert kueue["spec"]["suspend"] is True
    assert kueue["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == w.KUEUE_LOCAL_QUEUE
    volcano = only(w.workload(1, params(scheduler="volcano")))
    assert volcano["spec"]["minAvailable"] == 3 and volcano["spec"]["queue"] == w.VOLCANO_QUEUE
    assert volcano["spec"]["tasks"][0]["replicas"] == 3
    yunikorn = only(w.workload(1, params(scheduler="yunikorn")))
    labels = yunikorn["spec"]["template"]["metadata"]["labels"]
    assert yunikorn["spec"]["template"]["spec"]["schedulerName"] == "yunikorn"
    assert labels["queue"] == w.YUNIKORN_QUEUE and labels["applicationId"] == "sched-bench-job-00001"
    default = only(w.workload(1, params()))
    assert "schedulerName" not in default["spec"]["template"]["spec"]
    assert default["spec"]["parallelism"] == default["spec"]["completions"] == 3


def test_coscheduling_makes_a_pod_group_per_job_before_the_job():
    (group_api, group), (job_api, job) = w.workload(4, params(scheduler="coscheduling", pods_per_job=5))
    assert (group_api, job_api) == ("podgroup", "batch")
    assert group["kind"] == "PodGroup" and group["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"
    assert group["metadata"] == {"name": "job-00004", "namespace": "sched-bench",
                                 "labels": {w.ROLE_LABEL: "load", w.RUN_LABEL: "r1"}}
    assert group["spec"] == {"minMember": 5}
    template = job["spec"]["template"]
    assert template["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] == "job-00004"
    assert template["spec"]["schedulerName"] == "scheduler-plugins-scheduler"
    assert job["spec"]["parallelism"] == job["spec"]["completions"] == 5
