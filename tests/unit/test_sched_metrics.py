"""Metrics from audit-log lines the tests write themselves."""
import json

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as m

NS = "bench"


def event(verb, resource, ts, name=None, sub=None, ns=NS, code=201, response_name=None, owner=None,
          node=None, stage="ResponseComplete"):
    ref = {"resource": resource, "namespace": ns, "apiVersion": "v1"}
    if name:
        ref["name"] = name
    if sub:
        ref["subresource"] = sub
    ev = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "RequestResponse", "stage": stage,
          "verb": verb, "objectRef": ref, "responseStatus": {"code": code},
          "requestReceivedTimestamp": ts, "stageTimestamp": ts}
    if response_name:
        meta = {"name": response_name, "namespace": ns}
        if owner:
            meta["ownerReferences"] = [{"kind": "Job", "name": owner}]
        ev["responseObject"] = {"metadata": meta}
    if node:
        ev["requestObject"] = {"target": {"kind": "Node", "name": node}}
    return ev


def write_log(path, events):
    with open(path, "w", encoding="utf-8") as out:
        for ev in events:
            out.write(json.dumps(ev, separators=(",", ":")) + "\n")


def test_parse_time_keeps_microseconds():
    assert m.parse_time_us("1970-01-01T00:00:01.000001Z") == 1_000_001
    assert m.format_time_us(1_000_001) == "1970-01-01T00:00:01.000001Z"


def test_parse_time_accepts_offsets():
    assert m.parse_time_us("1970-01-01T01:00:00.5+01:00") == 500_000


def test_audit_times_pair_creation_and_first_binding(tmp_path):
    log = tmp_path / "audit.log"
    write_log(log, [
        event("create", "jobs", "2026-01-01T00:00:00.000000Z", response_name="job-1"),
        event("create", "pods", "2026-01-01T00:00:00.100000Z", response_name="job-1-a", owner="job-1"),
        event("create", "pods", "2026-01-01T00:00:00.200000Z", response_name="job-1-b", owner="job-1"),
        # A conflicting binding attempt is ignored; the first successful one counts.
        event("create", "pods", "2026-01-01T00:00:00.250000Z", name="job-1-a", sub="binding", code=409),
        event("create", "pods", "2026-01-01T00:00:00.300000Z", name="job-1-a", sub="binding", node="n1"),
        event("create", "pods", "2026-01-01T00:00:00.900000Z", name="job-1-a", sub="binding", node="n2"),
        # Other namespaces and other stages do not count.
        event("create", "pods", "2026-01-01T00:00:00.400000Z", name="job-1-b", sub="binding", ns="other"),
        event("create", "pods", "2026-01-01T00:00:00.400000Z", name="job-1-b", sub="binding",
              stage="RequestReceived"),
    ])
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events(m.audit_log_files(str(log)), NS):
        times.add(ev)
    rows = times.records()
    assert [r["pod"] for r in rows] == ["job-1-a", "job-1-b"]
    assert rows[0]["job"] == "job-1"
    assert rows[0]["node"] == "n1"
    assert rows[0]["bound_us"] - rows[0]["created_us"] == 200_000
    assert rows[1]["bound_us"] is None
    assert list(times.job_created.values()) == [m.parse_time_us("2026-01-01T00:00:00Z")]


def test_a_job_is_created_when_its_create_was_received():
    """The job controller's pod can complete before the Job's create answers (seen in CI, 6 ms): the Job counts
    from the request's arrival, which its pods cannot precede; pods keep their completion stamps."""
    job = event("create", "jobs", "2026-01-01T00:00:00.106000Z", response_name="job-1")
    job["requestReceivedTimestamp"] = "2026-01-01T00:00:00.090000Z"
    pod = event("create", "pods", "2026-01-01T00:00:00.100000Z", response_name="job-1-a", owner="job-1")
    pod["requestReceivedTimestamp"] = "2026-01-01T00:00:00.098000Z"
    times = m.AuditTimes(NS)
    for ev in (job, pod):
        times.add(ev)
    assert times.job_created == {"job-1": m.parse_time_us("2026-01-01T00:00:00.090000Z")}
    assert times.records()[0]["created_us"] == m.parse_time_us("2026-01-01T00:00:00.100000Z")
    assert times.job_created["job-1"] <= times.records()[0]["created_us"]


