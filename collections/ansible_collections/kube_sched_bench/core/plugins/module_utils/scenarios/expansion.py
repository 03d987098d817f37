# -*- coding: utf-8 -*-
"""A checked scenario at another size (``scaled``: bench_scenario_scale), and expanded into the jobs to submit, in
submission order, the same on every call (``expand``; Poisson arrivals draw from a generator of their own seed); the
seed's burst as a scenario (``burst``, ``burst_job``) and the size of a run (``workload_size``). No I/O here.
"""
from __future__ import annotations

import copy
import random

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import millicores, size_bytes
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.checks import CLUSTER_FIELDS, room
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.cluster_checks import (
    topology_fit_problem,
    topology_problem,
)

US = 1_000_000
# The thresholds read on the scenario's clock: bench_scenario_scale scales them with it (scaled).
CLOCK_THRESHOLDS = ("stuck_partial_s", "stall_s", "high_priority_wait_s")
# The seed's burst: the workload of the bench_* knobs (bench_nodes, bench_jobs, ...) as the load test always ran it,
# not a file, so that its values live in one place (module_utils/knobs/table.py); burst() makes it a scenario.
BURST = "burst"


def scaled(scenario, factor, label="bench_scenario_scale"):
    """(scenario, problems): a checked scenario ``factor`` times its size, the same load per node at the same pace.

    The fake nodes (each pool's) and each group's jobs are multiplied by ``factor`` (at least one each; a trace keeps rows spread
    evenly over it, or repeats them), and so is the scenario's clock: phase starts, pod durations, trace offsets,
    the warm-up and the thresholds in seconds (CLOCK_THRESHOLDS). Rates stay as they are, so a rate group's jobs
    arrive over ``factor`` times the span. ``problems``: a gang that no longer fits the fewer nodes, named by group,
    a job that requires one domain of a topology level none holds any more, and nodes that no longer divide evenly
    among the topology's groups.
    """
    out = copy.deepcopy(scenario)
    out["scale"] = factor
    if factor == 1:
        return out, []

    def clock(seconds):
        return round(seconds * factor, 6)

    cluster = out["cluster"]
    for pool in cluster.get("pools") or ():
        pool["count"] = max(1, int(round(pool["count"] * factor)))
    cluster["nodes"] = (sum(pool["count"] for pool in cluster["pools"]) if "pools" in cluster
                        else max(1, int(round(cluster["nodes"] * factor))))
    if out["warmup_s"] is not None:
        out["warmup_s"] = clock(out["warmup_s"])
    out["thresholds"] = {name: clock(value) if name in CLOCK_THRESHOLDS else value
                         for name, value in out["thresholds"].items()}
    uneven = topology_problem(cluster)
    found = ["%s=%g is not allowed with scenario %s: %s" % (label, factor, scenario["name"], uneven)] if uneven else []
    for phase in out["phases"]:
        phase["start_s"] = clock(phase["start_s"])
        for group in phase["groups"]:
            if "trace" in group:
                rows = group["trace"]
                count = max(1, int(round(len(rows) * factor)))
                # The middle row of each of ``count`` equal stretches of the trace.
                picked = [rows[(2 * index + 1) * len(rows) // (2 * count)] for index in range(count)]
                group["trace"] = jobs = [dict(row, arrival_s=clock(row["arrival_s"]),
                                              pod_duration=clock(row["pod_duration"])) for row in picked]
            else:
                group["jobs"] = max(1, int(round(group["jobs"] * factor)))
                group["pod_duration"] = clock(group["pod_duration"])
                jobs = [group]
            unfit = [job for job in jobs if group["gang"] and room(cluster, job) < job["pods_per_job"]]
            if unfit:
                found.append("%s=%g is not allowed with scenario %s: it leaves %d fake nodes, which hold %d pods of "
                             "group %s at once, and its gangs need %d" % (
                                 label, factor, scenario["name"], cluster["nodes"], room(cluster, unfit[0]),
                                 group["name"], unfit[0]["pods_per_job"]))
            too_big = None if uneven or "trace" in group else topology_fit_problem(cluster, group)
            if too_big:
                found.append("%s=%g is not allowed with scenario %s: group %s: %s" % (
                    label, factor, scenario["name"], group["name"], too_big))
    return out, found


def _arrivals_us(group):
    """Arrival offsets in whole microseconds from the phase's start, one per job of the group, in job order."""
    arrival = group["arrival"]
    if arrival["kind"] == "trace":
        return [int(round(row["arrival_s"] * US)) for row in group["trace"]]
    if arrival["kind"] == "at_once":
        return [0] * group["jobs"]
    if arrival["kind"] == "rate":
        return [int(round(number * US / arrival["jobs_per_s"])) for number in range(group["jobs"])]
    draws, at = random.Random(arrival["seed"]), 0.0
    offsets = []
    for _ in range(group["jobs"]):
        at += draws.expovariate(arrival["jobs_per_s"])
        offsets.append(int(round(at * US)))
    return offsets


def expand(scenario):
    """The scenario's jobs in submission order: by arrival, then position in the group, then group order.

    Each job: index, name (<group>-<position>), group, tenant, priority, gang, pods_per_job, pod_millicores,
    pod_memory_bytes, pod_duration (s), arrival_s (from the scenario's start, to the microsecond), pod_gpu (its
    pods' GPUs) when its group asks for some, topology ({required: level} or {preferred: level}) when its group has
    one, and ``burst`` (true) for the jobs of burst(). Jobs that arrive together
    alternate between their groups, so that groups arriving at once compete.
    """
    entries = []
    order = 0
    for phase in scenario["phases"]:
        start_us = int(round(phase["start_s"] * US))
        for group in phase["groups"]:
            rows = group.get("trace") or [group] * group["jobs"]
            for position, (offset, row) in enumerate(zip(_arrivals_us(group), rows)):
                entries.append((start_us + offset, position, order, group, row))
            order += 1
    entries.sort(key=lambda entry: entry[:3])
    return [_job(index, position, group, row, at_us) for index, (at_us, position, _, group, row) in enumerate(entries)]


def _job(index, position, group, row, at_us):
    """One job of expand: the ``position``-th of ``group`` (``row``: the group, or its trace row), ``index``-th to
    be submitted, arriving ``at_us`` after the scenario's start."""
    return dict({
        "index": index, "name": "%s-%05d" % (group["name"], position), "group": group["name"],
        "tenant": row["tenant"], "priority": row["priority"], "gang": group["gang"],
        "pods_per_job": row["pods_per_job"], "pod_millicores": millicores(row["pod_cpu"]),
        "pod_memory_bytes": size_bytes(row["pod_memory"]), "pod_duration": row["pod_duration"],
        "arrival_s": round(at_us / US, 6),
    }, **({"pod_gpu": group["pod_gpu"]} if group.get("pod_gpu") else {}),
        **({"topology": dict(group["topology"])} if group.get("topology") else {}),
        **({"burst": True} if group.get("burst") else {}))


def burst(workload):
    """The seed's burst as a scenario: the workload of the bench_* knobs (``workload``: nodes, node_cpu,
    node_memory, node_pods, jobs, pods_per_job, pod_cpu, pod_memory, pod_duration), its jobs all arriving at once,
    one tenant, one priority. Its group and jobs are marked ``burst``: their native form is the seed's
    (sched_workloads.scenario_native), its cluster has no objects of its own, and a timeout fails the run
    (sched_scenario_records.timeout_is_finding), as the load test always did."""
    return {"name": BURST, "burst": True, "scale": 1,
            "description": "the seed's burst: the workload of the bench_* knobs, every job at once",
            "cluster": {name: workload[name] for name in CLUSTER_FIELDS}, "tenants": {"default": 1.0},
            "thresholds": {}, "warmup_s": None,
            "phases": [{"name": BURST, "start_s": 0.0, "groups": [_burst_group(workload)]}]}


def _burst_group(workload):
    """The one job group of burst(workload): its jobs, pods and their sizes are the knobs'."""
    return {"name": "job", "line": 0, "gang": False, "priority": 0, "burst": True, "arrival": {"kind": "at_once"},
            "tenant": "default", "jobs": int(workload["jobs"]), "pods_per_job": int(workload["pods_per_job"]),
            "pod_cpu": workload["pod_cpu"], "pod_memory": workload["pod_memory"],
            "pod_duration": workload["pod_duration"]}


def burst_job(index, workload):
    """Job ``index`` of burst(workload) as expand gives it, without making the others (its jobs all arrive at 0,
    in group order); ``workload`` needs only the pods' values (pods_per_job, pod_cpu, pod_memory, pod_duration):
    the count of jobs does not change a job."""
    group = _burst_group(dict(workload, jobs=index + 1))
    return _job(index, index, group, group, 0)


def workload_size(workload, scenario=None):
    """(fake nodes, pods) a run creates: the sum over a scenario's expanded jobs (``workload`` then holds the
    scenario's cluster, as the bench role merges it), or the burst's jobs x pods per job (what its expansion
    sums to, without making every job)."""
    pods = (sum(job["pods_per_job"] for job in expand(scenario)) if scenario
            else int(workload["jobs"]) * int(workload["pods_per_job"]))
    return int(workload["nodes"]), pods
