"""Scenario metrics and findings on small timelines whose answers are worked out by hand in the comments."""
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import findings as f
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import metrics as m
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as scenarios

S = 1_000_000  # one second in microseconds
GI = 2 ** 30


def job(name, tenant="default", priority=0, gang=False, pods=1, cpu=1000, memory=GI, duration=100.0, created=0.0,
        admitted=None, arrival=0.0):
    return {"name": name, "tenant": tenant, "priority": priority, "gang": gang, "pods_per_job": pods,
            "pod_millicores": cpu, "pod_memory_bytes": memory, "pod_duration": duration, "arrival_s": arrival,
            "created_us": int(created * S), "admitted_us": None if admitted is None else int(admitted * S)}


def pod(job_name, name, created=0.0, bound=None, ended=None, node="n0"):
    return {"job": job_name, "pod": name, "node": node, "created_us": int(created * S),
            "bound_us": None if bound is None else int(bound * S), "ended_us": None if ended is None else int(ended * S)}


def cluster(nodes=1, cpu="4", memory="16Gi", pods=110):
    return {"nodes": nodes, "node_cpu": cpu, "node_memory": memory, "node_pods": pods}


def test_breakdown_gives_each_stage_since_the_job_was_created():
    # Kueue-like job: created 10 s, admitted 11 s, first pod created 11.5 s, first bound 12 s, second bound 13.5 s.
    # Since creation: 1000, 1500, 2000 and 3500 ms. The other job has no admission step and one pod never bound.
    jobs = [job("k", pods=2, created=10, admitted=11), job("d", pods=2, created=10)]
    pods = [pod("k", "k-0", 11.5, 12), pod("k", "k-1", 11.6, 13.5), pod("d", "d-0", 10.2, 10.4), pod("d", "d-1", 10.2)]
    rows, summary = m.breakdown(jobs, pods)
    assert rows[0] == {"job": "k", "tenant": "default", "priority": 0, "gang": False, "admitted_ms": 1000.0,
                       "first_pod_created_ms": 1500.0, "first_bound_ms": 2000.0, "all_bound_ms": 3500.0}
    assert rows[1] == {"job": "d", "tenant": "default", "priority": 0, "gang": False, "admitted_ms": None,
                       "first_pod_created_ms": 200.0, "first_bound_ms": 400.0, "all_bound_ms": None}
    assert summary["jobs"] == 2 and summary["jobs_all_bound"] == 1
    # Two first bindings, 2000 and 400 ms: the nearest-rank median is the first of the two, 400 ms.
    assert summary["first_bound_ms"]["p50"] == 400.0
    assert summary["admitted_ms"]["max"] == 1000.0


def gang_timeline():
    # Gang g (4 pods, created 0 s): pods bound at 2, 2, 5 and 12 s, so full at 12 s: time to full gang 12000 ms.
    #   Partial from 2 to 12 s = 10 s; pod-seconds: 2 pods x 3 s (2..5) + 3 pods x 7 s (5..12) = 6 + 21 = 27.
    # Gang h (2 pods, created 1 s): one pod bound at 4 s, the other never; the run ends at 20 s.
    #   Partial from 4 to 20 s = 16 s; pod-seconds 1 x 16 = 16. Never full.
    # Exposure: 27 + 16 = 43 pod-seconds; two partial jobs; one full gang.
    jobs = [job("g", gang=True, pods=4, created=0), job("h", gang=True, pods=2, created=1)]
    pods = [pod("g", "g-0", 0.1, 2), pod("g", "g-1", 0.1, 2), pod("g", "g-2", 0.1, 5), pod("g", "g-3", 0.1, 12),
            pod("h", "h-0", 1.1, 4), pod("h", "h-1", 1.1)]
    return jobs, pods


