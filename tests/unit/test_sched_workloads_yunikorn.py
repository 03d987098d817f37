"""YuniKorn's native form of a scenario: tenant queues by weight, a task group per gang job, priorities, and
its placeholder pods left out of the measurements. Answers computed by hand."""
import json

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import client as sched_client
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as m
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import yunikorn
from test_sched_metrics import NS, event, write_log
from test_sched_workloads import JOB, LOOSE, SCENARIO, last_pod_spec, target, work

# 2 nodes of 4 CPU and 16Gi: the queues' capability (bench_queue_quota=cluster) is 8 CPU and 32Gi.
CAPABILITY = {"cpu": "8", "memory": "32Gi"}


def test_each_tenant_gets_a_queue_guaranteed_its_weights_part_of_the_cpu_with_the_whole_as_max():
    # team-a (weight 1 of 3) 1/3 of 8 CPU = 2666.67 millicores; team-b 2/3: 5333.33. No memory guarantee: YuniKorn
    # would not preempt from a queue under its memory guarantee, which CPU-bound tenants always are.
    assert yunikorn.config_queues(SCENARIO, CAPABILITY) == [
        {"name": "sched-bench-team-a", "submitacl": "*", "resources": {
            "guaranteed": {"vcore": "2667m"}, "max": {"vcore": "8", "memory": "32Gi"}}},
        {"name": "sched-bench-team-b", "submitacl": "*", "resources": {
            "guaranteed": {"vcore": "5333m"}, "max": {"vcore": "8", "memory": "32Gi"}}}]
    # The same rule as Kueue's nominal quota: one place.
    assert w.tenant_quotas({"a": 1.0, "b": 3.0}, {"cpu": "8", "memory": "4Gi"}) == {
        "a": {"cpu": "2", "memory": "1Gi"}, "b": {"cpu": "6", "memory": "3Gi"}}


def test_the_burst_adds_no_queue_and_keeps_its_pods_in_the_one_queue():
    assert yunikorn.config_queues(None, CAPABILITY) == []
    ((_, burst),) = w.workload(1, target("yunikorn"), work())
    template = burst["spec"]["template"]
    assert template["metadata"]["labels"]["queue"] == "root.sandbox"
    assert not any(key.startswith("yunikorn.apache.org/") for key in template["metadata"]["annotations"])
    assert "priorityClassName" not in template["spec"]


def test_a_gang_job_is_one_task_group_of_all_its_pods_in_its_tenants_queue():
    ((api, job),) = w.workload(0, target("yunikorn"), work(), JOB)
    assert api == "batch"
    template = job["spec"]["template"]
    assert template["metadata"]["labels"]["queue"] == "root.sched-bench-team-b"
    assert template["metadata"]["labels"]["applicationId"] == "sched-bench-g-00000"
    annotations = template["metadata"]["annotations"]
    assert annotations["yunikorn.apache.org/task-group-name"] == "gang"
    assert annotations["yunikorn.apache.org/schedulingPolicyParameters"] == "gangSchedulingStyle=Hard"
    (group,) = json.loads(annotations["yunikorn.apache.org/task-groups"])
    # 4 pods of 500m and 1Gi each; the placeholders may go where the pods may: the kwok nodes, taint tolerated.
    assert (group["name"], group["minMember"], group["minResource"]) == ("gang", 4, {"cpu": "500m", "memory": "1Gi"})
    assert group["tolerations"] == [{"key": "kwok.x-k8s.io/node", "operator": "Exists", "effect": "NoSchedule"}]
    assert group["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": "type", "operator": "In", "values": ["kwok"]}]}]
    assert template["spec"]["priorityClassName"] == "sched-bench-priority-100"


def test_a_job_that_is_no_gang_has_no_task_group_and_its_priority_class():
    ((_, loose),) = w.workload(1, target("yunikorn"), work(), LOOSE)
    template = loose["spec"]["template"]
    assert template["metadata"]["labels"]["queue"] == "root.sched-bench-team-a"
    assert "yunikorn.apache.org/task-groups" not in template["metadata"]["annotations"]
    assert last_pod_spec([("batch", loose)])["priorityClassName"] == "sched-bench-priority-0"
    assert w.unsupported("yunikorn", {"gang", "fair_share", "priority"}) == []
    # Its PriorityClasses are the default scheduler's; its queues are in its configuration, not objects.
    assert [(api, body["metadata"]["name"]) for api, body in w.cluster_objects(SCENARIO, [JOB, LOOSE],
                                                                               target("yunikorn"), CAPABILITY)] == [
        ("priorityclass", "sched-bench-priority-0"), ("priorityclass", "sched-bench-priority-100")]


def test_direct_gang_pods_carry_the_task_group_too():
    pods = [body for api, body in w.workload(0, target("yunikorn"), work(pod_creation="direct"), JOB) if api == "pod"]
    assert len(pods) == 4
    assert {pod["metadata"]["annotations"]["yunikorn.apache.org/task-group-name"] for pod in pods} == {"gang"}


PLACEHOLDER = {"name": "tg-sched-bench-g-00000-gang-abcdefghij", "namespace": NS,
               "annotations": {"internal.yunikorn.apache.org/placeholder": "true",
                               "yunikorn.apache.org/task-group-name": "gang"},
               "ownerReferences": [{"kind": "Pod", "name": "g-00000-x"}]}


def test_placeholders_are_no_pods_of_a_job_in_the_audit_log(tmp_path):
    """The shim's placeholder is created, bound and deleted (swapped for the real pod): none of it is measured, and
    its deletion is no preemption."""
    created = event("create", "pods", "2026-01-01T00:00:00.100000Z", response_name=PLACEHOLDER["name"])
    created["responseObject"]["metadata"] = dict(PLACEHOLDER)
    log = tmp_path / "audit.log"
    write_log(log, [
        event("create", "pods", "2026-01-01T00:00:00.000000Z", response_name="g-00000-x", owner="g-00000"),
        created,
        event("create", "pods", "2026-01-01T00:00:00.200000Z", name=PLACEHOLDER["name"], sub="binding", node="n1"),
        event("delete", "pods", "2026-01-01T00:00:00.500000Z", name=PLACEHOLDER["name"], code=200),
        event("create", "pods", "2026-01-01T00:00:00.600000Z", name="g-00000-x", sub="binding", node="n1"),
    ])
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events(m.audit_log_files(str(log)), NS):
        times.add(ev)
    assert [(row["job"], row["pod"], row["bound_us"] - row["created_us"], row["ended_us"])
            for row in times.records()] == [("g-00000", "g-00000-x", 600_000, None)]
    assert len(times.pod_bound) == 1


def test_placeholders_are_no_pods_of_a_job_in_the_watch():
    watch = sched_client.PodWatch(None, NS, clock=lambda: 1)
    watch._note({"metadata": dict(PLACEHOLDER), "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
    watch._note({"metadata": {"name": "g-00000-x", "ownerReferences": [{"kind": "Job", "name": "g-00000"}]},
                 "spec": {}, "status": {"phase": "Pending"}})
    assert tuple(watch.counts()) == (1, 0, 0)
    assert [row["pod"] for row in watch.records()] == ["g-00000-x"]
    assert schedulers.is_placeholder({"annotations": {"yunikorn.apache.org/placeholder": "true"}})
    assert not schedulers.is_placeholder({"annotations": {"yunikorn.apache.org/task-group-name": "gang"}})
