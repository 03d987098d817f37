"""A scenario run's job and pod records, jobs.csv, and its summary entries (module_utils/scenarios/records.py)."""
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as r
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as scenarios

S = 1_000_000
T0 = 1_800_000_000 * S


def job(name, tenant="a", priority=0, gang=False, pods=2):
    return {"index": 0, "name": name, "group": name.split("-")[0], "tenant": tenant, "priority": priority, "gang": gang,
            "pods_per_job": pods, "pod_millicores": 1000, "pod_memory_bytes": 2 ** 30, "pod_duration": 10.0,
            "arrival_s": 0.0}


def pod(job_name, index, created_s, bound_s):
    return {"job": job_name, "pod": "%s-%d" % (job_name, index), "node": "n0", "created_us": T0 + int(created_s * S),
            "bound_us": None if bound_s is None else T0 + int(bound_s * S)}


def test_a_job_is_created_when_the_audit_log_says_or_with_its_first_pod():
    pods = [pod("x-00000", 0, 0.5, 1.0), pod("x-00000", 1, 0.4, 2.0), pod("y-00000", 0, 3.0, None)]
    jobs = r.job_records([job("x-00000"), job("y-00000")], {"y-00000": T0 + 2 * S}, pods)
    assert [(j["name"], j["created_us"], j["admitted_us"]) for j in jobs] == [
        ("x-00000", T0 + 400_000, None), ("y-00000", T0 + 2 * S, None)]
    assert all(p["ended_us"] is None for p in r.pod_records(pods))


def test_a_job_is_admitted_when_the_audit_log_says_and_never_without_an_admission_step():
    pods = [pod("x-00000", 0, 0.5, 1.0)]
    specs = [job("x-00000"), job("y-00000")]
    jobs = r.job_records(specs, {"x-00000": T0}, pods, {"x-00000": T0 + 300_000, "z-00000": T0})
    assert [j["admitted_us"] for j in jobs] == [T0 + 300_000, None]
    (x, _) = r.job_rows(jobs, r.pod_records(pods))
    assert x["admitted"] == "2027-01-15T08:00:00.300000Z"
    assert [j["admitted_us"] for j in r.job_records(specs, {"x-00000": T0}, pods, None)] == [None, None]


def test_jobs_csv_has_each_milestone_and_the_time_to_all_bound():
    pods = r.pod_records([pod("x-00000", 0, 0.5, 1.0), pod("x-00000", 1, 0.5, 2.25), pod("y-00000", 0, 3.0, None)])
    jobs = r.job_records([job("x-00000", gang=True), job("y-00000", tenant="b", priority=5)], {"x-00000": T0}, pods)
    x, y = r.job_rows(jobs, pods)
    assert x["created"] == "2027-01-15T08:00:00.000000Z" and x["first_pod_created"] == "2027-01-15T08:00:00.500000Z"
    assert (x["first_bound"], x["all_bound"], x["all_bound_ms"], x["gang"]) == (
        "2027-01-15T08:00:01.000000Z", "2027-01-15T08:00:02.250000Z", "2250.000", "true")
    assert (y["tenant"], y["priority"], y["first_bound"], y["all_bound"], y["all_bound_ms"], y["admitted"]) == (
        "b", 5, "", "", "", "")
    # The gang held both pods from 2.25 s on; a job that is no gang has no such time.
    assert (x["full_gang_ms"], y["full_gang_ms"]) == ("2250.000", "")
    assert list(x) == r.JOB_FIELDS


def test_the_scenarios_pods_csv_carries_tenant_and_priority():
    jobs = [job("x-00000", tenant="b", priority=7)]
    (row,) = r.scenario_pod_rows([pod("x-00000", 0, 0, 1)], jobs)
    assert (row["tenant"], row["priority"], row["latency_ms"]) == ("b", 7, "1000.000")
    assert list(row) == r.SCENARIO_POD_FIELDS


def test_the_summary_names_the_scenario_and_skips_the_promises_of_what_is_unsupported(tmp_path):
    path = tmp_path / "two.yml"
    path.write_text("""\
description: two tenants that share one node
cluster: {nodes: 1, node_cpu: "2", node_memory: 4Gi, node_pods: 10}
tenants: [{name: a, weight: 1}, {name: b, weight: 1}]
thresholds: {fairness_error: 0.1}
phases:
  - name: p
    groups:
      - {name: x, tenant: a, jobs: 1, pods_per_job: 2, pod_cpu: "1", pod_memory: 1Gi, pod_duration: 10, arrival: {kind: at_once}}
      - {name: y, tenant: b, jobs: 1, pods_per_job: 2, pod_cpu: "1", pod_memory: 1Gi, pod_duration: 10, arrival: {kind: at_once}}
""")
    scenario, problems = scenarios.load(str(path))
    assert problems == []
    specs = scenarios.expand(scenario)
    # Tenant a holds the whole node for 10 s, then b: a fairness error of 0.5 all along.
    pods = r.pod_records([pod("x-00000", 0, 0, 0), pod("x-00000", 1, 0, 0), pod("y-00000", 0, 0, 10),
                          pod("y-00000", 1, 0, 10)])
    jobs = r.job_records(specs, {}, pods)
    summary = r.scenario_summary(scenario, jobs, pods, [])
    assert summary["scenario"] == "two" and summary["unsupported"] == []
    assert summary["scenario_metrics"]["fair_share"]["fairness_error"] == 0.5
    assert summary["findings"] == ["the fairness error 0.500 is above fairness_error=0.1 (Jain's index 0.500)"]
    unsupported = r.scenario_summary(scenario, jobs, pods, ["fair_share"])
    assert unsupported["findings"] == [] and unsupported["unsupported"] == ["fair_share"]