def test_a_pods_first_deletion_ends_it(tmp_path):
    """A preempted pod: the scheduler's delete, then kwok's; the first one counts. Other pods have no end."""
    log = tmp_path / "audit.log"
    write_log(log, [
        event("create", "pods", "2026-01-01T00:00:00.000000Z", response_name="job-1-a", owner="job-1"),
        event("create", "pods", "2026-01-01T00:00:00.000000Z", response_name="job-1-b", owner="job-1"),
        event("create", "pods", "2026-01-01T00:00:01.000000Z", name="job-1-a", sub="binding", node="n1"),
        event("delete", "pods", "2026-01-01T00:00:03.000000Z", name="job-1-a", code=200),
        event("delete", "pods", "2026-01-01T00:00:03.500000Z", name="job-1-a", code=200),
        event("delete", "pods", "2026-01-01T00:00:04.000000Z", name="job-1-b", code=404),
    ])
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events(m.audit_log_files(str(log)), NS):
        times.add(ev)
    ended = {row["pod"]: row["ended_us"] for row in times.records()}
    assert ended == {"job-1-a": m.parse_time_us("2026-01-01T00:00:03Z"), "job-1-b": None}


def test_pods_without_a_job_are_timed_from_the_first_pod_and_grouped_by_their_job_label(tmp_path):
    """bench_pod_creation=direct: no Job is created, so a job's creation is its first pod's."""
    log = tmp_path / "audit.log"
    created = [event("create", "pods", "2026-01-01T00:00:0%d.000000Z" % second, response_name="job-00001-%d" % pod)
               for pod, second in ((0, 1), (1, 2))]
    for ev in created:
        ev["responseObject"]["metadata"]["labels"] = {"sched-bench.io/job": "job-00001"}
    write_log(log, created + [
        event("create", "pods", "2026-01-01T00:00:03.000000Z", name="job-00001-%d" % pod, sub="binding", node="n1")
        for pod in (0, 1)])
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events(m.audit_log_files(str(log)), NS):
        times.add(ev)
    assert times.job_created == {}
    assert [(row["job"], row["pod"]) for row in times.records()] == [("job-00001", "job-00001-0"),
                                                                     ("job-00001", "job-00001-1")]
    summary, _ = m.summarize(times.records(), [], expected_pods=2, submit_window_s=1.0, jobs_submitted=1)
    assert summary["start"] == "2026-01-01T00:00:01.000000Z"
    assert summary["makespan_s"] == pytest.approx(2.0)


@pytest.mark.parametrize("meta,job", [
    ({"ownerReferences": [{"kind": "Job", "name": "job-00002"}], "labels": {"job-name": "other"}}, "job-00002"),
    ({"labels": {"job-name": "job-00003"}}, "job-00003"),
    ({"labels": {"volcano.sh/job-name": "job-00004"}}, "job-00004"),
    ({"ownerReferences": [{"kind": "ReplicaSet", "name": "rs"}], "labels": {"sched-bench.io/job": "job-00005"}},
     "job-00005"),
    ({"labels": {}}, ""),
])
def test_the_job_of_a_pod(meta, job):
    assert m.job_of(meta) == job


def test_rotated_backups_are_read_oldest_first(tmp_path):
    (tmp_path / "audit-2026-01-01T00-00-02.000.log").write_text("")
    (tmp_path / "audit-2026-01-01T00-00-01.000.log").write_text("")
    (tmp_path / "audit.log").write_text("")
    (tmp_path / "unrelated.log").write_text("")
    files = [p.split("/")[-1] for p in m.audit_log_files(str(tmp_path / "audit.log"))]
    assert files == ["audit-2026-01-01T00-00-01.000.log", "audit-2026-01-01T00-00-02.000.log", "audit.log"]


def test_events_split_over_rotation_are_joined(tmp_path):
    write_log(tmp_path / "audit-2026-01-01T00-00-01.000.log", [
        event("create", "pods", "2026-01-01T00:00:00.100000Z", response_name="p", owner="j")])
    write_log(tmp_path / "audit.log", [
        event("create", "pods", "2026-01-01T00:00:00.150000Z", name="p", sub="binding", node="n")])
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events(m.audit_log_files(str(tmp_path / "audit.log")), NS):
        times.add(ev)
    (row,) = times.records()
    assert row["bound_us"] - row["created_us"] == 50_000


