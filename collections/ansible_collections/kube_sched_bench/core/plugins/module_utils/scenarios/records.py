# -*- coding: utf-8 -*-
"""A scenario run's per-job and per-pod records, and what summary.json says of it. No I/O here.

Every run is a scenario's, the seed's burst too (expansion.burst). The load test (module_utils/loadtest/load.py)
measures pods from the audit log's server timestamps or its watch (module_utils/metrics/audit.py); this joins them
with the scenario's jobs (expansion.expand), gives metrics.scenario_metrics its records, and makes the rows of
jobs.csv and pods.csv.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import format_time_us, pod_rows
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import placement
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.field_rules import SCENARIO_POD_FIELDS
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.findings import checks, findings_of
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.metrics import (
    gang_progress,
    milestones,
    pods_of,
    preempted,
    scenario_metrics,
    span,
)

# jobs.csv: one row per submitted job; times are the API server's (RFC 3339), empty when not reached or, for
# admitted, when the scheduler has no admission step (or the run was timed from the watch). Each column:
# docs/metrics.md#jobscsv.
JOB_FIELDS = ["job", "group", "tenant", "priority", "gang", "pods", "pod_millicores", "pod_memory_bytes",
              "pod_duration", "arrival_s", "created", "admitted", "first_pod_created", "first_bound", "all_bound",
              "all_bound_ms", "full_gang_ms", "held_created"]


def pod_fields(cluster):
    """pods.csv's header for a scenario's ``cluster``: SCENARIO_POD_FIELDS with one column per topology level, named
    after it, right after ``node`` (docs/metrics.md#podscsv)."""
    at = SCENARIO_POD_FIELDS.index("node") + 1
    return SCENARIO_POD_FIELDS[:at] + placement.levels_of(cluster) + SCENARIO_POD_FIELDS[at:]
# how_ended: bound then deleted before its duration; deleted otherwise during the run (never bound, or after its
# duration, finished or not); seen finished by the watch and not deleted; still there when the run was measured (the
# clean-up removes it). A deletion comes first: its time is one of the records the metrics read.
ENDINGS = ("preempted", "deleted", "completed", "cleanup")
# summary.json's workload entries that a scenario's jobs give, one value when they are all alike.
JOB_VALUES = ("jobs", "pods_per_job", "pod_cpu", "pod_memory", "pod_duration")


def uniform_work(scenario, workload):
    """``workload`` with the values of the scenario's jobs (JOB_VALUES) when they are all alike and arrive at once
    (one phase starting at 0 with one job group arriving at_once, as the burst's) on fake nodes of one size, else
    None: its jobs or its nodes vary (jobs.csv, scenario.json). The makespan bound holds for such a workload only
    (sched_capacity.makespan_bound)."""
    phases = scenario["phases"]
    groups = [group for phase in phases for group in phase["groups"]]
    if "pools" in scenario["cluster"] or len(phases) != 1 or phases[0]["start_s"] or len(groups) != 1 or "trace" in groups[0] \
            or groups[0]["arrival"]["kind"] != "at_once":
        return None
    return dict(workload, **{name: groups[0][name] for name in JOB_VALUES})


def summary_workload(scenario, workload, jobs):
    """summary.json's workload: uniform_work, or ``workload`` with the count of ``jobs`` and no single value for
    what varies per job; of a cluster of pools, the count of its nodes and no single size (scenario.json has them)."""
    out = uniform_work(scenario, workload) or dict(workload, jobs=len(jobs), pods_per_job=None, pod_cpu=None,
                                                   pod_memory=None, pod_duration=None)
    if workload.get("pools"):
        out.update(node_cpu=None, node_memory=None, node_pods=None)
    return {name: value for name, value in out.items() if name not in node_pools.SHAPE_KEYS}


def timeout_is_finding(scenario):
    """Whether jobs still waiting when the wait runs out are a finding of the scenario (what a scheduler does with
    it is its result) rather than a failed run: for every scenario but the seed's burst, whose timeout has always
    failed the run."""
    return not scenario.get("burst")


def job_records(jobs, job_created, pods, job_admitted=None, job_held=None):
    """The scenario's submitted ``jobs`` with ``created_us`` and ``admitted_us`` for sched_scenario_metrics.

    ``job_created``: job name -> creation (us) from the audit log; a job without one (pods created directly, or
    timed from the watch) was created with its first pod. ``job_admitted``: job name -> first admission (us) from
    the audit log (sched_metrics.AuditTimes); None where the scheduler has no admission step or the run was timed
    from the watch, and then every admitted_us is None. ``job_held``: job name -> true creation of a job created
    before the release of a held backlog (sched_metrics.from_release), jobs.csv's held_created.
    """
    first_pod = {}
    for pod in pods:
        if pod["job"] not in first_pod or pod["created_us"] < first_pod[pod["job"]]:
            first_pod[pod["job"]] = pod["created_us"]
    admitted, held = job_admitted or {}, job_held or {}
    return [dict(job, created_us=job_created.get(job["name"], first_pod.get(job["name"])),
                 admitted_us=admitted.get(job["name"]), held_created_us=held.get(job["name"])) for job in jobs]


def pod_records(records):
    """The measured pods with ``ended_us``: their first deletion (preempted, evicted, or removed with a failed job)
    from the audit log or the watch; None when never deleted during the run. ``completed_us``, when the watch saw
    the pod finish, stays for pods.csv; the metrics do not read it (a pod holds its requests for its duration)."""
    return [dict(record, ended_us=record.get("ended_us")) for record in records]


def how_ended(pod, job):
    """(one of ENDINGS, when in us or None) for a measured pod of ``job`` (None: not one of the scenario's)."""
    if pod.get("ended_us") is not None:
        return ("preempted" if job is not None and preempted(pod, job) else "deleted"), pod["ended_us"]
    if pod.get("completed_us") is not None:
        return "completed", pod["completed_us"]
    return "cleanup", None


def _time(value):
    return format_time_us(value) if value is not None else ""


def job_rows(jobs, pods):
    """Rows of jobs.csv from job_records and pod_records. all_bound_ms: until the job's pods were all bound (a
    pod may have ended before the last was bound); full_gang_ms: until a gang job first held all its pods at once."""
    grouped = pods_of(pods)
    end_us = span(jobs, pods)[1]
    rows = []
    for job in jobs:
        reached = milestones(job, grouped.get(job["name"], []))
        done = reached["all_bound"] is not None and reached["created"] is not None
        full = (gang_progress(job, grouped.get(job["name"], []), end_us)[0]
                if job["gang"] and end_us is not None and reached["created"] is not None else None)
        rows.append({
            "job": job["name"], "group": job["group"], "tenant": job["tenant"], "priority": job["priority"],
            "gang": str(job["gang"]).lower(), "pods": job["pods_per_job"], "pod_millicores": job["pod_millicores"],
            "pod_memory_bytes": job["pod_memory_bytes"], "pod_duration": job["pod_duration"],
            "arrival_s": job["arrival_s"],
            "created": _time(reached["created"]), "admitted": _time(reached["admitted"]),
            "first_pod_created": _time(reached["first_pod_created"]), "first_bound": _time(reached["first_bound"]),
            "all_bound": _time(reached["all_bound"]),
            "all_bound_ms": "%.3f" % ((reached["all_bound"] - reached["created"]) / 1000.0) if done else "",
            "full_gang_ms": "%.3f" % ((full - reached["created"]) / 1000.0) if full is not None else "",
            "held_created": _time(job.get("held_created_us")),
        })
    return rows


def scenario_pod_rows(records, jobs, cluster=None):
    """Rows of pods.csv: sched_metrics.pod_rows, its node's group at each topology level of ``cluster`` (placement.placer),
    how each pod ended (how_ended) and its job's tenant and priority."""
    by_name = {job["name"]: job for job in jobs}
    rows = pod_rows(records)
    place = placement.placer(cluster or {})
    for row, record in zip(rows, records):
        job = by_name.get(row["job"])
        ending, when = how_ended(record, job)
        row.update(place(row["node"]))
        row.update(ended=_time(when), how_ended=ending, tenant=(job or {}).get("tenant", ""),
                   priority=(job or {}).get("priority", ""), completed=_time(record.get("completed_us")),
                   held_created=_time(record.get("held_created_us")))
    return rows


def scenario_summary(scenario, jobs, pods, unsupported, timed_out_s=None):
    """The entries summary.json gets for a scenario: scenario, scenario_scale, scenario_metrics, unsupported,
    findings and checks (the findings of the thresholds as records).

    ``unsupported``: the features the scheduler cannot express (sched_workloads.unsupported); their promises are
    not its own, so they make no findings. ``timed_out_s``: the wait's timeout when it ran out first (a finding).
    """
    metrics, _ = scenario_metrics(scenario, jobs, pods)
    records = checks(scenario["thresholds"], metrics, unsupported)
    return {"scenario": scenario["name"], "scenario_scale": scenario.get("scale", 1),
            "scenario_metrics": metrics, "unsupported": list(unsupported),
            "findings": findings_of(records, metrics, timed_out_s), "checks": records}
