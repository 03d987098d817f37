"""bench.yml end to end on this machine: real etcd, kube-apiserver, kube-controller-manager,
kwok and kube-scheduler built from source, loaded by the sched_loadtest module."""
import csv
import json
import os
import time

from conftest import (
    audit_bindings,
    audit_events,
    failure_text,
    processes_mentioning,
    read_rows,
    result_files,
    result_problems,
    run_playbook,
    task_results,
)


def test_bench_measures_the_default_scheduler_and_cleans_up(tmp_path, bench_vars):
    extravars = dict(bench_vars, bench_nodes=20, bench_jobs=50, bench_pods_per_job=3,
                     bench_schedulers=["default"], bench_calibrate=True, bench_submit_processes=2)
    started = time.monotonic()
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="bench")
    elapsed = time.monotonic() - started
    assert runner.rc == 0, failure_text(runner)

    out = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost", "default")
    # The audit log stays on the host unless bench_fetch_audit_log asks for it; env.json says where.
    assert sorted(os.listdir(out)) == result_files(["kube-scheduler", "kube-apiserver", "etcd", "kube-controller-manager"])
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    assert result_problems(out) == []
    assert summary["complete"] is True, summary.get("reason")
    assert summary["scheduler"] == "default"
    assert summary["pods_created"] == summary["pods_bound"] == 150
    assert summary["timing_source"] == "audit"
    assert summary["throughput_pods_per_s"] > 0
    assert 0 < summary["latency_ms"]["p50"] <= summary["latency_ms"]["p99"] <= summary["latency_ms"]["max"]
    # One name from the inventory to the results: bench_<name> is workload.<name> in summary.json and env.json.
    with open(os.path.join(out, "env.json"), encoding="utf-8") as handle:
        env = json.load(handle)
    assert summary["workload"]["jobs"] == 50 and summary["workload"]["submit_concurrency"] == 16
    assert {name: env["workload"][name] for name in summary["workload"]} == summary["workload"]

    pods = read_rows(out, "pods.csv")
    assert len(pods) == summary["pods_created"]
    assert all(row["node"].startswith("kwok-node-") for row in pods)

    # Each pod's times are the API server's own, as the audit log records them.
    assert env["audit_log"]["fetched"] is False
    assert env["audit_log"]["on_host"] == os.path.join(
        bench_vars["bench_workspace"], "results", bench_vars["bench_run_id"], "default", "audit.log.gz")
    created, bound = audit_bindings(env["audit_log"]["on_host"])
    for row in pods:
        assert created[row["pod"]] == row["created"]
        assert bound[row["pod"]] == row["bound"]

    with open(os.path.join(out, "timeline.csv"), encoding="utf-8") as handle:
        timeline = list(csv.DictReader(handle))
    assert int(timeline[-1]["bound_total"]) == 150
    assert all(int(row["backlog"]) == int(row["created_total"]) - int(row["bound_total"]) for row in timeline)
    # 150 pods on 20 nodes fit at once: capacity bounds nothing, and the stage that did is named with its evidence.
    assert summary["makespan_bound"]["seconds"] == 0.0 and summary["efficiency"] is None
    limited = summary["throughput_limited_by"]
    assert limited["stage"] in ("submission", "pod creation", "scheduling"), limited
    assert limited["backlog_max"] == max(int(row["backlog"]) for row in timeline)
    assert "bound at" in limited["evidence"]
    assert env["knobs"]["controller_manager_job_syncs"] == 5

    # The burst is a scenario: the same records as any other, one row per job, each with all its pods bound.
    assert (summary["scenario"], summary["unsupported"], summary["findings"]) == ("burst", [], [])
    jobs = read_rows(out, "jobs.csv")
    assert [row["job"] for row in jobs] == ["job-%05d" % index for index in range(50)]
    assert all(row["pods"] == "3" and row["all_bound"] and row["tenant"] == "default" for row in jobs)
    assert {row["job"] for row in pods} == {row["job"] for row in jobs}

    with open(os.path.join(out, "env.json"), encoding="utf-8") as handle:
        env = json.load(handle)
    assert env["versions"]["components"]["kube-apiserver"].startswith("Kubernetes v1.32")
    assert env["knobs"]["scheduler_api_qps"] == 1000
    assert env["system"]["kernel"]

    # The host's calibration, measured on this cluster before the scheduler came up.
    api, cpu, binding = env["calibration"]["api_create"], env["calibration"]["cpu"], env["calibration"]["api_binding"]
    for probe, figure in ((api, "jobs_per_s"), (cpu, "passes_per_s"), (binding, "pods_per_s")):
        spread = probe[figure]
        assert 0 < spread["min"] <= spread["median"] <= spread["max"] and len(probe["rounds_" + figure]) == 3
        assert probe["duration_s"] > 0
    assert api["ceiling_pods_per_s"] == round(api["jobs_per_s"]["median"] * 3, 1)
    assert summary["share_of_host_ceiling"] == round(summary["throughput_pods_per_s"] / api["ceiling_pods_per_s"], 4)
    assert summary["share_of_binding_ceiling"] == round(
        summary["throughput_pods_per_s"] / binding["ceiling_pods_per_s"], 4)
    assert env["knobs"]["calibrate"] is True
    # Nothing to reuse in a new workspace: measured by this run, and kept there for the next.
    assert env["calibration"]["reused"] is False and env["calibration"]["measured_by_run"] == env["run_id"]
    assert len(os.listdir(os.path.join(bench_vars["bench_workspace"], "calibrations"))) == 1
    # The audit log shows the probe's Jobs created and deleted, none touched by the job controller (no status, no
    # pod, no event), and the scheduler's first request after the last of them.
    calibration = [event for event in audit_events(env["audit_log"]["on_host"])
                   if (event.get("objectRef") or {}).get("namespace") == "sched-bench-calibration"]
    jobs = [event for event in calibration if event["objectRef"]["resource"] == "jobs"
            and not event["objectRef"].get("subresource")]
    created = [event for event in jobs if event["verb"] == "create" and event["responseStatus"]["code"] == 201]
    # One deletecollection by the load generator (the namespace controller sends its own after).
    creator = {event["user"]["username"] for event in created}
    deleted = [event for event in jobs if event["verb"] == "deletecollection" and event["responseStatus"]["code"] < 300
               and event["user"]["username"] in creator]
    assert len(created) == api["jobs_created"] and len(deleted) == 1
    assert max(event["stageTimestamp"] for event in created) < deleted[0]["stageTimestamp"]
    # Made by the two load generator processes (bench_submit_processes=2), each with its User-Agent.
    assert {event["userAgent"] for event in created} == {"sched-bench-loadgen/1", "sched-bench-loadgen/2"}
    writes = {(event["objectRef"]["resource"], event["objectRef"].get("subresource")) for event in calibration
              if event["verb"] in ("create", "update", "patch")}
    assert not writes & {("jobs", "status"), ("events", None)}, writes
    # The binding probe's pods: each created and bound once by the load generator itself, none by a controller or a
    # scheduler, and none of them a load test's.
    made = [event for event in calibration if event["verb"] == "create" and event["responseStatus"]["code"] == 201
            and event["objectRef"]["resource"] == "pods"]
    pods = {event["objectRef"]["name"] for event in made if not event["objectRef"].get("subresource")}
    bound = [event["objectRef"]["name"] for event in made if event["objectRef"].get("subresource") == "binding"]
    assert len(pods) == len(bound) == binding["pods_bound"] == 1200 and set(bound) == pods
    assert {event["userAgent"] for event in made if event["objectRef"].get("subresource") == "binding"} == {
        "sched-bench-loadgen/1", "sched-bench-loadgen/2"}
    assert {event["user"]["username"] for event in made} == {event["user"]["username"] for event in created}
    assert not [row for row in read_rows(out, "pods.csv") if row["pod"] in pods]
    scheduler_start = min(event["stageTimestamp"] for event in audit_events(env["audit_log"]["on_host"])
                          if event["user"]["username"] == "system:kube-scheduler")
    assert max(event["stageTimestamp"] for event in created + made) < scheduler_start

    run_dir = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"])
    with open(os.path.join(run_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "### Host calibration" in markdown and "| Share of host ceiling |" in markdown
    with open(os.path.join(run_dir, "report.csv"), encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert float(row["share_of_host_ceiling"]) == summary["share_of_host_ceiling"]
    assert float(row["ceiling_pods_per_s"]) == api["ceiling_pods_per_s"]

    # Where the time went: printed at the end, written to phases.json, shown in the report.
    assert "Where the time went (wall time" in runner.stdout.read()
    with open(os.path.join(run_dir, "phases.json"), encoding="utf-8") as handle:
        phases = json.load(handle)
    assert phases["run_id"] == bench_vars["bench_run_id"]
    spent = phases["hosts"]["localhost"]["phases_s"]
    ran = {"input checks", "Go and builds", "cluster start", "calibration", "scheduler deploy", "load test",
           "fetch", "teardown", "report"}
    assert ran <= set(spent), spent
    assert all(seconds > 0 for seconds in spent.values()), spent
    # Loose bounds: the playbook's own wall time, inside the runner's, and every second of it in one phase.
    assert 0.5 * elapsed < phases["wall_s"] <= elapsed
    assert abs(sum(spent.values()) - phases["wall_s"]) < 0.01 * phases["wall_s"]
    assert abs(phases["hosts"]["localhost"]["outside_load_test_s"] - (phases["wall_s"] - spent["load test"])) < 0.01
    assert "## Where the time went" in markdown

    workspace = bench_vars["bench_workspace"]
    assert processes_mentioning(workspace) == []
    assert not os.path.exists(os.path.join(workspace, "clusters", "bench"))

    # A second teardown finds nothing to stop.
    again = run_playbook(tmp_path, "playbooks/teardown.yml", bench_vars, label="teardown")
    assert again.rc == 0, failure_text(again)
    stops = task_results(again, "Stop the processes of the cluster and remove its directory")
    assert stops and not any(result.get("res", {}).get("changed") for result in stops)
    assert processes_mentioning(workspace) == []


def test_existing_run_dir_is_never_overwritten(tmp_path, bench_vars):
    existing = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"])
    os.makedirs(existing)
    marker = os.path.join(existing, "keep.txt")
    with open(marker, "w", encoding="utf-8") as handle:
        handle.write("earlier results")
    runner = run_playbook(tmp_path, "bench.yml", bench_vars, label="overwrite")
    assert runner.rc != 0
    assert "exists already and results are never overwritten" in failure_text(runner)
    assert os.listdir(existing) == ["keep.txt"]
    assert not os.path.exists(bench_vars["bench_workspace"])
