"""The host calibration's arithmetic (module_utils/loadtest/calibration.py), on hand-computed cases."""
import json
import threading

import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import calibration as cal
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w


class FakeClock:
    """A clock that only moves when the work under test advances it."""

    def __init__(self):
        self.now = 0.0
        self.lock = threading.Lock()

    def __call__(self):
        with self.lock:
            return self.now

    def advance(self, seconds):
        with self.lock:
            self.now += seconds


def test_a_round_counts_the_calls_until_the_deadline_and_times_the_last_in_full():
    clock = FakeClock()
    # Calls start at 0, 0.3, 0.6 and 0.9 s; the last ends at 1.2 s, after the 1 s deadline.
    calls, elapsed = cal.timed_round(lambda: clock.advance(0.3), 1.0, clock=clock)
    assert calls == 4 and elapsed == pytest.approx(1.2)
    assert cal.rate(calls, elapsed) == 3.33


def test_a_round_with_several_workers_calls_from_that_many_threads_at_once():
    clock, workers = FakeClock(), 4
    # Each thread's first call waits for the others: the round only ends if all four run together.
    arrived, seen = threading.Barrier(workers), set()

    def work():
        if threading.get_ident() not in seen:
            seen.add(threading.get_ident())
            arrived.wait(timeout=10)
        clock.advance(0.1)

    calls, elapsed = cal.timed_round(work, 1.0, workers, clock=clock)
    assert len(seen) == workers
    assert elapsed == pytest.approx(calls * 0.1)


def test_a_failing_call_stops_the_round():
    def work():
        raise RuntimeError("HTTP 500")

    with pytest.raises(RuntimeError, match="HTTP 500"):
        cal.timed_round(work, 1.0, 3, clock=FakeClock())


def test_rounds_give_the_median_min_max_and_spread():
    assert cal.summarize_rounds([298.1, 312.4, 305.0]) == {
        "median": 305.0, "min": 298.1, "max": 312.4, "spread_pct": 4.7}      # 14.3 / 305 = 4.69 %
    assert cal.summarize_rounds([100.0, 110.0]) == {
        "median": 105.0, "min": 100.0, "max": 110.0, "spread_pct": 9.5}      # 10 / 105 = 9.52 %
    assert cal.summarize_rounds([0.0, 0.0, 0.0])["spread_pct"] is None
    assert cal.rate(5, 0.0) == 0.0


def test_the_ceiling_in_pods_and_a_throughputs_share_of_it():
    assert cal.ceiling_pods_per_s(305.0, 3) == 915.0
    # A load test that creates the pods itself makes one request per pod.
    assert cal.pods_per_create({"pods_per_job": 3, "pod_creation": "job-controller"}) == 3
    assert cal.pods_per_create({"pods_per_job": 3, "pod_creation": "direct"}) == 1
    assert cal.share_of_ceiling(81.2, 906.0) == 0.0896                     # 81.2 / 906 = 0.08962
    assert cal.share_of_ceiling(None, 906.0) is None
    assert cal.share_of_ceiling(81.2, None) is None
    assert cal.share_of_ceiling(81.2, 0.0) is None


def test_the_api_probe_result():
    # 450, 490.2 (500 / 1.02) and 489.8 (480 / 0.98) Jobs/s.
    result = cal.api_result([(450, 1.0), (500, 1.02), (480, 0.98)], 3, 6.321)
    assert result == {
        "object": "Job (suspended)", "round_s": cal.API_ROUND_S, "rounds_jobs_per_s": [450.0, 490.2, 489.8],
        "jobs_per_s": {"median": 489.8, "min": 450.0, "max": 490.2, "spread_pct": 8.2},   # 40.2 / 489.8
        "jobs_created": 1430, "ceiling_pods_per_s": 1469.4, "duration_s": 6.32}
    # Where the API server dropped spec.managedBy (Kubernetes 1.27 on the old-kernel set), the record says so.
    synced = cal.api_result([(450, 1.0), (500, 1.02), (480, 0.98)], 3, 6.321, managed_by_kept=False)
    assert synced == dict(result, object=cal.JOBS_SYNCED) and "job controller" in synced["object"]


def test_the_cpu_probe_result():
    result = cal.cpu_result([(400, 1.0), (380, 1.0), (420, 1.0)], "3.11.7", 3.004)
    assert result["rounds_passes_per_s"] == [400.0, 380.0, 420.0]
    assert result["passes_per_s"] == {"median": 400.0, "min": 380.0, "max": 420.0, "spread_pct": 10.0}
    assert (result["python"], result["duration_s"], result["pass"]) == ("3.11.7", 3.0, cal.CPU_PASS)


def test_the_cpu_pass_is_the_same_work_every_time():
    assert cal.cpu_pass() == cal.cpu_pass()
    assert isinstance(cal.cpu_pass(), int)


def test_each_probe_stays_well_under_15_seconds_of_rounds():
    assert cal.API_ROUNDS * cal.API_ROUND_S <= 6 and cal.CPU_ROUNDS * cal.CPU_ROUND_S <= 6


def test_the_calibration_job_is_the_default_job_suspended_and_left_alone_by_the_job_controller():
    work = dict(nodes=3, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=2, pods_per_job=3, pod_cpu="1",
                pod_memory="200Mi", pod_duration=30.0, pod_creation="job-controller")
    target = w.Target("default", "sched-bench-calibration", "r1")
    ((api, job),) = w.calibration_job(7, target, work)
    ((_, default),) = w.workload(7, target, work)
    assert api == "batch" and job["metadata"]["name"] == "job-00007"
    assert job["spec"]["suspend"] is True and job["spec"]["managedBy"] == "sched-bench.io/calibration"
    assert job["spec"]["template"] == default["spec"]["template"]
    assert job["metadata"]["labels"][w.RUN_LABEL] == "r1"