def test_truncated_line_is_skipped(tmp_path):
    log = tmp_path / "audit.log"
    write_log(log, [event("create", "pods", "2026-01-01T00:00:00Z", response_name="p")])
    with open(log, "a", encoding="utf-8") as out:
        out.write('{"kind":"Event","objectRef":{"namespace":"%s"' % NS)
    assert len(list(m.read_audit_events([str(log)], NS))) == 1


def test_missing_log_gives_no_files(tmp_path):
    assert m.audit_log_files(str(tmp_path / "nope" / "audit.log")) == []


@pytest.mark.parametrize("values,fraction,expected", [
    ([1, 2, 3, 4], 0.5, 2),          # rank ceil(0.5 x 4) = 2
    ([1, 2, 3, 4], 0.51, 3),         # rank ceil(2.04) = 3
    ([1, 2, 3, 4], 0.0, 1),
    ([1, 2, 3, 4], 1.0, 4),
    ([10], 0.99, 10),
    (list(range(1, 101)), 0.9, 90),  # rank 90 exactly: 0.9 x 100 is not rounded up to 91 by float error
    (list(range(1, 101)), 0.99, 99),
    (list(range(1, 201)), 0.99, 198),
    ([5, 1, 3], 0.5, 3),             # rank ceil(1.5) = 2 of 1, 3, 5
])
def test_percentile_is_the_nearest_rank(values, fraction, expected):
    assert m.percentile(values, fraction) == expected


def test_a_percentile_is_a_value_some_pod_had():
    """The issue's gang run: half the pods bound within about 170 ms, the other half after about 29 s. An
    interpolated median (14.5 s) is a latency no pod had; the nearest rank is one of the fast half's."""
    latencies = [160.0 + i for i in range(10)] + [29_000.0 + i for i in range(10)]
    assert m.percentile(latencies, 0.5) == 169.0
    assert all(m.percentile(latencies, q) in latencies for q in (0.5, 0.9, 0.99))


def test_percentile_of_nothing_is_none():
    assert m.percentile([], 0.5) is None
    assert m.latency_summary([])["p99"] is None


def test_percentile_rejects_bad_fraction():
    with pytest.raises(ValueError):
        m.percentile([1], 1.5)


def rec(pod, created_s, bound_s):
    return {"job": "j", "pod": pod, "node": "n", "created_us": int(created_s * 1e6),
            "bound_us": None if bound_s is None else int(bound_s * 1e6)}


def test_summarize_counts_makespan_throughput_and_peak():
    records = [rec("a", 10.0, 10.1), rec("b", 10.2, 10.4), rec("c", 10.3, 11.5), rec("d", 10.4, None)]
    summary, timeline = m.summarize(records, [int(9.5e6)], expected_pods=4, submit_window_s=0.5,
                                    jobs_submitted=2)
    assert summary["pods_created"] == 4
    assert summary["pods_bound"] == 3
    assert summary["makespan_s"] == pytest.approx(2.0)          # 9.5 (first job) -> 11.5 (last bind)
    assert summary["throughput_pods_per_s"] == pytest.approx(1.5)
    assert summary["peak_throughput_pods_per_s"] == 2           # a and b bound in second 0 after 9.5
    assert summary["latency_ms"]["max"] == pytest.approx(1200.0)
    assert summary["latency_ms"]["p50"] == pytest.approx(200.0)
    assert summary["submit_rate_jobs_per_s"] == pytest.approx(4.0)
    assert [row["bound_total"] for row in timeline] == [2, 2, 3]   # c binds at 11.5, second 2
    assert timeline[-1]["created_total"] == 4


def test_the_peak_window_slides_over_the_seconds():
    # Bound at 0.9, 1.1 and 1.8 s: whole seconds after the start hold 1 and 2; the window (0.8, 1.8] holds all 3.
    assert m.peak_throughput([int(0.9e6), int(1.1e6), int(1.8e6)], 1.0) == 3.0
    # A window is shorter than one second: (0.0, 1.0] does not hold a binding at 0.0.
    assert m.peak_throughput([0, int(1e6)], 1.0) == 1.0