def test_a_gang_whose_pods_never_ran_together_was_never_full():
    # 2-pod gang: a pod bound at 1 s ends at 3 s (preempted), the other is bound at 5 s: all bound, never whole.
    first = dict(pod("g-00000", 0, 0.5, 1.0), ended_us=T0 + 3 * S)
    pods = r.pod_records([first, pod("g-00000", 1, 0.5, 5.0)])
    jobs = r.job_records([job("g-00000", gang=True)], {"g-00000": T0}, pods)
    (row,) = r.job_rows(jobs, pods)
    assert row["full_gang_ms"] == ""


def test_pods_csv_says_how_and_when_each_pod_ended():
    """A pod's end: preempted (deleted before its 10 s were up), deleted (never bound), completed (the watch saw it
    finish), or still there when measured (the clean-up removes it)."""
    jobs = [job("x-00000", pods=4)]
    pods = [dict(pod("x-00000", 0, 0, 1), ended_us=T0 + 5 * S, completed_us=None),
            dict(pod("x-00000", 1, 0, None), ended_us=T0 + 2 * S),
            dict(pod("x-00000", 2, 0, 1), completed_us=T0 + 11 * S),
            dict(pod("x-00000", 3, 0, 1))]
    rows = r.scenario_pod_rows(r.pod_records(pods), jobs)
    assert [(row["how_ended"], row["ended"]) for row in rows] == [
        ("preempted", "2027-01-15T08:00:05.000000Z"), ("deleted", "2027-01-15T08:00:02.000000Z"),
        ("completed", "2027-01-15T08:00:11.000000Z"), ("cleanup", "")]
    assert {row["how_ended"] for row in rows} == set(r.ENDINGS)
    # Deleted after its duration, finished or not: not preempted, and the deletion (a record the metrics read) is
    # what pods.csv keeps.
    late = dict(pod("x-00000", 4, 0, 1), ended_us=T0 + 12 * S, completed_us=T0 + 11 * S)
    assert r.how_ended(late, jobs[0]) == ("deleted", T0 + 12 * S)
    assert r.how_ended(dict(late, completed_us=None), jobs[0]) == ("deleted", T0 + 12 * S)


def test_jobs_csv_has_each_jobs_pod_requests_and_duration():
    (row,) = r.job_rows(r.job_records([job("x-00000")], {}, []), [])
    assert (row["pod_millicores"], row["pod_memory_bytes"], row["pod_duration"]) == (1000, 2 ** 30, 10.0)


def test_a_held_backlogs_true_creations_stay_in_pods_csv_and_jobs_csv():
    """docs/metrics.md#a-held-backlog: the files time every held creation from the release and keep the true one in
    held_created; the watch's completion has a column of its own, also for a pod deleted afterwards."""
    release = T0 + 2 * S
    measured = [dict(pod("x-00000", 0, 0.5, 2.5), ended_us=None, completed_us=T0 + 12 * S),
                dict(pod("x-00000", 1, 0.7, 3.0), ended_us=T0 + 14 * S, completed_us=T0 + 13 * S),
                dict(pod("y-00000", 0, 2.5, None), ended_us=None, completed_us=None)]
    records, created, _, backlog, held = audit.from_release(measured, {"x-00000": T0 + 300_000}, None, release)
    pods = r.pod_records(records)
    jobs = r.job_records([job("x-00000"), job("y-00000")], created, pods, None, held)
    rows = r.scenario_pod_rows(records, jobs)
    assert [(row["created"], row["held_created"]) for row in rows] == [
        ("2027-01-15T08:00:02.000000Z", "2027-01-15T08:00:00.500000Z"),
        ("2027-01-15T08:00:02.000000Z", "2027-01-15T08:00:00.700000Z"), ("2027-01-15T08:00:02.500000Z", "")]
    assert [(row["how_ended"], row["completed"]) for row in rows] == [
        ("completed", "2027-01-15T08:00:12.000000Z"), ("deleted", "2027-01-15T08:00:13.000000Z"), ("cleanup", "")]
    job_rows = r.job_rows(jobs, pods)
    assert [(row["created"], row["held_created"]) for row in job_rows] == [
        ("2027-01-15T08:00:02.000000Z", "2027-01-15T08:00:00.300000Z"), ("2027-01-15T08:00:02.500000Z", "")]
    # The backlog's figures follow from the two columns.
    held_times = [row["held_created"] for row in rows + job_rows if row["held_created"]]
    assert (backlog["pods_held"], backlog["jobs_held"]) == (2, 1)
    assert (backlog["created_from"], backlog["created_until"]) == (min(held_times), max(held_times))
