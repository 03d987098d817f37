"""End to end: bench.yml runs the default scheduler, Kueue, Volcano, YuniKorn and coscheduling on the binary runtime.

One playbook run (module-scoped fixture) with a small workload and its own
workspace, results directory and port range; the tests then check, per
scheduler, what a user relies on: every pod bound, the audit log agreeing
with pods.csv, env.json recording versions and knobs, the scheduler's cost,
and no process of the run left behind. The run is a held backlog
(bench_arrival=backlog, issue 31): each scheduler is held while the jobs are
created and released at once, and no pod is bound before the release; the
open-loop path of every scheduler runs in the other end-to-end tests. Cold, the run builds each scheduler
from its Go module (many minutes on 2 cores); with warm caches it takes a
few minutes.
"""
import gzip
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
import recompute_internals
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as sched_descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.components import COMPONENTS
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.internals import CONTROL_PLANE
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks
from conftest import audit_events, mirror_vars, node_health_writes, processes_mentioning, read_rows, result_problems

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Every scheduler whose descriptor (module_utils/schedulers/) says the binary runtime deploys it.
SCHEDULERS = list(knob_checks.RUNTIME_SCHEDULERS["binary"])
# What each scheduler runs as on the binary runtime (pid-file names); a new scheduler adds its entry.
PROCESSES = {
    "default": ["kube-scheduler"],
    "kueue": ["kueue", "kube-scheduler"],
    "volcano": ["vc-scheduler", "vc-controller-manager", "vc-webhook-manager"],
    "yunikorn": ["yunikorn-scheduler"],
    "coscheduling": ["scheduler-plugins-scheduler", "scheduler-plugins-controller"],
}
NODES, JOBS, PODS_PER_JOB = 10, 20, 3
# Knobs set to values no default has, so env.json can only hold them if they were passed through. The profile
# covers the whole small run: YuniKorn binds its first pods about 3 s after they are created.
KNOBS = {"bench_scheduler_api_qps": 400, "bench_scheduler_api_burst": 600, "bench_scheduler_gogc": "150",
         "bench_scheduler_cpu_profile_seconds": 6, "bench_scheduler_cpu_limit": 1,
         # The tests below read the audit log from the fetched results.
         "bench_fetch_audit_log": True, "bench_arrival": "backlog",
         # The cycle settings, read back from what each scheduler runs with (CYCLE).
         "bench_scheduler_cycle_period": 0.5, "bench_kube_scheduler_parallelism": 8,
         "bench_kube_scheduler_percentage_of_nodes_to_score": 50}
KUBE_SCHEDULER_CYCLE = {"parallelism": 8, "percentage_of_nodes_to_score": 50}
CYCLE = {
    "default": KUBE_SCHEDULER_CYCLE,
    "kueue": dict(KUBE_SCHEDULER_CYCLE, job_concurrency=5, workload_concurrency=5, wait_for_pods_ready=False,
                  fair_sharing=True),
    "volcano": {"schedule_period_s": 0.5},
    "yunikorn": {"scheduling_interval_s": 0.5},
    "coscheduling": KUBE_SCHEDULER_CYCLE,
}
RUN_ID = "e2e-schedulers"
NAMESPACE = "sched-bench"
# Below the kernel's ephemeral port range (32768 and up), like the toolkit's default range.
PORTS = os.environ.get("SCHED_BENCH_E2E_PORTS", "30000-31999").split("-")
# Volcano v1.12.2, YuniKorn and scheduler-plugins come through the module mirror beside the project
# (../shared/mirror), as a lab's would; without a mirror, a module the proxy refuses is reported by the
# playbook in one line, and the test reports that scheduler as skipped instead of passing it.
UNBUILDABLE = re.compile(r"could not download (\S+) through GOPROXY=\S+: .*(403|404|410|not available)")


class Run:
    def __init__(self, returncode, output, results, workspace, run_id):
        self.returncode = returncode
        self.output = output
        self.results = results
        self.workspace = workspace
        self.run_id = run_id

    def failures(self):
        """Scheduler name -> reason, from the failed.json the playbook writes beside the host's results."""
        path = self.results / self.run_id / "localhost" / "failed.json"
        if not path.is_file():
            return {}
        failed = json.loads(path.read_text())
        return {name: "%s: %s" % (entry.get("task", ""), entry.get("msg", ""))
                for name, entry in (failed.get("schedulers") or {}).items()}

    def result_dir(self, scheduler):
        return self.results / self.run_id / "localhost" / scheduler


