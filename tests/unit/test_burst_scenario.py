"""The seed's burst is a scenario (sched_scenarios.burst): the same expansion, objects and records as any other,
with the seed's native form, and what summary.json says of it unchanged."""
import copy

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks

WORK = dict(nodes=3, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=4, pods_per_job=3, pod_cpu="100m",
            pod_memory="200Mi", pod_duration=30, wait_for="bound", timeout=60.0, submit_concurrency=4,
            client_qps=10.0, client_burst=10, queue_quota="cluster", pod_creation="job-controller",
            arrival="open-loop", submit_processes=1)


def test_the_burst_expands_to_the_jobs_of_the_knobs_all_at_once():
    jobs = sched_scenarios.expand(sched_scenarios.burst(WORK))
    assert [job["name"] for job in jobs] == ["job-00000", "job-00001", "job-00002", "job-00003"]
    assert {job["arrival_s"] for job in jobs} == {0.0}
    assert jobs[2] == {"index": 2, "name": "job-00002", "group": "job", "tenant": "default", "priority": 0,
                       "gang": False, "pods_per_job": 3, "pod_millicores": 100, "pod_memory_bytes": 200 * 2 ** 20,
                       "pod_duration": 30, "arrival_s": 0.0, "burst": True}
    assert [sched_scenarios.burst_job(job["index"], WORK) for job in jobs] == jobs
    assert sched_scenarios.workload_size(WORK) == (3, 12)
    # From the job knobs alone (no cluster knobs), a job of the burst is still the same job.
    only_jobs = {name: WORK[name] for name in ("pods_per_job", "pod_cpu", "pod_memory", "pod_duration")}
    assert sched_scenarios.burst_job(3, only_jobs) == jobs[3]


@pytest.mark.parametrize("scheduler", knob_checks.SCHEDULERS)
@pytest.mark.parametrize("pod_creation", rules.POD_CREATIONS)
def test_a_burst_job_has_the_seeds_objects_whether_expanded_or_not(scheduler, pod_creation):
    if pod_creation == rules.DIRECT and scheduler in knob_checks.NO_DIRECT_PODS:
        return
    work = dict(WORK, pod_creation=pod_creation)
    target = w.Target(scheduler, "sched-bench", "r1")
    for job in sched_scenarios.expand(sched_scenarios.burst(work)):
        assert w.workload(job["index"], target, work, job) == w.workload(job["index"], target, work)


def test_the_seeds_native_form_one_queue_no_priority_gangs_by_count():
    job = sched_scenarios.burst_job(0, WORK)
    assert w.scenario_native(job, "volcano", WORK) == w.Native(None, "test-queue", 3, False)
    assert w.scenario_native(job, "yunikorn", WORK) == w.Native(None, "root.sandbox", 3, False)
    assert w.scenario_native(job, "kueue", WORK).queue == "default-local-queue"
    # A scenario's job that is alike but no burst's gets the scenario's form: its tenant's queue, its priority.
    alike = dict(job)
    del alike["burst"]
    assert w.scenario_native(alike, "volcano", WORK) == w.Native("sched-bench-priority-0", "sched-bench-default", 1,
                                                                 False)
    batch = w.workload(0, w.Target("default", "sched-bench", "r1"), WORK, job)[0][1]
    assert "podFailurePolicy" not in batch["spec"]
    assert "podFailurePolicy" in w.workload(0, w.Target("default", "sched-bench", "r1"), WORK, alike)[0][1]["spec"]


@pytest.mark.parametrize("scheduler", knob_checks.SCHEDULERS)
def test_the_burst_makes_no_cluster_objects(scheduler):
    scenario = sched_scenarios.burst(WORK)
    jobs = sched_scenarios.expand(scenario)
    assert w.cluster_objects(scenario, jobs, w.Target(scheduler, "sched-bench", "r1"),
                             {"cpu": "96", "memory": "768Gi"}) == []


def test_the_summary_keeps_the_knobs_values_where_the_jobs_are_alike():
    scenario = sched_scenarios.burst(WORK)
    jobs = sched_scenarios.expand(scenario)
    assert records.uniform_work(scenario, WORK) == WORK
    assert records.summary_workload(scenario, WORK, jobs) == WORK
    assert records.timeout_is_finding(scenario) is False
    mixed = copy.deepcopy(scenario)
    del mixed["burst"]
    mixed["phases"][0]["groups"].append(dict(mixed["phases"][0]["groups"][0], name="other", jobs=2))
    assert records.uniform_work(mixed, WORK) is None
    assert records.summary_workload(mixed, WORK, jobs + jobs[:2]) == dict(
        WORK, jobs=6, pods_per_job=None, pod_cpu=None, pod_memory=None, pod_duration=None)
    assert records.timeout_is_finding(mixed) is True
    late = copy.deepcopy(scenario)
    late["phases"][0]["start_s"] = 5.0
    assert records.uniform_work(late, WORK) is None
    steady = copy.deepcopy(scenario)
    steady["phases"][0]["groups"][0]["arrival"] = {"kind": "rate", "jobs_per_s": 2.0}
    assert records.uniform_work(steady, WORK) is None