def test_the_peak_is_never_below_the_mean():
    # The issue's first run: 153 pods bound over 1.6 s. Half at the start and half at the end: no one-second
    # window holds more than 77, the mean is 95.6 pods/s, and the peak is the mean.
    bound = [0] * 76 + [int(1.6e6)] * 77
    assert m.peak_throughput(bound, round(153 / 1.6, 3)) == 95.625
    # Shorter than a second: 10 pods in 0.5 s is 20 pods/s, though a window holds only 10.
    assert m.peak_throughput([int(i * 5e4) for i in range(10)], 20.0) == 20.0
    assert m.peak_throughput([], None) is None


def test_timeline_keeps_empty_seconds():
    rows = m.timeline([rec("a", 0.1, 0.2), rec("b", 0.3, 3.4)], 0)
    assert [row["bound"] for row in rows] == [1, 0, 0, 1]


def test_summarize_without_any_pod():
    summary, timeline = m.summarize([], [], expected_pods=3, submit_window_s=None, jobs_submitted=0)
    assert summary["pods_bound"] == 0
    assert summary["makespan_s"] is None
    assert summary["throughput_pods_per_s"] is None
    assert timeline == []


def test_pod_rows_format():
    (row,) = m.pod_rows([rec("a", 1.0, 1.0125)])
    assert row["latency_ms"] == "12.500"
    assert row["created"] == "1970-01-01T00:00:01.000000Z"
    (row,) = m.pod_rows([rec("b", 1.0, None)])
    assert row["bound"] == "" and row["latency_ms"] == ""


def _rows(created, bound):
    """Timeline rows from pods created and bound per second."""
    rows, created_total, bound_total = [], 0, 0
    for second, (made, placed) in enumerate(zip(created, bound)):
        created_total += made
        bound_total += placed
        rows.append({"second": second, "created": made, "created_total": created_total, "bound": placed,
                     "bound_total": bound_total, "backlog": created_total - bound_total})
    return rows


def test_timeline_counts_the_backlog_of_created_but_unbound_pods():
    second = m.US
    records = [{"created_us": 0, "bound_us": 2 * second}, {"created_us": 0, "bound_us": None},
               {"created_us": second, "bound_us": second}]
    assert [row["backlog"] for row in m.timeline(records, 0)] == [2, 2, 1]


def test_a_scheduler_that_keeps_up_is_limited_by_pod_creation():
    # 10 pods a second for 10 s, each bound in the same second: backlog 0.
    stage = m.limiting_stage(_rows([10] * 10, [10] * 10), 10.0, 0.5, 0.0)
    assert stage["stage"] == "pod creation"
    assert (stage["backlog_max"], stage["created_per_s"], stage["bound_per_s"]) == (0, 10.0, 10.0)
    assert "created at 10.0/s and bound at 10.0/s" in stage["evidence"]
    assert m.limiting_stage(_rows([10] * 10, [10] * 10), 10.0, 0.5, 0.0, "admission")["stage"] == "admission"


def test_pods_the_load_test_creates_itself_have_no_pod_creation_stage():
    """With bench_pod_creation=direct, a scheduler that kept up was paced by the submission, even a short one;
    a growing backlog is still the scheduler's."""
    stage = m.limiting_stage(_rows([10] * 10, [10] * 10), 10.0, 0.5, 0.0, "load test")
    assert stage["stage"] == "submission"
    assert stage["evidence"].startswith("the load test created the pods itself (bench_pod_creation=direct)")
    assert m.limiting_stage(_rows([100] + [0] * 9, [10] * 10), 10.0, 0.5, 0.0, "load test")["stage"] == "scheduling"


def test_a_growing_backlog_means_scheduling_and_a_long_submission_or_a_bound_come_first():
    # 100 pods at once, 10 bound a second: the backlog averages 45 pods, 4.5 s of throughput.
    rows = _rows([100] + [0] * 9, [10] * 10)
    assert m.limiting_stage(rows, 10.0, 0.5, 0.0)["stage"] == "scheduling"
    assert m.limiting_stage(rows, 10.0, 0.5, 0.0)["backlog_mean"] == 45.0
    assert m.limiting_stage(rows, 10.0, 6.0, 0.0)["stage"] == "submission"
    assert m.limiting_stage(rows, 10.0, 6.0, 5.0)["stage"] == "capacity"
    assert m.limiting_stage([], None, None, 0.0)["stage"] is None