def bench(base, run_id, schedulers, **extra):
    """bench.yml on this machine with a small workload, its own workspace, results and ports."""
    results, workspace = base / "results", base / "ws"
    variables = {
        "bench_schedulers": schedulers,
        "bench_run_id": run_id,
        "bench_results_dir": str(results),
        "bench_workspace": str(workspace),
        "bench_port_range_start": int(PORTS[0]),
        "bench_port_range_end": int(PORTS[1]),
        "bench_nodes": NODES,
        "bench_jobs": JOBS,
        "bench_pods_per_job": PODS_PER_JOB,
        "bench_timeout": 300,
        **mirror_vars(),
        **extra,
    }
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.run(
        ["ansible-playbook", "bench.yml", "-i", "inventories/local", "-e", json.dumps(variables)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=5400, check=False)
    (base / "ansible.log").write_text(proc.stdout)
    return Run(proc.returncode, proc.stdout, results, workspace, run_id)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return bench(tmp_path_factory.mktemp("schedulers"), RUN_ID, SCHEDULERS, **KNOBS)


def skip_if_unbuildable(run, scheduler):
    reason = run.failures().get(scheduler, "")
    if UNBUILDABLE.search(reason) and not mirror_vars():
        pytest.skip("%s cannot be built on this machine: %s" % (scheduler, reason))


def test_the_playbook_fails_only_for_schedulers_that_cannot_be_built_here(run):
    failures = run.failures()
    for scheduler, reason in failures.items():
        assert UNBUILDABLE.search(reason) and not mirror_vars(), "%s failed: %s" % (scheduler, reason)
    if not failures:
        assert run.returncode == 0, run.output[-3000:]
    else:
        assert run.returncode != 0


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_every_pod_is_bound_and_the_audit_log_agrees(run, scheduler):
    skip_if_unbuildable(run, scheduler)
    directory = run.result_dir(scheduler)
    assert directory.is_dir(), "no results for %s; end of the playbook output:\n%s" % (scheduler, run.output[-3000:])
    summary = json.loads((directory / "summary.json").read_text())
    assert result_problems(str(directory)) == []
    assert summary["scheduler"] == scheduler
    assert summary["complete"] is True, summary.get("reason")
    assert summary["pods_created"] == JOBS * PODS_PER_JOB
    assert summary["pods_bound"] == summary["pods_created"]
    assert summary["timing_source"] == "audit"

    rows = read_rows(directory, "pods.csv")
    assert len(rows) == summary["pods_created"]
    assert all(row["node"].startswith("kwok-node-") and row["bound"] for row in rows)

    bindings = {}
    for event in audit_events(directory / "audit.log.gz", '"binding"', succeeded=True):
        ref = event.get("objectRef") or {}
        if event.get("verb") == "create" and ref.get("namespace") == NAMESPACE and ref.get("subresource") == "binding":
            bindings.setdefault(ref["name"], ((event.get("requestObject") or {}).get("target") or {}).get("name"))
    assert {row["pod"]: row["node"] for row in rows} == bindings


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_held_backlog_is_released_before_the_first_binding(run, scheduler):
    skip_if_unbuildable(run, scheduler)
    directory = run.result_dir(scheduler)
    summary = json.loads((directory / "summary.json").read_text())
    backlog = summary["backlog"]
    assert summary["workload"]["arrival"] == "backlog"
    marks = [event["stageTimestamp"] for event in audit_events(directory / "audit.log.gz", "sched-bench-release",
                                                                succeeded=True)
             if event.get("verb") == "create" and (event.get("objectRef") or {}).get("resource") == "configmaps"]
    assert len(marks) == 1, marks
    # The audit log's time of the marker is the release, and the makespan's start.
    assert marks[0].rstrip("Z")[:26] == backlog["release"].rstrip("Z")[:26] == summary["start"].rstrip("Z")[:26]
    bound = [event["stageTimestamp"] for event in audit_events(directory / "audit.log.gz", '"binding"', succeeded=True)
             if event.get("verb") == "create" and (event.get("objectRef") or {}).get("namespace") == NAMESPACE]
    assert len(bound) == JOBS * PODS_PER_JOB
    assert min(bound) > marks[0], (min(bound), marks[0])
    assert backlog["bound_before_release"] == 0
    # The backlog: every pod, or where pods appear only once admitted (Kueue, Volcano), one object per job.
    if scheduler in ("kueue", "volcano"):
        assert (backlog["jobs_held"], backlog["pods_held"]) == (JOBS, 0), backlog
    else:
        assert (backlog["jobs_held"], backlog["pods_held"]) == (JOBS, JOBS * PODS_PER_JOB), backlog
    assert backlog["created_until"] < backlog["release"]
    stage = summary["throughput_limited_by"]
    assert stage["stage"] in (("admission", "scheduling") if scheduler in ("kueue", "volcano") else ("scheduling",)), stage
    print("%s backlog: %d pods bound in %.3f s from the release (%.1f pods/s), limited by %s" % (
        scheduler, summary["pods_bound"], summary["makespan_s"], summary["throughput_pods_per_s"], stage["stage"]))


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_env_json_records_the_versions_and_the_knobs(run, scheduler):
    skip_if_unbuildable(run, scheduler)
    env = json.loads((run.result_dir(scheduler) / "env.json").read_text())
    assert env["scheduler"] == scheduler
    assert env["outcome"] == {"status": "ok"}
    assert env["knobs"]["scheduler_api_qps"] == KNOBS["bench_scheduler_api_qps"]
    assert env["knobs"]["scheduler_api_burst"] == KNOBS["bench_scheduler_api_burst"]
    assert str(env["knobs"]["scheduler_gogc"]) == KNOBS["bench_scheduler_gogc"]
    # What kwok did for the fake nodes, the same for every scheduler (docs/runtimes-and-schedulers.md#what-kwok-does).
    assert [stage["name"] for stage in env["fake_nodes"]["stages"]] == [
        "bench-node-ready", "bench-node-heartbeat", "bench-pod-running", "bench-pod-complete", "bench-pod-delete"], \
        env["fake_nodes"]
    assert (env["fake_nodes"]["node_lease_duration_s"], env["fake_nodes"]["node_lease_renew_s"]) == (0, None)
    deployed = env["versions"]["scheduler"]
    assert deployed["name"] == scheduler
    assert deployed["status"] == "ready"
    assert deployed["processes"] == PROCESSES[scheduler]
    assert str(deployed["knobs"]["api_qps"]) == str(KNOBS["bench_scheduler_api_qps"])
    assert str(deployed["knobs"]["gogc"]) == KNOBS["bench_scheduler_gogc"]
    assert env["knobs"]["scheduler_cpu_limit"] == KNOBS["bench_scheduler_cpu_limit"]
    assert str(deployed["knobs"]["cpu_limit"]) == str(KNOBS["bench_scheduler_cpu_limit"])
    assert env["cycle"] == deployed["cycle"] == CYCLE[scheduler], deployed.get("cycle_source")
    pins = env["versions"]["pins"]
    expected_version = pins["kubernetes"] if scheduler == "default" else pins[scheduler]
    assert deployed["version"] == expected_version
    if scheduler != "default":
        assert deployed["module"].endswith("@" + expected_version)
        assert deployed["module_sum"].startswith("h1:")


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_scheduler_cost_is_measured(run, scheduler):
    skip_if_unbuildable(run, scheduler)
    summary = json.loads((run.result_dir(scheduler) / "summary.json").read_text())
    cost = summary["scheduler_cost"]
    assert [process["name"] for process in cost["processes"]] == PROCESSES[scheduler]
    assert all("error" not in process for process in cost["processes"]), cost
    assert all(process["peak_rss_mb"] > 5 for process in cost["processes"]), cost
    assert cost["cpu_seconds"] > 0
    # The CPU limit knob: every scheduler process ran on one CPU.
    assert all(process["cpus_allowed"] == KNOBS["bench_scheduler_cpu_limit"] for process in cost["processes"]), cost
    assert cost["cpu_seconds"] == pytest.approx(sum(p["cpu_seconds"] for p in cost["processes"]), abs=0.01)
    assert cost["peak_rss_mb"] == pytest.approx(sum(p["peak_rss_mb"] for p in cost["processes"]), abs=0.5)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_cpu_profile_of_the_scheduler_is_taken(run, scheduler):
    skip_if_unbuildable(run, scheduler)
    profile = (run.result_dir(scheduler) / "scheduler-cpu.pprof").read_bytes()
    # A Go CPU profile is a gzipped protobuf whose string table names its sample types (samples/count and
    # cpu/nanoseconds) and the functions sampled; a scheduler the busy machine left idle for the whole window
    # (it happened to Kueue's manager at load 8) has none of the latter.
    text = gzip.decompress(profile)
    assert all(name in text for name in (b"samples", b"count", b"cpu", b"nanoseconds")), profile[:100]
    env = json.loads((run.result_dir(scheduler) / "env.json").read_text())
    assert env["knobs"]["scheduler_cpu_profile_seconds"] == KNOBS["bench_scheduler_cpu_profile_seconds"]
    assert env["versions"]["scheduler"]["pprof"]["url"].endswith("/debug/pprof/profile")
    # The CPU and heap profiles of the scheduler and of kube-apiserver, each read with go tool pprof into profiles.json:
    # every one parsed, a CPU profile over the knob's seconds; the heap in use and the API server's CPU always have
    # functions (an idle scheduler's CPU profile may have none, as above).
    profiles = json.loads((run.result_dir(scheduler) / "profiles.json").read_text())
    assert sorted(profiles) == ["apiserver-cpu", "apiserver-heap", "scheduler-cpu", "scheduler-heap"]
    for name, entry in profiles.items():
        assert "error" not in entry and "skipped" not in entry, (name, entry)
        assert (run.result_dir(scheduler) / entry["file"]).stat().st_size > 0
        assert entry["type"] == ("cpu" if name.endswith("-cpu") else "inuse_space")
        assert entry["unit"] == ("s" if name.endswith("-cpu") else "B")
        assert entry.get("seconds", KNOBS["bench_scheduler_cpu_profile_seconds"]) == KNOBS["bench_scheduler_cpu_profile_seconds"]
        assert "functions" in entry and "functions_by_cum" in entry
    for name in ("scheduler-heap", "apiserver-cpu", "apiserver-heap"):
        assert profiles[name]["total"] > 0 and profiles[name]["functions"], (name, profiles[name])
        flats = [function["flat"] for function in profiles[name]["functions"]]
        assert flats == sorted(flats, reverse=True)
        assert all(0 <= function["cum_pct"] <= 100.05 for function in profiles[name]["functions_by_cum"])


# The view that counts each scheduler's successful placements (process, view, key; None: the view's count), which
# must be at least the pods it bound; a new scheduler adds its entry.
PLACEMENTS = {
    "default": ("kube-scheduler", "attempts", "scheduled"),
    "kueue": ("kube-scheduler", "attempts", "scheduled"),
    "volcano": ("vc-scheduler", "task_latency", None),
    "yunikorn": ("yunikorn-scheduler", "allocation_attempts", "allocated"),
    "coscheduling": ("scheduler-plugins-scheduler", "attempts", "scheduled"),
}


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_internals_cost_and_requests_agree_with_the_run(run, scheduler):
    """docs/metrics.md, "Why": every process scraped at both ends, its counts consistent with the pods bound and (a
    scheduler of periodic cycles) with its period; six components' cost per pod; requests by who asked; and every
    figure recomputed from the fetched files by tests/recompute_internals.py."""
    skip_if_unbuildable(run, scheduler)
    directory = run.result_dir(scheduler)
    summary = json.loads((directory / "summary.json").read_text())
    env = json.loads((directory / "env.json").read_text())
    internals = summary["internals"]
    assert internals["unread"] == {}, internals["unread"]
    specs = dict(sched_descriptors.get(scheduler)["internals"], **CONTROL_PLANE)
    assert sorted(internals["processes"]) == sorted(specs)
    assert sorted(path.name for path in directory.glob("metrics-*.prom.gz")) == sorted(
        "metrics-%s-%s.prom.gz" % (process, moment) for process in specs for moment in ("before", "after"))
    process, key, label = PLACEMENTS[scheduler]
    view = internals["processes"][process][key]
    placed = view["count"] if label is None else view.get(label, 0)
    assert placed >= summary["pods_bound"] == PODS_PER_JOB * JOBS, (placed, summary["pods_bound"])
    cycles = internals["processes"].get("vc-scheduler", {}).get("cycles")
    if cycles:
        # One session per schedule period, each started a period after the last ended (wait.Until).
        # Held, vc-scheduler is stopped: the sessions run in the rest of the window.
        period, running = env["knobs"]["scheduler_cycle_period"], internals["window_s"] - internals["held_s"]
        longest = running / period + 1
        shortest = running / (period + cycles["mean_ms"] / 1000.0) - 1
        assert shortest <= cycles["count"] <= longest, (cycles, internals["window_s"], period)
    assert internals["processes"]["kube-apiserver"]["requests_by_verb"].get("POST", 0) >= summary["pods_bound"]
    cost = summary["component_cost"]
    assert [row["component"] for row in cost["components"]][:6] == list(COMPONENTS), cost
    assert all(row["cpu_ms_per_pod"] is not None and row["peak_rss_mb"] > 1 for row in cost["components"]), cost
    requests = summary["api_requests"]
    assert requests["by_role"]["scheduler"]["requests"] > 0 and requests["by_role"]["kwok"]["requests"] > 0
    # The load generator created the jobs; the binding requests are the scheduler's (coscheduling's and Kueue's binder
    # too: each is a kube-scheduler build among the scheduler's processes).
    assert requests["by_role"]["load generator"]["requests"] >= JOBS
    audit = directory / "audit.log.gz"
    # kwok's heartbeat kept every node Ready: the node lifecycle controller marked no node Unknown and no pod NotReady.
    assert node_health_writes(audit) == []
    assert recompute_internals.internals_differences(str(directory), summary, specs) == []
    assert recompute_internals.cost_differences(str(directory), summary) == []
    assert recompute_internals.requests_differences(str(audit), summary) == []


def test_no_process_of_the_run_is_left(run):
    left = processes_mentioning(str(run.workspace))
    assert not left, "processes of the run still running: %s" % (left,)
    assert not (run.workspace / "clusters").exists() or not any((run.workspace / "clusters").iterdir())
