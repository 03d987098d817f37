"""The pure parts of "why a scheduler is as fast as it is" (docs/metrics.md): the exposition format, histogram
estimates, the views of two scrapes, the requests by component from audit lines, and the cost per component from
two /proc samples. The end-to-end runs (tests/e2e/test_schedulers.py) check the same figures on real components."""
import math

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import pid_files_in
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import (
    components,
    exposition,
    internals,
    requests,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.host_load import Process, Sample
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import views as shared_views

SCRAPE = r"""# HELP scheduler_schedule_attempts_total Number of attempts.
# TYPE scheduler_schedule_attempts_total counter
scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 10
scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"} 2
weird_total{path="/a,b",quote="say \"hi\"\n"} 1.5e3
plain_gauge 7
d_seconds_bucket{ep="Bind",le="0.001"} 1
d_seconds_bucket{ep="Bind",le="0.01"} 3
d_seconds_bucket{ep="Bind",le="+Inf"} 4
d_seconds_sum{ep="Bind"} 0.5
d_seconds_count{ep="Bind"} 4
d_seconds_bucket{ep="Score",le="0.001"} 4
d_seconds_bucket{ep="Score",le="0.01"} 4
d_seconds_bucket{ep="Score",le="+Inf"} 4
d_seconds_sum{ep="Score"} 0.002
d_seconds_count{ep="Score"} 4
"""


def test_the_exposition_format_is_read_with_escapes_and_without_labels():
    scrape = exposition.parse(SCRAPE + "this line is not a sample\n")
    assert scrape["scheduler_schedule_attempts_total"][(("profile", "default-scheduler"), ("result", "scheduled"))] == 10
    assert scrape["weird_total"] == {(("path", "/a,b"), ("quote", 'say "hi"\n')): 1500.0}
    assert scrape["plain_gauge"] == {(): 7.0}
    assert "this" not in scrape


def test_histogram_quantile_interpolates_inside_the_bucket_as_prometheus_does():
    # 10 observations: 2 up to 1, 6 more up to 2, 2 more up to 4.
    cumulative = [(1.0, 2.0), (2.0, 8.0), (4.0, 10.0), (math.inf, 10.0)]
    assert exposition.histogram_quantile(0.1, cumulative) == pytest.approx(0.5)    # rank 1 in [0, 1]
    assert exposition.histogram_quantile(0.5, cumulative) == pytest.approx(1.5)    # rank 5: 3 of 6 into (1, 2]
    assert exposition.histogram_quantile(0.9, cumulative) == pytest.approx(3.0)    # rank 9: 1 of 2 into (2, 4]
    assert exposition.histogram_quantile(0.99, [(1.0, 1.0), (math.inf, 3.0)]) == 1.0  # the +Inf bucket
    assert exposition.histogram_quantile(0.5, [(1.0, 0.0), (math.inf, 0.0)]) is None
    assert exposition.histogram_quantile(0.5, []) is None


def test_a_counter_that_restarted_counts_from_zero():
    before = {"c_total": {(("a", "x"),): 10.0, (("a", "y"),): 5.0}}
    after = {"c_total": {(("a", "x"),): 12.0, (("a", "y"),): 3.0, (("a", "z"),): 4.0}}
    assert exposition.increase(before, after, "c_total") == {(("a", "x"),): 2.0, (("a", "y"),): 3.0,
                                                              (("a", "z"),): 4.0}


def _scaled(text, factor):
    """The scrape of SCRAPE with every sample multiplied by ``factor`` (a later scrape of the same process)."""
    scrape = exposition.parse(text)
    return {name: {labels: value * factor for labels, value in series.items()} for name, series in scrape.items()}


def test_the_views_of_two_scrapes():
    before, after = exposition.parse(SCRAPE), _scaled(SCRAPE, 3)
    views = [{"key": "attempts", "view": "counts", "metric": "scheduler_schedule_attempts_total", "label": "result"},
             {"key": "weird", "view": "total", "metric": "weird_total"},
             {"key": "bind", "view": "histogram", "metric": "d_seconds", "unit_ms": shared_views.SECONDS,
              "where": {"ep": "Bind"}},
             {"key": "points", "view": "busiest", "metric": "d_seconds", "label": "ep", "unit_ms": shared_views.SECONDS}]
    found = internals.figures(before, after, views)
    assert found["attempts"] == {"scheduled": 20, "unschedulable": 4}
    assert found["weird"] == 3000
    bind = found["bind"]
    assert (bind["count"], bind["sum_ms"], bind["mean_ms"]) == (8, 1000.0, 125.0)
    # 8 observations: 2 up to 1 ms, 4 more up to 10 ms, 2 more above; p50 is rank 4, 2 of 4 into (1, 10] ms.
    assert bind["p50_ms"] == pytest.approx(5.5) and bind["p99_ms"] == 10.0
    assert bind["bounds_ms"] == [1.0, 10.0] and bind["estimate"] == "histogram_quantile"
    assert [row["ep"] for row in found["points"]] == ["Bind", "Score"]
    assert found["points"][1] == {"ep": "Score", "count": 8, "total_ms": 4.0, "mean_ms": 0.5}


def test_a_process_without_a_scrape_or_with_a_failed_one_is_unread_with_the_reason():
    good = {"scrape": exposition.parse(SCRAPE), "error": None, "bytes": 10, "seconds": 0.1}
    failed = {"scrape": {}, "error": "http://127.0.0.1:1/metrics: refused", "bytes": 0, "seconds": 0.0}
    specs = {"kube-scheduler": shared_views.KUBE_SCHEDULER, "etcd": internals.CONTROL_PLANE["etcd"],
             "kube-apiserver": internals.CONTROL_PLANE["kube-apiserver"]}
    found = internals.summarize({"kube-scheduler": good, "etcd": good}, {"kube-scheduler": good, "etcd": failed},
                                specs, 2.5)
    assert list(found["processes"]) == ["kube-scheduler"]
    assert found["unread"] == {"etcd": failed["error"], "kube-apiserver": internals.NO_ENDPOINT}
    assert found["scrape_bytes"] == 30 and found["window_s"] == 2.5


def test_every_scheduler_declares_views_of_its_own_processes():
    for name, descriptor in schedulers.DESCRIPTORS.items():
        assert descriptor["internals"], name
        for process, views in descriptor["internals"].items():
            assert views and all(view["view"] in internals.VIEWS for view in views), (name, process)
            assert len({view["key"] for view in views}) == len(views), (name, process)


LINE = ('{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a","stage":"%s",'
        '"requestURI":"/api/v1/namespaces/sched-bench/pods/p/binding","verb":"%s","user":{"username":"%s","uid":"u",'
        '"groups":["system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"%s","objectRef":{"resource":"%s",'
        '"namespace":"sched-bench","name":"p","apiVersion":"v1"%s},"responseStatus":{"metadata":{},"code":201},'
        '"requestObject":{"metadata":{"annotations":{"x":"\\"resource\\":\\"nodes\\""}}},'
        '"requestReceivedTimestamp":"2026-12-05T22:15:04.%06dZ","stageTimestamp":"2026-12-05T22:15:04.%06dZ"}')


def line(verb="create", user="system:kube-scheduler", agent="kube-scheduler/v1.32.2 (linux/amd64) kubernetes/abc/scheduler",
         resource="pods", subresource="binding", received=100, completed=200, stage="ResponseComplete"):
    sub = ',"subresource":"%s"' % subresource if subresource else ""
    return LINE % (stage, verb, user, agent, resource, sub, received, completed)


def test_the_component_is_the_user_agents_program_with_client_gos_controller_name():
    assert requests.component("kube-controller-manager/v1.32.2 (linux/amd64) kubernetes/$Format/job-controller",
                              "system:kube-controller-manager") == "kube-controller-manager/job-controller"
    assert requests.component("kueue/v0.10.1 (linux/amd64) abcd012", "admin") == "kueue"
    assert requests.component("sched-bench-loadgen/2", "admin") == "sched-bench-loadgen"
    assert requests.component("", "system:apiserver") == "system:apiserver"


def test_an_audit_line_is_read_from_its_metadata_not_from_the_objects_it_carries():
    parsed = requests.parse_line(line())
    assert parsed[:4] == ("kube-scheduler/scheduler", "system:kube-scheduler", "create", "pods/binding")
    assert parsed[5] - parsed[4] == 100
    assert requests.parse_line(line(stage="RequestReceived")) is None


def test_requests_are_counted_in_the_window_by_component_with_the_peak_in_flight():
    start = requests.parse_line(line(completed=0))[5]
    counts = requests.RequestCounts(start, start + 1000, ["kube-scheduler"])
    for text in (line(received=10, completed=300), line(received=20, completed=30),
                 line(verb="patch", resource="pods", subresource="status", agent="kwok/v0.6.1 (linux/amd64)",
                      user="kwok", received=25, completed=40),
                 line(verb="watch", resource="pods", subresource="", received=0, completed=900),
                 line(received=500, completed=2000), "not json"):
        counts.add_line(text)
    summary = counts.summary(bound_pods=2)
    assert summary["requests"] == 4 and summary["per_bound_pod"] == 2.0
    assert summary["by_role"] == {"scheduler": {"requests": 3, "per_bound_pod": 1.5},
                                  "kwok": {"requests": 1, "per_bound_pod": 0.5}}
    assert [(entry["component"], entry["requests"]) for entry in summary["by_component"]] == [
        ("kube-scheduler/scheduler", 3), ("kwok", 1)]
    assert summary["by_component"][0]["top"][0] == {"verb": "create", "resource": "pods/binding", "requests": 2}
    # 10-300, 20-30 and 25-40 overlap at 25; the watch does not count.
    assert summary["inflight_peak"] == 3
    assert requests.inflight_peak([(0, 5), (5, 9)]) == 1


def _sample(time_s, busy, total, processes):
    return Sample(time_s, busy, total, 2, 0.1, {process.pid: process for process in processes}, set())


def test_cost_per_pod_per_component_from_two_samples(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for name, pid in (("etcd", 11), ("kube-apiserver", 12), ("loadtest", 99)):
        (run / (name + ".pid")).write_text("%d\n" % pid)
    (run / "kube-scheduler.pid").write_text("13\n")
    start = _sample(0.0, 100, 400, [Process(11, 1, "etcd", 10, 0, 5), Process(12, 1, "kube-apiserver", 50, 0, 5),
                                    Process(13, 1, "kube-scheduler", 5, 0, 5), Process(50, 1, "python3", 7, 3, 5)])
    end = _sample(2.0, 300, 800, [Process(11, 1, "etcd", 30, 0, 5), Process(12, 1, "kube-apiserver", 150, 0, 5),
                                  Process(13, 1, "kube-scheduler", 25, 0, 9), Process(50, 1, "python3", 17, 13, 5)])
    pid_files = pid_files_in([str(run)])
    roles = components.roles([path for path in pid_files if "scheduler" not in path], [str(run / "kube-scheduler.pid")],
                             [], end.processes, 50)
    assert roles == {11: "etcd", 12: "kube-apiserver", 13: "scheduler", 50: "load generator"}
    found = components.summarize(start, end, roles, {11: 2048, 12: 4096, 13: 1024, 50: 512}, bound_pods=10,
                                 ticks_per_second=100, loadgen_peak_kb=1024)
    rows = {row["component"]: row for row in found["components"]}
    # The scheduler's process started again between the samples: all its 25 ticks are the window's.
    assert rows["scheduler"]["cpu_seconds"] == 0.25 and rows["scheduler"]["cpu_ms_per_pod"] == 25.0
    assert rows["kube-apiserver"]["share_of_host_percent"] == 25.0
    # The load generator's reaped children count: 10 own + 10 children's ticks.
    assert rows["load generator"]["cpu_seconds"] == 0.2 and rows["load generator"]["peak_rss_mb"] == 1.0
    assert [row["component"] for row in found["components"]] == ["scheduler", "kube-apiserver", "etcd",
                                                                 "load generator"]
    # 200 busy ticks, 165 of them the components': 35 of the window's 400 were others'.
    assert found["host_busy_percent"] == 50.0 and found["other_percent"] == 8.8
    # The harness: the load generator's 20 ticks of 400 (no kwok in this sample).
    assert found["harness_percent"] == 5.0
    assert rows["etcd"]["peak_rss_kb_per_pod"] == 204.8


def test_inside_a_kind_node_processes_are_told_by_command_name():
    processes = {1: Process(1, 0, "systemd", 0, 0, 1), 100: Process(100, 1, "containerd-shim", 0, 0, 1),
                 101: Process(101, 100, "kube-apiserver", 0, 0, 1), 102: Process(102, 100, "kube-controller", 0, 0, 1),
                 103: Process(103, 100, "vc-controller-m", 0, 0, 1), 104: Process(104, 100, "kubelet", 0, 0, 1)}
    roles = components.roles([], [], [100], processes, 7, ["vc-controller-manager"])
    assert roles == {100: components.NODE, 101: "kube-apiserver", 102: "kube-controller-manager",
                     103: "scheduler", 104: components.NODE, 7: components.LOADGEN}