def _log_with_noise(path, pods, noise_per_pod):
    """A run of ``pods`` pods (job, pod, binding) with ``noise_per_pod`` status patches of 2 kB each per pod."""
    status = {"status": {"conditions": [{"type": "Ready", "status": "True", "message": "x" * 2000}]}}
    with open(path, "w", encoding="utf-8") as out:
        for index in range(pods):
            ts = "2026-01-01T00:00:%02d.%06dZ" % (index // 1000, index % 1000)
            lines = [event("create", "jobs", ts, response_name="job-%d" % index),
                     event("create", "pods", ts, response_name="pod-%d" % index, owner="job-%d" % index),
                     event("create", "pods", ts, name="pod-%d" % index, sub="binding", node="n1")]
            for _ in range(noise_per_pod):
                noise = event("patch", "pods", ts, name="pod-%d" % index, sub="status", code=200)
                noise["requestObject"] = status
                lines.append(noise)
            for ev in lines:
                out.write(json.dumps(ev, separators=(",", ":")) + "\n")


def _analysis_peak_bytes(path):
    import tracemalloc
    tracemalloc.start()
    try:
        times = m.AuditTimes(NS)
        for ev in m.read_audit_events(m.audit_log_files(str(path)), NS):
            times.add(ev)
        rows = times.records()
        return tracemalloc.get_traced_memory()[1], rows
    finally:
        tracemalloc.stop()


def test_the_analysis_memory_follows_the_pods_not_the_size_of_the_log(tmp_path):
    # The same 300 pods, once with a little of the other traffic a run logs and once with 40 times
    # as much: the log grows about 35-fold, the analysis' peak memory must not follow it.
    small, large = tmp_path / "small" / "audit.log", tmp_path / "large" / "audit.log"
    small.parent.mkdir()
    large.parent.mkdir()
    _log_with_noise(small, 300, 1)
    _log_with_noise(large, 300, 40)
    assert large.stat().st_size > 20 * small.stat().st_size
    small_peak, small_rows = _analysis_peak_bytes(small)
    large_peak, large_rows = _analysis_peak_bytes(large)
    assert small_rows == large_rows and len(small_rows) == 300
    # Holding the large log (or its parsed events) would cost its whole size, over 20 MB.
    assert large_peak < 2 * small_peak, (small_peak, large_peak, large.stat().st_size)


def admission_event(verb, resource, ts, name, sent, group="batch", sub=None, code=200):
    """An update or patch as the audit policy logs it: the object (or patch) sent, with managedFields that name a
    status subresource, as the API server's own objects carry."""
    ref = {"resource": resource, "namespace": NS, "name": name, "apiGroup": group, "apiVersion": "v1"}
    if sub:
        ref["subresource"] = sub
    sent = dict(sent, metadata=dict(sent.get("metadata", {}), managedFields=[{"manager": "m", "subresource": "status"}]))
    return {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "RequestResponse", "stage": "ResponseComplete",
            "verb": verb, "objectRef": ref, "responseStatus": {"code": code}, "requestObject": sent,
            "requestReceivedTimestamp": ts, "stageTimestamp": ts}


def admitted_after_reading(tmp_path, events):
    write_log(tmp_path / "audit.log", events)
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events(m.audit_log_files(str(tmp_path / "audit.log")), NS):
        times.add(ev)
    return {job: m.format_time_us(us) for job, us in times.job_admitted.items()}


def test_kueue_admits_a_job_when_it_unsuspends_it(tmp_path):
    """The first patch or update of the Job itself with spec.suspend false; not a re-suspension, not a refused
    patch, not a later re-admission after preemption."""
    assert admitted_after_reading(tmp_path, [
        admission_event("patch", "jobs", "2026-01-01T00:00:01Z", "job-1", {"spec": {"suspend": True}}),
        admission_event("patch", "jobs", "2026-01-01T00:00:02Z", "job-1", {"spec": {"suspend": False}}, code=409),
        admission_event("patch", "jobs", "2026-01-01T00:00:03Z", "job-1", {"spec": {"suspend": False}}),
        admission_event("patch", "jobs", "2026-01-01T00:00:04Z", "job-1", {"spec": {"suspend": True}}),
        admission_event("update", "jobs", "2026-01-01T00:00:05Z", "job-1", {"spec": {"suspend": False}}),
        admission_event("update", "jobs", "2026-01-01T00:00:06Z", "job-2", {"spec": {"suspend": False}}),
        # The job controller's status updates do not admit.
        admission_event("update", "jobs", "2026-01-01T00:00:00Z", "job-3", {"spec": {"suspend": False}}, sub="status"),
    ]) == {"job-1": "2026-01-01T00:00:03.000000Z", "job-2": "2026-01-01T00:00:06.000000Z"}


def test_volcano_admits_a_job_when_its_podgroup_is_inqueue(tmp_path):
    """Volcano's scheduler updates the job's PodGroup (owned by the vcjob) from Pending to Inqueue, then Running; a
    PodGroup the load test made (bench_pod_creation direct) has no owner and the job's name."""
    owned = {"ownerReferences": [{"kind": "Job", "name": "job-1"}]}
    assert admitted_after_reading(tmp_path, [
        admission_event("update", "podgroups", "2026-01-01T00:00:01Z", "job-1-uid",
                        {"metadata": owned, "status": {"phase": "Pending"}}, group="scheduling.volcano.sh"),
        admission_event("update", "podgroups", "2026-01-01T00:00:02Z", "job-1-uid",
                        {"metadata": owned, "status": {"phase": "Inqueue"}}, group="scheduling.volcano.sh"),
        admission_event("update", "podgroups", "2026-01-01T00:00:03Z", "job-1-uid",
                        {"metadata": owned, "status": {"phase": "Running"}}, group="scheduling.volcano.sh"),
        admission_event("update", "podgroups", "2026-01-01T00:00:04Z", "job-2",
                        {"status": {"phase": "Running"}}, group="scheduling.volcano.sh"),
        # coscheduling's PodGroups are not an admission.
        admission_event("update", "podgroups", "2026-01-01T00:00:05Z", "job-3",
                        {"status": {"phase": "Running"}}, group="scheduling.x-k8s.io"),
    ]) == {"job-1": "2026-01-01T00:00:02.000000Z", "job-2": "2026-01-01T00:00:04.000000Z"}


def test_the_release_marker_of_a_held_backlog_is_read_from_the_audit_log(tmp_path):
    path = tmp_path / "audit.log"
    write_log(path, [
        event("create", "pods", "2026-12-04T10:00:01.000000Z", response_name="p1"),
        event("create", "configmaps", "2026-12-04T10:00:02.500000Z", name="sched-bench-release"),
        event("create", "configmaps", "2026-12-04T10:00:02.600000Z", name="sched-bench-release", ns="other"),
        event("create", "pods", "2026-12-04T10:00:02.700000Z", name="p1", sub="binding", node="n1"),
    ])
    times = m.AuditTimes(NS)
    for ev in m.read_audit_events([str(path)], NS):
        times.add(ev)
    assert times.released_us == m.parse_time_us("2026-12-04T10:00:02.500000Z")
    assert m.AuditTimes(NS).released_us is None


def test_a_held_backlog_is_timed_from_its_release():
    release = int(20e6)
    records = [rec("a", 10.0, 20.5), rec("b", 12.0, 21.0), rec("c", 22.0, 22.5), rec("d", 11.0, None)]
    shifted, jobs, admitted, backlog, held = m.from_release(records, {"j1": int(9e6), "j2": int(23e6)}, None, release)
    assert [row["created_us"] for row in shifted] == [release, release, int(22e6), release]
    assert [row["created_us"] for row in records][:2] == [int(10e6), int(12e6)]   # the input is left alone
    assert jobs == {"j1": release, "j2": int(23e6)}
    # The true times stay beside the shifted ones (pods.csv's and jobs.csv's held_created).
    assert [row["held_created_us"] for row in shifted] == [int(10e6), int(12e6), None, int(11e6)]
    assert held == {"j1": int(9e6)}
    assert admitted is None
    assert backlog == {"release": "1970-01-01T00:00:20.000000Z", "pods_held": 3, "jobs_held": 1,
                       "created_from": "1970-01-01T00:00:09.000000Z", "created_until": "1970-01-01T00:00:12.000000Z",
                       "bound_before_release": 0}
    summary, _ = m.summarize(shifted, list(jobs.values()), 4, 1.0, 2)
    assert summary["start"] == "1970-01-01T00:00:20.000000Z"
    assert summary["makespan_s"] == pytest.approx(2.5)
    assert summary["latency_ms"]["max"] == pytest.approx(1000.0)


def test_a_binding_before_the_release_is_counted():
    _, _, _, backlog, _ = m.from_release([rec("a", 1.0, 1.5), rec("b", 1.0, 3.0)], {}, {}, int(2e6))
    assert backlog["bound_before_release"] == 1


def test_a_held_backlog_of_pods_is_limited_by_scheduling_even_when_bound_within_the_second():
    # 60 pods there at the release, all bound in its first second: nothing but the scheduler set the pace.
    stage = m.limiting_stage(_rows([60], [60]), 0.4, None, 0.0, "held backlog")
    assert stage["stage"] == "scheduling"
    assert stage["evidence"].startswith("every pod existed at the release of the held backlog")
    assert m.limiting_stage(_rows([60], [60]), 0.4, None, 0.3, "held backlog")["stage"] == "capacity"


def test_a_run_limited_by_submission_on_a_saturated_host_says_the_cores_set_the_pace():
    stage = {"stage": "submission", "evidence": "submitting the jobs took 16.6 s of the 16.7 s makespan"}
    saturated = m.with_host_cpu(stage, {"own_cpu_percent": 91.2, "other_cpu_percent": 8.0})
    assert saturated["stage"] == "submission"
    assert saturated["evidence"] == (
        "submitting the jobs took 16.6 s of the 16.7 s makespan; the host's CPUs were 99 % busy (the benchmark's own "
        "processes 91 %), so the cores shared by the API server, the scheduler and the load generator set the pace, "
        "not the load generator alone (more bench_submit_processes cannot help on this host)")
    # Below the threshold, another stage, or no /proc: as it was.
    assert m.with_host_cpu(stage, {"own_cpu_percent": 60.0, "other_cpu_percent": 20.0}) == stage
    scheduling = dict(stage, stage="scheduling")
    assert m.with_host_cpu(scheduling, {"own_cpu_percent": 99.0, "other_cpu_percent": 1.0}) == scheduling
    assert m.with_host_cpu(stage, None) == stage


def test_a_log_at_the_lighter_policys_levels_gives_the_same_times_as_one_with_every_object():
    """The same run logged under the earlier policy (request and response of every write of pods, bindings and Jobs)
    and under AUDIT_POLICY (the response only for a pod's creation, the request for a binding and an admitting
    update, metadata for the rest): the records, the Jobs' creations and admissions are the same."""
    def run(light):
        job = event("create", "jobs", "2026-01-01T00:00:00.000000Z", name="job-1",
                    response_name=None if light else "job-1")
        unsuspend = event("update", "jobs", "2026-01-01T00:00:00.050000Z", name="job-1", code=200)
        unsuspend["requestObject"] = {"spec": {"suspend": False}}
        if not light:
            unsuspend["responseObject"] = {"metadata": {"name": "job-1"}, "spec": {"suspend": False}}
        binding = event("create", "pods", "2026-01-01T00:00:00.300000Z", name="job-1-a", sub="binding", node="n1")
        delete = event("delete", "pods", "2026-01-01T00:00:01.000000Z", name="job-1-a", code=200)
        if not light:
            binding["responseObject"] = {"kind": "Status", "status": "Success"}
            delete["responseObject"] = {"metadata": {"name": "job-1-a"}}
        events = [job, unsuspend,
                  event("create", "pods", "2026-01-01T00:00:00.100000Z", response_name="job-1-a", owner="job-1"),
                  binding, delete]
        times = m.AuditTimes(NS)
        for each in events:
            times.add(each)
        return times.records(), times.job_created, times.job_admitted

    light, full = run(light=True), run(light=False)
    assert light == full
    assert light[0] == [{"job": "job-1", "pod": "job-1-a", "node": "n1", "created_us": m.parse_time_us(
        "2026-01-01T00:00:00.100000Z"), "bound_us": m.parse_time_us("2026-01-01T00:00:00.300000Z"),
        "ended_us": m.parse_time_us("2026-01-01T00:00:01.000000Z")}]
    assert light[1] == {"job-1": m.parse_time_us("2026-01-01T00:00:00.000000Z")}
    assert light[2] == {"job-1": m.parse_time_us("2026-01-01T00:00:00.050000Z")}