def test_a_gang_partial_for_a_known_time():
    jobs, pods = gang_timeline()
    assert m.gang_progress(jobs[0], pods[:4], 20 * S) == (12 * S, 10 * S, 27 * S)
    assert m.gang_progress(jobs[1], pods[4:], 20 * S) == (None, 16 * S, 16 * S)
    gang = m.gang_metrics(jobs, pods, 20 * S, stuck_partial_s=12)
    assert gang == {"gang_jobs": 2, "full_gangs": 1, "time_to_full_gang_ms": m.latency_summary([12000.0]),
                    "partial_gang_jobs": 2, "partial_gang_pod_s": 43.0, "stuck_partial_s": 12, "stuck_partial_jobs": ["h"]}
    # With 9 s both are stuck (10 s and 16 s partial); with 16 s neither (not longer than 16).
    assert m.gang_metrics(jobs, pods, 20 * S, stuck_partial_s=9)["stuck_partial_jobs"] == ["g", "h"]
    assert m.gang_metrics(jobs, pods, 20 * S, stuck_partial_s=16)["stuck_partial_jobs"] == []


def test_a_pod_that_finished_does_not_make_a_gang_full_later():
    # Pods of 3 s: the first is bound at 0 s and done at 3 s, the second bound at 4 s: never both at once.
    one = job("g", gang=True, pods=2, duration=3)
    full, partial, pod_us = m.gang_progress(one, [pod("g", "a", 0, 0), pod("g", "b", 0, 4)], 10 * S)
    # Held 1 pod on [0, 3) and on [4, 7) (b is done after its 3 s too): 6 s partial, 6 pod-seconds.
    assert (full, partial, pod_us) == (None, 6 * S, 6 * S)


def stall_timeline():
    # One node of 4 CPU. Gang x (2 pods of 1 CPU, 5 s) bound at 0 s, so released at 5 s. Gang y (4 pods of 1 CPU)
    # created at 1 s fits only once x is gone, but is bound at 30 s: from 5 s to 30 s (25 s) it would have fit.
    jobs = [job("x", gang=True, pods=2, duration=5, created=0), job("y", gang=True, pods=4, duration=5, created=1)]
    pods = [pod("x", "x-%d" % i, 0, 0) for i in range(2)] + [pod("y", "y-%d" % i, 1, 30) for i in range(4)]
    return jobs, pods


@pytest.mark.parametrize("stall_s,stalled", [(10, True), (25, True), (25.5, False)])
def test_a_stall_is_a_quiet_span_while_a_whole_gang_fits(stall_s, stalled):
    jobs, pods = stall_timeline()
    found = m.stalls(jobs, pods, cluster(), 0, 30 * S, stall_s)
    assert found["stalled"] is stalled
    if stalled:
        assert found["stalls"] == [{"from_s": 0.0, "to_s": 30.0, "job": "y"}]


def test_a_stall_needs_room_on_the_nodes_not_only_in_total():
    # Two nodes of 4 CPU with 1 CPU taken on each (a 100 s pod): 6 CPU free in all but 3 on each node.
    # A gang of one 4-CPU pod does not fit; a gang of two 3-CPU pods does (one per node).
    busy = [job("busy", pods=2, created=0)]
    taken = [pod("busy", "b-0", 0, 0, node="n0"), pod("busy", "b-1", 0, 0, node="n1")]
    for pods_per_job, cpu, stalled in ((1, 4000, False), (2, 3000, True)):
        jobs = busy + [job("g", gang=True, pods=pods_per_job, cpu=cpu, created=1)]
        assert m.stalls(jobs, taken, cluster(nodes=2), 0, 60 * S, 20)["stalled"] is stalled


def test_weighted_targets_cap_a_tenant_at_what_it_asks_for():
    # 10 CPU, weights 1:1:2. a asks 1 (less than its 2.5): it gets 1, the 9 left go 1:2 to b and c: 3 and 6.
    assert m.weighted_targets(10, {"a": 1, "b": 1, "c": 2}, {"a": 1, "b": 10, "c": 10}) == {"a": 1.0, "b": 3.0, "c": 6.0}
    # Everyone asks for more than the whole: plain weights.
    assert m.weighted_targets(8, {"a": 1, "b": 3}, {"a": 100, "b": 100}) == {"a": 2.0, "b": 6.0}


