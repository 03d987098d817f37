"""summary.json as the load test builds it (the merge of module_utils/loadtest/measurements/), from hand-made
records: the seed's burst, and a scenario with every section (tenants, gangs, a stall threshold, priorities, a steady
window, a preempted pod).
Used by the schema and documentation tests; no cluster."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import measurements
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.measurements.contract import context_of
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import host_load as sched_host_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios

S = 1_000_000
T0 = 1_800_000_000 * S
# scenario.json's events of the made-up runs: the submission window of 0.05 s from just before T0 (the load
# test's clock).
EVENTS = [{"event": "submit_start", "at": "2027-01-15T07:59:59.990000Z", "clock": "load test"},
          {"event": "submit_end", "at": "2027-01-15T08:00:00.040000Z", "clock": "load test"}]
WORK = dict(nodes=2, node_cpu="4", node_memory="16Gi", node_pods=20, jobs=4, pods_per_job=2, pod_cpu="1",
            pod_memory="1Gi", pod_duration=4.0, wait_for="bound", timeout=60.0, submit_concurrency=4,
            client_qps=10.0, client_burst=10, queue_quota="cluster", pod_creation="job-controller",
            arrival="open-loop", submit_processes=1)
SCENARIO = """\
description: every section of scenario_metrics
cluster: {nodes: 2, node_cpu: "4", node_memory: 16Gi, node_pods: 20}
tenants:
  - {name: team-a, weight: 1}
  - {name: team-b, weight: 2}
warmup_s: 1
thresholds: {fairness_error: 0.5, stuck_partial_s: 60, stall_s: 1}
phases:
  - name: fill
    groups:
      - {name: loose, tenant: team-a, jobs: 2, pods_per_job: 2, pod_cpu: "1", pod_memory: 1Gi, pod_duration: 4,
         arrival: {kind: rate, jobs_per_s: 1}}
      - {name: gang, tenant: team-b, gang: true, jobs: 1, pods_per_job: 4, pod_cpu: "1", pod_memory: 1Gi,
         pod_duration: 4, arrival: {kind: at_once}}
  - name: urgent
    start_s: 2
    groups:
      - {name: high, tenant: team-a, priority: 1000, jobs: 1, pods_per_job: 2, pod_cpu: "1", pod_memory: 1Gi,
         pod_duration: 4, arrival: {kind: at_once}}
"""


def _pod(job, index, created_s, bound_s=None, ended_s=None, completed_s=None):
    return {"job": job, "pod": "%s-%d" % (job, index), "node": "kwok-node-%d" % (index % 2),
            "created_us": T0 + int(created_s * S), "bound_us": None if bound_s is None else T0 + int(bound_s * S),
            "ended_us": None if ended_s is None else T0 + int(ended_s * S),
            "completed_us": None if completed_s is None else T0 + int(completed_s * S)}


def scenario_run(tmp_path):
    """(summary, timeline, job records, pod records, scenario, expanded jobs) of the scenario above on a made-up run:
    the gang is placed whole at 0.5 s, loose-00000's pods at 0.3 s, loose-00001's first pod at 1.2 s and its second
    never; high-00000 arrives at 2 s and takes loose-00000's second pod (preempted at 2.1 s), whose replacement is
    bound at 6.4 s."""
    path = tmp_path / "every.yml"
    path.write_text(SCENARIO)
    scenario, problems = sched_scenarios.load(str(path))
    assert not problems, problems
    jobs = sched_scenarios.expand(scenario)
    records = [_pod("gang-00000", i, 0.1, 0.5, completed_s=4.6) for i in range(4)]
    records += [_pod("loose-00000", 0, 0.1, 0.3, completed_s=4.4), _pod("loose-00000", 1, 0.1, 0.3, ended_s=2.1),
                _pod("loose-00000", 2, 2.2, 6.4), _pod("loose-00001", 0, 1.1, 1.2), _pod("loose-00001", 1, 1.1),
                _pod("high-00000", 0, 2.05, 2.2), _pod("high-00000", 1, 2.05, 2.3)]
    created = {"gang-00000": T0, "loose-00000": T0, "loose-00001": T0 + S, "high-00000": T0 + 2 * S}
    return _build(scenario, jobs, records, created, dict(WORK)) + (scenario, jobs)


def burst_run():
    """(summary, timeline, job records, pod records) of the seed's burst of 2 jobs x 2 pods, all bound, with the
    scheduler's process measured."""
    work = dict(WORK, jobs=2)
    scenario = sched_scenarios.burst(work)
    jobs = sched_scenarios.expand(scenario)
    records = [_pod(job["name"], i, 0.1, 0.2 + 0.1 * i, completed_s=4.3) for job in jobs for i in range(2)]
    cost = {"cpu_seconds": 0.5, "peak_rss_mb": 80.0,
            "processes": [{"name": "kube-scheduler", "pid": 4242, "cpu_seconds": 0.5, "peak_rss_mb": 80.0}]}
    return _build(scenario, jobs, records, {job["name"]: T0 for job in jobs}, dict(work, **scenario["cluster"]),
                  scheduler_cost=cost, ceiling=1800.0)


def host_load():
    """The host's samples at the start and the end of a 10 s window on 2 CPUs: 2000 ticks, 1500 busy; the
    benchmark's process 10 used 1000, a `yes` (pid 20) 400 (busy above 25 %)."""
    def sample(time_s, busy, total, own_ticks, other_ticks):
        processes = {10: sched_host_load.Process(10, 1, "kube-apiserver", own_ticks, 0, 5),
                     20: sched_host_load.Process(20, 1, "yes", other_ticks, 0, 7)}
        return sched_host_load.Sample(time_s, busy, total, 2, 0.5 if time_s == 0 else 1.5, processes, {10})
    return {"begin": sample(0, 0, 0, 0, 0), "end": sample(10.0, 1500, 2000, 1000, 400)}


def _build(scenario, jobs, records, created, workload, scheduler_cost=None, ceiling=None):
    """(summary, timeline, job records, pod records): the registered measurements merged, with the looks a load
    test would have taken."""
    run = {"scheduler": "default", "run_label": "r1", "namespace": "sched-bench", "scenario": scenario,
           "workload": dict(workload, **scenario["cluster"]), "jobs": jobs, "ceiling_pods_per_s": ceiling,
           "busy_threshold": 25.0}
    measured = {"records": records, "job_created": created, "job_admitted": None, "source": "audit"}
    submission = {"submitted": jobs, "window_s": 0.05, "errors": [], "pods_expected": sum(
        job["pods_per_job"] for job in jobs)}
    outcome = {"complete": True, "reason": None, "timed_out": False,
               "started_at": "2027-01-15T07:59:58.000000Z", "finished_at": "2027-01-15T08:00:10.000000Z",
               "phases_s": {"setup": 1.0, "submit": 0.05, "wait": 6.5, "analysis": 0.01},
               "audit_log_bytes": 12345}
    looks = {"host_load": host_load(), "loadtest_cost": {"summary": {"cpu_seconds": 1.0, "peak_rss_mb": 60.0}}}
    if scheduler_cost is not None:
        looks["scheduler_cost"] = {"summary": scheduler_cost}
    context = context_of(run, measured, submission, outcome, looks)
    summary = measurements.merge(context)
    return summary, context.timeline, context.jobs, context.pods
