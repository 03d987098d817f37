"""What the load test's pod watch makes of a preempted pod (module_utils/loadtest/client.py PodWatch)."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import client as sched_client


def pod(name, job, node=None, phase="Pending", deleting=False):
    meta = {"name": name, "ownerReferences": [{"kind": "Job", "name": job}]}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta, "spec": {"nodeName": node} if node else {}, "status": {"phase": phase}}


def test_a_job_holds_its_pods_only_while_none_was_deleted_before_it_finished():
    clock = iter(range(1, 100))
    watch = sched_client.PodWatch(None, "ns", clock=lambda: next(clock))
    for name in ("a-0", "a-1"):
        watch._note(pod(name, "a", node="n1"))
    watch._note(pod("b-0", "b", node="n1"))
    assert watch.jobs_held({"a": 2, "b": 1}) == 2
    watch._note(pod("a-1", "a", node="n1", deleting=True))      # preempted
    assert watch.jobs_held({"a": 2, "b": 1}) == 1
    watch._note(pod("a-2", "a", node="n2"))                     # its replacement
    watch._note(pod("b-0", "b", node="n1", phase="Succeeded"))
    watch._note(pod("b-0", "b", node="n1", phase="Succeeded"), deleted=True)  # gone after it finished
    assert watch.jobs_held({"a": 2, "b": 1}) == 2
    ended = {row["pod"]: row["ended_us"] for row in watch.records()}
    assert ended == {"a-0": None, "a-1": 4_000_000, "a-2": None, "b-0": None}