def two_tenants():
    # Tenants a and b, weights 1:1, each a job of 4 pods of 1 CPU for 100 s, created at 0 s (both always ask 4 CPU).
    # 0..10 s: a holds 3 CPU, b 1: shares 0.75/0.25 against targets 0.5/0.5: deviation (0.25 + 0.25)/2 = 0.25;
    #   Jain over share/target 1.5 and 0.5: (1.5 + 0.5)^2 / (2 x (2.25 + 0.25)) = 4/5 = 0.8.
    # At 10 s a's third pod is preempted and b's second pod bound: 10..20 s 2 CPU each: deviation 0, Jain 1.
    # Time averages over 20 s: error (0.25 x 10 + 0) / 20 = 0.125; Jain (0.8 x 10 + 1 x 10) / 20 = 0.9;
    #   a's share (0.75 + 0.5)/2 = 0.625, b's 0.375; both targets 0.5.
    jobs = [job("a", tenant="a", pods=4), job("b", tenant="b", pods=4)]
    pods = [pod("a", "a-0", 0, 0), pod("a", "a-1", 0, 0), pod("a", "a-2", 0, 0, ended=10), pod("b", "b-0", 0, 0),
            pod("b", "b-1", 0, 10)]
    return jobs, pods


def test_a_two_tenant_timeline_with_known_shares():
    jobs, pods = two_tenants()
    fair = m.fair_share(jobs, pods, {"a": 1.0, "b": 1.0}, 0, 20 * S)
    assert fair["fairness_error"] == 0.125
    assert fair["jain_index"] == 0.9
    assert fair["covered_s"] == 20.0
    assert fair["tenants"] == {"a": {"weight": 1.0, "share": 0.625, "target": 0.5},
                               "b": {"weight": 1.0, "share": 0.375, "target": 0.5}}
    assert len(fair["series"]) == 20
    assert fair["series"][9] == {"second": 9, "shares": {"a": 0.75, "b": 0.25}, "targets": {"a": 0.5, "b": 0.5}}
    assert fair["series"][10]["shares"] == {"a": 0.5, "b": 0.5}


def test_a_tenant_that_asks_for_little_is_not_deprived():
    # a (weight 1) asks for 1 CPU and holds it; b (weight 1) asks for 8 and holds 3. Capped by demand, a's target is
    # 1 of the 4 allocated and b's 3: shares equal targets, error 0, Jain 1 over the whole 10 s.
    jobs = [job("a", tenant="a", pods=1), job("b", tenant="b", pods=8)]
    pods = [pod("a", "a-0", 0, 0)] + [pod("b", "b-%d" % i, 0, 0) for i in range(3)]
    fair = m.fair_share(jobs, pods, {"a": 1.0, "b": 1.0}, 0, 10 * S)
    assert (fair["fairness_error"], fair["jain_index"]) == (0.0, 1.0)
    assert fair["tenants"]["a"]["target"] == 0.25


def test_a_preemption_with_known_victims():
    # Low job L (4 pods of 1 CPU, 100 s) bound at 1 s. High job H (priority 1000, 2 pods, 30 s) created at 10 s.
    # At 11 s l-2 and l-3 are evicted (ran 10 s each: 20 pod-seconds lost); H's pods are bound at 12 s: H waited
    # 2000 ms. The replacements l-4, l-5 are bound at 42 s. l-0 is deleted at 200 s, after its 100 s: not preempted.
    # L's 4th binding among pods that were not preempted is at 42 s: all bound 42000 ms after its creation.
    jobs = [job("L", pods=4, duration=100, created=0), job("H", priority=1000, pods=2, duration=30, created=10)]
    pods = [pod("L", "l-0", 0.5, 1, ended=200), pod("L", "l-1", 0.5, 1), pod("L", "l-2", 0.5, 1, ended=11),
            pod("L", "l-3", 0.5, 1, ended=11), pod("H", "h-0", 10.5, 12), pod("H", "h-1", 10.5, 12),
            pod("L", "l-4", 11, 42), pod("L", "l-5", 11, 42)]
    priority = m.priority_metrics(jobs, pods)
    assert priority == {"high_priority": 1000, "high_priority_jobs": 1, "high_priority_wait_ms": m.latency_summary([2000.0]),
                        "high_priority_unbound_jobs": [], "pods_preempted": 2, "preempted_pods": ["l-2", "l-3"],
                        "work_lost_pod_s": 20.0}
    rows, _ = m.breakdown(jobs, pods)
    assert rows[0]["all_bound_ms"] == 42000.0
    # One priority only: no priority section.
    assert m.priority_metrics([jobs[0]], pods) is None


