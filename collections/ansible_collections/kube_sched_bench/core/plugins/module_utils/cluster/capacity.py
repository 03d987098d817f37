# -*- coding: utf-8 -*-
"""What each scheduler may use of the fake cluster, and the shortest makespan that capacity allows.

A scheduler with queues may use its queue quota (bench_queue_quota) of the
cluster; the others the whole cluster. One that starts a job's pods together
(admitting whole jobs or placing whole gangs) has its capacity counted in jobs;
the others place pods one by one. Which is which, each scheduler's descriptor
says (module_utils/schedulers/).

The bound assumes every job arrives at once and scheduling takes no time:
with ``c`` jobs (or pods) running at once, ``n`` of them finish in
``ceil(n / c)`` waves of the pod duration, and the last wave is bound when the
one before it ends, so the makespan (first job created -> last pod bound) is at
least ``(waves - 1) * pod_duration``. With one wave capacity bounds nothing: the
bound is 0 and the efficiency (bound / makespan) is not defined. The cluster's room
is the sum over its pools (knobs/node_pools.py), GPUs counted; a cluster of pools
has no bound (its nodes vary: module_utils/scenarios/records.py, uniform_work). No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import (
    format_memory,
    millicores,
    size_bytes,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import DIRECT, queue_quota

# Schedulers whose queues bench_queue_quota caps, that start a job's pods together, and whose jobs get pods only
# once admitted: their descriptors' queue_quota, whole_job and admission.
QUEUE_SCHEDULERS = descriptors.with_key("queue_quota")
WHOLE_JOB_SCHEDULERS = descriptors.with_key("whole_job")
ADMITTING_SCHEDULERS = descriptors.with_key("admission")


def pods_made_by(scheduler, pod_creation):
    """What makes a job's pods appear (a key of sched_metrics.POD_MAKERS): the load test with bench_pod_creation
    direct (an admitting scheduler then admits pods that already exist), else the admission of an admitting
    scheduler, else the job controller."""
    if pod_creation == DIRECT:
        return "load test"
    return "admission" if scheduler in ADMITTING_SCHEDULERS else "job controller"


def _pod_room(pool, work):
    return node_pools.pod_room(pool, millicores(work["pod_cpu"]), size_bytes(work["pod_memory"]),
                               work.get("pod_gpu", 0))


def pods_per_node(work):
    """How many of the workload's pods one fake node holds (CPU, memory, GPUs and its pod count): a node of the
    first pool (the one size of the one-size form)."""
    return _pod_room(node_pools.pools(work)[0], work)


def pods_at_once(work):
    """How many of the workload's pods all fake nodes hold at once: the sum over the pools."""
    return sum(pool["count"] * _pod_room(pool, work) for pool in node_pools.pools(work))


def capacity(work, scheduler):
    """What ``scheduler`` may use: CPU (cores), memory (a quantity), pods, and what set it; the fake nodes' sums
    over their pools."""
    found = node_pools.totals(work)
    cpu, memory = found["millicores"], found["memory_bytes"]
    limited_by = "cluster"
    if scheduler in QUEUE_SCHEDULERS:
        quota = queue_quota(work["queue_quota"], work)
        cpu = min(cpu, millicores(quota["cpu"]))
        memory = min(memory, size_bytes(quota["memory"]))
        limited_by = "queue quota (%s)" % (work["queue_quota"] if isinstance(work["queue_quota"], str) else "explicit")
    return {"cpu": cpu / 1000.0, "memory": format_memory(memory), "memory_bytes": memory,
            "pods": found["pods"], "limited_by": limited_by}


def makespan_bound(work, scheduler):
    """The shortest makespan ``scheduler``'s capacity allows for the workload, and how it was worked out.

    Returns {"seconds", "waves", "at_once", "unit"}: ``at_once`` is how many units (jobs or pods) can run at the
    same time. ``seconds`` is None when not even one unit fits.
    """
    per_job = int(work["pods_per_job"])
    unit_pods = per_job if scheduler in WHOLE_JOB_SCHEDULERS else 1
    cap = capacity(work, scheduler)
    held = min(pods_at_once(work), int(round(cap["cpu"] * 1000)) // millicores(work["pod_cpu"]),
               cap["memory_bytes"] // size_bytes(work["pod_memory"]))
    at_once = held // unit_pods
    units = int(work["jobs"]) * per_job // unit_pods
    result = {"unit": "job" if unit_pods > 1 else "pod", "at_once": at_once, "waves": None, "seconds": None}
    if at_once >= 1:
        waves = -(-units // at_once)
        result.update(waves=waves, seconds=round((waves - 1) * float(work["pod_duration"]), 6))
    return result


def efficiency(bound_s, makespan_s):
    """bound / makespan, 1.0 when the scheduler was as fast as its capacity allows; None when not defined."""
    if not bound_s or not makespan_s:
        return None
    return round(bound_s / makespan_s, 3)


def capacity_summary(work, scheduler, makespan_s):
    """The summary.json entries: capacity, makespan_bound and efficiency."""
    bound = makespan_bound(work, scheduler)
    return {"capacity": capacity(work, scheduler), "makespan_bound": bound,
            "efficiency": efficiency(bound["seconds"], makespan_s)}


def capacity_note(work):
    """A sentence when the fake nodes cannot hold every pod at once, else None."""
    held = pods_at_once(work)
    total = int(work["jobs"]) * int(work["pods_per_job"])
    if held < total:
        return "the fake nodes hold %d pods at once but the load has %d; pods wait for earlier ones to finish" % (
            held, total)
    return None
