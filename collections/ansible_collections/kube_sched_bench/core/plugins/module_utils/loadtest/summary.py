# -*- coding: utf-8 -*-
"""summary.json of one load test, from what it measured: every key is defined in docs/metrics.md and described by
schemas/summary.schema.json (result/schema.py's SCHEMA_VERSION). No I/O here: load.py measures and results.py
writes."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import calibration, workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as metrics
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result.schema import SCHEMA_VERSION
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records


def build(run, measured, submission, outcome):
    """(summary, timeline rows, job records, pod records) of one load test.

    ``run``: scheduler, run_label, namespace, scenario (as loaded), workload (the knobs with the scenario's
    cluster), jobs (the scenario's expanded jobs), ceiling_pods_per_s. ``measured``: records (per pod), job_created
    and job_admitted (job name -> us; admitted None without an admission step), source ("audit" or "watch"), backlog
    (sched_metrics.from_release, the times already from the release; None: open loop).
    ``submission``: submitted (the jobs created), window_s, errors, pods_expected. ``outcome``: complete, reason,
    timed_out, pods_completed, started_at, finished_at, phases_s, host_load (sched_host_load.summarize, None when
    /proc could not be read), and the costs: scheduler_cost (None: no scheduler process measured), loadtest_cost,
    audit_log_bytes.
    """
    scenario, workload, scheduler = run["scenario"], run["workload"], run["scheduler"]
    records = measured["records"]
    summary, timeline = metrics.summarize(records, list(measured["job_created"].values()),
                                          submission["pods_expected"], submission["window_s"],
                                          len(submission["submitted"]))
    summary.update(_run_keys(run, measured, submission, outcome))
    summary.update(_capacity_keys(scenario, workload, scheduler, summary["makespan_s"]))
    summary["share_of_host_ceiling"] = calibration.share_of_ceiling(summary["throughput_pods_per_s"],
                                                                     run.get("ceiling_pods_per_s"))
    summary["share_of_binding_ceiling"] = calibration.share_of_ceiling(summary["throughput_pods_per_s"],
                                                                        run.get("binding_ceiling_pods_per_s"))
    # A held backlog was submitted before the release, which starts the makespan: submission cannot limit it.
    summary["backlog"] = measured.get("backlog")
    summary["throughput_limited_by"] = metrics.with_host_cpu(metrics.limiting_stage(
        timeline, summary["makespan_s"], None if summary["backlog"] else submission["window_s"],
        summary["makespan_bound"]["seconds"],
        "held backlog" if summary["backlog"] and summary["backlog"]["pods_held"] == summary["pods_created"]
        else capacity.pods_made_by(scheduler, workload["pod_creation"])), outcome["host_load"])
    if outcome["scheduler_cost"] is not None:
        summary["scheduler_cost"] = outcome["scheduler_cost"]
    jobs = scenario_records.job_records(submission["submitted"], measured["job_created"], records,
                                        measured["job_admitted"], measured.get("job_held"))
    pods = scenario_records.pod_records(records)
    summary.update(scenario_records.scenario_summary(
        scenario, jobs, pods, workloads.unsupported(scheduler, workloads.scenario_features(scenario, run["jobs"])),
        workload["timeout"] if outcome["timed_out"] else None))
    return summary, timeline, jobs, pods


def _run_keys(run, measured, submission, outcome):
    """The summary's keys that say which run it was and how it went (build's arguments)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "scheduler": run["scheduler"],
        "run_label": run["run_label"],
        "namespace": run["namespace"],
        # The scenario's jobs replace bench_jobs ... bench_pod_duration: one value each when they are all alike.
        "workload": scenario_records.summary_workload(run["scenario"], run["workload"], run["jobs"]),
        "pods_completed": outcome["pods_completed"],
        "timing_source": measured["source"],
        "complete": outcome["complete"],
        "reason": outcome["reason"],
        "submit_errors": submission["errors"][:20],
        "submit_error_count": len(submission["errors"]),
        "started_at": outcome["started_at"],
        "phases_s": outcome["phases_s"],
        "finished_at": outcome["finished_at"],
        "audit_log_bytes": outcome["audit_log_bytes"],
        "loadtest_cost": outcome["loadtest_cost"],
        "host_load": outcome["host_load"],
    }


def _capacity_keys(scenario, workload, scheduler, makespan_s):
    """capacity, makespan_bound and efficiency: what the scheduler may use of the fake cluster, and the shortest
    makespan that allows (a scenario of one size of job arriving at once), or only the capacity."""
    uniform = scenario_records.uniform_work(scenario, workload)
    if uniform:
        return capacity.capacity_summary(uniform, scheduler, makespan_s)
    # The makespan bound assumes one size of job arriving at once: such a scenario has its own measures.
    return dict(capacity=capacity.capacity(workload, scheduler),
                makespan_bound={"unit": None, "at_once": None, "waves": None, "seconds": None},
                efficiency=None)