def steady_timeline():
    # One job of one pod per second, arriving (and created) at 0..9 s; warm-up 3 s, so the window is [3 s, 9 s): 6 s.
    # Warm-up jobs 0, 1, 2 take 5 s (bound at 5, 6, 7 s: inside the window). Jobs 3..8 take 100, 200, ... 600 ms.
    # Job 9 (created at 9 s) is outside the half-open window.
    # Latency of pods created in the window: 100..600 ms: p50 the 3rd of 6 (300), p99 the 6th (600), max 600.
    # Offered: 6 pods in 6 s = 1.0/s. Bound in the window: 3 warm-up + 6 = 9 pods in 6 s = 1.5/s.
    jobs = [job("j%d" % i, created=i, arrival=i) for i in range(10)]
    pods = [pod("j%d" % i, "p%d" % i, i, i + 5) for i in range(3)]
    pods += [pod("j%d" % i, "p%d" % i, i, i + (i - 2) / 10.0) for i in range(3, 9)]
    pods += [pod("j9", "p9", 9, 9.05)]
    return jobs, pods


def test_a_steady_window_with_a_known_warm_up():
    jobs, pods = steady_timeline()
    steady = m.steady_metrics(jobs, pods, 0, 3.0)
    assert steady["window"] == {"from_s": 3.0, "to_s": 9.0, "warmup_s": 3.0}
    assert steady["latency_ms"]["p50"] == 300.0
    assert steady["latency_ms"]["p99"] == 600.0
    assert steady["latency_ms"]["max"] == 600.0
    assert steady["pods_unbound"] == 0
    assert steady["offered_pods_per_s"] == 1.0
    assert steady["bound_pods_per_s"] == 1.5


def test_a_warm_up_longer_than_the_arrivals_leaves_no_window():
    jobs, pods = steady_timeline()
    steady = m.steady_metrics(jobs, pods, 0, 9.0)
    assert steady["offered_pods_per_s"] is None and steady["latency_ms"]["p99"] is None


def test_peak_allocated_shares_of_a_mixed_load():
    # Two nodes of 4 CPU and 8Gi (8 CPU, 16Gi). A large pod (3 CPU, 6Gi) held 0..10 s, a small one (1 CPU, 1Gi)
    # 5..15 s, another small 10..20 s (the large one's release at 10 s comes before that binding).
    # Peak on 5..10 s: 4 CPU of 8 = 0.5, 7Gi of 16 = 0.4375. CPU-seconds 30 + 10 + 10 = 50 of 8 x 20 = 160: 0.3125.
    jobs = [job("large", cpu=3000, memory=6 * GI, duration=10), job("small", pods=2, cpu=1000, memory=GI, duration=10)]
    pods = [pod("large", "l", 0, 0), pod("small", "s-0", 0, 5), pod("small", "s-1", 0, 10)]
    use = m.utilization(jobs, pods, cluster(nodes=2, cpu="4", memory="8Gi"), 0, 20 * S)
    assert use == {"peak_cpu_share": 0.5, "peak_memory_share": 0.4375, "mean_cpu_share": 0.3125}


