# -*- coding: utf-8 -*-
"""The upstream kube-scheduling-perf matrix as a shipped choice (make bench-matrix, hack/bench_matrix.py).

Four shapes of the same 10,000 pods on 1,000 fake nodes, from many one-pod jobs to one job of every pod, each
with and without gang: eight scenarios generated from one table (SHAPES), each run by bench.yml like any
scenario file, so every scheduler gets its native objects, audit timing, limiting stage and share of the
ceilings. ``scale`` shrinks the pods and nodes for a smaller host (0.1: 1,000 pods on 100 nodes) and keeps each
shape: the job count scales (at least one job) and the pods per job make up the total. Every pod fits at once
(the seed's pods and nodes: 1 CPU each on nodes of 32), so a run measures placing, not waiting for room.

``rows`` turns the runs' summaries into the table scheduler x shape; no I/O here.
"""
from __future__ import annotations

FULL_PODS, FULL_NODES = 10000, 1000
# (jobs, pods per job) at full size: the upstream matrix.
SHAPES = ((10000, 1), (500, 20), (20, 500), (1, 10000))
NODE = {"node_cpu": "32", "node_memory": "256Gi", "node_pods": 110}
# Pods outlive the slowest scheduler's placing at the documented scales, so that none completes (and frees room
# or changes what is counted) before the last is bound.
POD = {"pod_cpu": "1", "pod_memory": "200Mi", "pod_duration": 600}
COLUMNS = ("host", "scheduler", "shape", "gang", "jobs", "pods_per_job", "complete", "makespan_s",
           "throughput_pods_per_s", "share_of_binding_ceiling", "latency_p50_ms", "latency_p99_ms",
           "full_gang_p50_ms", "full_gang_p99_ms", "limited_by", "run_id")


def sizes(scale):
    """[(shape label, jobs, pods per job)] of the four shapes at ``scale`` (0 < scale <= 1)."""
    total = max(1, int(round(FULL_PODS * scale)))
    out = []
    for jobs, pods_per_job in SHAPES:
        scaled_jobs = max(1, min(total, int(round(jobs * scale))))
        out.append(("%dx%d" % (jobs, pods_per_job), scaled_jobs, max(1, int(round(total / scaled_jobs)))))
    return out


def nodes(scale):
    return max(1, int(round(FULL_NODES * scale)))


def scenario_name(label, gang):
    return "matrix-%s%s" % (label, "-gang" if gang else "")


def scenarios(scale):
    """{scenario name: scenario document (for a YAML file)} of the eight cells at ``scale``."""
    out = {}
    for label, jobs, pods_per_job in sizes(scale):
        for gang in (False, True):
            out[scenario_name(label, gang)] = {
                "description": "The upstream matrix's %s shape%s at scale %g: %d jobs of %d pods on %d fake nodes, "
                               "all at once." % (label, " with gang" if gang else "", scale, jobs, pods_per_job,
                                                  nodes(scale)),
                "cluster": dict(NODE, nodes=nodes(scale)),
                "phases": [{"name": "matrix", "groups": [dict(POD, name="jobs", jobs=jobs, pods_per_job=pods_per_job,
                                                              gang=gang, arrival={"kind": "at_once"})]}],
            }
    return out


def _p(stats, key):
    return (stats or {}).get(key)


def row(host, scheduler, run_id, summary):
    """One cell of the table from a run's summary.json."""
    group = (summary.get("scenario_metrics") or {}).get("gang") or {}
    workload = summary.get("workload") or {}
    name = summary.get("scenario") or ""
    gang = name.endswith("-gang")
    return {
        "host": host, "scheduler": scheduler, "shape": name[len("matrix-"):].replace("-gang", ""), "gang": gang,
        "jobs": summary.get("jobs_submitted"), "pods_per_job": workload.get("pods_per_job"),
        "complete": summary.get("complete"), "makespan_s": summary.get("makespan_s"),
        "throughput_pods_per_s": summary.get("throughput_pods_per_s"),
        "share_of_binding_ceiling": summary.get("share_of_binding_ceiling"),
        "latency_p50_ms": _p(summary.get("latency_ms"), "p50"), "latency_p99_ms": _p(summary.get("latency_ms"), "p99"),
        "full_gang_p50_ms": _p(group.get("time_to_full_gang_ms"), "p50") if gang else None,
        "full_gang_p99_ms": _p(group.get("time_to_full_gang_ms"), "p99") if gang else None,
        "limited_by": (summary.get("throughput_limited_by") or {}).get("stage") or summary.get("reason"),
        "run_id": run_id,
    }


def order(rows):
    """Rows by host, scheduler, then the shapes in the table's order, without gang first."""
    labels = ["%dx%d" % shape for shape in SHAPES]
    return sorted(rows, key=lambda r: (r["host"], r["scheduler"], labels.index(r["shape"])
                                       if r["shape"] in labels else len(labels), r["gang"]))


def _cell(value, digits=1):
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "%.*f" % (digits, value)
    return str(value)


def markdown(rows, scale):
    """The table scheduler x shape as Markdown, one line per cell."""
    lines = ["Matrix at scale %g (%d pods on %d fake nodes per shape): makespan, throughput, share of the binding "
             "ceiling, pod latency p50/p99, time to full gang p50/p99 (gang shapes), what limited it." % (
                 scale, max(1, int(round(FULL_PODS * scale))), nodes(scale)), "",
             "| host | scheduler | shape | gang | makespan s | pods/s | share of binding ceiling | p50 / p99 ms | "
             "full gang p50 / p99 ms | limited by |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in order(rows):
        makespan = _cell(r["makespan_s"]) + ("" if r["complete"] else " (incomplete)")
        lines.append("| %s | %s | %s (%s x %s) | %s | %s | %s | %s | %s / %s | %s | %s |" % (
            r["host"], r["scheduler"], r["shape"], _cell(r["jobs"]), _cell(r["pods_per_job"]), _cell(r["gang"]),
            makespan, _cell(r["throughput_pods_per_s"]), _cell(r["share_of_binding_ceiling"], 3),
            _cell(r["latency_p50_ms"], 0), _cell(r["latency_p99_ms"], 0),
            ("%s / %s" % (_cell(r["full_gang_p50_ms"], 0), _cell(r["full_gang_p99_ms"], 0))) if r["gang"] else "",
            _cell(r["limited_by"])))
    return "\n".join(lines) + "\n"
