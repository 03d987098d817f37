# -*- coding: utf-8 -*-
"""Where a scenario's pods landed and what it cost GPU jobs: the GPUs allocated and stranded, how many topology groups
a job's pods span, the wait by job size and of the largest GPU jobs against single-GPU ones; and each node's place in
the topology, for pods.csv. From the job and pod records of metrics.py; definitions:
docs/metrics.md#placement. No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import US, latency_summary, percentile
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    node_index,
    topology_key,
    topology_labels,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.metrics import (
    milestones,
    pods_of,
    pool_of,
    preempted,
    release_us,
)

GPU = node_pools.GPU


def levels_of(cluster):
    """The names of the cluster's topology levels from the top (none without a topology)."""
    return [level["name"] for level in ((cluster.get("topology") or {}).get("levels") or [])]


def placer(cluster):
    """node name -> {level: the node's group at that level} (the values of its topology labels, objects/builders.py
    topology_labels); empty for no node (never bound) or a cluster without topology."""
    levels = (cluster.get("topology") or {}).get("levels") or []
    nodes = sum(pool["count"] for pool in node_pools.pools(cluster)) if levels else 0
    known = {}

    def place(node):
        if not levels or not node:
            return {}
        if node not in known:
            labels = topology_labels(levels, node_index(node), nodes)
            known[node] = {level["name"]: labels[topology_key(level["name"])] for level in levels}
        return known[node]
    return place


def _size(job):
    return job["pod_millicores"], job["pod_memory_bytes"], job.get("pod_gpu", 0)


class _Room:
    """The nodes' held requests, the pending pods' sizes, and from them the stranded GPUs: the free GPUs of nodes that
    fit none of the pending pods. A node's figure is recomputed when its load changes, every node's when the set of
    pending sizes does."""

    def __init__(self, cluster):
        self.found = node_pools.pools(cluster)
        self.unused = {pool["name"]: pool["count"] for pool in self.found}
        self.used, self.pools, self.cache, self.dirty = {}, {}, {}, set()
        self.pending, self.sizes, self.held, self.stranded_total = {}, None, 0, 0

    def hold(self, node, size, sign):
        if node not in self.used:
            self.pools[node] = pool_of(self.found, node)
            self.unused[self.pools[node]["name"]] -= 1
            self.used[node] = [0, 0, 0, 0]
        load = self.used[node]
        for place, amount in enumerate((size[0], size[1], 1, size[2])):
            load[place] += sign * amount
        self.held += sign * size[2]
        self.dirty.add(node)

    def wait(self, size, sign):
        self.pending[size] = self.pending.get(size, 0) + sign

    def _stranded(self, pool, load, sizes):
        free = int(pool["resources"].get(GPU, 0)) - load[3]
        fits = any(node_pools.pod_room(pool, *size, used=load) >= 1 for size in sizes)
        return free if free > 0 and not fits else 0

    def stranded(self):
        """GPUs stranded now (the pending sizes as they are)."""
        sizes = tuple(sorted(size for size, count in self.pending.items() if count > 0))
        if sizes != self.sizes:
            self.sizes, self.dirty = sizes, set(self.used)
        for node in self.dirty:
            value = self._stranded(self.pools[node], self.used[node], sizes)
            self.stranded_total += value - self.cache.get(node, 0)
            self.cache[node] = value
        self.dirty = set()
        empty = sum(max(0, self.unused[pool["name"]]) * self._stranded(pool, (0, 0, 0, 0), sizes) for pool in self.found)
        return self.stranded_total + empty

    def waiting(self):
        return any(count > 0 for count in self.pending.values())


def _gpu_events(jobs, pods):
    """(time, kind, what, +1/-1), by time: a pod pending from its creation to its binding (or deletion), and holding
    its requests on its node from its binding to its release."""
    by_name = {job["name"]: job for job in jobs}
    events = []
    for pod in pods:
        job = by_name.get(pod["job"])
        if job is None:
            continue
        size, bound = _size(job), pod.get("bound_us")
        waits_until = bound if bound is not None else pod.get("ended_us")
        if waits_until is None or waits_until > pod["created_us"]:
            events.append((pod["created_us"], "wait", size, 1))
            if waits_until is not None:
                events.append((waits_until, "wait", size, -1))
        if bound is not None:
            events += [(bound, "hold", (pod["node"], size), 1), (release_us(pod, job), "hold", (pod["node"], size), -1)]
    return sorted(events, key=lambda event: event[0])