def test_findings_list_the_broken_promises_only():
    jobs, pods = gang_timeline()
    metrics = {"gang": m.gang_metrics(jobs, pods, 20 * S, stuck_partial_s=12)}
    metrics["gang"].update(m.stalls(*stall_timeline(), cluster(), 0, 30 * S, 10))
    jobs, pods = two_tenants()
    metrics["fair_share"] = m.fair_share(jobs, pods, {"a": 1.0, "b": 1.0}, 0, 20 * S)
    thresholds = {"stuck_partial_s": 12, "stall_s": 10, "fairness_error": 0.1}
    assert f.findings(thresholds, metrics) == [
        "1 gang jobs stayed partly bound longer than stuck_partial_s=12: h",
        "no pod was bound from 0 s to 30 s while gang job y would have fit the free room (stall_s=10)",
        "the fairness error 0.125 is above fairness_error=0.1 (Jain's index 0.900)"]
    # A looser fairness promise is kept; a scheduler without gangs is not held to the gang promises.
    assert f.findings(dict(thresholds, fairness_error=0.2), metrics, unsupported=("gang",)) == []
    by_scheduler = f.findings_by_scheduler({"fairness_error": 0.1}, {"kueue": metrics, "default": {}},
                                           {"default": ("fair_share",)})
    assert by_scheduler == {"kueue": ["the fairness error 0.125 is above fairness_error=0.1 (Jain's index 0.900)"],
                            "default": []}


def test_a_wait_that_ran_out_is_the_first_finding_and_names_the_waiting_jobs():
    # gang_timeline: g holds its 4 pods at 12 s, h never holds its 2.
    jobs, pods = gang_timeline()
    summary = m.breakdown(jobs, pods)[1]
    assert (summary["jobs_all_bound"], summary["jobs_not_all_bound"]) == (1, ["h"])
    metrics = {"breakdown": summary, "fair_share": {"fairness_error": 0.3, "jain_index": 0.8}}
    assert f.findings({"fairness_error": 0.1}, metrics, timed_out_s=60) == [
        "1 of 2 jobs did not have all their pods bound when the wait ran out (timeout=60 s): h",
        "the fairness error 0.300 is above fairness_error=0.1 (Jain's index 0.800)"]
    assert f.findings({}, metrics) == []


def test_findings_of_priority_steady_and_packing():
    jobs, pods = steady_timeline()
    steady = {"steady": m.steady_metrics(jobs, pods, 0, 3.0)}
    assert f.findings({"latency_p99_ms": 500, "rate_shortfall": 0.05}, steady) == [
        "the p99 pod latency in the steady window (3 s to 9 s) is 600.0 ms, above latency_p99_ms=500"]
    assert f.findings({"latency_p99_ms": 600}, steady) == []
    # Offered 1.0/s; bound 0.5/s is short by 50 %.
    short = {"steady": dict(steady["steady"], bound_pods_per_s=0.5)}
    assert f.findings({"rate_shortfall": 0.05}, short) == [
        "the steady window bound 0.50 pods/s of the 1.00 offered, short by more than rate_shortfall=0.05"]
    waited = {"priority": {"high_priority_unbound_jobs": [], "high_priority_wait_ms": m.latency_summary([2000.0])}}
    assert f.findings({"high_priority_wait_s": 1}, waited) == [
        "a high-priority job waited 2.0 s for all its pods, more than high_priority_wait_s=1"]
    assert f.findings({"high_priority_wait_s": 5}, waited) == []
    assert f.findings({"peak_cpu_share": 0.9}, {"utilization": {"peak_cpu_share": 0.5}}) == [
        "the peak allocated CPU share 0.500 is below peak_cpu_share=0.9"]
    # Nothing measured is a broken promise too.
    assert f.findings({"fairness_error": 0.1}, {}) == ["fairness_error=0.1 could not be checked: no CPU was allocated"]


def test_every_threshold_has_a_check():
    assert set(f._CHECKS) == set(scenarios.THRESHOLDS)