def test_the_module_documents_its_return_as_the_functions_build_it():
    import bench_calibrate
    sample = yaml.safe_load(bench_calibrate.RETURN)["calibration"]["sample"]
    api = cal.api_result([(498, 1.0), (512, 1.0), (505, 1.0)], 3, 6.3)
    assert sorted(sample["api_create"]) == sorted(api)
    assert sorted(sample["cpu"]) == sorted(cal.cpu_result([(1, 1.0)], "3.11.2", 3.0))
    binding = cal.binding_result([(400, 0.36), (400, 0.34), (400, 0.35)], 2.9)
    assert sorted(sample["api_binding"]) == sorted(binding)
    assert sorted(sample) == sorted(cal.measured({"api_create": api, "api_binding": binding, "cpu": {}}, "r1", 0))


def test_the_binding_ceiling_is_the_median_round_in_pods_per_s():
    binding = cal.binding_result([(400, 0.5), (400, 0.25), (400, 0.4)], 3.14159)
    assert binding["rounds_pods_per_s"] == [800.0, 1600.0, 1000.0]
    assert binding["pods_per_s"] == {"median": 1000.0, "min": 800.0, "max": 1600.0, "spread_pct": 80.0}
    assert (binding["ceiling_pods_per_s"], binding["pods_bound"], binding["duration_s"]) == (1000.0, 1200, 3.14)


def test_a_timed_batch_does_every_item_once():
    done = []
    ticks = iter([10.0, 12.5])
    assert cal.timed_batch(done.append, list(range(50)), 4, clock=lambda: next(ticks)) == (50, 2.5)
    assert sorted(done) == list(range(50))


def test_a_binding_probe_pod_is_the_default_schedulers_pod_for_no_scheduler_and_no_node():
    target = w.Target("default", "sched-bench-calibration", "r1")
    pod = w.binding_probe_pod("bind-00003", target, WORK)
    assert pod["metadata"]["name"] == "bind-00003" and pod["metadata"]["namespace"] == "sched-bench-calibration"
    assert pod["spec"]["schedulerName"] == w.BINDING_PROBE_SCHEDULER
    assert pod["spec"]["terminationGracePeriodSeconds"] == 0
    assert w.binding("bind-00003", w.BINDING_PROBE_NODE)["target"] == {
        "apiVersion": "v1", "kind": "Node", "name": "sched-bench-binding-probe"}


WORK = dict(nodes=3, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=2, pods_per_job=3, pod_cpu="1",
            pod_memory="200Mi", pod_duration=30.0, pod_creation="job-controller", submit_concurrency=16,
            client_qps=1000.0, client_burst=1000, submit_processes=1)
HOST = {"name": "lab-01", "kernel": "6.1.0", "machine": "x86_64", "cpus": 2, "cpu_model": "Xeon"}


def basis_of(work=WORK, server="v1.32.2", python="3.11.2", host=HOST, runtime="binary"):
    job = w.calibration_job(0, w.Target("default", "calibration", ""), work)
    return cal.basis(server, python, host, job, work, {"runtime": runtime})


def test_a_kept_calibration_is_reused_only_while_young_and_of_the_same_basis():
    probes = {"api_create": {"ceiling_pods_per_s": 1500.0}, "cpu": {"python": "3.11.2"}}
    kept = cal.measured(probes, "night-1", 1_000_000)
    assert kept["measured_at"] == "1970-01-12T13:46:40Z" and kept["measured_by_run"] == "night-1"
    assert kept["reused"] is False
    record = json.loads(json.dumps(cal.kept_record(kept, basis_of(), 1_000_000)))   # as read back from its file
    # 23.5 h later: reused, marked so, with its age.
    reused, why = cal.reusable(record, basis_of(), 1_000_000 + 23.5 * 3600, 24)
    assert why is None and reused == dict(kept, reused=True, age_h=23.5)
    # 24.5 h later, or with reuse off: measured again, and the reason says why.
    assert cal.reusable(record, basis_of(), 1_000_000 + 24.5 * 3600, 24) == (
        None, "the kept one is 24.5 h old, more than 24 h")
    assert cal.reusable(record, basis_of(), 1_000_001, 0) == (None, "bench_calibration_max_age is 0")
    assert cal.reusable(None, basis_of(), 1_000_001, 24) == (None, "none kept")
    assert cal.reusable(dict(record, taken_at=2_000_000), basis_of(), 1_000_001, 24)[0] is None   # from the future
    # Anything the figures depend on that differs makes it stale.
    for other in (basis_of(server="v1.27.1"), basis_of(python="3.12.1"), basis_of(runtime="kind"),
                  basis_of(host=dict(HOST, cpus=4)), basis_of(work=dict(WORK, pods_per_job=1)),
                  basis_of(work=dict(WORK, client_qps=50.0)), basis_of(work=dict(WORK, pod_memory="1Gi")),
                  basis_of(work=dict(WORK, pod_creation="direct"))):
        assert cal.reusable(record, other, 1_000_001, 24) == (None, "the kept one has another basis")
        assert cal.basis_key(other) != cal.basis_key(basis_of())
    # What only sizes the run (nodes, jobs) does not: a small run reuses a seed-size run's calibration.
    assert basis_of(work=dict(WORK, nodes=100, jobs=1000)) == basis_of()
    assert cal.basis_key(basis_of()) == cal.basis_key(json.loads(json.dumps(basis_of())))