def gpu_figures(cluster, jobs, pods, start_us, end_us):
    """The GPU allocation (time-weighted mean and peak share) and the stranded share over the pending time in [start,
    end]; None without GPUs in the cluster, a job asking for some, or a window."""
    total = node_pools.extended_totals(cluster).get(GPU, 0)
    if not total or not any(job.get("pod_gpu") for job in jobs) or start_us is None:
        return None
    room, events, applied = _Room(cluster), _gpu_events(jobs, pods), 0

    def apply_until(moment):
        nonlocal applied
        while applied < len(events) and events[applied][0] <= moment:
            _, kind, what, sign = events[applied]
            if kind == "wait":
                room.wait(what, sign)
            else:
                room.hold(what[0], what[1], sign)
            applied += 1

    apply_until(start_us)
    peak, held_us, pending_us, stranded_us, last = room.held, 0, 0, 0, start_us
    for moment in sorted({event[0] for event in events if start_us < event[0] <= end_us} | {end_us}):
        length = moment - last
        held_us += room.held * length
        if room.waiting() and length > 0:
            pending_us += length
            stranded_us += room.stranded() * length
        apply_until(moment)
        peak, last = max(peak, room.held), moment
    return {"total": total, "allocated_share_peak": round(peak / total, 4),
            "allocated_share_mean": round(held_us / total / (end_us - start_us), 4) if end_us > start_us else None,
            "pending_s": round(pending_us / US, 3),
            "stranded_share": round(stranded_us / total / pending_us, 4) if pending_us else None}


def _kept(job, pods):
    return [pod for pod in pods if pod.get("bound_us") is not None and not preempted(pod, job)]


def locality(cluster, jobs, pods):
    """Per topology level, how many of its groups the pods of each job of more than one pod span, over the jobs that
    had all their pods bound; None without topology or such a job."""
    names, place, grouped, spans = levels_of(cluster), placer(cluster), pods_of(pods), []
    if not names:
        return None
    for job in jobs:
        mine = grouped.get(job["name"], [])
        if job["pods_per_job"] > 1 and milestones(job, mine)["all_bound"] is not None:
            spans.append([len({place(pod["node"])[name] for pod in _kept(job, mine)}) for name in names])
    if not spans:
        return None
    return {"jobs": len(spans), "levels": [
        {"level": name, "one_group_share": round(sum(span[index] == 1 for span in spans) / len(spans), 4),
         "groups_p50": int(percentile([span[index] for span in spans], 0.5)), "groups_max": max(span[index] for span in spans)}
        for index, name in enumerate(names)]}


def _waits_ms(jobs, grouped):
    """job name -> all_bound - created in ms, for the jobs that reached all_bound."""
    out = {}
    for job in jobs:
        reached = milestones(job, grouped.get(job["name"], []))
        if reached["all_bound"] is not None and reached["created"] is not None:
            out[job["name"]] = (reached["all_bound"] - reached["created"]) / 1000.0
    return out


def by_pods(jobs, waits):
    """Per pods-per-job value, ascending: its jobs, those that reached all_bound and their waits' summary."""
    out = []
    for size in sorted({job["pods_per_job"] for job in jobs}):
        mine = [waits[job["name"]] for job in jobs if job["pods_per_job"] == size and job["name"] in waits]
        out.append({"pods": size, "jobs": sum(job["pods_per_job"] == size for job in jobs), "jobs_all_bound": len(mine),
                    "all_bound_ms": latency_summary(mine)})
    return out


def head_of_line(jobs, waits):
    """The wait of the jobs asking for the most GPUs against that of the single-GPU jobs; None unless both exist and
    differ."""
    gpus = {job["name"]: job["pods_per_job"] * job.get("pod_gpu", 0) for job in jobs}
    largest = max(gpus.values(), default=0)
    single = [name for name, count in gpus.items() if count == 1]
    if largest <= 1 or not single:
        return None
    big = [name for name, count in gpus.items() if count == largest]
    big_p50 = latency_summary([waits[name] for name in big if name in waits])["p50"]
    single_p50 = latency_summary([waits[name] for name in single if name in waits])["p50"]
    return {"largest_gpus": largest, "largest_jobs": len(big), "single_jobs": len(single),
            "largest_wait_p50_ms": big_p50, "single_wait_p50_ms": single_p50,
            "ratio": round(big_p50 / single_p50, 3) if big_p50 is not None and single_p50 else None}


def placement(cluster, jobs, pods, start_us, end_us):
    """summary.json's placement over the window [start, end] (scenario_metrics.window)."""
    waits = _waits_ms(jobs, pods_of(pods))
    return {"gpu": gpu_figures(cluster, jobs, pods, start_us, end_us), "locality": locality(cluster, jobs, pods),
            "by_pods": by_pods(jobs, waits), "head_of_line": head_of_line(jobs, waits)}