def test_each_threshold_is_a_record_with_the_findings_wording_beside_it():
    """summary.json's checks (docs/metrics.md#scenario_metrics): the threshold, the figure it was compared with, the
    limit, the verdict and the very sentence findings holds."""
    jobs, pods = steady_timeline()
    metrics = {"steady": m.steady_metrics(jobs, pods, 0, 3.0), "utilization": {"peak_cpu_share": 0.5},
               "fair_share": {"fairness_error": 0.3, "jain_index": 0.8},
               "gang": {"stuck_partial_jobs": ["g1", "g2"], "stalls": []}}
    thresholds = {"peak_cpu_share": 0.9, "latency_p99_ms": 600, "fairness_error": 0.1, "stuck_partial_s": 30,
                  "high_priority_wait_s": 5, "stall_s": 10}
    records = f.checks(thresholds, metrics, unsupported=["gang"])
    assert [(r["threshold"], r["measured"], r["limit"], r["verdict"]) for r in records] == [
        ("stuck_partial_s", 2, 30, "unsupported"), ("stall_s", 0, 10, "unsupported"),
        ("fairness_error", 0.3, 0.1, "missed"), ("high_priority_wait_s", None, 5, "unchecked"),
        ("latency_p99_ms", 600.0, 600, "met"), ("peak_cpu_share", 0.5, 0.9, "missed")]
    assert [r["finding"] for r in records if r["finding"]] == f.findings(thresholds, metrics, ["gang"]) == [
        "the fairness error 0.300 is above fairness_error=0.1 (Jain's index 0.800)",
        "high_priority_wait_s=5 could not be checked: no high-priority job was measured",
        "the peak allocated CPU share 0.500 is below peak_cpu_share=0.9"]
    assert all(r["finding"] is None for r in records if r["verdict"] in ("met", "unsupported"))
    # The rate's shortfall is the measured figure: 1 - bound / offered.
    short = {"steady": dict(metrics["steady"], bound_pods_per_s=0.5)}
    assert f.checks({"rate_shortfall": 0.05}, short)[0] == {
        "threshold": "rate_shortfall", "measured": 0.5, "limit": 0.05, "verdict": "missed",
        "finding": "the steady window bound 0.50 pods/s of the 1.00 offered, short by more than rate_shortfall=0.05"}


@pytest.mark.parametrize("name,sections", [
    ("gang", {"breakdown", "utilization", "gang"}),
    ("fair-share", {"breakdown", "utilization", "fair_share"}), ("priority", {"breakdown", "utilization", "priority"}),
    ("steady", {"breakdown", "utilization", "steady"}), ("mixed", {"breakdown", "utilization"}),
    ("trace", {"breakdown", "utilization", "fair_share", "priority"}),
])
def test_each_shipped_scenario_gets_its_sections(name, sections):
    # Every job created at its arrival, every pod bound 10 ms later and never evicted (no capacity involved).
    scenario, _ = scenarios.load(name)
    jobs = [dict(spec, created_us=int(spec["arrival_s"] * S), admitted_us=None) for spec in scenarios.expand(scenario)]
    pods = [{"job": spec["name"], "pod": "%s-%d" % (spec["name"], i), "node": "n%d" % (i % 4),
             "created_us": spec["created_us"], "bound_us": spec["created_us"] + 10_000, "ended_us": None}
            for spec in jobs for i in range(spec["pods_per_job"])]
    metrics, rows = m.scenario_metrics(scenario, jobs, pods)
    assert set(metrics) - {"window"} == sections
    assert metrics["breakdown"]["jobs_all_bound"] == len(jobs) == len(rows)
    assert metrics["breakdown"]["all_bound_ms"]["max"] == 10.0
    if "gang" in sections:
        assert metrics["gang"]["full_gangs"] == len(jobs) and not metrics["gang"]["stalled"]
        assert f.findings(scenario["thresholds"], metrics) == []
    if "steady" in sections:
        assert metrics["steady"]["latency_ms"]["p99"] == 10.0
        assert f.findings(scenario["thresholds"], metrics) == []
